#include "distributed/grpc_service.h"

namespace flowvm {

namespace {

// One unary call: read the request, run the handler, write the response
// and finish. Deletes itself when gRPC is done with it.
class UnaryReactor : public grpc::ServerGenericBidiReactor {
 public:
  UnaryReactor(const GrpcDispatcher* dispatcher, grpc::GenericCallbackServerContext* context)
      : dispatcher_(dispatcher), context_(context) {
    if (dispatcher_->authorizer()) {
      grpc::Status allowed = dispatcher_->authorizer()(context_);
      if (!allowed.ok()) {
        Finish(allowed);
        return;
      }
    }
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "the call carried no request message"));
      return;
    }
    const GrpcDispatcher::Handler* handler = dispatcher_->Find(context_->method());
    if (handler == nullptr) {
      Finish(grpc::Status(grpc::StatusCode::UNIMPLEMENTED, "no method '" + context_->method() + "' on this server"));
      return;
    }
    (*handler)(request_, &response_, [this](const grpc::Status& status) {
      if (status.ok()) {
        StartWriteAndFinish(&response_, grpc::WriteOptions(), status);
      } else {
        Finish(status);
      }
    });
  }

  void OnDone() override { delete this; }

 private:
  const GrpcDispatcher* dispatcher_;
  grpc::GenericCallbackServerContext* context_;
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
};

}  // namespace

const GrpcDispatcher::Handler* GrpcDispatcher::Find(const std::string& method) const {
  auto it = handlers_.find(method);
  return it == handlers_.end() ? nullptr : &it->second;
}

grpc::ServerGenericBidiReactor* GrpcDispatcher::CreateReactor(grpc::GenericCallbackServerContext* context) {
  return new UnaryReactor(this, context);
}

}  // namespace flowvm
