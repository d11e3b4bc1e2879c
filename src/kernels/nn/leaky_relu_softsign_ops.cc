// LeakyRelu, Softsign and their gradients. Softsign uses the shared
// element-wise kernels of nn_util.h; LeakyRelu carries its alpha attr, so it
// has a small kernel of its own (the same forwarding and sharding). 16-bit
// floats compute in float, one element at a time.
#include <cmath>

#include "kernels/nn/nn_util.h"

namespace flowvm {
namespace nn {
namespace {

struct SoftsignFn {
  static constexpr int64_t kCost = 4;
  template <typename U>
  static void Run(const U* x, U* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) y[i] = x[i] / (std::abs(x[i]) + U(1));
  }
};

struct SoftsignGradFn {
  static constexpr int64_t kCost = 5;
  template <typename U>
  static void Run(const U* g, const U* f, U* y, int64_t n) {
    for (int64_t i = 0; i < n; ++i) {
      const U d = std::abs(f[i]) + U(1);
      y[i] = g[i] / (d * d);
    }
  }
};

// y = x > 0 ? x : alpha * x (LeakyRelu, inputs {features}), or
// y = f > 0 ? g : alpha * g (LeakyReluGrad, inputs {gradients, features}).
// NaN features select the alpha branch, as TensorFlow's select does.
template <typename T, bool kGrad>
class LeakyReluOp : public OpKernel {
 public:
  explicit LeakyReluOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("alpha", &alpha_));
  }
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& g = ctx->input(0);
    const Tensor& f = ctx->input(kGrad ? 1 : 0);
    if constexpr (kGrad) {
      OP_REQUIRES(ctx, g.shape() == f.shape(),
                  errors::InvalidArgument("Inputs to operation ", name(), " of type ", type_string(),
                                          " must have the same size and shape.  Input 0: ", g.shape().DebugString(),
                                          " != input 1: ", f.shape().DebugString()));
    }
    const T* gp = g.data<T>();
    const T* fp = f.data<T>();
    const int64_t n = f.NumElements();
    const TensorShape shape = f.shape();  // a copy: forwarding clears the input
    Tensor* out = nullptr;
    if (!cwise::ForwardOrAllocate(ctx, kGrad ? std::initializer_list<int>{0, 1} : std::initializer_list<int>{0},
                                  shape, &out))
      return;
    T* o = out->data<T>();
    const ComputeType<T> alpha = static_cast<ComputeType<T>>(alpha_);
    ctx->ParallelFor(n, kIsHalfLike<T> ? 4 : 1, [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const ComputeType<T> v = Widen(gp[i]);
        o[i] = Narrow<T>(Widen(fp[i]) > ComputeType<T>(0) ? v : v * alpha);
      }
    });
  }

 private:
  float alpha_ = 0.2f;
};

}  // namespace

#define FLOWVM_REGISTER_LEAKY_SOFTSIGN(T)                                          \
  FLOWVM_NN_REGISTER("LeakyRelu", (LeakyReluOp<T, false>), T);                     \
  FLOWVM_NN_REGISTER("LeakyReluGrad", (LeakyReluOp<T, true>), T);                  \
  FLOWVM_NN_REGISTER("Softsign", (UnaryEltwiseOp<T, SoftsignFn>), T);              \
  FLOWVM_NN_REGISTER("SoftsignGrad", (BinaryEltwiseOp<T, SoftsignGradFn>), T);
FLOWVM_REGISTER_LEAKY_SOFTSIGN(float)
FLOWVM_REGISTER_LEAKY_SOFTSIGN(double)
FLOWVM_REGISTER_LEAKY_SOFTSIGN(half)
FLOWVM_REGISTER_LEAKY_SOFTSIGN(bfloat16)
#undef FLOWVM_REGISTER_LEAKY_SOFTSIGN

}  // namespace nn
}  // namespace flowvm
