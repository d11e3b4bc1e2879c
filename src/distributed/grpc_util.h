// Glue between flowvm and gRPC: status conversion, the channel and server
// settings every flowvm connection uses, and the names of the service
// methods (worker.proto, master.proto).
#ifndef FLOWVM_DISTRIBUTED_GRPC_UTIL_H_
#define FLOWVM_DISTRIBUTED_GRPC_UTIL_H_

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>

#include <chrono>

#include <memory>
#include <string>

#include "distributed/transport_security.h"
#include "flowvm/status.h"

namespace flowvm {

// Our own errors carry this in the status details, so the receiver tells
// them from the transport's (connection refused, deadline, ...).
inline constexpr char kFlowvmErrorDetail[] = "flowvm";
// ... and this when the error is the sender's step abort status.
inline constexpr char kPeerAbortDetail[] = "flowvm:peer-abort";

grpc::Status ToGrpcStatus(const Status& s, bool peer_abort = false);
// `peer` names the other side ("task /job:ps/replica:0/task:0 (localhost:2222)")
// in transport errors. Sets *peer_abort if the error was the sender's step
// abort status. A call the transport reports cancelled that this side did
// not cancel (`cancelled_here`) was ended by the peer, which does that when
// its server stops: Unavailable naming the peer, not Cancelled, so that a
// client can tell it from its own cancellation and recover.
Status FromGrpcStatus(const grpc::Status& s, const std::string& peer, bool* peer_abort = nullptr,
                      bool cancelled_here = false);

// Keepalive pings find a peer that died or hangs while a call waits (a
// Recv may wait long for its tensor); no message size limit.
grpc::ChannelArguments ChannelArgs();
// A channel to `address` with `security`'s credentials (TLS or not).
std::shared_ptr<grpc::Channel> NewChannel(const std::string& address, const TransportSecurity& security);
// The same settings on the server side (it must accept the pings).
void ConfigureServerBuilder(grpc::ServerBuilder* builder);

// One unary call to `method` that blocks until it completes or `timeout`
// passes, waiting on a completion queue of its own (no callback thread is
// woken to wake the caller). For clients: grpc:// sessions, ShutdownCluster.
// The call carries `security`'s token.
grpc::Status BlockingCall(grpc::GenericStub* stub, const std::string& method, const grpc::ByteBuffer& request,
                          grpc::ByteBuffer* response, std::chrono::milliseconds timeout,
                          const TransportSecurity& security);

// Method names as gRPC sends them.
namespace method {
inline constexpr char kGetStatus[] = "/flowvm.WorkerService/GetStatus";
inline constexpr char kRegisterGraph[] = "/flowvm.WorkerService/RegisterGraph";
inline constexpr char kDeregisterGraph[] = "/flowvm.WorkerService/DeregisterGraph";
inline constexpr char kRunGraph[] = "/flowvm.WorkerService/RunGraph";
inline constexpr char kRecvTensor[] = "/flowvm.WorkerService/RecvTensor";
inline constexpr char kPutTensor[] = "/flowvm.WorkerService/PutTensor";
inline constexpr char kCleanupGraph[] = "/flowvm.WorkerService/CleanupGraph";
inline constexpr char kAbortStep[] = "/flowvm.WorkerService/AbortStep";
inline constexpr char kShutdown[] = "/flowvm.WorkerService/Shutdown";
inline constexpr char kResetContainers[] = "/flowvm.WorkerService/ResetContainers";
inline constexpr char kCreateSession[] = "/flowvm.MasterService/CreateSession";
inline constexpr char kExtendSession[] = "/flowvm.MasterService/ExtendSession";
inline constexpr char kRunStep[] = "/flowvm.MasterService/RunStep";
inline constexpr char kCloseSession[] = "/flowvm.MasterService/CloseSession";
inline constexpr char kListDevices[] = "/flowvm.MasterService/ListDevices";
inline constexpr char kReset[] = "/flowvm.MasterService/Reset";
inline constexpr char kShutdownCluster[] = "/flowvm.MasterService/ShutdownCluster";
}  // namespace method

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_GRPC_UTIL_H_
