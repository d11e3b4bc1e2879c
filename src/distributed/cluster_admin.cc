// ShutdownCluster (flowvm/server.h): one call to a master.
#include "core/timer.h"
#include "distributed/grpc_util.h"
#include "distributed/wire.h"
#include "flowvm/master.pb.h"
#include "flowvm/server.h"

namespace flowvm {

Status ShutdownCluster(const std::string& target, std::vector<std::string>* stopped,
                       std::vector<std::string>* unreachable, int64_t timeout_ms,
                       const ClusterCredentials& credentials) {
  constexpr char kScheme[] = "grpc://";
  if (target.rfind(kScheme, 0) != 0)
    return errors::InvalidArgument("'", target, "' is not a grpc://host:port target");
  const std::string address = target.substr(sizeof(kScheme) - 1);
  FLOWVM_ASSIGN_OR_RETURN(std::shared_ptr<const TransportSecurity> security, TransportSecurity::Create(credentials));
  auto channel = NewChannel(address, *security);
  grpc::GenericStub stub(channel);
  WirePayload payload;
  grpc::ByteBuffer response_bytes;
  const grpc::Status result = BlockingCall(&stub, method::kShutdownCluster, payload.Seal(ShutdownClusterRequest()),
                                           &response_bytes,
                                           std::chrono::milliseconds(ClampTimeoutMs(timeout_ms)), *security);
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
