// Kernels of _Arg and _Retval: move tensors between a step's CallFrame and
// the graph.
#include "kernels/framework/call_frame.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {

namespace {

class ArgOp : public OpKernel {
 public:
  explicit ArgOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t index = 0;
    ctx->SetStatus(ctx->GetAttr("index", &index));
    index_ = static_cast<int>(index);
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr, errors::Internal("_Arg run without a call frame"));
    const Tensor* value = nullptr;
    OP_REQUIRES_OK(ctx, ctx->call_frame()->GetArg(index_, &value));
    ctx->set_output(0, *value);
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

class RetvalOp : public OpKernel {
 public:
  explicit RetvalOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t index = 0;
    ctx->SetStatus(ctx->GetAttr("index", &index));
    index_ = static_cast<int>(index);
  }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr, errors::Internal("_Retval run without a call frame"));
    OP_REQUIRES_OK(ctx, ctx->call_frame()->SetRetval(index_, ctx->input(0)));
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("_Arg").Device(DEVICE_CPU), ArgOp);
REGISTER_KERNEL_BUILDER(Name("_Retval").Device(DEVICE_CPU), RetvalOp);

}  // namespace
}  // namespace flowvm
