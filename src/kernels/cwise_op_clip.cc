// ClipByValue(t, lo, hi) = max(min(t, hi), lo), as TensorFlow computes it
// (so lo wins where lo > hi). Each bound is a scalar or of t's shape; no
// other broadcasting, as in TensorFlow. The output reuses t's buffer when
// nobody else holds it.
#include "kernels/cwise_ops.h"

namespace flowvm {
namespace cwise {
namespace {

template <typename T>
T Clip(const T& v, const T& lo, const T& hi) {
  if constexpr (kIsHalfLike<T>) {
    return T(MaximumFn::Apply(MinimumFn::Apply(static_cast<float>(v), static_cast<float>(hi)),
                              static_cast<float>(lo)));
  } else {
    return MaximumFn::Apply(MinimumFn::Apply(v, hi), lo);
  }
}

template <typename T>
class ClipByValueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }  // see BinaryOp

  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    const Tensor& lo = ctx->input(1);
    const Tensor& hi = ctx->input(2);
    const bool lo_scalar = lo.shape().dims() == 0, hi_scalar = hi.shape().dims() == 0;
    OP_REQUIRES(ctx, (lo_scalar || lo.shape() == t.shape()) && (hi_scalar || hi.shape() == t.shape()),
                errors::InvalidArgument("clip_value_min and clip_value_max must be either scalars or have the "
                                        "same shape as the input. Got clip_value_min: ",
                                        lo.shape().DebugString(), ", clip_value_max: ", hi.shape().DebugString(),
                                        ", input: ", t.shape().DebugString()));
    // Read the inputs before forwarding may move t's buffer to the output.
    const T* tp = t.data<T>();
    const T* lp = lo.data<T>();
    const T* hp = hi.data<T>();
    const int64_t n = t.NumElements();
    const TensorShape shape = t.shape();  // a copy: forwarding clears t
    Tensor* out = nullptr;
    if (!ForwardOrAllocate(ctx, {0}, shape, &out)) return;
    T* o = out->data<T>();
    const int64_t ls = lo_scalar ? 0 : 1, hs = hi_scalar ? 0 : 1;
    ctx->ParallelFor(n, ElementCost<T>(2), [=](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) o[i] = Clip(tp[i], lp[i * ls], hp[i * hs]);
    });
  }
};

}  // namespace
}  // namespace cwise

#define FLOWVM_REGISTER_CLIP(T) \
  REGISTER_KERNEL_BUILDER(Name("ClipByValue").Device(DEVICE_CPU).TypeConstraint<T>("T"), cwise::ClipByValueOp<T>);
FLOWVM_REGISTER_CLIP(float)
FLOWVM_REGISTER_CLIP(double)
FLOWVM_REGISTER_CLIP(half)
FLOWVM_REGISTER_CLIP(bfloat16)
FLOWVM_REGISTER_CLIP(int8_t)
FLOWVM_REGISTER_CLIP(uint8_t)
FLOWVM_REGISTER_CLIP(int16_t)
FLOWVM_REGISTER_CLIP(uint16_t)
FLOWVM_REGISTER_CLIP(int32_t)
FLOWVM_REGISTER_CLIP(uint32_t)
FLOWVM_REGISTER_CLIP(int64_t)
FLOWVM_REGISTER_CLIP(uint64_t)
#undef FLOWVM_REGISTER_CLIP

}  // namespace flowvm
