// ReadFile: the whole file named by a scalar string, as a scalar string. The
// bytes are read straight into the output's string (no intermediate copy).
// Errors name the file (core/file_util.h): a missing one is NotFound, an
// unreadable one PermissionDenied, a directory InvalidArgument, a file that
// shrinks while it is read DataLoss. On a server, a file outside the
// directories it allows is PermissionDenied (kernels/framework/file_access.h).
#include <string>

#include "core/file_util.h"
#include "kernels/framework/file_access.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

class ReadFileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& filename = ctx->input(0);
    OP_REQUIRES(ctx, filename.dims() == 0,
                errors::InvalidArgument("filename must be a scalar, but has shape ", filename.shape().DebugString()));
    const std::string& path = filename.scalar<std::string>();
    OP_REQUIRES_OK(ctx, CheckFileAccess(ctx, path, PathAccess::kRead));
    auto file = RandomAccessFile::Open(path);
    OP_REQUIRES_OK(ctx, file.status());
    const uint64_t size = (*file)->size();
    OP_REQUIRES(ctx, size <= std::string().max_size(),
                errors::ResourceExhausted("cannot read ", path, ": ", size, " bytes do not fit in a string"));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    std::string& contents = out->scalar<std::string>();
    contents.resize(static_cast<size_t>(size));
    OP_REQUIRES_OK(ctx, (*file)->Read(0, contents.size(), contents.data()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ReadFile").Device(DEVICE_CPU), ReadFileOp);

}  // namespace flowvm
