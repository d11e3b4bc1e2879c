// Assert: when the scalar condition is false, fails the step with
// InvalidArgument "assertion failed: [..] [..]", one bracket per data
// tensor holding its first `summarize` values (all when negative),
// flattened, strings as they are; the executor adds the node's name.
#include <algorithm>
#include <limits>
#include <string>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

std::string Summarize(const Tensor& t, int64_t summarize) {
  const int64_t n = t.NumElements();
  const int64_t shown = summarize < 0 ? n : std::min(n, summarize);
  if (t.dtype() == DT_STRING) {
    std::string s = "[";
    for (int64_t i = 0; i < shown; ++i) s += (i ? " " : "") + t.data<std::string>()[i];
    return s + (shown < n ? "...]" : "]");
  }
  auto flat = t.Reshape(TensorShape({n}));
  if (!flat.ok()) return "[" + t.ValuesString(static_cast<int>(shown)) + "]";
  const int limit = static_cast<int>(std::min<int64_t>(shown, std::numeric_limits<int>::max()));
  return flat->ValuesString(limit);
}

class AssertOp : public OpKernel {
 public:
  explicit AssertOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& cond = ctx->input(0);
    OP_REQUIRES(ctx, cond.dims() == 0,
                errors::InvalidArgument("In[0] should be a scalar: ", cond.shape().DebugString()));
    if (cond.data<bool>()[0]) return;
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      if (i > 1) msg += " ";
      msg += Summarize(ctx->input(i), summarize_);
    }
    ctx->SetStatus(errors::InvalidArgument(msg));
  }

 private:
  int64_t summarize_ = 3;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Assert").Device(DEVICE_CPU), AssertOp);

}  // namespace flowvm
