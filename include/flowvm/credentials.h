// ClusterCredentials: how a process proves that it belongs to a cluster and
// checks that the tasks it talks to do (paper 3.3 leaves this out; anyone
// who reaches an unprotected server can run any graph on it, including ones
// that read and write files).
//
// Two independent mechanisms, usually both:
//   - TLS (gRPC's SSL credentials, PEM files). A server presents cert_file /
//     key_file; given ca_file too, it also requires every caller (clients
//     and the other tasks) to present a certificate signed by that CA
//     (mutual authentication). A client verifies the server's certificate
//     against ca_file and, given cert_file / key_file, presents its own.
//     Tasks call each other with their server certificate, so it must be
//     valid for client use as well (no extendedKeyUsage, or both).
//   - A cluster token: a shared secret every call carries in its metadata;
//     a server that has one refuses calls without it (PermissionDenied).
//     Over a connection without TLS it travels in the clear.
//
// A token never appears on a command line: it comes from a file
// (--token-file) or from FLOWVM_CLUSTER_TOKEN. Values are plain data.
#ifndef FLOWVM_CREDENTIALS_H_
#define FLOWVM_CREDENTIALS_H_

#include <string>

#include "flowvm/status.h"

namespace flowvm {

// The environment variables FromEnvironment reads.
inline constexpr char kClusterTokenEnv[] = "FLOWVM_CLUSTER_TOKEN";
inline constexpr char kTlsCaEnv[] = "FLOWVM_TLS_CA";
inline constexpr char kTlsCertEnv[] = "FLOWVM_TLS_CERT";
inline constexpr char kTlsKeyEnv[] = "FLOWVM_TLS_KEY";

struct ClusterCredentials {
  std::string ca_file;    // PEM CA certificate(s)
  std::string cert_file;  // PEM certificate chain of this process
  std::string key_file;   // PEM private key of cert_file
  std::string token;      // the cluster token itself ("" = none)

  bool tls() const { return !ca_file.empty() || !cert_file.empty() || !key_file.empty(); }
  bool empty() const { return !tls() && token.empty(); }

  // Fills the fields that are empty from FLOWVM_CLUSTER_TOKEN,
  // FLOWVM_TLS_CA, FLOWVM_TLS_CERT and FLOWVM_TLS_KEY. InvalidArgument if
  // the token in the environment is malformed (see LoadClusterToken).
  Status FillFromEnvironment();
};

// The token of `token_file` (its first line; surrounding whitespace is
// dropped). A token is 16 to 4096 printable ASCII characters without
// spaces: a shorter one is too easy to guess. NotFound / PermissionDenied
// naming the file; InvalidArgument for a malformed token (never quoting
// it). `token_file` "" gives "".
StatusOr<std::string> LoadClusterToken(const std::string& token_file);
// Checks a token given directly (from the environment): the same rules.
Status ValidateClusterToken(const std::string& token, const std::string& where);

}  // namespace flowvm

#endif  // FLOWVM_CREDENTIALS_H_
