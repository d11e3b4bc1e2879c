#include "distributed/transport_security.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include "distributed/grpc_util.h"

namespace flowvm {

namespace {

constexpr int kRefusalLinesPerSecond = 5;

StatusOr<std::string> ReadPem(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return errors::NotFound("cannot open the ", what, " file '", path, "': ", std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.find("-----BEGIN ") == std::string::npos)
    return errors::InvalidArgument("the ", what, " file '", path, "' is not PEM (no -----BEGIN line)");
  return text;
}

// Compares without stopping at the first difference, so the time a refusal
// takes says nothing about how much of a guess was right (only its length).
bool SameSecret(const std::string& a, const std::string& b) {
  if (a.size() != b.size() || b.empty()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace

StatusOr<std::shared_ptr<const TransportSecurity>> TransportSecurity::Create(const ClusterCredentials& credentials) {
  ClusterCredentials c = credentials;
  FLOWVM_RETURN_IF_ERROR(c.FillFromEnvironment());
  std::shared_ptr<TransportSecurity> s(new TransportSecurity());
  if (!c.token.empty()) FLOWVM_RETURN_IF_ERROR(ValidateClusterToken(c.token, "the credentials"));
  s->token_ = c.token;
  if (c.cert_file.empty() != c.key_file.empty())
    return errors::InvalidArgument(c.cert_file.empty() ? "a TLS key (" + c.key_file + ") needs its certificate"
                                                       : "a TLS certificate (" + c.cert_file + ") needs its key");
  s->tls_ = c.tls();
  if (!c.ca_file.empty()) {
    FLOWVM_ASSIGN_OR_RETURN(s->ca_, ReadPem(c.ca_file, "TLS CA"));
  }
  if (!c.cert_file.empty()) {
    FLOWVM_ASSIGN_OR_RETURN(s->cert_, ReadPem(c.cert_file, "TLS certificate"));
  }
  if (!c.key_file.empty()) {
    FLOWVM_ASSIGN_OR_RETURN(s->key_, ReadPem(c.key_file, "TLS key"));
  }
  return std::shared_ptr<const TransportSecurity>(std::move(s));
}

std::shared_ptr<const TransportSecurity> TransportSecurity::Insecure() {
  static const std::shared_ptr<const TransportSecurity> insecure(new TransportSecurity());
  return insecure;
}

std::shared_ptr<grpc::ChannelCredentials> TransportSecurity::ChannelCredentials() const {
  if (!tls_) return grpc::InsecureChannelCredentials();
  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ca_;  // "" : the system's roots
  options.pem_cert_chain = cert_;
  options.pem_private_key = key_;
  return grpc::SslCredentials(options);
}

void TransportSecurity::Authorize(grpc::ClientContext* context) const {
  if (!token_.empty()) context->AddMetadata(kClusterTokenMetadata, token_);
}

StatusOr<std::shared_ptr<grpc::ServerCredentials>> TransportSecurity::ServerCredentials() const {
  if (!tls_) return grpc::InsecureServerCredentials();
  if (cert_.empty() || key_.empty())
    return errors::FailedPrecondition(
        "a TLS server needs a certificate and its key (--tls-cert, --tls-key); a CA alone only checks peers");
  grpc::SslServerCredentialsOptions options(ca_.empty() ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                                        : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  options.pem_root_certs = ca_;
  options.pem_key_cert_pairs.push_back({key_, cert_});
  return grpc::SslServerCredentials(options);
}

grpc::Status TransportSecurity::CheckCall(grpc::GenericCallbackServerContext* context, const std::string& task) const {
  if (token_.empty()) return grpc::Status::OK;
  const auto& metadata = context->client_metadata();
  auto it = metadata.find(kClusterTokenMetadata);
  if (it == metadata.end()) return CheckToken(nullptr, context->method(), context->peer(), task);
  const std::string presented(it->second.data(), it->second.size());
  return CheckToken(&presented, context->method(), context->peer(), task);
}

grpc::Status TransportSecurity::CheckToken(const std::string* presented, const std::string& method,
                                           const std::string& peer, const std::string& task) const {
  if (token_.empty()) return grpc::Status::OK;
  const char* why = nullptr;
  if (presented == nullptr) {
    why = "carried no cluster token";
  } else if (!SameSecret(*presented, token_)) {
    why = "carried a wrong cluster token";
  } else {
    return grpc::Status::OK;
  }
  LogRefusal("flowvm server: task " + task + " refused " + method + " from " + peer + ": it " + why);
  return ToGrpcStatus(errors::PermissionDenied("task ", task, " refused the call ", method, ": it ", why,
                                               " (give the cluster's token with --token-file or ", kClusterTokenEnv,
                                               ")"));
}

void TransportSecurity::LogRefusal(const std::string& line) const {
  std::lock_guard<std::mutex> lock(log_mu_);
  const auto now = std::chrono::steady_clock::now();
  if (now - log_window_ >= std::chrono::seconds(1)) {
    if (suppressed_ > 0)
      std::fprintf(stderr, "flowvm server: %lld more refused calls not shown\n", static_cast<long long>(suppressed_));
    log_window_ = now;
    logged_in_window_ = 0;
    suppressed_ = 0;
  }
  if (logged_in_window_ >= kRefusalLinesPerSecond) {
    ++suppressed_;
    return;
  }
  ++logged_in_window_;
  std::fprintf(stderr, "%s\n", line.c_str());
  std::fflush(stderr);
}

std::string TransportSecurity::Describe() const {
  std::string s;
  if (!tls_) {
    s = "no TLS";
  } else if (!ca_.empty()) {
    s = "TLS, callers must present a certificate of the cluster's CA";
  } else {
    s = "TLS (callers are not asked for certificates)";
  }
  s += token_.empty() ? ", no cluster token" : ", cluster token required";
  return s;
}

}  // namespace flowvm
