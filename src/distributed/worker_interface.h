// WorkerInterface: asynchronous calls to one worker, in this process (the
// Worker itself) or in another (GrpcRemoteWorker). Each call's `done` runs
// exactly once, possibly on another thread and possibly before the call
// returns; the request and response objects must outlive it. Tensors travel
// beside the protobuf headers, so an in-process call copies no bytes.
#ifndef FLOWVM_DISTRIBUTED_WORKER_INTERFACE_H_
#define FLOWVM_DISTRIBUTED_WORKER_INTERFACE_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "core/timer.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "flowvm/worker.pb.h"

namespace flowvm {

// (ClampTimeoutMs, core/timer.h, cuts timeouts to a year.)

// Per-call options: a deadline (every RPC has one) and a way to cancel the
// call from another thread. Thread-safe.
class CallOptions {
 public:
  using Clock = std::chrono::steady_clock;
  explicit CallOptions(Clock::duration timeout) : deadline_(Clock::now() + timeout) {}
  Clock::time_point deadline() const { return deadline_; }
  // The transport installs how to cancel the call in flight; if the call
  // was already cancelled, `cancel` runs at once.
  void SetCanceller(std::function<void()> cancel);
  void ClearCanceller();
  // Cancels the call (it completes with Cancelled) if it is in flight.
  void StartCancel();
  // Whether StartCancel was called.
  bool cancelled();

 private:
  std::recursive_mutex mu_;
  Clock::time_point deadline_;
  bool cancelled_ = false;
  std::function<void()> cancel_;
};

// Turns an asynchronous call's `done` into a wait: pass Callback() as the
// call's `done`, then Wait() for its status. One call per waiter.
class CallWaiter {
 public:
  std::function<void(const Status&)> Callback() {
    return [this](const Status& s) {
      std::lock_guard<std::mutex> lock(mu_);
      status_ = s;
      done_ = true;
      cv_.notify_all();
    };
  }
  Status Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return done_; });
    return status_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool done_ = false;
  Status status_;
};

// RunGraph with its tensors: send_tensors[i] goes with request.send(i), and
// on success recv_tensors[i] with response.recv(i).
struct RunGraphCall {
  RunGraphRequest request;
  std::vector<Tensor> send_tensors;
  RunGraphResponse response;
  std::vector<Tensor> recv_tensors;
  // Set by the transport: bytes of sends and recvs that travelled beside
  // the RunGraph messages (too large for one).
  uint64_t out_of_band_bytes = 0;
};

// RecvTensor with its tensor (the whole tensor, however many chunks it took).
struct RecvTensorCall {
  RecvTensorRequest request;
  Tensor tensor;
  bool is_dead = false;
  // The error is the sender's step abort status (a consequence of an error
  // elsewhere), not a failure of the transport or of this request.
  bool peer_aborted = false;
};

class WorkerInterface {
 public:
  using Done = std::function<void(const Status&)>;
  virtual ~WorkerInterface() = default;

  virtual void GetStatusAsync(CallOptions* opts, const GetStatusRequest* request, GetStatusResponse* response,
                              Done done) = 0;
  virtual void RegisterGraphAsync(CallOptions* opts, const RegisterGraphRequest* request,
                                  RegisterGraphResponse* response, Done done) = 0;
  virtual void DeregisterGraphAsync(CallOptions* opts, const DeregisterGraphRequest* request,
                                    DeregisterGraphResponse* response, Done done) = 0;
  // `done` gets the transport's status; the step's own status is in
  // call->response (status_code, status_message, derived_error).
  virtual void RunGraphAsync(CallOptions* opts, RunGraphCall* call, Done done) = 0;
  virtual void RecvTensorAsync(CallOptions* opts, RecvTensorCall* call, Done done) = 0;
  virtual void CleanupGraphAsync(CallOptions* opts, const CleanupGraphRequest* request,
                                 CleanupGraphResponse* response, Done done) = 0;
  virtual void AbortStepAsync(CallOptions* opts, const AbortStepRequest* request, AbortStepResponse* response,
                              Done done) = 0;
  // Asks the task's server to stop (it answers first).
  virtual void ShutdownAsync(CallOptions* opts, const ShutdownRequest* request, ShutdownResponse* response,
                             Done done) = 0;
  virtual void ResetContainersAsync(CallOptions* opts, const ResetContainersRequest* request,
                                    ResetContainersResponse* response, Done done) = 0;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_WORKER_INTERFACE_H_
