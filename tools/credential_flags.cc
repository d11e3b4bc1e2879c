#include "credential_flags.h"

#include <filesystem>

namespace flowvm::cli {

namespace {
const char* const kFlags[] = {"--token-file", "--tls-ca", "--tls-cert", "--tls-key"};
}  // namespace

std::set<std::string> WithCredentialFlags(std::set<std::string> flags) {
  for (const char* f : kFlags) flags.insert(f);
  flags.insert("--token");
  return flags;
}

StatusOr<ClusterCredentials> CredentialsFromFlags(const ParsedArgs& args) {
  if (!args.all("--token").empty())
    return errors::InvalidArgument(
        "--token would show the cluster token to every user of this host (ps, /proc): put it in a file only you "
        "can read and pass --token-file FILE, or set FLOWVM_CLUSTER_TOKEN");
  ClusterCredentials c;
  FLOWVM_ASSIGN_OR_RETURN(c.token, LoadClusterToken(args.last("--token-file", "")));
  c.ca_file = args.last("--tls-ca", "");
  c.cert_file = args.last("--tls-cert", "");
  c.key_file = args.last("--tls-key", "");
  return c;
}

std::string Absolute(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.lexically_normal().string();
}

std::vector<std::string> CredentialFlagsFor(const ParsedArgs& args) {
  std::vector<std::string> out;
  for (const char* f : kFlags) {
    const std::string value = args.last(f, "");
    if (value.empty()) continue;
    out.push_back(f);
    out.push_back(Absolute(value));
  }
  return out;
}

}  // namespace flowvm::cli
