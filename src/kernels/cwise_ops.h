// Element-wise binary arithmetic with NumPy broadcasting (Add, AddV2, Sub,
// Mul), shared by the cwise_op_*.cc files, and the scalar functors that
// AssignAdd / AssignSub reuse.
//
// The loops are plain C++ that the compiler vectorizes; there are fast paths
// for equal shapes and for a scalar operand, which allocate nothing but the
// output (and not even that when an input buffer can be reused). Integer
// arithmetic wraps around (two's complement) as in TensorFlow; half and
// bfloat16 compute in float.
#ifndef FLOWVM_KERNELS_CWISE_OPS_H_
#define FLOWVM_KERNELS_CWISE_OPS_H_

#include <cstdint>
#include <type_traits>
#include <vector>

#include "kernels/bcast.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace cwise {

template <typename T>
inline constexpr bool kIsHalfLike = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;

// Integer arithmetic done in an unsigned type at least as wide as unsigned
// int, so overflow wraps instead of being undefined.
template <typename T>
using WrapType = std::make_unsigned_t<std::common_type_t<T, unsigned>>;

#define FLOWVM_CWISE_FUNCTOR(NAME, OP)                                                    \
  struct NAME {                                                                           \
    template <typename T>                                                                 \
    static T Apply(const T& a, const T& b) {                                              \
      if constexpr (std::is_integral_v<T>) {                                              \
        return static_cast<T>(static_cast<WrapType<T>>(a) OP static_cast<WrapType<T>>(b)); \
      } else if constexpr (kIsHalfLike<T>) {                                              \
        return T(static_cast<float>(a) OP static_cast<float>(b));                         \
      } else {                                                                            \
        return a OP b;                                                                    \
      }                                                                                   \
    }                                                                                     \
  };
FLOWVM_CWISE_FUNCTOR(AddFn, +)
FLOWVM_CWISE_FUNCTOR(SubFn, -)
FLOWVM_CWISE_FUNCTOR(MulFn, *)
#undef FLOWVM_CWISE_FUNCTOR

// out[i] = F(x[i], y[i]); out may alias x or y exactly.
template <typename T, typename F>
void SameShape(const T* x, const T* y, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = F::Apply(x[i], y[i]);
}

template <typename T, typename F>
void ScalarLeft(const T& x, const T* y, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = F::Apply(x, y[i]);
}

template <typename T, typename F>
void ScalarRight(const T* x, const T& y, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = F::Apply(x[i], y);
}

// One innermost run of n elements; each operand advances by 0 or 1.
template <typename T, typename F>
void InnerRun(const T* x, int64_t sx, const T* y, int64_t sy, T* out, int64_t n) {
  if (sx != 0 && sy != 0) {
    SameShape<T, F>(x, y, out, n);
  } else if (sx != 0) {
    const T b = *y;
    ScalarRight<T, F>(x, b, out, n);
  } else if (sy != 0) {
    const T a = *x;
    ScalarLeft<T, F>(a, y, out, n);
  } else {
    const T v = F::Apply(*x, *y);
    for (int64_t i = 0; i < n; ++i) out[i] = v;
  }
}

// The general case: walks the reduced iteration space of `b`.
template <typename T, typename F>
void Broadcast(const BCast& b, const T* x, const T* y, T* out) {
  const int r = b.rank();
  if (r == 0) {
    out[0] = F::Apply(x[0], y[0]);
    return;
  }
  const auto& dims = b.dims();
  const auto& xs = b.x_strides();
  const auto& ys = b.y_strides();
  const int64_t inner = dims[r - 1];
  const int64_t total = b.output_shape().num_elements();
  if (total == 0) return;
  std::vector<int64_t> idx(r, 0);
  int64_t xo = 0, yo = 0;
  for (int64_t o = 0; o < total; o += inner) {
    InnerRun<T, F>(x + xo, xs[r - 1], y + yo, ys[r - 1], out + o, inner);
    for (int d = r - 2; d >= 0; --d) {
      xo += xs[d];
      yo += ys[d];
      if (++idx[d] < dims[d]) break;
      xo -= xs[d] * dims[d];
      yo -= ys[d] * dims[d];
      idx[d] = 0;
    }
  }
}

// z = F(x, y) with broadcasting. Cheap: runs inline in the executor.
template <typename T, typename F>
class BinaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  bool IsExpensive() const override { return false; }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& x = ctx->input(0);
    const Tensor& y = ctx->input(1);
    // Read everything needed from the inputs first: Output() may move an
    // input's buffer into the output slot and clear that input.
    const T* xp = x.data<T>();
    const T* yp = y.data<T>();
    const int64_t nx = x.NumElements(), ny = y.NumElements();
    Tensor* out = nullptr;
    if (x.shape() == y.shape()) {
      if (!Output(ctx, TensorShape(x.shape()), &out)) return;
      SameShape<T, F>(xp, yp, out->data<T>(), nx);
    } else if (nx == 1 && x.dims() <= y.dims()) {
      const T a = *xp;
      if (!Output(ctx, TensorShape(y.shape()), &out)) return;
      ScalarLeft<T, F>(a, yp, out->data<T>(), ny);
    } else if (ny == 1 && y.dims() <= x.dims()) {
      const T b = *yp;
      if (!Output(ctx, TensorShape(x.shape()), &out)) return;
      ScalarRight<T, F>(xp, b, out->data<T>(), nx);
    } else {
      BCast bcast(x.shape(), y.shape());
      OP_REQUIRES(ctx, bcast.valid(),
                  errors::InvalidArgument("Incompatible shapes: ", x.shape().DebugString(), " vs. ",
                                          y.shape().DebugString()));
      if (!Output(ctx, bcast.output_shape(), &out)) return;
      Broadcast<T, F>(bcast, xp, yp, out->data<T>());
    }
  }

 private:
  // Reuses an input buffer nobody else holds, else allocates.
  static bool Output(OpKernelContext* ctx, const TensorShape& shape, Tensor** out) {
    if (ctx->forward_input_to_output(0, 0, shape, out)) return true;
    if (ctx->forward_input_to_output(1, 0, shape, out)) return true;
    return ctx->allocate_output(0, shape, out).ok();
  }
};

}  // namespace cwise
}  // namespace flowvm

#define FLOWVM_REGISTER_CWISE(OP, FN, TYPE) \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<TYPE>("T"), ::flowvm::cwise::BinaryOp<TYPE, FN>)

#endif  // FLOWVM_KERNELS_CWISE_OPS_H_
