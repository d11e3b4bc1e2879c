// Const, Placeholder and PlaceholderWithDefault kernels.
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// Parses `value` once; every step outputs the same buffer (shared, never
// written: consumers that want to write must copy, which the refcount tells
// them).
class ConstantOp : public OpKernel {
 public:
  explicit ConstantOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("value", &tensor_));
    DataType dtype = ctx->output_types()[0];
    OP_REQUIRES(ctx, tensor_.dtype() == dtype,
                errors::InvalidArgument("Type mismatch between value (", DataTypeName(tensor_.dtype()),
                                        ") and dtype (", DataTypeName(dtype), ")"));
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, tensor_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor tensor_;
};

// Runs only when the placeholder was not fed (feeding replaces the node).
class PlaceholderOp : public OpKernel {
 public:
  explicit PlaceholderOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    if (shape_.dims() > 0) {
      ctx->SetStatus(errors::InvalidArgument("You must feed a value for placeholder tensor '", name(),
                                             "' with dtype ", DataTypeName(output_type(0)), " and shape ",
                                             shape_.DebugString()));
    } else {
      ctx->SetStatus(errors::InvalidArgument("You must feed a value for placeholder tensor '", name(),
                                             "' with dtype ", DataTypeName(output_type(0))));
    }
  }
  bool IsExpensive() const override { return false; }

 private:
  PartialTensorShape shape_;
};

// PlaceholderWithDefault passes its input through when not fed.
class PassThroughOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Const").Device(DEVICE_CPU), ConstantOp);
REGISTER_KERNEL_BUILDER(Name("Placeholder").Device(DEVICE_CPU), PlaceholderOp);
REGISTER_KERNEL_BUILDER(Name("PlaceholderWithDefault").Device(DEVICE_CPU), PassThroughOp);

}  // namespace flowvm
