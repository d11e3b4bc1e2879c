// The one check every kernel that opens a file makes first: is the path
// inside the directories its device allows (core/path_policy.h)? A kernel
// calls it right before each open, with every name it will open or create
// (a checkpoint's index and data files, each file a reader takes from its
// queue, a summary writer's log file), so that nothing outside is touched.
//
//   OP_REQUIRES_OK(ctx, CheckFileAccess(ctx, path, PathAccess::kWrite));
//
// A refusal is PermissionDenied naming the node and the path, e.g.
// "node 'save/SaveV2' may not write '/etc/x': outside the directories this
// server allows (/tmp/a, /home/b)"; the executor then adds no second node
// label. Thread-safe.
#ifndef FLOWVM_KERNELS_FRAMEWORK_FILE_ACCESS_H_
#define FLOWVM_KERNELS_FRAMEWORK_FILE_ACCESS_H_

#include <memory>
#include <string>

#include "core/path_policy.h"
#include "flowvm/status.h"

namespace flowvm {

class OpKernelContext;

// What a kernel keeps to check paths later, away from its context (a
// reader opens files in callbacks, a summary writer from its own resource):
// the device's policy (null: unrestricted) and the node to name.
struct FileAccessChecker {
  std::shared_ptr<const PathPolicy> policy;
  std::string node;

  Status Check(const std::string& path, PathAccess access) const;
};

// The checker for the node `ctx` runs and its device's policy.
FileAccessChecker FileAccessFor(const OpKernelContext& ctx);

inline Status CheckFileAccess(const OpKernelContext& ctx, const std::string& path, PathAccess access) {
  return FileAccessFor(ctx).Check(path, access);
}
inline Status CheckFileAccess(const OpKernelContext* ctx, const std::string& path, PathAccess access) {
  return CheckFileAccess(*ctx, path, access);
}

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_FILE_ACCESS_H_
