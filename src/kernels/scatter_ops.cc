// ScatterUpdate, ScatterAdd and ScatterSub on reference-typed variables:
// ref[indices[i], ...] (=, +=, -=) updates[i, ...], or the scalar `updates`
// into every selected row.
//
// As in dense_update_ops.cc, the variable's mutex is held for the whole
// update whatever use_locking says, and a buffer that a reader still holds
// is copied first. Every index is checked before anything is written, so an
// out-of-range index (InvalidArgument; the executor adds the node's name)
// leaves the variable as it was. Repeated indices: ScatterUpdate keeps the
// last update, ScatterAdd / ScatterSub apply all of them.
#include <mutex>
#include <string>

#include "kernels/cwise_ops.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

struct AssignFn {
  template <typename T>
  static T Apply(const T& /*old*/, const T& update) {
    return update;
  }
};

// The variable feeding ref input 0, as the graph names it ("v", not "v:0").
std::string VarName(const OpKernel& k) {
  if (k.def().input_size() > 0) {
    std::string in = k.def().input(0);
    if (in.size() > 2 && in.compare(in.size() - 2, 2, ":0") == 0) in.resize(in.size() - 2);
    return in;
  }
  return "(ref input 0 of node '" + k.name() + "')";
}

template <typename T, typename Index, typename F>
class ScatterOp : public OpKernel {
 public:
  explicit ScatterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    bool use_locking = false;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("use_locking", &use_locking));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->input_is_ref(0) && ctx->mutable_input(0) != nullptr,
                errors::InvalidArgument(type_string(), ": input 0 (ref) must be a reference to a variable"));
    std::mutex* mu = ctx->input_ref_mutex(0);
    Tensor* params = ctx->mutable_input(0);
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    {
      std::lock_guard<std::mutex> lock(*mu);
      OP_REQUIRES_OK(ctx, Check(*params, indices, updates));
      const int64_t n = indices.NumElements();
      const int64_t rows = params->dim_size(0);
      const Index* idx = indices.data<Index>();
      for (int64_t i = 0; i < n; ++i) {
        OP_REQUIRES(ctx, idx[i] >= 0 && idx[i] < rows,
                    errors::InvalidArgument("indices[", i, "] = ", static_cast<int64_t>(idx[i]), " is not in [0, ",
                                            rows, ")"));
      }
      if (n > 0 && !params->RefCountIsOne()) {
        StatusOr<Tensor> copy = params->DeepCopy(ctx->allocator());
        OP_REQUIRES_OK(ctx, copy.status());
        *params = std::move(copy).value();
      }
      const int64_t slice = rows == 0 ? 0 : params->NumElements() / rows;
      T* p = params->data<T>();
      const T* u = updates.data<T>();
      const bool scalar = updates.dims() == 0;
      for (int64_t i = 0; i < n; ++i) {
        T* dst = p + static_cast<int64_t>(idx[i]) * slice;
        const T* src = scalar ? u : u + i * slice;
        for (int64_t j = 0; j < slice; ++j) dst[j] = F::Apply(dst[j], src[scalar ? 0 : j]);
      }
    }
    ctx->set_output_ref(0, mu, params, ctx->input_ref_declared_shape(0));
  }

 private:
  Status Check(const Tensor& params, const Tensor& indices, const Tensor& updates) const {
    if (!params.IsInitialized()) return errors::FailedPrecondition("Attempting to use uninitialized value ", VarName(*this));
    if (params.dims() < 1)
      return errors::InvalidArgument("params must be at least 1-D, got shape ", params.shape().DebugString());
    if (updates.dims() == 0) return Status::OK();
    std::vector<int64_t> want = indices.shape().dim_sizes();
    want.insert(want.end(), params.shape().dim_sizes().begin() + 1, params.shape().dim_sizes().end());
    if (updates.shape().dim_sizes() != want)
      return errors::InvalidArgument(
          "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape ",
          updates.shape().DebugString(), ", indices.shape ", indices.shape().DebugString(), ", params.shape ",
          params.shape().DebugString());
    return Status::OK();
  }
};

}  // namespace

#define FLOWVM_REGISTER_SCATTER(OP, T, F)                                                                 \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int32_t>("Tindices"), \
                          ScatterOp<T, int32_t, F>);                                                       \
  REGISTER_KERNEL_BUILDER(Name(OP).Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint<int64_t>("Tindices"), \
                          ScatterOp<T, int64_t, F>);
#define FLOWVM_REGISTER_ARITH(T)                    \
  FLOWVM_REGISTER_SCATTER("ScatterUpdate", T, AssignFn) \
  FLOWVM_REGISTER_SCATTER("ScatterAdd", T, cwise::AddFn) \
  FLOWVM_REGISTER_SCATTER("ScatterSub", T, cwise::SubFn)
FLOWVM_REGISTER_ARITH(float)
FLOWVM_REGISTER_ARITH(double)
FLOWVM_REGISTER_ARITH(half)
FLOWVM_REGISTER_ARITH(bfloat16)
FLOWVM_REGISTER_ARITH(int8_t)
FLOWVM_REGISTER_ARITH(uint8_t)
FLOWVM_REGISTER_ARITH(int16_t)
FLOWVM_REGISTER_ARITH(uint16_t)
FLOWVM_REGISTER_ARITH(int32_t)
FLOWVM_REGISTER_ARITH(uint32_t)
FLOWVM_REGISTER_ARITH(int64_t)
FLOWVM_REGISTER_ARITH(uint64_t)
FLOWVM_REGISTER_ARITH(complex64)
FLOWVM_REGISTER_ARITH(complex128)
FLOWVM_REGISTER_SCATTER("ScatterUpdate", bool, AssignFn)
FLOWVM_REGISTER_SCATTER("ScatterUpdate", std::string, AssignFn)
#undef FLOWVM_REGISTER_ARITH
#undef FLOWVM_REGISTER_SCATTER

}  // namespace flowvm
