// ReverseV2 (a strided copy that reads the reversed dims back to front) and
// Where (the coordinates of the non-zero elements, in row-major order).
#include <complex>
#include <vector>

#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {
namespace {

class ReverseV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& axis = ctx->input(1);
    OP_REQUIRES(ctx, axis.dims() == 1,
                errors::InvalidArgument("'axis' must be 1-dimensional but got ", axis.shape().DebugString()));
    const int rank = in.dims();
    std::vector<bool> reverse(rank, false);
    for (int64_t a : array::IndexVector(axis)) {
      OP_REQUIRES(ctx, a >= -rank && a < rank,
                  errors::InvalidArgument("'axis'[", a, "] = ", a, " is out of valid range [", -rank, ", ",
                                          rank - 1, "]"));
      const int k = static_cast<int>(a < 0 ? a + rank : a);
      OP_REQUIRES(ctx, !reverse[k], errors::InvalidArgument("axis ", k, " specified more than once."));
      reverse[k] = true;
    }
    bool any = false;
    for (int k = 0; k < rank; ++k) any |= reverse[k] && in.dim_size(k) > 1;
    if (!any) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    array::StridedCopyPlan p;
    p.dims = in.shape().dim_sizes();
    p.in_strides = array::RowMajorStrides(in.shape());
    p.out_strides = p.in_strides;
    for (int k = 0; k < rank; ++k) {
      if (!reverse[k]) continue;
      p.in_base += (p.dims[k] - 1) * p.in_strides[k];
      p.in_strides[k] = -p.in_strides[k];
    }
    array::StridedCopy(ctx, in.dtype(), p, in, out);
  }
};

template <typename T>
bool NonZero(const T& v) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    return static_cast<float>(v) != 0.0f;
  } else {
    return v != T(0);
  }
}

template <typename T>
class WhereOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const T* x = in.data<T>();
    const int64_t n = in.NumElements();
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += NonZero(x[i]) ? 1 : 0;
    const int rank = in.dims();
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({count, rank}), &out));
    int64_t* o = out->data<int64_t>();
    std::vector<int64_t> idx(rank, 0);
    for (int64_t i = 0; i < n; ++i) {
      if (NonZero(x[i])) {
        for (int k = 0; k < rank; ++k) *o++ = idx[k];
      }
      for (int k = rank - 1; k >= 0; --k) {
        if (++idx[k] < in.dim_size(k)) break;
        idx[k] = 0;
      }
    }
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ReverseV2")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array::AllTypes())
                            .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                        ReverseV2Op);

#define FLOWVM_REGISTER_WHERE(T) \
  REGISTER_KERNEL_BUILDER(Name("Where").Device(DEVICE_CPU).TypeConstraint<T>("T"), WhereOp<T>);
FLOWVM_REGISTER_WHERE(bool)
FLOWVM_REGISTER_WHERE(float)
FLOWVM_REGISTER_WHERE(double)
FLOWVM_REGISTER_WHERE(half)
FLOWVM_REGISTER_WHERE(bfloat16)
FLOWVM_REGISTER_WHERE(int8_t)
FLOWVM_REGISTER_WHERE(uint8_t)
FLOWVM_REGISTER_WHERE(int16_t)
FLOWVM_REGISTER_WHERE(uint16_t)
FLOWVM_REGISTER_WHERE(int32_t)
FLOWVM_REGISTER_WHERE(uint32_t)
FLOWVM_REGISTER_WHERE(int64_t)
FLOWVM_REGISTER_WHERE(uint64_t)
FLOWVM_REGISTER_WHERE(complex64)
FLOWVM_REGISTER_WHERE(complex128)
#undef FLOWVM_REGISTER_WHERE

}  // namespace flowvm
