// GrpcRemoteWorker: a WorkerInterface that calls another task's worker
// service over a gRPC channel. Every call has a deadline (the CallOptions',
// or kDefaultRpcTimeout) and can be cancelled through its CallOptions. A
// RecvTensor whose tensor comes in chunks asks for each chunk in turn and
// assembles the tensor before `done`. Thread-safe.
#ifndef FLOWVM_DISTRIBUTED_GRPC_REMOTE_WORKER_H_
#define FLOWVM_DISTRIBUTED_GRPC_REMOTE_WORKER_H_

#include <grpcpp/generic/generic_stub.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "distributed/transport_security.h"
#include "distributed/wire.h"
#include "distributed/worker_interface.h"

namespace flowvm {

inline constexpr auto kDefaultRpcTimeout = std::chrono::seconds(60);

class GrpcRemoteWorker : public WorkerInterface {
 public:
  // `peer` names the task in errors ("task /job:ps/replica:0/task:0 (host:port)").
  // A message carries at most `max_message_bytes` of tensor bytes; larger
  // RunGraph sends are put first (PutTensor) in chunks of that size.
  // Every call carries `security`'s token.
  GrpcRemoteWorker(std::shared_ptr<grpc::Channel> channel, std::string peer,
                   std::shared_ptr<const TransportSecurity> security, uint64_t max_message_bytes = kDefaultChunkBytes);
  // Cancels the calls in flight and waits until their callbacks are done.
  ~GrpcRemoteWorker() override;

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

  // Uploads `t` (kept alive until `done`) in chunks for a later request
  // that names it out of band under (step_id, key).
  void PutTensorAsync(CallOptions* opts, int64_t step_id, const std::string& key, const Tensor& t, Done done);

 private:
  // Sends `request` (already sealed) to `method`; `on_response` gets the
  // response bytes (or the error) once.
  void Call(CallOptions* opts, const char* method, grpc::ByteBuffer request,
            std::function<void(const Status&, bool peer_abort, const grpc::ByteBuffer&)> on_response);
  template <class Req, class Resp>
  void Unary(CallOptions* opts, const char* method, const Req* request, Resp* response, Done done);
  void RecvChunk(CallOptions* opts, RecvTensorCall* call, std::shared_ptr<struct ChunkState> state, Done done);
  void PutChunk(CallOptions* opts, int64_t step_id, const std::string& key, const Tensor& t, uint64_t offset,
                Done done);
  // Runs fn(i, done_i) for i = 0..n-1 one after another; `done` gets the
  // first error, or OK.
  static void Sequence(size_t n, std::function<void(size_t, Done)> fn, Done done);

  std::mutex mu_;
  std::condition_variable idle_cv_;
  std::set<grpc::ClientContext*> in_flight_;
  std::atomic<bool> closing_{false};  // the destructor cancels what is in flight
  std::shared_ptr<grpc::Channel> channel_;
  grpc::GenericStub stub_;
  const std::string peer_;
  const std::shared_ptr<const TransportSecurity> security_;
  const uint64_t max_message_bytes_;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_GRPC_REMOTE_WORKER_H_
