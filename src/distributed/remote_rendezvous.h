// RemoteRendezvous: the rendezvous of one step on one worker (paper 3.2).
// A Send leaves its tensor in the local table, where a Recv of this task or
// a peer's RecvTensor picks it up. A Recv whose key names a device of this
// task waits in the local table; one whose Send is on another task pulls
// the tensor from that task's worker with RecvTensor, under the same key.
//
// Abort fails every waiting Recv (local or remote: the RPCs in flight are
// cancelled) and every later Send and Recv with the abort status.
// Thread-safe; shared by the step's partitions and by the RPCs serving it.
#ifndef FLOWVM_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
#define FLOWVM_DISTRIBUTED_REMOTE_RENDEZVOUS_H_

#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "distributed/worker_interface.h"
#include "runtime/local_rendezvous.h"

namespace flowvm {

class DeviceMgr;

// What a step's rendezvous needs from its worker.
struct RendezvousEnv {
  const DeviceMgr* devices = nullptr;  // this task's
  std::string task;                    // "/job:worker/replica:0/task:1"
  // The worker of another task, by task name; null if unknown.
  std::function<WorkerInterface*(const std::string& task)> worker_for;
};

class RemoteRendezvous : public Rendezvous {
 public:
  RemoteRendezvous(const RendezvousEnv* env, int64_t step_id) : env_(env), step_id_(step_id) {}
  ~RemoteRendezvous() override;

  Status Send(const std::string& key, const Tensor& value, bool is_dead) override;
  void RecvAsync(const std::string& key, DoneCallback done) override;
  void StartAbort(const Status& status) override;

  // Only this task's table (serving a peer's RecvTensor).
  void RecvLocalAsync(const std::string& key, DoneCallback done) { local_.RecvAsync(key, std::move(done)); }
  Status abort_status() const { return local_.abort_status(); }
  // Errors that came from a peer (its abort status, returned by its
  // RecvTensor), so the worker can tell a consequence from a cause.
  bool IsPeerError(const Status& s) const;
  // How long a remote Recv waits at most (the step's deadline, or long),
  // and whether float32 comes as bfloat16. Set before the step runs.
  void set_recv_timeout(std::chrono::milliseconds t) { recv_timeout_ = t; }
  // `tensors` (not owned, may be null): names ("a:0") compressed even
  // when `all` is false; must outlive the step.
  void set_compress_float(bool all, const std::set<std::string>* tensors) {
    compress_all_ = all;
    compressed_tensors_ = tensors;
  }

 private:
  void RecvRemote(const std::string& key, const std::string& src_task, bool compress, DoneCallback done);

  const RendezvousEnv* const env_;
  const int64_t step_id_;
  LocalRendezvous local_;
  std::chrono::milliseconds recv_timeout_{std::chrono::hours(24 * 7)};
  bool compress_all_ = false;
  const std::set<std::string>* compressed_tensors_ = nullptr;

  mutable std::mutex mu_;
  std::set<std::shared_ptr<CallOptions>> calls_;  // remote Recvs in flight
  Status aborted_;
  std::vector<std::string> peer_errors_;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_REMOTE_RENDEZVOUS_H_
