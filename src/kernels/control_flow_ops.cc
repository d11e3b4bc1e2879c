// Kernels of the control-flow ops (ops/control_flow_ops.cc). They only
// forward values; frames, iterations and dead values are the executor's.
#include "kernels/framework/cancellation.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// Output `out` = input `in`, a reference forwarded as the reference.
void Forward(OpKernelContext* ctx, int in, int out) {
  if (ctx->input_is_ref(in)) {
    ctx->set_output_ref(out, ctx->input_ref_mutex(in), ctx->mutable_input(in), ctx->input_ref_declared_shape(in));
  } else {
    ctx->set_output(out, ctx->input(in));
  }
}

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& pred = ctx->input(1);
    OP_REQUIRES(ctx, pred.dims() == 0,
                errors::InvalidArgument("pred must be a scalar, got shape ", pred.shape().DebugString()));
    // The output not set is dead.
    Forward(ctx, 0, pred.scalar<bool>() ? 1 : 0);
  }
  bool IsExpensive() const override { return false; }
};

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    // The executor hands over exactly one live input, the first to arrive.
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      if (!ctx->has_input(i)) continue;
      Forward(ctx, i, 0);
      ctx->set_output(1, Tensor::Scalar<int32_t>(i));
      return;
    }
    ctx->SetStatus(errors::Internal("Merge ran without a live input"));
  }
  bool IsExpensive() const override { return false; }
};

// Enter, Exit, NextIteration and their Ref forms: the executor moves the
// value between frames and iterations.
class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { Forward(ctx, 0, 0); }
  bool IsExpensive() const override { return false; }
};

class LoopCondOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    // Checked once per iteration: a loop that never ends stops here when
    // its step is cancelled or its deadline passes.
    CancellationManager* cm = ctx->cancellation_manager();
    if (cm != nullptr && cm->IsCancelled()) {
      ctx->SetStatus(cm->reason());
      return;
    }
    const Tensor& pred = ctx->input(0);
    OP_REQUIRES(ctx, pred.dims() == 0,
                errors::InvalidArgument("LoopCond's input must be a scalar, got shape ", pred.shape().DebugString()));
    ctx->set_output(0, pred);
  }
  bool IsExpensive() const override { return false; }
};

class ControlTriggerOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Switch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("RefSwitch").Device(DEVICE_CPU), SwitchOp);
REGISTER_KERNEL_BUILDER(Name("Merge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(Name("RefMerge").Device(DEVICE_CPU), MergeOp);
REGISTER_KERNEL_BUILDER(Name("Enter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefEnter").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("Exit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefExit").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("NextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("RefNextIteration").Device(DEVICE_CPU), ForwardOp);
REGISTER_KERNEL_BUILDER(Name("LoopCond").Device(DEVICE_CPU), LoopCondOp);
REGISTER_KERNEL_BUILDER(Name("ControlTrigger").Device(DEVICE_CPU), ControlTriggerOp);

}  // namespace flowvm
