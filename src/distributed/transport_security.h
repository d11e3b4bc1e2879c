// TransportSecurity: ClusterCredentials (flowvm/credentials.h) made into
// what gRPC needs, once per process: channel credentials and the token
// every outgoing call carries, server credentials and the check every
// incoming call passes. Immutable after Create; thread-safe.
#ifndef FLOWVM_DISTRIBUTED_TRANSPORT_SECURITY_H_
#define FLOWVM_DISTRIBUTED_TRANSPORT_SECURITY_H_

#include <grpcpp/generic/async_generic_service.h>
#include <grpcpp/grpcpp.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>

#include "flowvm/credentials.h"
#include "flowvm/status.h"

namespace flowvm {

// The metadata key of the cluster token.
inline constexpr char kClusterTokenMetadata[] = "flowvm-cluster-token";

class TransportSecurity {
 public:
  // Fills the fields `credentials` leaves empty from the environment
  // (ClusterCredentials::FillFromEnvironment), as every server and client
  // does, then reads the PEM files: NotFound / InvalidArgument naming a file that
  // is missing, empty or not PEM; InvalidArgument for a certificate
  // without its key or the reverse.
  static StatusOr<std::shared_ptr<const TransportSecurity>> Create(const ClusterCredentials& credentials);
  // No TLS, no token.
  static std::shared_ptr<const TransportSecurity> Insecure();

  bool tls() const { return tls_; }
  // A server with a CA requires callers' certificates.
  bool mutual_tls() const { return tls_ && !ca_.empty() && !cert_.empty(); }
  bool has_token() const { return !token_.empty(); }

  // Client side.
  std::shared_ptr<grpc::ChannelCredentials> ChannelCredentials() const;
  // Adds the token (if any) to a call's metadata.
  void Authorize(grpc::ClientContext* context) const;

  // Server side. FailedPrecondition if TLS was asked for without a
  // certificate and key to present.
  StatusOr<std::shared_ptr<grpc::ServerCredentials>> ServerCredentials() const;
  // OK, or PermissionDenied (for the caller; never quoting a token) if the
  // call lacks the token or carries another. `task` names this server in
  // the message. Each refusal is logged to stderr with the method and the
  // peer (at most a few lines a second; the rest are counted).
  grpc::Status CheckCall(grpc::GenericCallbackServerContext* context, const std::string& task) const;
  // The same, given what the call carried (null: no token), its method and
  // its peer: for CheckCall, and for fuzzing without a gRPC call.
  grpc::Status CheckToken(const std::string* presented, const std::string& method, const std::string& peer,
                          const std::string& task) const;

  // "TLS with client certificates, cluster token" / "no TLS, no token", for
  // the server's startup line.
  std::string Describe() const;

 private:
  TransportSecurity() = default;
  void LogRefusal(const std::string& line) const;

  bool tls_ = false;
  std::string ca_, cert_, key_;  // PEM contents
  std::string token_;

  mutable std::mutex log_mu_;
  mutable std::chrono::steady_clock::time_point log_window_{};
  mutable int logged_in_window_ = 0;
  mutable int64_t suppressed_ = 0;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_TRANSPORT_SECURITY_H_
