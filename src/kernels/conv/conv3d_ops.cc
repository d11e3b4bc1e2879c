// Conv3D, Conv3DBackpropInputV2, Conv3DBackpropFilterV2 on CPU.
//
// vol2col + GEMM in NDHWC: for one batch item the output positions form
// the rows P of a column matrix [P, KD*KH*KW*C_in] (zeros where the window
// hangs over the padding), so the forward pass is cols x filter (the DHWIO
// filter is already [K, C_out]), the input gradient is dy x filter^T
// scattered back (col2vol), and the filter gradient is cols^T x dy summed
// over the batch. Rows go in blocks that bound the column buffer; batch
// items (and blocks) are sharded over the session's pool. float and double
// go to linalg::Gemm; half and bfloat16 compute in float. NCDHW is
// transposed to NDHWC and back. The filter gradient sums over a fixed
// number of batch chunks in order, so it does not depend on the thread
// count.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/conv/conv3d_geometry.h"
#include "kernels/conv/conv_impl.h"
#include "kernels/cwise_ops.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/linalg/gemm.h"

namespace flowvm {
namespace {

using conv::Conv3DAttrs;
using conv::Conv3DDims;

// Column-buffer budget per block, in elements.
constexpr int64_t kColsBudget = int64_t{1} << 20;

int64_t PatchSize(const Conv3DDims& d) { return d.filter_spatial() * d.in_channels; }
int64_t BlockRows(const Conv3DDims& d) {
  return std::max<int64_t>(1, std::min<int64_t>(d.out_spatial(), kColsBudget / std::max<int64_t>(1, PatchSize(d))));
}

// Calls f(offset in the image, offset in the column row) for each filter tap
// of output position p whose input position is inside the image; taps in
// the padding are skipped (their column entries are zero).
template <typename F>
void ForEachTap(const Conv3DDims& d, const Conv3DAttrs& a, int64_t p, const F& f) {
  const int64_t ow = p % d.out[2], oh = (p / d.out[2]) % d.out[1], od = p / (d.out[2] * d.out[1]);
  const int64_t C = d.in_channels;
  int64_t k = 0;
  for (int64_t fd = 0; fd < d.filter[0]; ++fd) {
    const int64_t id = od * a.stride[0] - d.pad_before[0] + fd * a.dilation[0];
    for (int64_t fh = 0; fh < d.filter[1]; ++fh) {
      const int64_t ih = oh * a.stride[1] - d.pad_before[1] + fh * a.dilation[1];
      for (int64_t fw = 0; fw < d.filter[2]; ++fw, k += C) {
        const int64_t iw = ow * a.stride[2] - d.pad_before[2] + fw * a.dilation[2];
        if (id < 0 || id >= d.in[0] || ih < 0 || ih >= d.in[1] || iw < 0 || iw >= d.in[2]) continue;
        f(((id * d.in[1] + ih) * d.in[2] + iw) * C, k);
      }
    }
  }
}

template <typename T>
void Vol2Col(const Conv3DDims& d, const Conv3DAttrs& a, const T* image, int64_t p0, int64_t rows, T* cols) {
  const int64_t K = PatchSize(d), C = d.in_channels;
  std::fill(cols, cols + rows * K, T(0));
  for (int64_t r = 0; r < rows; ++r) {
    T* row = cols + r * K;
    ForEachTap(d, a, p0 + r, [&](int64_t img, int64_t k) { std::memcpy(row + k, image + img, C * sizeof(T)); });
  }
}

template <typename T>
void Col2Vol(const Conv3DDims& d, const Conv3DAttrs& a, const T* cols, int64_t p0, int64_t rows, T* image) {
  const int64_t K = PatchSize(d), C = d.in_channels;
  for (int64_t r = 0; r < rows; ++r) {
    const T* row = cols + r * K;
    ForEachTap(d, a, p0 + r, [&](int64_t img, int64_t k) {
      for (int64_t c = 0; c < C; ++c) image[img + c] += row[k + c];
    });
  }
}

linalg::GemmShape Shape(linalg::GemmOp op_a, linalg::GemmOp op_b, int64_t m, int64_t n, int64_t k, int64_t lda,
                        int64_t ldb, int64_t ldc) {
  linalg::GemmShape g;
  g.op_a = op_a;
  g.op_b = op_b;
  g.m = m;
  g.n = n;
  g.k = k;
  g.lda = lda;
  g.ldb = ldb;
  g.ldc = ldc;
  return g;
}

enum class Kind { kForward, kBackwardInput, kBackwardFilter };

// One convolution kind in NDHWC for T in {float, double}:
//   forward:         a = input,  b = filter, c = output
//   backward input:  a = dy,     b = filter, c = dx
//   backward filter: a = input,  b = dy,     c = dfilter
template <typename T>
Status Run(OpKernelContext* ctx, Kind kind, const Conv3DDims& d, const Conv3DAttrs& a_, const T* a, const T* b, T* c) {
  using linalg::GemmOp;
  const int64_t P = d.out_spatial(), K = PatchSize(d), Cout = d.out_channels;
  const int64_t in_image = d.in_spatial() * d.in_channels, out_image = P * Cout;
  const int64_t block = BlockRows(d), blocks = (P + block - 1) / block;
  if (!linalg::GemmDimsFit(Shape(GemmOp::kNoTrans, GemmOp::kNoTrans, block, std::max(K, Cout), std::max(K, block),
                                 std::max(K, block), std::max(K, Cout), std::max(K, Cout))))
    return errors::InvalidArgument("Conv3D geometry too large for the matrix backend: patch ", K, ", channels ", Cout);
  const Conv3DAttrs at = a_;
  if (kind == Kind::kForward) {
    ctx->ParallelFor(d.batch * blocks, block * K * Cout, [&](int64_t begin, int64_t end) {
      std::vector<T> cols(block * K);
      for (int64_t u = begin; u < end; ++u) {
        const int64_t n = u / blocks, p0 = (u % blocks) * block, rows = std::min(block, P - p0);
        Vol2Col(d, at, a + n * in_image, p0, rows, cols.data());
        linalg::Gemm<T>(Shape(GemmOp::kNoTrans, GemmOp::kNoTrans, rows, Cout, K, K, Cout, Cout), cols.data(), b,
                        c + n * out_image + p0 * Cout);
      }
    });
  } else if (kind == Kind::kBackwardInput) {
    ctx->ParallelFor(d.batch, P * K * Cout, [&](int64_t begin, int64_t end) {
      std::vector<T> cols(block * K);
      for (int64_t n = begin; n < end; ++n) {
        T* dx = c + n * in_image;
        std::fill(dx, dx + in_image, T(0));
        for (int64_t p0 = 0; p0 < P; p0 += block) {
          const int64_t rows = std::min(block, P - p0);
          linalg::Gemm<T>(Shape(GemmOp::kNoTrans, GemmOp::kTrans, rows, K, Cout, Cout, Cout, K),
                          a + n * out_image + p0 * Cout, b, cols.data());
          Col2Vol(d, at, cols.data(), p0, rows, dx);
        }
      }
    });
  } else {
    const int64_t chunks = std::min<int64_t>(d.batch, 16), per = (d.batch + chunks - 1) / chunks;
    std::vector<std::vector<T>> partial(chunks, std::vector<T>(K * Cout, T(0)));
    ctx->ParallelFor(chunks, per * P * K * Cout, [&](int64_t begin, int64_t end) {
      std::vector<T> cols(block * K), prod(K * Cout);
      for (int64_t ch = begin; ch < end; ++ch) {
        T* acc = partial[ch].data();
        for (int64_t n = ch * per; n < std::min(d.batch, (ch + 1) * per); ++n) {
          for (int64_t p0 = 0; p0 < P; p0 += block) {
            const int64_t rows = std::min(block, P - p0);
            Vol2Col(d, at, a + n * in_image, p0, rows, cols.data());
            linalg::Gemm<T>(Shape(GemmOp::kTrans, GemmOp::kNoTrans, K, Cout, rows, K, Cout, Cout), cols.data(),
                            b + n * out_image + p0 * Cout, prod.data());
            for (int64_t i = 0; i < K * Cout; ++i) acc[i] += prod[i];
          }
        }
      }
    });
    std::fill(c, c + K * Cout, T(0));
    for (const auto& p : partial)
      for (int64_t i = 0; i < K * Cout; ++i) c[i] += p[i];
  }
  return Status::OK();
}

// Which of (a, b, c) are activations, and their channel counts, per kind.
struct ActLayout {
  bool act[3];
  int64_t channels[3];
};
ActLayout Acts(Kind kind, const Conv3DDims& d) {
  switch (kind) {
    case Kind::kForward:
      return {{true, false, true}, {d.in_channels, 0, d.out_channels}};
    case Kind::kBackwardInput:
      return {{true, false, true}, {d.out_channels, 0, d.in_channels}};
    default:
      return {{true, true, false}, {d.in_channels, d.out_channels, 0}};
  }
}

// Runs `kind` on tensors of type T (any layout), computing in U.
template <typename T>
Status RunTyped(OpKernelContext* ctx, Kind kind, const Conv3DDims& d, const Conv3DAttrs& attrs, const Tensor& a,
                const Tensor& b, Tensor* c) {
  using U = std::conditional_t<cwise::kIsHalfLike<T>, float, T>;
  const ActLayout l = Acts(kind, d);
  const Tensor* ins[2] = {&a, &b};
  std::vector<U> buf[3];
  const U* ptr[2];
  for (int i = 0; i < 2; ++i) {
    const int64_t n = ins[i]->NumElements();
    const bool transpose = attrs.ncdhw && l.act[i];
    if (!transpose && !cwise::kIsHalfLike<T>) {
      ptr[i] = reinterpret_cast<const U*>(ins[i]->data<T>());
      continue;
    }
    std::vector<U> widened(n);
    for (int64_t j = 0; j < n; ++j) widened[j] = static_cast<U>(ins[i]->data<T>()[j]);
    if (transpose) {
      buf[i].resize(n);
      const int64_t spatial = l.channels[i] == 0 || d.batch == 0 ? 0 : n / (d.batch * l.channels[i]);
      conv::NchwToNhwc(widened.data(), buf[i].data(), d.batch, l.channels[i], spatial, sizeof(U));
    } else {
      buf[i] = std::move(widened);
    }
    ptr[i] = buf[i].data();
  }
  const int64_t nc = c->NumElements();
  const bool direct = !(attrs.ncdhw && l.act[2]) && !cwise::kIsHalfLike<T>;
  U* out = direct ? reinterpret_cast<U*>(c->data<T>()) : (buf[2].resize(nc), buf[2].data());
  FLOWVM_RETURN_IF_ERROR(Run<U>(ctx, kind, d, attrs, ptr[0], ptr[1], out));
  if (direct) return Status::OK();
  std::vector<U> back;
  const U* src = out;
  if (attrs.ncdhw && l.act[2]) {
    back.resize(nc);
    const int64_t spatial = l.channels[2] == 0 || d.batch == 0 ? 0 : nc / (d.batch * l.channels[2]);
    conv::NhwcToNchw(out, back.data(), d.batch, l.channels[2], spatial, sizeof(U));
    src = back.data();
  }
  T* dst = c->data<T>();
  for (int64_t j = 0; j < nc; ++j) dst[j] = static_cast<T>(src[j]);
  return Status::OK();
}

// A 1-D int32 / int64 shape input of 5 non-negative values.
Status ShapeInput(const char* op, const char* name, const Tensor& t, TensorShape* out) {
  if (t.dims() != 1 || (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) || t.NumElements() != 5)
    return errors::InvalidArgument(op, ": ", name, " must be a vector of 5 int32/int64 values, got ",
                                   DataTypeName(t.dtype()), " of shape ", t.shape().DebugString());
  std::vector<int64_t> dims(5);
  for (int i = 0; i < 5; ++i) {
    dims[i] = t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<int64_t>()[i];
    if (dims[i] < 0) return errors::InvalidArgument(op, ": ", name, "[", i, "] is negative: ", dims[i]);
  }
  auto s = TensorShape::FromDims(dims);
  if (!s.ok()) return errors::InvalidArgument(op, ": ", name, ": ", s.status().message());
  *out = *s;
  return Status::OK();
}

class Conv3DBase : public OpKernel {
 public:
  explicit Conv3DBase(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, conv::ParseConv3DAttrs(ctx->def(), &attrs_));
  }

 protected:
  Status CheckOutBackprop(const char* op, const Conv3DDims& d, const Tensor& dy) const {
    const TensorShape want = conv::MakeShape5(attrs_, d.batch, d.out, d.out_channels);
    if (dy.shape() != want)
      return errors::InvalidArgument(op, ": out_backprop has shape ", dy.shape().DebugString(),
                                     " but the convolution's output has shape ", want.DebugString());
    return Status::OK();
  }
  Conv3DAttrs attrs_;
};

template <typename T>
class Conv3DOp : public Conv3DBase {
 public:
  using Conv3DBase::Conv3DBase;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& filter = ctx->input(1);
    Conv3DDims d;
    OP_REQUIRES_OK(ctx, conv::ComputeConv3DDims("Conv3D", attrs_, input.shape(), filter.shape(), &d));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, conv::MakeShape5(attrs_, d.batch, d.out, d.out_channels), &out));
    if (out->NumElements() == 0) return;
    OP_REQUIRES_OK(ctx, RunTyped<T>(ctx, Kind::kForward, d, attrs_, input, filter, out));
  }
};

template <typename T>
class Conv3DBackpropInputOp : public Conv3DBase {
 public:
  using Conv3DBase::Conv3DBase;
  void Compute(OpKernelContext* ctx) override {
    const char* op = "Conv3DBackpropInputV2";
    TensorShape input_shape;
    OP_REQUIRES_OK(ctx, ShapeInput(op, "input_sizes", ctx->input(0), &input_shape));
    const Tensor& filter = ctx->input(1);
    const Tensor& dy = ctx->input(2);
    Conv3DDims d;
    OP_REQUIRES_OK(ctx, conv::ComputeConv3DDims(op, attrs_, input_shape, filter.shape(), &d));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(op, d, dy));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, input_shape, &out));
    if (out->NumElements() == 0) return;
    if (dy.NumElements() == 0 || filter.NumElements() == 0) {
      std::fill(out->data<T>(), out->data<T>() + out->NumElements(), T(0.0f));
      return;
    }
    OP_REQUIRES_OK(ctx, RunTyped<T>(ctx, Kind::kBackwardInput, d, attrs_, dy, filter, out));
  }
};

template <typename T>
class Conv3DBackpropFilterOp : public Conv3DBase {
 public:
  using Conv3DBase::Conv3DBase;
  void Compute(OpKernelContext* ctx) override {
    const char* op = "Conv3DBackpropFilterV2";
    const Tensor& input = ctx->input(0);
    TensorShape filter_shape;
    OP_REQUIRES_OK(ctx, ShapeInput(op, "filter_sizes", ctx->input(1), &filter_shape));
    const Tensor& dy = ctx->input(2);
    Conv3DDims d;
    OP_REQUIRES_OK(ctx, conv::ComputeConv3DDims(op, attrs_, input.shape(), filter_shape, &d));
    OP_REQUIRES_OK(ctx, CheckOutBackprop(op, d, dy));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, filter_shape, &out));
    if (out->NumElements() == 0) return;
    if (dy.NumElements() == 0 || input.NumElements() == 0) {
      std::fill(out->data<T>(), out->data<T>() + out->NumElements(), T(0.0f));
      return;
    }
    OP_REQUIRES_OK(ctx, RunTyped<T>(ctx, Kind::kBackwardFilter, d, attrs_, input, dy, out));
  }
};

}  // namespace

#define FLOWVM_REGISTER_CONV3D(T)                                                                          \
  REGISTER_KERNEL_BUILDER(Name("Conv3D").Device(DEVICE_CPU).TypeConstraint<T>("T"), Conv3DOp<T>);          \
  REGISTER_KERNEL_BUILDER(Name("Conv3DBackpropInputV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),         \
                          Conv3DBackpropInputOp<T>);                                                       \
  REGISTER_KERNEL_BUILDER(Name("Conv3DBackpropFilterV2").Device(DEVICE_CPU).TypeConstraint<T>("T"),        \
                          Conv3DBackpropFilterOp<T>);
FLOWVM_REGISTER_CONV3D(float)
FLOWVM_REGISTER_CONV3D(double)
FLOWVM_REGISTER_CONV3D(half)
FLOWVM_REGISTER_CONV3D(bfloat16)
#undef FLOWVM_REGISTER_CONV3D

}  // namespace flowvm
