// BiasAdd (data_format NHWC / NCHW), BiasAddV1 (no data_format: NHWC) and
// BiasAddGrad, for TensorFlow's CPU number types.
//
// Both views reduce to [outer, channels, inner]: NHWC has inner = 1 (the
// channel is the last dimension), NCHW has the channel at dimension 1 and
// inner = the product of the dimensions after it. Integer sums wrap as in
// TensorFlow; half and bfloat16 compute in float. BiasAddGrad sums in
// double for the floating types, over fixed chunks added in order, so its
// result does not depend on the thread count.
#include <algorithm>
#include <string>
#include <vector>

#include "kernels/nn/nn_util.h"

namespace flowvm {
namespace nn {
namespace {

struct BiasLayout {
  int64_t outer, channels, inner;
};

BiasLayout Layout(const TensorShape& s, bool nchw) {
  const int c = nchw ? 1 : s.dims() - 1;
  BiasLayout l{1, s.dim_size(c), 1};
  // With no elements the other dimensions may multiply past int64: skip them.
  if (s.num_elements() == 0) return BiasLayout{0, l.channels, 0};
  for (int i = 0; i < c; ++i) l.outer *= s.dim_size(i);
  for (int i = c + 1; i < s.dims(); ++i) l.inner *= s.dim_size(i);
  return l;
}

// Reads the data_format attr (BiasAddV1 has none: NHWC).
bool IsNCHW(OpKernelConstruction* ctx) {
  std::string format = "NHWC";
  if (FindNodeAttr(ctx->def(), "data_format") != nullptr) {
    Status s = ctx->GetAttr("data_format", &format);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return false;
    }
  }
  if (format != "NHWC" && format != "NCHW") ctx->SetStatus(errors::InvalidArgument("Invalid data format: ", format));
  return format == "NCHW";
}

// y[i] = x[i] + b for a run of n elements sharing one bias value (float and
// double: the dispatched loops of simd.h).
template <typename T>
void AddScalar(const T* x, T b, T* y, int64_t n) {
  cwise::ScalarRight<T, cwise::AddFn>(x, b, y, n);
}

// y[j] = x[j] + b[j] for one row of n channels.
template <typename T>
void AddRow(const T* x, const T* b, T* y, int64_t n) {
  cwise::SameShape<T, cwise::AddFn>(x, b, y, n);
}

template <typename T>
class BiasAddOp : public OpKernel {
 public:
  explicit BiasAddOp(OpKernelConstruction* ctx) : OpKernel(ctx) { nchw_ = IsNCHW(ctx); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const Tensor& bias = ctx->input(1);
    OP_REQUIRES(ctx, value.dims() >= 2,
                errors::InvalidArgument("Input tensor must be at least 2D: ", value.shape().DebugString()));
    OP_REQUIRES(ctx, bias.dims() == 1, errors::InvalidArgument("Biases must be 1D: ", bias.shape().DebugString()));
    const BiasLayout l = Layout(value.shape(), nchw_);
    OP_REQUIRES(ctx, bias.dim_size(0) == l.channels,
                errors::InvalidArgument("Must provide as many biases as the last dimension of the input tensor: ",
                                        bias.shape().DebugString(), " vs. ", value.shape().DebugString()));
    const T* x = value.data<T>();
    const TensorShape shape = value.shape();
    const int64_t n = value.NumElements();
    // The bias in the compute type (half / bfloat16 widened once).
    using U = ComputeType<T>;
    std::vector<U> b(l.channels);
    for (int64_t c = 0; c < l.channels; ++c) b[c] = Widen(bias.data<T>()[c]);
    Tensor* out = nullptr;
    if (!ctx->forward_input_to_output(0, 0, shape, &out)) OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    if (n == 0) return;
    T* y = out->data<T>();
    const U* bp = b.data();
    if (l.inner == 1) {  // rows of `channels` elements
      const int64_t c = l.channels;
      ctx->ParallelFor(l.outer, c, [x, y, bp, c](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) Row(x + r * c, bp, y + r * c, c);
      });
    } else {  // runs of `inner` elements, one per (outer, channel)
      const int64_t c = l.channels, inner = l.inner;
      ctx->ParallelFor(l.outer * c, inner, [x, y, bp, c, inner](int64_t begin, int64_t end) {
        for (int64_t u = begin; u < end; ++u) Run(x + u * inner, bp[u % c], y + u * inner, inner);
      });
    }
  }

 private:
  using U = ComputeType<T>;
  static void Row(const T* x, const U* b, T* y, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      float buf[kBlock];
      for (int64_t i = 0; i < n; i += kBlock) {
        const int64_t m = std::min(kBlock, n - i);
        ToFloat(x + i, buf, m);
        AddRow<float>(buf, b + i, buf, m);
        FromFloat(buf, y + i, m);
      }
    } else {
      AddRow(x, b, y, n);
    }
  }
  static void Run(const T* x, U b, T* y, int64_t n) {
    if constexpr (kIsHalfLike<T>) {
      float buf[kBlock];
      for (int64_t i = 0; i < n; i += kBlock) {
        const int64_t m = std::min(kBlock, n - i);
        ToFloat(x + i, buf, m);
        AddScalar<float>(buf, b, buf, m);
        FromFloat(buf, y + i, m);
      }
    } else {
      AddScalar(x, b, y, n);
    }
  }

  bool nchw_ = false;
};

// The accumulator of BiasAddGrad: double for the real floating types, a
// wrapping unsigned type for integers, the type itself for complex.
template <typename T>
struct GradAccOf {
  using type = T;
};
template <typename T>
  requires std::is_integral_v<T>
struct GradAccOf<T> {
  using type = cwise::WrapType<T>;
};
template <typename T>
  requires(std::is_floating_point_v<T> || kIsHalfLike<T>)
struct GradAccOf<T> {
  using type = double;
};
template <typename T>
using GradAcc = typename GradAccOf<T>::type;

template <typename T>
class BiasAddGradOp : public OpKernel {
 public:
  explicit BiasAddGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) { nchw_ = IsNCHW(ctx); }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& grad = ctx->input(0);
    OP_REQUIRES(ctx, grad.dims() >= 2,
                errors::InvalidArgument("Input tensor must be at least 2D: ", grad.shape().DebugString()));
    const BiasLayout l = Layout(grad.shape(), nchw_);
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({l.channels}), &out));
    using A = GradAcc<T>;
    const int64_t c = l.channels;
    if (c == 0) return;
    // Units of work: NHWC rows of c, or NCHW (outer) slabs of c * inner.
    const int64_t units = l.outer;
    const int64_t unit_size = c * l.inner;
    // Fixed chunks (at most 64, of at least kMinChunkElements each, so that
    // a small gradient is one pass without partial sums to add up), summed
    // in order afterwards: deterministic at any thread count.
    constexpr int64_t kMinChunkElements = 16384;
    const int64_t chunks =
        std::max<int64_t>(1, std::min<int64_t>({units, int64_t{64}, units * unit_size / kMinChunkElements}));
    const int64_t per_chunk = units == 0 ? 0 : (units + chunks - 1) / chunks;
    std::vector<A> partial(chunks * c, A(0));
    const T* g = grad.data<T>();
    const int64_t inner = l.inner;
    A* pp = partial.data();
    ctx->ParallelFor(chunks, per_chunk * unit_size, [=](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        A* acc = pp + k * c;
        const int64_t u_end = std::min(units, (k + 1) * per_chunk);
        for (int64_t u = k * per_chunk; u < u_end; ++u) {
          const T* src = g + u * unit_size;
          if (inner == 1) {
            for (int64_t j = 0; j < c; ++j) acc[j] += static_cast<A>(Widen(src[j]));
          } else {
            for (int64_t j = 0; j < c; ++j) {
              A s(0);
              const T* run = src + j * inner;
              for (int64_t i = 0; i < inner; ++i) s += static_cast<A>(Widen(run[i]));
              acc[j] += s;
            }
          }
        }
      }
    });
    // Chunk by chunk (rows of c, read in memory order), each channel's sum
    // in chunk order.
    std::vector<A> sum(c, A(0));
    for (int64_t k = 0; k < chunks; ++k) {
      const A* row = pp + k * c;
      for (int64_t j = 0; j < c; ++j) sum[j] += row[j];
    }
    T* y = out->data<T>();
    for (int64_t j = 0; j < c; ++j) {
      if constexpr (kIsHalfLike<T>) y[j] = Narrow<T>(static_cast<float>(sum[j]));
      else y[j] = static_cast<T>(sum[j]);
    }
  }

 private:
  bool nchw_ = false;
};

}  // namespace

#define FLOWVM_REGISTER_BIAS(T)                                 \
  FLOWVM_NN_REGISTER("BiasAdd", BiasAddOp<T>, T);               \
  FLOWVM_NN_REGISTER("BiasAddV1", BiasAddOp<T>, T);             \
  FLOWVM_NN_REGISTER("BiasAddGrad", BiasAddGradOp<T>, T);
FLOWVM_REGISTER_BIAS(float)
FLOWVM_REGISTER_BIAS(double)
FLOWVM_REGISTER_BIAS(half)
FLOWVM_REGISTER_BIAS(bfloat16)
FLOWVM_REGISTER_BIAS(int8_t)
FLOWVM_REGISTER_BIAS(uint8_t)
FLOWVM_REGISTER_BIAS(int16_t)
FLOWVM_REGISTER_BIAS(uint16_t)
FLOWVM_REGISTER_BIAS(int32_t)
FLOWVM_REGISTER_BIAS(uint32_t)
FLOWVM_REGISTER_BIAS(int64_t)
FLOWVM_REGISTER_BIAS(uint64_t)
FLOWVM_REGISTER_BIAS(complex64)
FLOWVM_REGISTER_BIAS(complex128)
#undef FLOWVM_REGISTER_BIAS

}  // namespace nn
}  // namespace flowvm
