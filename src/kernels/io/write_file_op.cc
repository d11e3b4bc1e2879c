// WriteFile: a scalar string written as the whole file named by a scalar
// string, replacing it, with missing parent directories created (as
// TensorFlow's). The bytes go to a temporary file beside the target that is
// then renamed onto it, so a reader sees the old file or the new one, never
// half of one. Errors name the file (core/file_util.h); on a server, a file
// outside the directories it allows is PermissionDenied
// (kernels/framework/file_access.h).
#include <string>

#include "core/file_util.h"
#include "kernels/framework/file_access.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

Status WriteWholeFile(const std::string& path, const std::string& contents) {
  FLOWVM_RETURN_IF_ERROR(CreateParentDirs(path));
  const std::string tmp = path + ".tmp." + RandomHex64();
  Status s = [&]() -> Status {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<WritableFile> file, WritableFile::Create(tmp));
    FLOWVM_RETURN_IF_ERROR(file->Append(contents));
    FLOWVM_RETURN_IF_ERROR(file->Close());
    return RenameFile(tmp, path);
  }();
  if (!s.ok()) RemoveFileQuietly(tmp);
  return s;
}

class WriteFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filename = ctx->input(0);
    const Tensor& contents = ctx->input(1);
    OP_REQUIRES(ctx, filename.dims() == 0,
                errors::InvalidArgument("filename must be a scalar, but has shape ", filename.shape().DebugString()));
    OP_REQUIRES(ctx, contents.dims() == 0,
                errors::InvalidArgument("contents must be a scalar, but has shape ", contents.shape().DebugString()));
    const std::string& path = filename.scalar<std::string>();
    OP_REQUIRES(ctx, !path.empty(), errors::InvalidArgument("filename is empty"));
    OP_REQUIRES_OK(ctx, CheckFileAccess(ctx, path, PathAccess::kWrite));
    OP_REQUIRES_OK(ctx, WriteWholeFile(path, contents.scalar<std::string>()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("WriteFile").Device(DEVICE_CPU), WriteFileOp);

}  // namespace flowvm
