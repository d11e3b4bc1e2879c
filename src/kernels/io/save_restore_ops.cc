// SaveV2 and RestoreV2: tensors to and from a bundle (core/tensor_bundle.h)
// at the prefix the first input names. Only whole tensors: a non-empty
// shape_and_slices element (a slice of a partitioned variable) is
// Unimplemented. Every error names the tensor and the checkpoint; the
// executor adds the node. On a server, a prefix whose files lie outside the
// directories it allows is PermissionDenied (kernels/framework/file_access.h).
#include "core/tensor_bundle.h"
#include "kernels/framework/file_access.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// The prefix, tensor names and slice specs, checked against `count`.
Status ReadNamesAndSlices(OpKernelContext* ctx, int count, std::string* prefix, Span<std::string>* names) {
  const Tensor& p = ctx->input(0);
  const Tensor& n = ctx->input(1);
  const Tensor& s = ctx->input(2);
  if (p.NumElements() != 1)
    return errors::InvalidArgument("prefix must hold a single string, but has shape ", p.shape().DebugString());
  if (n.NumElements() != count)
    return errors::InvalidArgument("tensor_names has ", n.NumElements(), " elements but there are ", count,
                                   " tensors");
  if (s.NumElements() != count)
    return errors::InvalidArgument("shape_and_slices has ", s.NumElements(), " elements but there are ", count,
                                   " tensors");
  *prefix = p.flat<std::string>()[0];
  *names = n.flat<std::string>();
  for (int i = 0; i < count; ++i) {
    const std::string& spec = s.flat<std::string>()[i];
    if (!spec.empty())
      return errors::Unimplemented("tensor '", (*names)[i], "' has shape_and_slices '", spec,
                                   "': saving and restoring slices of partitioned variables is not supported; "
                                   "use \"\" for the whole tensor");
  }
  return Status::OK();
}

// Both files of the bundle at `prefix` (the temporary files a save writes
// first sit beside them, under names a graph does not choose).
Status CheckBundleAccess(OpKernelContext* ctx, const std::string& prefix, PathAccess access) {
  FileAccessChecker checker = FileAccessFor(*ctx);
  FLOWVM_RETURN_IF_ERROR(checker.Check(BundleIndexPath(prefix), access));
  return checker.Check(BundleDataPath(prefix), access);
}

class SaveV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int count = ctx->num_inputs() - 3;
    std::string prefix;
    Span<std::string> names;
    OP_REQUIRES_OK(ctx, ReadNamesAndSlices(ctx, count, &prefix, &names));
    OP_REQUIRES_OK(ctx, CheckBundleAccess(ctx, prefix, PathAccess::kWrite));
    BundleWriter writer(prefix);
    for (int i = 0; i < count; ++i) OP_REQUIRES_OK(ctx, writer.Add(names[i], ctx->input(3 + i)));
    OP_REQUIRES_OK(ctx, writer.Finish());
  }
};

class RestoreV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const int count = ctx->num_outputs();
    std::string prefix;
    Span<std::string> names;
    OP_REQUIRES_OK(ctx, ReadNamesAndSlices(ctx, count, &prefix, &names));
    OP_REQUIRES_OK(ctx, CheckBundleAccess(ctx, prefix, PathAccess::kRead));
    auto reader = BundleReader::Open(prefix);
    OP_REQUIRES_OK(ctx, reader.status());
    // Check every name and dtype before reading anything large.
    for (int i = 0; i < count; ++i) {
      const BundleEntry* e = (*reader)->Find(names[i]);
      OP_REQUIRES(ctx, e != nullptr,
                  errors::NotFound("tensor '", names[i], "' not found in checkpoint '", prefix, "'"));
      OP_REQUIRES(ctx, e->dtype == output_type(i),
                  errors::InvalidArgument("tensor '", names[i], "' in checkpoint '", prefix, "' is ",
                                          DataTypeName(e->dtype), " ", e->shape.DebugString(), ", but dtypes[", i,
                                          "] asks for ", DataTypeName(output_type(i))));
    }
    for (int i = 0; i < count; ++i) {
      Tensor t;
      OP_REQUIRES_OK(ctx, (*reader)->Lookup(names[i], &t));
      ctx->set_output(i, std::move(t));
    }
  }
};

REGISTER_KERNEL_BUILDER(Name("SaveV2").Device(DEVICE_CPU), SaveV2Op);
REGISTER_KERNEL_BUILDER(Name("RestoreV2").Device(DEVICE_CPU), RestoreV2Op);

}  // namespace
}  // namespace flowvm
