// FusedBatchNorm (V1, V2, V3) and FusedBatchNormGrad (V1, V2, V3) on CPU.
//
// x is viewed as [outer, channels, inner]: channels-last formats (NHWC,
// NDHWC) have inner = 1, channels-first ones (NCHW, NCDHW) outer = N. Each
// op is two passes over memory: one that sums two per-channel quantities
// (sum x and sum x^2 forward; sum dy and sum dy * (x - mean) backward), and
// one that writes y = x * a[c] + b[c] (dx = dy * a[c] + x * b[c] + k[c]).
// The sums are in double, over a fixed set of chunks added in order, so the
// results do not depend on the thread count; one pass of sums in double is
// as accurate here as TensorFlow's two-pass float variance. half and
// bfloat16 inputs compute in float.
//
// Training returns TensorFlow's values: batch_variance is the unbiased
// (Bessel-corrected) variance, reserve_space_2 the biased one that y was
// normalized with, and with exponential_avg_factor f != 1 batch_mean /
// batch_variance are (1 - f) * running + f * batch.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "kernels/nn/nn_util.h"

namespace flowvm {
namespace nn {
namespace {

struct ChannelLayout {
  int64_t outer = 0, channels = 0, inner = 0;
  int64_t count() const { return outer * inner; }  // elements per channel
};

Status ParseFormat(OpKernelConstruction* ctx, int* rank, bool* channels_first) {
  std::string format;
  FLOWVM_RETURN_IF_ERROR(ctx->GetAttr("data_format", &format));
  if (format == "NHWC" || format == "NCHW") {
    *rank = 4;
  } else if (format == "NDHWC" || format == "NCDHW") {
    *rank = 5;
  } else {
    return errors::InvalidArgument("Invalid data_format: ", format);
  }
  *channels_first = format[1] == 'C';
  return Status::OK();
}

ChannelLayout Layout(const TensorShape& s, bool channels_first) {
  const int c = channels_first ? 1 : s.dims() - 1;
  ChannelLayout l{1, s.dim_size(c), 1};
  if (s.num_elements() == 0) return ChannelLayout{0, l.channels, 0};
  for (int i = 0; i < c; ++i) l.outer *= s.dim_size(i);
  for (int i = c + 1; i < s.dims(); ++i) l.inner *= s.dim_size(i);
  return l;
}

Status CheckVector(const char* op, const char* name, const Tensor& t, int64_t channels) {
  if (t.dims() != 1)
    return errors::InvalidArgument(op, ": ", name, " must be 1-dimensional, got shape ", t.shape().DebugString());
  if (t.dim_size(0) != channels)
    return errors::InvalidArgument(op, ": ", name, " must have ", channels, " elements (the channels of x), got ",
                                   t.dim_size(0));
  return Status::OK();
}

// Per channel c: s0[c] = sum of a(e), s1[c] = sum of b(e) over the elements
// e of channel c, with term(e, c, a_acc, b_acc) adding both. Deterministic:
// the chunking depends on the shape only.
template <typename Term>
void ChannelSums(const OpKernelContext* ctx, const ChannelLayout& l, const Term& term, std::vector<double>* s0,
                 std::vector<double>* s1) {
  const int64_t C = l.channels;
  s0->assign(C, 0.0);
  s1->assign(C, 0.0);
  if (l.count() == 0 || C == 0) return;
  if (l.inner == 1) {
    // Rows of C elements, in up to 64 chunks of rows.
    const int64_t rows = l.outer;
    const int64_t chunks = std::min<int64_t>(rows, 64);
    std::vector<double> partial(2 * chunks * C, 0.0);
    double* pp = partial.data();
    const int64_t per_chunk = (rows + chunks - 1) / chunks;
    ctx->ParallelFor(chunks, per_chunk * C * 4, [&, pp](int64_t begin, int64_t end) {
      for (int64_t k = begin; k < end; ++k) {
        double* a = pp + 2 * k * C;
        double* b = a + C;
        const int64_t r_end = std::min(rows, (k + 1) * per_chunk);
        for (int64_t r = k * per_chunk; r < r_end; ++r) {
          const int64_t base = r * C;
          for (int64_t c = 0; c < C; ++c) term(base + c, c, a[c], b[c]);
        }
      }
    });
    for (int64_t k = 0; k < chunks; ++k)
      for (int64_t c = 0; c < C; ++c) {
        (*s0)[c] += pp[2 * k * C + c];
        (*s1)[c] += pp[2 * k * C + C + c];
      }
  } else {
    // One contiguous run of `inner` elements per (outer, channel).
    const int64_t units = l.outer * C, inner = l.inner;
    std::vector<double> partial(2 * units, 0.0);
    double* pp = partial.data();
    ctx->ParallelFor(units, inner * 4, [&, pp](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        double a = 0, b = 0;
        const int64_t c = u % C, base = u * inner;
        for (int64_t i = 0; i < inner; ++i) term(base + i, c, a, b);
        pp[2 * u] = a;
        pp[2 * u + 1] = b;
      }
    });
    for (int64_t u = 0; u < units; ++u) {
      (*s0)[u % C] += pp[2 * u];
      (*s1)[u % C] += pp[2 * u + 1];
    }
  }
}

// Calls f(e, c) for every element e of channel c, in parallel.
template <typename F>
void ForEachElement(const OpKernelContext* ctx, const ChannelLayout& l, const F& f) {
  const int64_t C = l.channels;
  if (l.count() == 0 || C == 0) return;
  if (l.inner == 1) {
    ctx->ParallelFor(l.outer, C * 3, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r)
        for (int64_t c = 0; c < C; ++c) f(r * C + c, c);
    });
  } else {
    const int64_t inner = l.inner;
    ctx->ParallelFor(l.outer * C, inner * 3, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t c = u % C, base = u * inner;
        for (int64_t i = 0; i < inner; ++i) f(base + i, c);
      }
    });
  }
}

// Per-channel values as float scratch.
std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

template <typename T>
class FusedBatchNormOp : public OpKernel {
 public:
  explicit FusedBatchNormOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    if (FindNodeAttr(ctx->def(), "exponential_avg_factor") != nullptr)
      OP_REQUIRES_OK(ctx, ctx->GetAttr("exponential_avg_factor", &factor_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    OP_REQUIRES_OK(ctx, ParseFormat(ctx, &rank_, &channels_first_));
  }

  void Compute(OpKernelContext* ctx) override {
    const char* op = type_string().c_str();
    const Tensor& x = ctx->input(0);
    const Tensor& scale = ctx->input(1);
    const Tensor& offset = ctx->input(2);
    const Tensor& mean_in = ctx->input(3);
    const Tensor& var_in = ctx->input(4);
    OP_REQUIRES(
        ctx, x.dims() == rank_,
        errors::InvalidArgument(op, ": x must be ", rank_, "-dimensional, got shape ", x.shape().DebugString()));
    const ChannelLayout l = Layout(x.shape(), channels_first_);
    const int64_t C = l.channels;
    OP_REQUIRES_OK(ctx, CheckVector(op, "scale", scale, C));
    OP_REQUIRES_OK(ctx, CheckVector(op, "offset", offset, C));
    const bool running = !is_training_ || factor_ != 1.0f;
    if (running) {
      OP_REQUIRES_OK(ctx, CheckVector(op, "mean", mean_in, C));
      OP_REQUIRES_OK(ctx, CheckVector(op, "variance", var_in, C));
    }
    // y may take over x's buffer (each element is read before it is
    // written), which empties ctx->input(0): keep what we need of x first.
    const T* xp = x.data<T>();
    const TensorShape shape = x.shape();
    Tensor* y = nullptr;
    if (!ctx->forward_input_to_output(0, 0, shape, &y)) OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &y));
    Tensor* out[5] = {nullptr, nullptr, nullptr, nullptr, nullptr};
    for (int i = 1; i <= 4; ++i) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({C}), &out[i]));
    if (num_outputs() > 5) {
      Tensor* r3 = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(5, TensorShape({0}), &r3));
    }
    float* batch_mean = out[1]->data<float>();
    float* batch_var = out[2]->data<float>();
    float* saved_mean = out[3]->data<float>();
    float* saved_var = out[4]->data<float>();

    std::vector<float> mean(C), var(C);  // what y is normalized with
    if (is_training_) {
      const int64_t n = l.count();
      if (n == 0) {  // no statistics: NaN, as TensorFlow
        const float nan = std::numeric_limits<float>::quiet_NaN();
        for (float* p : {batch_mean, batch_var, saved_mean, saved_var}) std::fill(p, p + C, nan);
        return;
      }
      std::vector<double> sum, sumsq;
      ChannelSums(
          ctx, l,
          [xp](int64_t e, int64_t, double& a, double& b) {
            const double v = Widen(xp[e]);
            a += v;
            b += v * v;
          },
          &sum, &sumsq);
      const double adjust = n > 1 ? static_cast<double>(n) / (n - 1) : 1.0;
      const float* run_mean = running ? mean_in.data<float>() : nullptr;
      const float* run_var = running ? var_in.data<float>() : nullptr;
      for (int64_t c = 0; c < C; ++c) {
        const double m = sum[c] / n;
        const double v = std::max(0.0, sumsq[c] / n - m * m);
        mean[c] = static_cast<float>(m);
        var[c] = static_cast<float>(v);
        saved_mean[c] = mean[c];
        saved_var[c] = var[c];
        const double unbiased = v * adjust;
        if (factor_ == 1.0f) {
          batch_mean[c] = mean[c];
          batch_var[c] = static_cast<float>(unbiased);
        } else {
          const double f = factor_;
          batch_mean[c] = static_cast<float>((1 - f) * run_mean[c] + f * m);
          batch_var[c] = static_cast<float>((1 - f) * run_var[c] + f * unbiased);
        }
      }
    } else {
      mean = Floats(mean_in);
      var = Floats(var_in);
      std::copy(mean.begin(), mean.end(), batch_mean);
      std::copy(var.begin(), var.end(), batch_var);
      std::copy(mean.begin(), mean.end(), saved_mean);
      std::copy(var.begin(), var.end(), saved_var);
    }
    // y = x * a + b per channel.
    std::vector<float> a(C), b(C);
    for (int64_t c = 0; c < C; ++c) {
      a[c] = scale.data<float>()[c] / std::sqrt(var[c] + epsilon_);
      b[c] = offset.data<float>()[c] - mean[c] * a[c];
    }
    T* yp = y->data<T>();
    const float* ap = a.data();
    const float* bp = b.data();
    ForEachElement(ctx, l, [=](int64_t e, int64_t c) { yp[e] = Narrow<T>(Widen(xp[e]) * ap[c] + bp[c]); });
  }

 private:
  float epsilon_ = 1e-4f;
  float factor_ = 1.0f;
  bool is_training_ = true;
  int rank_ = 4;
  bool channels_first_ = false;
};

template <typename T>
class FusedBatchNormGradOp : public OpKernel {
 public:
  explicit FusedBatchNormGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("epsilon", &epsilon_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("is_training", &is_training_));
    OP_REQUIRES_OK(ctx, ParseFormat(ctx, &rank_, &channels_first_));
  }

  void Compute(OpKernelContext* ctx) override {
    const char* op = type_string().c_str();
    const Tensor& dy = ctx->input(0);
    const Tensor& x = ctx->input(1);
    const Tensor& scale = ctx->input(2);
    const Tensor& mean_in = ctx->input(3);
    const Tensor& var_in = ctx->input(4);
    OP_REQUIRES(
        ctx, x.dims() == rank_,
        errors::InvalidArgument(op, ": x must be ", rank_, "-dimensional, got shape ", x.shape().DebugString()));
    OP_REQUIRES(ctx, dy.shape() == x.shape(),
                errors::InvalidArgument(op, ": y_backprop has shape ", dy.shape().DebugString(), " but x has shape ",
                                        x.shape().DebugString()));
    const ChannelLayout l = Layout(x.shape(), channels_first_);
    const int64_t C = l.channels;
    OP_REQUIRES_OK(ctx, CheckVector(op, "scale", scale, C));
    OP_REQUIRES_OK(ctx, CheckVector(op, "reserve_space_1", mean_in, C));
    OP_REQUIRES_OK(ctx, CheckVector(op, "reserve_space_2", var_in, C));
    // dx may take over dy's buffer, which empties ctx->input(0).
    const T* dyp = dy.data<T>();
    const T* xp = x.data<T>();
    Tensor* dx = nullptr;
    if (!ctx->forward_input_to_output(0, 0, x.shape(), &dx))
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, x.shape(), &dx));
    Tensor *dscale = nullptr, *doffset = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({C}), &dscale));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({C}), &doffset));
    for (int i = 3; i < num_outputs(); ++i) {
      Tensor* r = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape({0}), &r));
    }
    const float* mean = mean_in.data<float>();
    const float* sp = scale.data<float>();
    std::vector<float> inv(C);
    for (int64_t c = 0; c < C; ++c) inv[c] = 1.0f / std::sqrt(var_in.data<float>()[c] + epsilon_);
    std::vector<double> sum_dy, sum_dy_xc;
    ChannelSums(
        ctx, l,
        [dyp, xp, mean](int64_t e, int64_t c, double& a, double& b) {
          const double g = Widen(dyp[e]);
          a += g;
          b += g * (static_cast<double>(Widen(xp[e])) - mean[c]);
        },
        &sum_dy, &sum_dy_xc);
    // dx = dy * k1 + x * k2 + k3 per channel.
    std::vector<float> k1(C), k2(C), k3(C);
    const int64_t n = l.count();
    for (int64_t c = 0; c < C; ++c) {
      dscale->data<float>()[c] = static_cast<float>(sum_dy_xc[c] * inv[c]);
      doffset->data<float>()[c] = static_cast<float>(sum_dy[c]);
      const double si = static_cast<double>(sp[c]) * inv[c];
      if (is_training_ && n > 0) {
        // dx = scale*inv * (dy - mean(dy) - (x - mean) * inv^2 * mean(dy * (x - mean)))
        const double q = si * inv[c] * inv[c] * sum_dy_xc[c] / n;
        k1[c] = static_cast<float>(si);
        k2[c] = static_cast<float>(-q);
        k3[c] = static_cast<float>(-si * sum_dy[c] / n + q * mean[c]);
      } else {
        k1[c] = static_cast<float>(si);
        k2[c] = 0.0f;
        k3[c] = 0.0f;
      }
    }
    T* dxp = dx->data<T>();
    const float *p1 = k1.data(), *p2 = k2.data(), *p3 = k3.data();
    ForEachElement(ctx, l, [=](int64_t e, int64_t c) {
      dxp[e] = Narrow<T>(Widen(dyp[e]) * p1[c] + Widen(xp[e]) * p2[c] + p3[c]);
    });
  }

 private:
  float epsilon_ = 1e-4f;
  bool is_training_ = true;
  int rank_ = 4;
  bool channels_first_ = false;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("FusedBatchNorm").Device(DEVICE_CPU).TypeConstraint<float>("T"), FusedBatchNormOp<float>);
REGISTER_KERNEL_BUILDER(Name("FusedBatchNormGrad").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        FusedBatchNormGradOp<float>);

#define FLOWVM_REGISTER_FBN(T)                                                                           \
  REGISTER_KERNEL_BUILDER(                                                                               \
      Name("FusedBatchNormV2").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"),     \
      FusedBatchNormOp<T>);                                                                              \
  REGISTER_KERNEL_BUILDER(                                                                               \
      Name("FusedBatchNormV3").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"),     \
      FusedBatchNormOp<T>);                                                                              \
  REGISTER_KERNEL_BUILDER(                                                                               \
      Name("FusedBatchNormGradV2").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"), \
      FusedBatchNormGradOp<T>);                                                                          \
  REGISTER_KERNEL_BUILDER(                                                                               \
      Name("FusedBatchNormGradV3").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<float>("U"), \
      FusedBatchNormGradOp<T>);
FLOWVM_REGISTER_FBN(float)
FLOWVM_REGISTER_FBN(half)
FLOWVM_REGISTER_FBN(bfloat16)
#undef FLOWVM_REGISTER_FBN

}  // namespace nn
}  // namespace flowvm
