// PathPolicy: the directories a process lets graphs touch through file ops
// (ReadFile, WriteFile, SaveV2, RestoreV2, record readers, summaries). A
// server builds one from its --allow-dir flags and gives it to its devices;
// kernels check every path before they open it (kernels/framework/
// file_access.h). No policy (a null pointer) means unrestricted: a local,
// in-process session may touch any file its process can.
//
// Check resolves a path the way open(2) would: a relative path against the
// process's working directory at the time of the check; then the deepest
// ancestor that exists is resolved with realpath (every `..` and symbolic
// link in it followed), and the missing rest appended. A missing rest may
// not contain `..` (a missing directory cannot be followed back out of, and
// a writer that creates parent directories would otherwise escape); a
// symbolic link met while resolving, dangling ones included, is followed
// and its target checked. The result must be an allowed directory or lie
// under one ("/tmp/a" allows "/tmp/a/x", not "/tmp/ab"). So must the name
// itself with only its directory resolved: a rename onto a path replaces a
// link there rather than following it, so a link outside that points
// inside is refused as well.
//
// Residual race: the check runs just before the kernel opens the file, not
// in the same system call. A process that can write inside an allowed
// directory could swap a checked component for a symbolic link between the
// two. The policy keeps graphs from naming files outside; it does not
// defend against other local processes (that would take openat2 with
// RESOLVE_BENEATH on every component).
//
// Immutable after Create; thread-safe.
#ifndef FLOWVM_CORE_PATH_POLICY_H_
#define FLOWVM_CORE_PATH_POLICY_H_

#include <memory>
#include <string>
#include <vector>

#include "flowvm/status.h"

namespace flowvm {

enum class PathAccess { kRead, kWrite };

class PathPolicy {
 public:
  // Each directory is canonicalized with realpath (relative ones against the
  // working directory now). InvalidArgument naming it if it does not exist
  // or is not a directory, or if `dirs` is empty.
  static StatusOr<std::shared_ptr<const PathPolicy>> Create(const std::vector<std::string>& dirs);

  // OK if `path` resolves inside an allowed directory. Otherwise
  // PermissionDenied: "may read|write '<path>' ...: outside the directories
  // this server allows (<dirs>)", with what the path resolved to when that
  // differs, or why it could not be resolved. Callers put who asked in
  // front (see CheckFileAccess). Does not create, open or change anything.
  Status Check(const std::string& path, PathAccess access) const;

  // The canonical allowed directories, in the order given (duplicates
  // removed).
  const std::vector<std::string>& dirs() const { return dirs_; }
  // "/tmp/a, /home/b", for messages and logs.
  std::string Describe() const;

 private:
  explicit PathPolicy(std::vector<std::string> dirs) : dirs_(std::move(dirs)) {}
  bool Allows(const std::string& resolved) const;

  const std::vector<std::string> dirs_;
};

// What `path` names once every existing component is resolved, as Check
// does (exposed for tests and messages). PermissionDenied if a missing part
// contains `..` or resolution fails (too many links, no access).
StatusOr<std::string> ResolvePathForPolicy(const std::string& path);

}  // namespace flowvm

#endif  // FLOWVM_CORE_PATH_POLICY_H_
