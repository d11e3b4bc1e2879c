// MaxPool3D, MaxPool3DGrad, AvgPool3D, AvgPool3DGrad on CPU, in NDHWC
// (NCDHW is transposed to NDHWC and back), as TensorFlow defines them:
//   - windows are clipped to the input: SAME padding never contributes, and
//     AvgPool3D divides by the number of input elements in the window;
//   - MaxPool3DGrad adds each output gradient to every input element of its
//     window that equals the pooled maximum (TensorFlow's CPU rule for 3-D).
// Work is sharded over (batch, output depth plane); gradients shard over
// batch items, since windows of neighbouring planes overlap. half and
// bfloat16 compute in float.
#include <algorithm>
#include <limits>
#include <vector>

#include "kernels/conv/conv3d_geometry.h"
#include "kernels/conv/conv_impl.h"
#include "kernels/cwise_ops.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

using conv::Conv3DAttrs;
using conv::Conv3DDims;

// The clipped input range [begin, end) of output index o along spatial dim i.
struct Range {
  int64_t begin, end;
};
Range Window(const Conv3DDims& d, const Conv3DAttrs& a, int i, int64_t o) {
  const int64_t start = o * a.stride[i] - d.pad_before[i];
  return {std::max<int64_t>(start, 0), std::min(start + a.ksize[i], d.in[i])};
}

// Calls f(output index, first input element index of each window cell)
// for each output position of batch item n, output plane od; `cells`
// receives the window's input offsets (times channels).
template <typename F>
void ForEachWindow(const Conv3DDims& d, const Conv3DAttrs& a, int64_t n, int64_t od, std::vector<int64_t>* cells,
                   const F& f) {
  const int64_t C = d.in_channels;
  const Range rd = Window(d, a, 0, od);
  for (int64_t oh = 0; oh < d.out[1]; ++oh) {
    const Range rh = Window(d, a, 1, oh);
    for (int64_t ow = 0; ow < d.out[2]; ++ow) {
      const Range rw = Window(d, a, 2, ow);
      cells->clear();
      for (int64_t id = rd.begin; id < rd.end; ++id)
        for (int64_t ih = rh.begin; ih < rh.end; ++ih)
          for (int64_t iw = rw.begin; iw < rw.end; ++iw)
            cells->push_back((((n * d.in[0] + id) * d.in[1] + ih) * d.in[2] + iw) * C);
      f((((n * d.out[0] + od) * d.out[1] + oh) * d.out[2] + ow) * C);
    }
  }
}

enum class PoolKind { kMax, kAvg, kMaxGrad, kAvgGrad };

// NDHWC in U. Forward: x -> y. kMaxGrad: x (orig input), y (orig output),
// g (output gradient) -> dx. kAvgGrad: g -> dx.
template <typename U>
void Pool(OpKernelContext* ctx, PoolKind kind, const Conv3DDims& d, const Conv3DAttrs& a, const U* x, const U* y,
          const U* g, U* out) {
  const int64_t C = d.in_channels;
  if (kind == PoolKind::kMax || kind == PoolKind::kAvg) {
    const int64_t cost = a.ksize[0] * a.ksize[1] * a.ksize[2] * d.out[1] * d.out[2] * C;
    ctx->ParallelFor(d.batch * d.out[0], cost, [&](int64_t begin, int64_t end) {
      std::vector<int64_t> cells;
      for (int64_t u = begin; u < end; ++u) {
        ForEachWindow(d, a, u / d.out[0], u % d.out[0], &cells, [&](int64_t o) {
          for (int64_t c = 0; c < C; ++c) {
            if (kind == PoolKind::kMax) {
              U m = -std::numeric_limits<U>::infinity();
              for (int64_t e : cells) m = std::max(m, x[e + c]);
              out[o + c] = m;
            } else {
              U s = 0;
              for (int64_t e : cells) s += x[e + c];
              out[o + c] = cells.empty() ? U(0) : s / static_cast<U>(cells.size());
            }
          }
        });
      }
    });
    return;
  }
  const int64_t in_image = d.in_spatial() * C;
  ctx->ParallelFor(d.batch, in_image * a.ksize[0] * a.ksize[1] * a.ksize[2], [&](int64_t begin, int64_t end) {
    std::vector<int64_t> cells;
    for (int64_t n = begin; n < end; ++n) {
      std::fill(out + n * in_image, out + (n + 1) * in_image, U(0));
      for (int64_t od = 0; od < d.out[0]; ++od) {
        ForEachWindow(d, a, n, od, &cells, [&](int64_t o) {
          for (int64_t c = 0; c < C; ++c) {
            if (kind == PoolKind::kMaxGrad) {
              for (int64_t e : cells)
                if (x[e + c] == y[o + c]) out[e + c] += g[o + c];
            } else if (!cells.empty()) {
              const U share = g[o + c] / static_cast<U>(cells.size());
              for (int64_t e : cells) out[e + c] += share;
            }
          }
        });
      }
    }
  });
}

// A tensor's values as U in NDHWC (transposed from NCDHW when needed).
template <typename T, typename U>
std::vector<U> ToNdhwc(const Tensor& t, bool ncdhw, int64_t channels) {
  const int64_t n = t.NumElements();
  std::vector<U> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<U>(t.data<T>()[i]);
  if (!ncdhw || n == 0) return v;
  std::vector<U> out(n);
  const int64_t batch = t.dim_size(0);
  conv::NchwToNhwc(v.data(), out.data(), batch, channels, n / (batch * channels), sizeof(U));
  return out;
}

template <typename T, typename U>
void FromNdhwc(std::vector<U> v, bool ncdhw, int64_t channels, Tensor* t) {
  const int64_t n = t->NumElements();
  if (ncdhw && n > 0) {
    std::vector<U> back(n);
    const int64_t batch = t->dim_size(0);
    conv::NhwcToNchw(v.data(), back.data(), batch, channels, n / (batch * channels), sizeof(U));
    v = std::move(back);
  }
  for (int64_t i = 0; i < n; ++i) t->data<T>()[i] = static_cast<T>(v[i]);
}

template <typename T>
class Pool3DOp : public OpKernel {
 public:
  using U = std::conditional_t<cwise::kIsHalfLike<T>, float, T>;
  Pool3DOp(OpKernelConstruction* ctx, PoolKind kind) : OpKernel(ctx), kind_(kind) {
    OP_REQUIRES_OK(ctx, conv::ParsePool3DAttrs(ctx->def(), &attrs_));
  }

  void Compute(OpKernelContext* ctx) override {
    const char* op = type_string().c_str();
    TensorShape in_shape;
    if (kind_ == PoolKind::kAvgGrad) {
      OP_REQUIRES_OK(ctx, ShapeInput(op, ctx->input(0), &in_shape));
    } else {
      in_shape = ctx->input(0).shape();
    }
    Conv3DDims d;
    OP_REQUIRES_OK(ctx, conv::ComputePool3DDims(op, attrs_, in_shape, &d));
    const TensorShape out_shape = conv::MakeShape5(attrs_, d.batch, d.out, d.in_channels);
    const bool grad = kind_ == PoolKind::kMaxGrad || kind_ == PoolKind::kAvgGrad;
    const int C = static_cast<int>(d.in_channels);
    if (kind_ == PoolKind::kMaxGrad) {
      OP_REQUIRES(ctx, ctx->input(1).shape() == out_shape,
                  errors::InvalidArgument(op, ": orig_output has shape ", ctx->input(1).shape().DebugString(),
                                          " but pooling orig_input gives ", out_shape.DebugString()));
    }
    if (grad) {
      const Tensor& g = ctx->input(kind_ == PoolKind::kMaxGrad ? 2 : 1);
      OP_REQUIRES(ctx, g.shape() == out_shape,
                  errors::InvalidArgument(op, ": grad has shape ", g.shape().DebugString(),
                                          " but the pooled output has shape ", out_shape.DebugString()));
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, grad ? in_shape : out_shape, &out));
    if (out->NumElements() == 0) return;
    std::vector<U> result(out->NumElements());
    if (kind_ == PoolKind::kMax || kind_ == PoolKind::kAvg) {
      const std::vector<U> x = ToNdhwc<T, U>(ctx->input(0), attrs_.ncdhw, C);
      Pool<U>(ctx, kind_, d, attrs_, x.data(), nullptr, nullptr, result.data());
    } else if (kind_ == PoolKind::kMaxGrad) {
      // orig_input / orig_output are TInput, which the kernel is registered
      // to equal T.
      const std::vector<U> x = ToNdhwc<T, U>(ctx->input(0), attrs_.ncdhw, C);
      const std::vector<U> y = ToNdhwc<T, U>(ctx->input(1), attrs_.ncdhw, C);
      const std::vector<U> g = ToNdhwc<T, U>(ctx->input(2), attrs_.ncdhw, C);
      Pool<U>(ctx, kind_, d, attrs_, x.data(), y.data(), g.data(), result.data());
    } else {
      const std::vector<U> g = ToNdhwc<T, U>(ctx->input(1), attrs_.ncdhw, C);
      Pool<U>(ctx, kind_, d, attrs_, nullptr, nullptr, g.data(), result.data());
    }
    FromNdhwc<T, U>(std::move(result), attrs_.ncdhw, C, out);
  }

 private:
  static Status ShapeInput(const char* op, const Tensor& t, TensorShape* out) {
    if (t.dims() != 1 || t.dtype() != DT_INT32 || t.NumElements() != 5)
      return errors::InvalidArgument(op, ": orig_input_shape must be a vector of 5 int32 values, got shape ",
                                     t.shape().DebugString());
    std::vector<int64_t> dims(5);
    for (int i = 0; i < 5; ++i) {
      dims[i] = t.data<int32_t>()[i];
      if (dims[i] < 0) return errors::InvalidArgument(op, ": orig_input_shape[", i, "] is negative: ", dims[i]);
    }
    auto s = TensorShape::FromDims(dims);
    if (!s.ok()) return s.status();
    *out = *s;
    return Status::OK();
  }

  PoolKind kind_;
  Conv3DAttrs attrs_;
};

template <typename T, PoolKind kKind>
class Pool3DKernel : public Pool3DOp<T> {
 public:
  explicit Pool3DKernel(OpKernelConstruction* ctx) : Pool3DOp<T>(ctx, kKind) {}
};

}  // namespace

#define FLOWVM_REGISTER_POOL3D(T)                                                                              \
  REGISTER_KERNEL_BUILDER(Name("AvgPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"),                         \
                          Pool3DKernel<T, PoolKind::kAvg>);                                                    \
  REGISTER_KERNEL_BUILDER(Name("AvgPool3DGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"),                     \
                          Pool3DKernel<T, PoolKind::kAvgGrad>);
FLOWVM_REGISTER_POOL3D(float)
FLOWVM_REGISTER_POOL3D(double)
FLOWVM_REGISTER_POOL3D(half)
FLOWVM_REGISTER_POOL3D(bfloat16)
#undef FLOWVM_REGISTER_POOL3D

#define FLOWVM_REGISTER_MAXPOOL3D(T)                                                                           \
  REGISTER_KERNEL_BUILDER(Name("MaxPool3D").Device(DEVICE_CPU).TypeConstraint<T>("T"),                         \
                          Pool3DKernel<T, PoolKind::kMax>);                                                    \
  REGISTER_KERNEL_BUILDER(                                                                                     \
      Name("MaxPool3DGrad").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<T>("TInput"),             \
      Pool3DKernel<T, PoolKind::kMaxGrad>);
FLOWVM_REGISTER_MAXPOOL3D(float)
FLOWVM_REGISTER_MAXPOOL3D(half)
FLOWVM_REGISTER_MAXPOOL3D(bfloat16)
#undef FLOWVM_REGISTER_MAXPOOL3D

}  // namespace flowvm
