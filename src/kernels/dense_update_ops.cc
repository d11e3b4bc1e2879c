// Assign, AssignAdd and AssignSub on reference-typed variables.
//
// All three lock the variable's mutex for the whole update (use_locking is
// accepted but locking is always on: replacing the Tensor object must not
// race with readers). Updates happen in place when nobody else holds the
// variable's buffer, else copy-on-write: a reader that took the old value
// keeps seeing the old value.
#include <cstring>
#include <mutex>

#include "kernels/cwise_ops.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// The name of the variable feeding ref input 0, for messages: the NodeDef's
// input string when the kernel was built with one, else a description.
std::string RefInputName(const OpKernel& k) {
  if (k.def().input_size() > 0) {
    std::string in = k.def().input(0);
    size_t colon = in.rfind(':');
    if (colon != std::string::npos && in.substr(colon) == ":0") in.resize(colon);
    return in;
  }
  return "(ref input 0 of node '" + k.name() + "')";
}

Status CheckRefInput(OpKernelContext* ctx) {
  if (!ctx->input_is_ref(0) || ctx->mutable_input(0) == nullptr)
    return errors::InvalidArgument(ctx->op_kernel().type_string(),
                                   ": input 0 must be a reference to a variable");
  return Status::OK();
}

// Copies src's elements into dst's existing buffer (same dtype and size).
void CopyElements(const Tensor& src, Tensor* dst) {
  if (src.dtype() == DT_STRING) {
    const std::string* s = src.data<std::string>();
    std::string* d = dst->data<std::string>();
    for (int64_t i = 0; i < src.NumElements(); ++i) d[i] = s[i];
  } else if (src.TotalBytes() > 0) {
    std::memcpy(dst->raw_data(), src.raw_data(), src.TotalBytes());
  }
}

class AssignOp : public OpKernel {
 public:
  explicit AssignOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("validate_shape", &validate_shape_));
  }

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckRefInput(ctx));
    std::mutex* mu = ctx->input_ref_mutex(0);
    Tensor* lhs = ctx->mutable_input(0);
    const Tensor& rhs = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*mu);
      const bool initialized = lhs->IsInitialized();
      const bool same_shape = initialized && lhs->shape() == rhs.shape();
      OP_REQUIRES(ctx, !validate_shape_ || !initialized || same_shape,
                  errors::InvalidArgument("Assign requires shapes of both tensors to match. lhs shape= ",
                                          lhs->shape().DebugString(), " rhs shape= ", rhs.shape().DebugString()));
      // An uninitialized variable is checked against its declared shape, as
      // TensorFlow does: a value whose shape is known only at run time (a
      // RestoreV2 output, a Placeholder of unknown shape) cannot give a
      // variable a shape it was not declared with.
      const PartialTensorShape* declared = ctx->input_ref_declared_shape(0);
      OP_REQUIRES(ctx, !validate_shape_ || initialized || declared == nullptr || declared->IsCompatibleWith(rhs.shape()),
                  errors::InvalidArgument("Assign requires shapes of both tensors to match. lhs shape= ",
                                          declared == nullptr ? std::string() : declared->DebugString(),
                                          " (declared, uninitialized) rhs shape= ", rhs.shape().DebugString()));
      if (same_shape && lhs->dtype() == rhs.dtype() && lhs->RefCountIsOne()) {
        CopyElements(rhs, lhs);  // nobody else sees the old buffer
      } else if (rhs.RefCountIsOne()) {
        *lhs = rhs;  // only the input slot holds the value: adopt its buffer
      } else {
        StatusOr<Tensor> copy = rhs.DeepCopy(ctx->allocator());
        OP_REQUIRES_OK(ctx, copy.status());
        *lhs = std::move(copy).value();
      }
    }
    ctx->set_output_ref(0, mu, lhs, ctx->input_ref_declared_shape(0));
  }

 private:
  bool validate_shape_ = true;
};

// ref = F(ref, value), element-wise, same shapes.
template <typename T, typename F>
class DenseUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES_OK(ctx, CheckRefInput(ctx));
    std::mutex* mu = ctx->input_ref_mutex(0);
    Tensor* var = ctx->mutable_input(0);
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> lock(*mu);
      OP_REQUIRES(ctx, var->IsInitialized(),
                  errors::FailedPrecondition("Attempting to use uninitialized value ", RefInputName(*this)));
      OP_REQUIRES(ctx, var->shape() == value.shape(),
                  errors::InvalidArgument("Parameters and update must be the same size: ",
                                          var->shape().DebugString(), " vs. ", value.shape().DebugString()));
      // A reader (or the value itself) holds the buffer: copy before writing.
      if (!var->RefCountIsOne()) {
        StatusOr<Tensor> copy = var->DeepCopy(ctx->allocator());
        OP_REQUIRES_OK(ctx, copy.status());
        *var = std::move(copy).value();
      }
      cwise::SameShape<T, F>(var->data<T>(), value.data<T>(), var->data<T>(), var->NumElements());
    }
    ctx->set_output_ref(0, mu, var, ctx->input_ref_declared_shape(0));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Assign").Device(DEVICE_CPU), AssignOp);

#define FLOWVM_REGISTER_UPDATE(T)                                                                   \
  REGISTER_KERNEL_BUILDER(Name("AssignAdd").Device(DEVICE_CPU).TypeConstraint<T>("T"),              \
                          DenseUpdateOp<T, cwise::AddFn>);                                          \
  REGISTER_KERNEL_BUILDER(Name("AssignSub").Device(DEVICE_CPU).TypeConstraint<T>("T"),              \
                          DenseUpdateOp<T, cwise::SubFn>);
FLOWVM_REGISTER_UPDATE(float)
FLOWVM_REGISTER_UPDATE(double)
FLOWVM_REGISTER_UPDATE(half)
FLOWVM_REGISTER_UPDATE(bfloat16)
FLOWVM_REGISTER_UPDATE(uint8_t)
FLOWVM_REGISTER_UPDATE(int8_t)
FLOWVM_REGISTER_UPDATE(uint16_t)
FLOWVM_REGISTER_UPDATE(int16_t)
FLOWVM_REGISTER_UPDATE(int32_t)
FLOWVM_REGISTER_UPDATE(int64_t)
FLOWVM_REGISTER_UPDATE(uint32_t)
FLOWVM_REGISTER_UPDATE(uint64_t)
FLOWVM_REGISTER_UPDATE(complex64)
FLOWVM_REGISTER_UPDATE(complex128)
#undef FLOWVM_REGISTER_UPDATE

}  // namespace flowvm
