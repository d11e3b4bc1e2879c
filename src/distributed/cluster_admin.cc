// ShutdownCluster (flowvm/server.h): one call to a master.
#include <grpcpp/generic/generic_stub.h>

#include <condition_variable>
#include <mutex>

#include "distributed/grpc_util.h"
#include "distributed/wire.h"
#include "flowvm/master.pb.h"
#include "flowvm/server.h"

namespace flowvm {

Status ShutdownCluster(const std::string& target, std::vector<std::string>* stopped,
                       std::vector<std::string>* unreachable, int64_t timeout_ms) {
  constexpr char kScheme[] = "grpc://";
  if (target.rfind(kScheme, 0) != 0)
    return errors::InvalidArgument("'", target, "' is not a grpc://host:port target");
  const std::string address = target.substr(sizeof(kScheme) - 1);
  auto channel = NewChannel(address);
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
  WirePayload payload;
  grpc::ByteBuffer request = payload.Seal(ShutdownClusterRequest());
  grpc::ByteBuffer response_bytes;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  grpc::Status result;
  stub.UnaryCall(&context, method::kShutdownCluster, grpc::StubOptions(), &request, &response_bytes,
                 [&](const grpc::Status& s) {
                   std::lock_guard<std::mutex> lock(mu);
                   result = s;
                   done = true;
                   cv.notify_all();
                 });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return done; });
  }
  FLOWVM_RETURN_IF_ERROR(FromGrpcStatus(result, "the master at " + target));
  ShutdownClusterResponse response;
  WireReader reader;
  FLOWVM_RETURN_IF_ERROR(reader.Open(response_bytes, &response));
  if (stopped != nullptr) stopped->assign(response.stopped_task().begin(), response.stopped_task().end());
  if (unreachable != nullptr)
    unreachable->assign(response.unreachable_task().begin(), response.unreachable_task().end());
  return Status::OK();
}

}  // namespace flowvm
