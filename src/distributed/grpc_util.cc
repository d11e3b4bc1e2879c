#include "distributed/grpc_util.h"

#include <climits>

namespace flowvm {

namespace {

// A ping every 2 s when calls are waiting; no answer within 5 s closes the
// connection and fails its calls with Unavailable: a dead or stopped peer
// is found within about 7 s.
constexpr int kKeepaliveTimeMs = 2000;
constexpr int kKeepaliveTimeoutMs = 5000;

}  // namespace

grpc::Status ToGrpcStatus(const Status& s, bool peer_abort) {
  if (s.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(s.code()), s.message(),
                      peer_abort ? kPeerAbortDetail : kFlowvmErrorDetail);
}

Status FromGrpcStatus(const grpc::Status& s, const std::string& peer, bool* peer_abort, bool cancelled_here) {
  if (peer_abort != nullptr) *peer_abort = false;
  if (s.ok()) return Status::OK();
  const Code code = static_cast<Code>(s.error_code());
  if (s.error_details() == kPeerAbortDetail) {
    if (peer_abort != nullptr) *peer_abort = true;
    return Status(code, s.error_message());
  }
  if (s.error_details() == kFlowvmErrorDetail) return Status(code, s.error_message());
  // The transport's own error: say who could not be reached.
  switch (code) {
    case Code::kUnavailable:
      return errors::Unavailable(peer, " is unreachable: ", s.error_message());
    case Code::kDeadlineExceeded:
      return errors::DeadlineExceeded(peer, " did not answer in time: ", s.error_message());
    case Code::kResourceExhausted:
      return errors::ResourceExhausted(peer, " refused a message larger than it accepts (the server's limit "
                                             "max_message_bytes): ", s.error_message());
    case Code::kCancelled:
      if (!cancelled_here) return errors::Unavailable(peer, " ended the call before answering (stopping?)");
      return errors::Cancelled("the call to ", peer, " was cancelled");
    default:
      return Status(code, peer + ": " + s.error_message());
  }
}

grpc::ChannelArguments ChannelArgs() {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  args.SetInt(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  args.SetInt(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  // Reconnect quickly after a peer restarts (the default backs off to 2 min).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  // Each task's channels are its own: no sharing of subchannels between
  // channels to the same address, so one task's broken connection is not
  // another's.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return args;
}

std::shared_ptr<grpc::Channel> NewChannel(const std::string& address, const TransportSecurity& security) {
  return grpc::CreateCustomChannel(address, security.ChannelCredentials(), ChannelArgs());
}

grpc::Status BlockingCall(grpc::GenericStub* stub, const std::string& method, const grpc::ByteBuffer& request,
                          grpc::ByteBuffer* response, std::chrono::milliseconds timeout,
                          const TransportSecurity& security) {
  grpc::ClientContext context;
  security.Authorize(&context);
  context.set_deadline(std::chrono::system_clock::now() + timeout);
  grpc::Status result;
  grpc::CompletionQueue cq;
  {
    std::unique_ptr<grpc::GenericClientAsyncResponseReader> call =
        stub->PrepareUnaryCall(&context, method, request, &cq);
    call->StartCall();
    call->Finish(response, &result, &result);
    void* tag = nullptr;
    bool ok = false;
    // The one event: Finish's, whatever happened (it carries the status).
    if (!cq.Next(&tag, &ok) || tag != &result)
      result = grpc::Status(grpc::StatusCode::INTERNAL, "the completion queue lost the call");
  }
  cq.Shutdown();
  void* tag = nullptr;
  bool ok = false;
  while (cq.Next(&tag, &ok)) {
  }
  return result;
}

void ConfigureServerBuilder(grpc::ServerBuilder* builder) {
  builder->SetMaxReceiveMessageSize(INT_MAX);
  builder->SetMaxSendMessageSize(INT_MAX);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIME_MS, kKeepaliveTimeMs);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_TIMEOUT_MS, kKeepaliveTimeoutMs);
  builder->AddChannelArgument(GRPC_ARG_KEEPALIVE_PERMIT_WITHOUT_CALLS, 1);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PINGS_WITHOUT_DATA, 0);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MIN_RECV_PING_INTERVAL_WITHOUT_DATA_MS, 1000);
  builder->AddChannelArgument(GRPC_ARG_HTTP2_MAX_PING_STRIKES, 0);
  // A port is never shared with another process.
  builder->AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
}

}  // namespace flowvm
