// Identity and NoOp kernels.
#include <mutex>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// Outputs its input, sharing the buffer. If handed a ref input (a variable),
// it outputs the variable's current value, read under the variable's lock.
class IdentityOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    if (ctx->input_is_ref(0)) {
      Tensor value;
      {
        std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
        value = *ctx->mutable_input(0);
      }
      OP_REQUIRES(ctx, value.IsInitialized(),
                  errors::FailedPrecondition("Attempting to use uninitialized value ",
                                             def().input_size() > 0 ? def().input(0) : std::string("(input 0)")));
      ctx->set_output(0, std::move(value));
      return;
    }
    ctx->set_output(0, ctx->input(0));
  }
  bool IsExpensive() const override { return false; }
};

class NoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext*) override {}
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Identity").Device(DEVICE_CPU), IdentityOp);
REGISTER_KERNEL_BUILDER(Name("NoOp").Device(DEVICE_CPU), NoOp);

}  // namespace flowvm
