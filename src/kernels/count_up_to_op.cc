// CountUpTo: under the variable's mutex, reads the scalar, fails with
// OutOfRange "Reached limit of <limit>" once it has reached the limit
// (leaving it unchanged), else increments it and outputs the value it had.
// Input pipelines (limit_epochs, string_input_producer) rely on the
// OutOfRange to end their queue runners.
#include <mutex>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

template <typename T>
class CountUpToOp : public OpKernel {
 public:
  explicit CountUpToOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("limit", &limit_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->input_is_ref(0) && ctx->mutable_input(0) != nullptr,
                errors::InvalidArgument("CountUpTo: input 0 (ref) must be a reference to a variable"));
    T before;
    {
      std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
      Tensor* var = ctx->mutable_input(0);
      OP_REQUIRES(ctx, var->IsInitialized(),
                  errors::FailedPrecondition("Attempting to use uninitialized value ", VarName()));
      OP_REQUIRES(ctx, var->dims() == 0,
                  errors::InvalidArgument("input is not a scalar: ", var->shape().DebugString()));
      before = var->data<T>()[0];
      OP_REQUIRES(ctx, static_cast<int64_t>(before) < limit_, errors::OutOfRange("Reached limit of ", limit_));
      // A reader (a Variable's read, a fetch) may hold the buffer.
      if (!var->RefCountIsOne()) {
        StatusOr<Tensor> copy = var->DeepCopy(ctx->allocator());
        OP_REQUIRES_OK(ctx, copy.status());
        *var = std::move(copy).value();
      }
      var->data<T>()[0] = before + 1;
    }
    ctx->set_output(0, Tensor::Scalar<T>(before));
  }

 private:
  std::string VarName() const {
    if (def().input_size() == 0) return "(ref input 0 of node '" + name() + "')";
    std::string in = def().input(0);
    if (in.size() > 2 && in.compare(in.size() - 2, 2, ":0") == 0) in.resize(in.size() - 2);
    return in;
  }

  int64_t limit_ = 0;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("CountUpTo").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), CountUpToOp<int32_t>);
REGISTER_KERNEL_BUILDER(Name("CountUpTo").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), CountUpToOp<int64_t>);

}  // namespace flowvm
