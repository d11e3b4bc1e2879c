#include "kernels/framework/file_access.h"

#include "kernels/framework/op_kernel.h"

namespace flowvm {

Status FileAccessChecker::Check(const std::string& path, PathAccess access) const {
  if (policy == nullptr) return Status::OK();
  Status s = policy->Check(path, access);
  if (s.ok()) return s;
  return Status(s.code(), "node '" + node + "' " + std::string(s.message()));
}

FileAccessChecker FileAccessFor(const OpKernelContext& ctx) {
  FileAccessChecker c;
  if (ctx.device() == nullptr || ctx.device()->path_policy() == nullptr) return c;  // unrestricted: nothing to keep
  c.policy = ctx.device()->path_policy();
  c.node = ctx.op_kernel().name();
  return c;
}

}  // namespace flowvm
