// GrpcDispatcher: the one gRPC service of a server. Every method of the
// worker and master services (worker.proto, master.proto) arrives here as
// raw bytes and goes to the handler registered under its name, which
// parses the envelope itself (distributed/wire.h) and answers through
// `reply`, possibly later and on another thread. A method nobody
// registered is Unimplemented; a malformed request is InvalidArgument from
// its handler. Thread-safe once serving: handlers are registered before.
#ifndef FLOWVM_DISTRIBUTED_GRPC_SERVICE_H_
#define FLOWVM_DISTRIBUTED_GRPC_SERVICE_H_

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/support/byte_buffer.h>

#include <functional>
#include <map>
#include <string>

namespace flowvm {

class GrpcDispatcher : public grpc::CallbackGenericService {
 public:
  // `reply` must be called exactly once; `response` is sent if the status
  // is OK. Both stay valid until then.
  using Reply = std::function<void(const grpc::Status& status)>;
  using Handler =
      std::function<void(const grpc::ByteBuffer& request, grpc::ByteBuffer* response, Reply reply)>;

  // Decides, before its request is read, whether a call may go on; a
  // status that is not OK refuses it with that status.
  using Authorizer = std::function<grpc::Status(grpc::GenericCallbackServerContext* context)>;

  void Register(const std::string& method, Handler handler) { handlers_[method] = std::move(handler); }
  void SetAuthorizer(Authorizer authorizer) { authorizer_ = std::move(authorizer); }
  const Authorizer& authorizer() const { return authorizer_; }
  // The handler of a method, or null (fuzzing and tests call them directly).
  const Handler* Find(const std::string& method) const;

  grpc::ServerGenericBidiReactor* CreateReactor(grpc::GenericCallbackServerContext* context) override;

 private:
  std::map<std::string, Handler> handlers_;
  Authorizer authorizer_;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_GRPC_SERVICE_H_
