#include "flowvm/credentials.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace flowvm {

namespace {

constexpr size_t kMinTokenChars = 16;
constexpr size_t kMaxTokenChars = 4096;

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

void FillFrom(const char* env, std::string* field) {
  if (!field->empty()) return;
  const char* value = std::getenv(env);
  if (value != nullptr) *field = value;
}

}  // namespace

Status ValidateClusterToken(const std::string& token, const std::string& where) {
  if (token.size() < kMinTokenChars)
    return errors::InvalidArgument("the cluster token in ", where, " has ", token.size(),
                                   " characters; it needs at least ", kMinTokenChars,
                                   " (e.g. `openssl rand -hex 32 > token`)");
  if (token.size() > kMaxTokenChars)
    return errors::InvalidArgument("the cluster token in ", where, " is longer than ", kMaxTokenChars, " characters");
  for (char c : token)
    if (c <= ' ' || c > '~')
      return errors::InvalidArgument("the cluster token in ", where,
                                     " has a character that is not printable ASCII (or is a space)");
  return Status::OK();
}

StatusOr<std::string> LoadClusterToken(const std::string& token_file) {
  if (token_file.empty()) return std::string();
  std::ifstream in(token_file);
  if (!in) {
    const int err = errno;
    if (err == EACCES) return errors::PermissionDenied("cannot read the token file '", token_file, "'");
    return errors::NotFound("cannot open the token file '", token_file, "': ", std::strerror(err));
  }
  std::string line;
  std::getline(in, line);
  const std::string token = Trim(line);
  FLOWVM_RETURN_IF_ERROR(ValidateClusterToken(token, "'" + token_file + "'"));
  return token;
}

Status ClusterCredentials::FillFromEnvironment() {
  if (token.empty()) {
    const char* value = std::getenv(kClusterTokenEnv);
    if (value != nullptr && *value != '\0') {
      const std::string t = Trim(value);
      FLOWVM_RETURN_IF_ERROR(ValidateClusterToken(t, kClusterTokenEnv));
      token = t;
    }
  }
  FillFrom(kTlsCaEnv, &ca_file);
  FillFrom(kTlsCertEnv, &cert_file);
  FillFrom(kTlsKeyEnv, &key_file);
  return Status::OK();
}

}  // namespace flowvm
