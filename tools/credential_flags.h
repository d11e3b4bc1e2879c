// The flags every command that talks to (or is) a cluster task takes for
// its credentials: --token-file, --tls-ca, --tls-cert, --tls-key. A token
// itself is never a flag's value (command lines are visible to every user
// of the host); "--token" is refused with a pointer to --token-file.
#ifndef FLOWVM_TOOLS_CREDENTIAL_FLAGS_H_
#define FLOWVM_TOOLS_CREDENTIAL_FLAGS_H_

#include <set>
#include <string>
#include <vector>

#include "cli_args.h"
#include "flowvm/credentials.h"

namespace flowvm::cli {

// The value flags to add to a command's ParseArgs set (with "--token", so
// that it is recognized and refused).
std::set<std::string> WithCredentialFlags(std::set<std::string> flags);

// Reads the token file; fields without a flag stay empty (the library fills
// them from the environment).
StatusOr<ClusterCredentials> CredentialsFromFlags(const ParsedArgs& args);

// `path` made absolute against the working directory (as given if that fails).
std::string Absolute(const std::string& path);

// The same flags again, with absolute paths, for a child process (`flowvm
// cluster up` passes them to its servers).
std::vector<std::string> CredentialFlagsFor(const ParsedArgs& args);

}  // namespace flowvm::cli

#endif  // FLOWVM_TOOLS_CREDENTIAL_FLAGS_H_
