// TopKV2: the k largest entries of each row (the last dimension) and their
// int32 indices, rows sharded over the thread pool. The order is a strict
// total one, so ties and NaNs give one answer: larger first, NaN above
// everything, and among equals the lower index first. `sorted` = false is
// free to return any order; this kernel returns the sorted one.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "kernels/nn/nn_util.h"

namespace flowvm {
namespace nn {
namespace {

template <typename T>
class TopKOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& kt = ctx->input(1);
    OP_REQUIRES(ctx, kt.dims() == 0, errors::InvalidArgument("k must be scalar, got shape ", kt.shape().DebugString()));
    const int64_t k = kt.data<int32_t>()[0];
    OP_REQUIRES(ctx, k >= 0, errors::InvalidArgument("Need k >= 0, got ", k));
    OP_REQUIRES(ctx, in.dims() >= 1,
                errors::InvalidArgument("input must be >= 1-D, got shape ", in.shape().DebugString()));
    const int64_t n = in.dim_size(in.dims() - 1);
    OP_REQUIRES(ctx, n >= k, errors::InvalidArgument("input must have at least k columns. Had ", n, ", needed ", k));
    OP_REQUIRES(ctx, n <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument("input has ", n, " columns, more than int32 indices can address"));
    TensorShape out_shape = in.shape();
    out_shape.set_dim(in.dims() - 1, k);
    Tensor* values;
    Tensor* indices;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, out_shape, &indices));
    if (k == 0 || values->NumElements() == 0) return;
    const int64_t rows = in.NumElements() / n;
    const T* x = in.data<T>();
    T* v = values->data<T>();
    int32_t* idx = indices->data<int32_t>();
    const int64_t cost = n * 4 + k * 16;
    ctx->ParallelFor(rows, cost, [=](int64_t begin, int64_t end) {
      std::vector<int32_t> order(n);
      for (int64_t r = begin; r < end; ++r) {
        const T* row = x + r * n;
        std::iota(order.begin(), order.end(), 0);
        auto before = [row](int32_t a, int32_t b) {
          const ComputeType<T> va = Widen(row[a]), vb = Widen(row[b]);
          if constexpr (std::is_floating_point_v<ComputeType<T>>) {
            const bool na = std::isnan(va), nb = std::isnan(vb);
            if (na != nb) return na;
            if (na) return a < b;
          }
          if (va != vb) return va > vb;
          return a < b;
        };
        if (k < n) {
          std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
        } else {
          std::sort(order.begin(), order.end(), before);
        }
        for (int64_t j = 0; j < k; ++j) {
          v[r * k + j] = row[order[j]];
          idx[r * k + j] = order[j];
        }
      }
    });
  }
};

}  // namespace

#define FLOWVM_REGISTER_TOPK(T) \
  REGISTER_KERNEL_BUILDER(Name("TopKV2").Device(DEVICE_CPU).TypeConstraint<T>("T"), TopKOp<T>);
FLOWVM_REGISTER_TOPK(float)
FLOWVM_REGISTER_TOPK(double)
FLOWVM_REGISTER_TOPK(half)
FLOWVM_REGISTER_TOPK(bfloat16)
FLOWVM_REGISTER_TOPK(int8_t)
FLOWVM_REGISTER_TOPK(uint8_t)
FLOWVM_REGISTER_TOPK(int16_t)
FLOWVM_REGISTER_TOPK(uint16_t)
FLOWVM_REGISTER_TOPK(int32_t)
FLOWVM_REGISTER_TOPK(uint32_t)
FLOWVM_REGISTER_TOPK(int64_t)
FLOWVM_REGISTER_TOPK(uint64_t)
#undef FLOWVM_REGISTER_TOPK

}  // namespace nn
}  // namespace flowvm
