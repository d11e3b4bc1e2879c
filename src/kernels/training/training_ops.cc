// Training kernels on reference-typed variables (VariableV2 or the legacy
// Variable), as TensorFlow's training_ops.cc: ApplyGradientDescent,
// ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp.
// Each updates var and
// its slots in place and forwards the var ref as its output.
//
// Updates run under the variables' mutexes whatever use_locking says
// (replacing or writing a buffer must not race with readers, as in
// dense_update_ops.cc); a buffer that a reader still holds is copied first,
// so readers keep the value they took.
//
// ApplyGradientDescent: TensorFlow has CPU kernels for half, bfloat16,
// float, double, complex64 and complex128; the op def allows every
// numbertype, so the real integer types are registered too (wrapping
// arithmetic). Quantized types have no kernel, as in TensorFlow.
// The other four have half, bfloat16, float and double kernels (their
// sqrt / division updates mean nothing for integers); the 16-bit types are
// widened to float a block at a time and rounded once per step.
#include <algorithm>
#include <bit>
#include <cmath>
#include <initializer_list>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

template <typename T>
void GradientStep(T* var, T alpha, const T* delta, int64_t n) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<std::common_type_t<T, unsigned>>;
    for (int64_t i = 0; i < n; ++i)
      var[i] = static_cast<T>(static_cast<U>(var[i]) - static_cast<U>(delta[i]) * static_cast<U>(alpha));
  } else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    const float a = static_cast<float>(alpha);
    for (int64_t i = 0; i < n; ++i) var[i] = T(static_cast<float>(var[i]) - static_cast<float>(delta[i]) * a);
  } else {
    for (int64_t i = 0; i < n; ++i) var[i] -= delta[i] * alpha;
  }
}

// The tensor ref input i reads, as the graph names it ("v", not "v:0").
std::string VarName(const OpKernel& k, int i = 0) {
  if (k.def().input_size() > i) {
    std::string in = k.def().input(i);
    if (in.size() > 2 && in.compare(in.size() - 2, 2, ":0") == 0) in.resize(in.size() - 2);
    return in;
  }
  return "(input " + std::to_string(i) + " of node '" + k.name() + "')";
}

template <typename T>
class ApplyGradientDescentOp : public OpKernel {
 public:
  explicit ApplyGradientDescentOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->input_is_ref(0) && ctx->mutable_input(0) != nullptr,
                errors::InvalidArgument("ApplyGradientDescent: input 0 (var) must be a reference to a variable"));
    std::mutex* mu = ctx->input_ref_mutex(0);
    Tensor* var = ctx->mutable_input(0);
    const Tensor& alpha = ctx->input(1);
    const Tensor& delta = ctx->input(2);
    {
      std::lock_guard<std::mutex> lock(*mu);
      OP_REQUIRES(ctx, var->IsInitialized(),
                  errors::FailedPrecondition("Attempting to use uninitialized variables: ", VarName(*this)));
      OP_REQUIRES(ctx, alpha.dims() == 0 || (alpha.dims() == 1 && alpha.dim_size(0) == 1),
                  errors::InvalidArgument("alpha is not a scalar: ", alpha.shape().DebugString()));
      OP_REQUIRES(ctx, var->shape() == delta.shape(),
                  errors::InvalidArgument("var and delta do not have the same shape: ", var->shape().DebugString(),
                                          " vs ", delta.shape().DebugString()));
      if (!var->RefCountIsOne() && var->NumElements() > 0) {
        StatusOr<Tensor> copy = var->DeepCopy(ctx->allocator());
        OP_REQUIRES_OK(ctx, copy.status());
        *var = std::move(copy).value();
      }
      const T a = alpha.data<T>()[0];
      T* v = var->data<T>();
      const T* d = delta.data<T>();
      ctx->ParallelFor(var->NumElements(), 1, [&](int64_t b, int64_t e) { GradientStep<T>(v + b, a, d + b, e - b); });
    }
    ctx->set_output_ref(0, mu, var, ctx->input_ref_declared_shape(0));
  }
};

}  // namespace

#define FLOWVM_REGISTER_AGD(T) \
  REGISTER_KERNEL_BUILDER(Name("ApplyGradientDescent").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyGradientDescentOp<T>);
FLOWVM_REGISTER_AGD(half)
FLOWVM_REGISTER_AGD(bfloat16)
FLOWVM_REGISTER_AGD(float)
FLOWVM_REGISTER_AGD(double)
FLOWVM_REGISTER_AGD(complex64)
FLOWVM_REGISTER_AGD(complex128)
FLOWVM_REGISTER_AGD(int8_t)
FLOWVM_REGISTER_AGD(uint8_t)
FLOWVM_REGISTER_AGD(int16_t)
FLOWVM_REGISTER_AGD(uint16_t)
FLOWVM_REGISTER_AGD(int32_t)
FLOWVM_REGISTER_AGD(uint32_t)
FLOWVM_REGISTER_AGD(int64_t)
FLOWVM_REGISTER_AGD(uint64_t)
#undef FLOWVM_REGISTER_AGD

// ---- ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp -------------------

namespace {

template <typename T>
inline constexpr bool kIsHalfLike = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
// The type arithmetic runs in: float for the 16-bit floats, else T.
template <typename T>
using ComputeType = std::conditional_t<kIsHalfLike<T>, float, T>;
// Eigen's 16-bit types share our layout and convert inline (vectorizable).
template <typename T>
using EigenHalfOf = std::conditional_t<std::is_same_v<T, half>, Eigen::half, Eigen::bfloat16>;

template <typename C>
using Vec = Eigen::Map<Eigen::Array<C, Eigen::Dynamic, 1>>;
template <typename C>
using CVec = Eigen::Map<const Eigen::Array<C, Eigen::Dynamic, 1>>;

// Elements per block: the update of one block touches var, its slots and
// grad while they are in L1, and 16-bit blocks fit float scratch buffers.
constexpr int64_t kBlock = 1024;

// Holds the mutexes of an op's ref inputs (var first, then its slots) until
// it goes out of scope: each mutex once, taken in address order, so ops
// sharing variables cannot deadlock. Checks the inputs are initialized
// variables of var's shape and copies any buffer a reader still holds.
class LockedRefs {
 public:
  struct Ref {
    int input;
    const char* name;
  };

  LockedRefs(OpKernelContext* ctx, const OpKernel& k, std::initializer_list<Ref> refs) : refs_(refs) {
    std::vector<std::mutex*> mus;
    for (const Ref& r : refs_) {
      if (!ctx->input_is_ref(r.input) || ctx->mutable_input(r.input) == nullptr) {
        status_ = errors::InvalidArgument(k.def().op(), ": input ", r.input, " (", r.name,
                                          ") must be a reference to a variable");
        return;
      }
      tensors_.push_back(ctx->mutable_input(r.input));
      mus.push_back(ctx->input_ref_mutex(r.input));
    }
    std::sort(mus.begin(), mus.end());
    mus.erase(std::unique(mus.begin(), mus.end()), mus.end());
    for (std::mutex* mu : mus) {
      mu->lock();
      locked_.push_back(mu);
    }
    for (size_t j = 0; j < refs_.size(); ++j) {
      if (!tensors_[j]->IsInitialized()) {
        status_ = errors::FailedPrecondition("Attempting to use uninitialized variables: ", VarName(k, refs_[j].input));
        return;
      }
    }
    for (size_t j = 1; j < refs_.size(); ++j) {
      if (tensors_[j]->shape() != tensors_[0]->shape()) {
        status_ = errors::InvalidArgument("var and ", refs_[j].name, " do not have the same shape: ",
                                          tensors_[0]->shape().DebugString(), " vs ",
                                          tensors_[j]->shape().DebugString());
        return;
      }
    }
    for (Tensor* t : tensors_) {
      if (t->RefCountIsOne() || t->NumElements() == 0) continue;
      StatusOr<Tensor> copy = t->DeepCopy(ctx->allocator());
      if (!copy.ok()) {
        status_ = copy.status();
        return;
      }
      *t = std::move(copy).value();
    }
  }
  ~LockedRefs() {
    for (auto it = locked_.rbegin(); it != locked_.rend(); ++it) (*it)->unlock();
  }
  LockedRefs(const LockedRefs&) = delete;
  LockedRefs& operator=(const LockedRefs&) = delete;

  const Status& status() const { return status_; }
  Tensor* tensor(int j) const { return tensors_[j]; }
  Status CheckGrad(const Tensor& grad) const {
    if (grad.shape() == tensors_[0]->shape()) return Status::OK();
    return errors::InvalidArgument("var and grad do not have the same shape: ", tensors_[0]->shape().DebugString(),
                                   " vs ", grad.shape().DebugString());
  }

 private:
  std::vector<Ref> refs_;
  std::vector<Tensor*> tensors_;
  std::vector<std::mutex*> locked_;
  Status status_;
};

// Hyperparameter input i, a scalar (or, as TensorFlow's IsLegacyScalar
// allows, a [1] vector), in the compute type.
template <typename T>
Status ReadScalar(OpKernelContext* ctx, int i, const char* name, ComputeType<T>* out) {
  const Tensor& t = ctx->input(i);
  if (!(t.dims() == 0 || (t.dims() == 1 && t.dim_size(0) == 1)))
    return errors::InvalidArgument(name, " is not a scalar: ", t.shape().DebugString());
  const T v = t.data<T>()[0];
  if constexpr (kIsHalfLike<T>) {
    *out = static_cast<float>(std::bit_cast<EigenHalfOf<T>>(v));
  } else {
    *out = v;
  }
  return Status::OK();
}

// Runs fn(C* const* refs, const C* grad, int64_t n) on consecutive blocks
// of the N ref tensors and grad, sharded over the step's threads. C is the
// compute type; 16-bit values are widened into scratch and rounded back.
template <typename T, int N, typename Fn>
void UpdateInBlocks(OpKernelContext* ctx, const LockedRefs& refs, const Tensor& grad, int64_t cost, const Fn& fn) {
  T* p[N];
  for (int k = 0; k < N; ++k) p[k] = refs.tensor(k)->data<T>();
  const T* g = grad.data<T>();
  // `cost`: cycles per float element, as measured (1M elements, one core:
  // GradientDescent 0.4, Momentum 0.6, Adagrad 1.1, Adam and RMSProp 1.5),
  // rounded up; an overestimate splits small updates over threads that
  // cost more to wake than the update takes. 16-bit values are widened.
  if constexpr (kIsHalfLike<T>) cost *= 4;
  ctx->ParallelFor(grad.NumElements(), cost, [&](int64_t b, int64_t e) {
    if constexpr (kIsHalfLike<T>) {
      using E = EigenHalfOf<T>;
      float buf[N][kBlock], gbuf[kBlock];
      float* q[N];
      for (int64_t i = b; i < e; i += kBlock) {
        const int64_t m = std::min(kBlock, e - i);
        for (int k = 0; k < N; ++k) {
          const E* src = reinterpret_cast<const E*>(p[k] + i);
          for (int64_t j = 0; j < m; ++j) buf[k][j] = static_cast<float>(src[j]);
          q[k] = buf[k];
        }
        const E* gs = reinterpret_cast<const E*>(g + i);
        for (int64_t j = 0; j < m; ++j) gbuf[j] = static_cast<float>(gs[j]);
        fn(q, static_cast<const float*>(gbuf), m);
        for (int k = 0; k < N; ++k) {
          E* dst = reinterpret_cast<E*>(p[k] + i);
          for (int64_t j = 0; j < m; ++j) dst[j] = E(buf[k][j]);
        }
      }
    } else {
      T* q[N];
      for (int64_t i = b; i < e; i += kBlock) {
        for (int k = 0; k < N; ++k) q[k] = p[k] + i;
        fn(q, g + i, std::min(kBlock, e - i));
      }
    }
  });
}

template <typename T>
class ApplyMomentumOp : public OpKernel {
 public:
  explicit ApplyMomentumOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    using C = ComputeType<T>;
    LockedRefs refs(ctx, *this, {{0, "var"}, {1, "accum"}});
    OP_REQUIRES_OK(ctx, refs.status());
    C lr, momentum;
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 2, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 4, "momentum", &momentum));
    const Tensor& grad = ctx->input(3);
    OP_REQUIRES_OK(ctx, refs.CheckGrad(grad));
    const bool nesterov = use_nesterov_;
    UpdateInBlocks<T, 2>(ctx, refs, grad, 1, [&](C* const* s, const C* gp, int64_t n) {
      Vec<C> var(s[0], n), accum(s[1], n);
      CVec<C> g(gp, n);
      accum = accum * momentum + g;
      if (nesterov) {
        var -= g * lr + accum * (momentum * lr);
      } else {
        var -= accum * lr;
      }
    });
    ctx->set_output_ref(0, ctx->input_ref_mutex(0), refs.tensor(0));
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ApplyAdamOp : public OpKernel {
 public:
  explicit ApplyAdamOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_nesterov", &use_nesterov_));
  }

  void Compute(OpKernelContext* ctx) override {
    using C = ComputeType<T>;
    LockedRefs refs(ctx, *this, {{0, "var"}, {1, "m"}, {2, "v"}});
    OP_REQUIRES_OK(ctx, refs.status());
    C beta1_power, beta2_power, lr, beta1, beta2, epsilon;
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 3, "beta1_power", &beta1_power));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 4, "beta2_power", &beta2_power));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 5, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 6, "beta1", &beta1));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 7, "beta2", &beta2));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 8, "epsilon", &epsilon));
    const Tensor& grad = ctx->input(9);
    OP_REQUIRES_OK(ctx, refs.CheckGrad(grad));
    const C alpha = lr * std::sqrt(C(1) - beta2_power) / (C(1) - beta1_power);
    const C one_minus_beta1 = C(1) - beta1, one_minus_beta2 = C(1) - beta2;
    const bool nesterov = use_nesterov_;
    UpdateInBlocks<T, 3>(ctx, refs, grad, 2, [&](C* const* s, const C* gp, int64_t n) {
      Vec<C> var(s[0], n), m(s[1], n), v(s[2], n);
      CVec<C> g(gp, n);
      m += (g - m) * one_minus_beta1;
      v += (g.square() - v) * one_minus_beta2;
      if (nesterov) {
        var -= (g * one_minus_beta1 + m * beta1) * alpha / (v.sqrt() + epsilon);
      } else {
        var -= m * alpha / (v.sqrt() + epsilon);
      }
    });
    ctx->set_output_ref(0, ctx->input_ref_mutex(0), refs.tensor(0));
  }

 private:
  bool use_nesterov_ = false;
};

template <typename T>
class ApplyAdagradOp : public OpKernel {
 public:
  explicit ApplyAdagradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("update_slots", &update_slots_));
  }

  void Compute(OpKernelContext* ctx) override {
    using C = ComputeType<T>;
    LockedRefs refs(ctx, *this, {{0, "var"}, {1, "accum"}});
    OP_REQUIRES_OK(ctx, refs.status());
    C lr;
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 2, "lr", &lr));
    const Tensor& grad = ctx->input(3);
    OP_REQUIRES_OK(ctx, refs.CheckGrad(grad));
    const bool update_slots = update_slots_;
    UpdateInBlocks<T, 2>(ctx, refs, grad, 2, [&](C* const* s, const C* gp, int64_t n) {
      Vec<C> var(s[0], n), accum(s[1], n);
      CVec<C> g(gp, n);
      if (update_slots) accum += g.square();
      var -= g * lr / accum.sqrt();
    });
    ctx->set_output_ref(0, ctx->input_ref_mutex(0), refs.tensor(0));
  }

 private:
  bool update_slots_ = true;
};

template <typename T>
class ApplyRMSPropOp : public OpKernel {
 public:
  explicit ApplyRMSPropOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
  }

  void Compute(OpKernelContext* ctx) override {
    using C = ComputeType<T>;
    LockedRefs refs(ctx, *this, {{0, "var"}, {1, "ms"}, {2, "mom"}});
    OP_REQUIRES_OK(ctx, refs.status());
    C lr, rho, momentum, epsilon;
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 3, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 4, "rho", &rho));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 5, "momentum", &momentum));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 6, "epsilon", &epsilon));
    const Tensor& grad = ctx->input(7);
    OP_REQUIRES_OK(ctx, refs.CheckGrad(grad));
    const C one_minus_rho = C(1) - rho;
    UpdateInBlocks<T, 3>(ctx, refs, grad, 2, [&](C* const* s, const C* gp, int64_t n) {
      Vec<C> var(s[0], n), ms(s[1], n), mom(s[2], n);
      CVec<C> g(gp, n);
      ms += (g.square() - ms) * one_minus_rho;
      mom = mom * momentum + g * lr / (ms + epsilon).sqrt();
      var -= mom;
    });
    ctx->set_output_ref(0, ctx->input_ref_mutex(0), refs.tensor(0));
  }
};

// Centered RMSProp also tracks the mean gradient mg and divides by the
// estimated variance, ms - mg^2, instead of the raw second moment.
template <typename T>
class ApplyCenteredRMSPropOp : public OpKernel {
 public:
  explicit ApplyCenteredRMSPropOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
  }

  void Compute(OpKernelContext* ctx) override {
    using C = ComputeType<T>;
    LockedRefs refs(ctx, *this, {{0, "var"}, {1, "mg"}, {2, "ms"}, {3, "mom"}});
    OP_REQUIRES_OK(ctx, refs.status());
    C lr, rho, momentum, epsilon;
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 4, "lr", &lr));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 5, "rho", &rho));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 6, "momentum", &momentum));
    OP_REQUIRES_OK(ctx, ReadScalar<T>(ctx, 7, "epsilon", &epsilon));
    const Tensor& grad = ctx->input(8);
    OP_REQUIRES_OK(ctx, refs.CheckGrad(grad));
    const C one_minus_rho = C(1) - rho;
    UpdateInBlocks<T, 4>(ctx, refs, grad, 2, [&](C* const* s, const C* gp, int64_t n) {
      Vec<C> var(s[0], n), mg(s[1], n), ms(s[2], n), mom(s[3], n);
      CVec<C> g(gp, n);
      ms += (g.square() - ms) * one_minus_rho;
      mg += (g - mg) * one_minus_rho;
      mom = mom * momentum + g * lr / (ms - mg.square() + epsilon).sqrt();
      var -= mom;
    });
    ctx->set_output_ref(0, ctx->input_ref_mutex(0), refs.tensor(0));
  }
};

}  // namespace

#define FLOWVM_REGISTER_APPLY(T)                                                                     \
  REGISTER_KERNEL_BUILDER(Name("ApplyMomentum").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyMomentumOp<T>); \
  REGISTER_KERNEL_BUILDER(Name("ApplyAdam").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyAdamOp<T>);         \
  REGISTER_KERNEL_BUILDER(Name("ApplyAdagrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyAdagradOp<T>);   \
  REGISTER_KERNEL_BUILDER(Name("ApplyRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"), ApplyRMSPropOp<T>);   \
  REGISTER_KERNEL_BUILDER(Name("ApplyCenteredRMSProp").Device(DEVICE_CPU).TypeConstraint<T>("T"),              \
                          ApplyCenteredRMSPropOp<T>);
FLOWVM_REGISTER_APPLY(half)
FLOWVM_REGISTER_APPLY(bfloat16)
FLOWVM_REGISTER_APPLY(float)
FLOWVM_REGISTER_APPLY(double)
#undef FLOWVM_REGISTER_APPLY

}  // namespace flowvm
