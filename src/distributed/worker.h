// Worker: the worker service of one task (paper 3.2), independent of the
// transport: the gRPC service (grpc_service.h) and an in-process master call
// the same methods.
//
// It owns the partitions masters register (each one executor per device of
// this task) and the state of the steps it takes part in: a step exists
// from the first RunGraph, RecvTensor or AbortStep that names it until
// CleanupGraph (or, for a step no master ever ran here, until it has been
// idle for a while), so a peer may fetch a tensor after this task's part of
// the step has finished. A step of a graph that sends nothing to other
// tasks (SendsToOtherTasks, client_terminated.h) ends with its RunGraph
// instead: no peer can ask for its tensors, and its master sends no
// CleanupGraph for it when the step succeeded.
//
// Thread-safe. Methods never block on other tasks: waiting happens in
// callbacks.
#ifndef FLOWVM_DISTRIBUTED_WORKER_H_
#define FLOWVM_DISTRIBUTED_WORKER_H_

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "distributed/graph_limits.h"
#include "distributed/remote_rendezvous.h"
#include "distributed/wire.h"
#include "distributed/worker_interface.h"
#include "kernels/framework/cancellation.h"
#include "runtime/device.h"
#include "runtime/executor.h"

namespace flowvm {

struct WorkerEnv {
  std::string task;                // "/job:worker/replica:0/task:1"
  DeviceMgr* devices = nullptr;    // this task's, not owned
  ThreadPool* pool = nullptr;      // not owned; may be null
  // Other tasks' workers, by task name (for remote Recvs); null if unknown.
  std::function<WorkerInterface*(const std::string& task)> worker_for;
  // Partitions larger than this are refused.
  GraphLimits graph_limits;
  // Tensor bytes a step may hold on this task at once (0: no limit).
  int64_t max_step_memory_bytes = 0;
  // Called (once) when a master asks this task to shut down.
  std::function<void(const std::string& reason)> on_shutdown;
};

class Worker : public WorkerInterface {
 public:
  explicit Worker(WorkerEnv env);
  ~Worker() override;

  void GetStatusAsync(CallOptions* opts, const GetStatusRequest* request, GetStatusResponse* response,
                      Done done) override;
  void RegisterGraphAsync(CallOptions* opts, const RegisterGraphRequest* request, RegisterGraphResponse* response,
                          Done done) override;
  void DeregisterGraphAsync(CallOptions* opts, const DeregisterGraphRequest* request,
                            DeregisterGraphResponse* response, Done done) override;
  void RunGraphAsync(CallOptions* opts, RunGraphCall* call, Done done) override;
  void RecvTensorAsync(CallOptions* opts, RecvTensorCall* call, Done done) override;
  void CleanupGraphAsync(CallOptions* opts, const CleanupGraphRequest* request, CleanupGraphResponse* response,
                         Done done) override;
  void AbortStepAsync(CallOptions* opts, const AbortStepRequest* request, AbortStepResponse* response,
                      Done done) override;
  void ShutdownAsync(CallOptions* opts, const ShutdownRequest* request, ShutdownResponse* response,
                     Done done) override;
  void ResetContainersAsync(CallOptions* opts, const ResetContainersRequest* request,
                            ResetContainersResponse* response, Done done) override;

  // Large tensors are served in chunks: the transport parks a tensor here
  // after sending its first chunk and takes it back for the next ones, or
  // before a response that names it out of band (TensorMeta.out_of_band).
  // A parked tensor dies with its step; a step that exists only to hold
  // parked tensors ends when the last is taken (or when it has been idle
  // as long as any step).
  void ParkTensor(int64_t step_id, const std::string& key, const Tensor& t);
  // NotFound if nothing is parked under the key (the step was cleaned up).
  Status ParkedTensor(int64_t step_id, const std::string& key, Tensor* t);
  // The same without building an error: false if nothing is parked.
  bool FindParkedTensor(int64_t step_id, const std::string& key, Tensor* t);
  void UnparkTensor(int64_t step_id, const std::string& key);
  // ParkedTensor, then UnparkTensor.
  Status TakeParkedTensor(int64_t step_id, const std::string& key, Tensor* t);
  // One chunk of a tensor a client or master uploads (PutTensor) for a
  // request that will name it out of band: the chunk's `meta` (byte_size
  // of total_byte_size, at `offset`), its bytes read from `reader`. The
  // whole tensor is parked when its last byte came.
  Status PutTensorChunk(int64_t step_id, const std::string& key, const TensorMeta& meta, uint64_t offset,
                        WireReader* reader);

  // Aborts every step (the server is stopping); later steps fail with
  // `reason`. StopAndWait also waits until no RunGraph is running.
  void AbortAll(const Status& reason);
  void StopAndWait(const Status& reason);

  uint64_t incarnation() const { return incarnation_; }
  const std::string& task() const { return env_.task; }
  // Steps with state here (tests).
  size_t live_steps() const;

 private:
  struct Graph;
  struct Step;
  // `holding`: the caller only parks a tensor; a step it creates ends when
  // its last parked tensor is taken, unless another call uses it.
  std::shared_ptr<Step> FindOrCreateStep(int64_t step_id, bool holding = false);
  // Unparks; ends a holding step that has nothing left. REQUIRES: mu_ held.
  void UnparkLocked(int64_t step_id, const std::string& key);
  void RemoveIdleSteps();

  const WorkerEnv env_;
  RendezvousEnv rendezvous_env_;
  const uint64_t incarnation_;

  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<Graph>> graphs_;  // by handle
  std::map<int64_t, std::shared_ptr<Step>> steps_;
  Status stopped_;
  int64_t next_graph_ = 1;
  int running_ = 0;  // RunGraphs in progress
  std::condition_variable idle_cv_;
  std::atomic<int64_t> last_scan_ns_{0};
  std::atomic<bool> shutting_down_{false};
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_WORKER_H_
