// MatchingFiles: the files matching glob patterns (POSIX glob(3): `*`, `?`,
// `[...]` within one path component), sorted and each once. A pattern that
// matches nothing adds nothing (tf.data.Dataset.list_files reports an empty
// result). On a server, the directory a pattern starts from must lie in the
// directories it allows, and so must each match (a symbolic link may point
// elsewhere): PermissionDenied naming the path otherwise.
#include <errno.h>
#include <glob.h>

#include <algorithm>
#include <string>
#include <vector>

#include "kernels/framework/file_access.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// The directory a pattern's first wildcard lies in ("." for a relative
// pattern without a directory before it).
std::string FixedDirectory(const std::string& pattern) {
  const size_t wildcard = pattern.find_first_of("*?[");
  const std::string fixed = pattern.substr(0, wildcard);
  const size_t slash = fixed.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : fixed.substr(0, slash);
}

// The first directory glob(3) could not read for a reason other than its
// absence (glob's error callback has no user pointer; one glob per thread
// at a time).
thread_local std::string unreadable_dir;

int OnGlobError(const char* path, int err) {
  if (err != ENOENT && err != ENOTDIR && unreadable_dir.empty()) unreadable_dir = path;
  return 0;  // go on: matches elsewhere still count
}

Status Glob(const OpKernelContext* ctx, const std::string& pattern, std::vector<std::string>* out) {
  FLOWVM_RETURN_IF_ERROR(CheckFileAccess(ctx, FixedDirectory(pattern), PathAccess::kRead));
  unreadable_dir.clear();
  glob_t g{};
  const int rc = glob(pattern.c_str(), 0, OnGlobError, &g);
  std::vector<std::string> found;
  if (rc == 0) found.assign(g.gl_pathv, g.gl_pathv + g.gl_pathc);
  globfree(&g);
  if (rc == GLOB_NOSPACE) return errors::ResourceExhausted("out of memory matching the pattern '", pattern, "'");
  if (!unreadable_dir.empty())
    return errors::PermissionDenied("cannot read the directory '", unreadable_dir, "' while matching '", pattern, "'");
  for (const std::string& f : found) {
    FLOWVM_RETURN_IF_ERROR(CheckFileAccess(ctx, f, PathAccess::kRead));
    out->push_back(f);
  }
  return Status::OK();
}

class MatchingFilesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& patterns = ctx->input(0);
    OP_REQUIRES(ctx, patterns.dims() <= 1,
                errors::InvalidArgument("pattern must be a scalar or a vector, but has shape ",
                                        patterns.shape().DebugString()));
    std::vector<std::string> files;
    const auto flat = patterns.flat<std::string>();
    for (int64_t i = 0; i < patterns.NumElements(); ++i) OP_REQUIRES_OK(ctx, Glob(ctx, flat[i], &files));
    std::sort(files.begin(), files.end());
    files.erase(std::unique(files.begin(), files.end()), files.end());
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({static_cast<int64_t>(files.size())}), &out));
    auto names = out->flat<std::string>();
    for (size_t i = 0; i < files.size(); ++i) names[i] = std::move(files[i]);
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("MatchingFiles").Device(DEVICE_CPU), MatchingFilesOp);

}  // namespace flowvm
