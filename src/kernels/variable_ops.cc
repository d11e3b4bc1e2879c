// VariableV2 / Variable and IsVariableInitialized kernels.
#include "kernels/variable.h"

#include <memory>
#include <mutex>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {

std::string Var::DebugString() const {
  std::lock_guard<std::mutex> lock(mu);
  return DataTypeName(dtype) + "/" + (tensor.IsInitialized() ? tensor.shape().DebugString() : "<uninitialized>");
}

namespace {

// Looks up (or creates, uninitialized) the Var named by shared_name, or by
// the node's name when shared_name is empty, in `container`, and outputs a
// reference to its tensor. The lookup happens every step, so a cleared
// container yields a fresh, uninitialized variable.
class VariableOp : public OpKernel {
 public:
  explicit VariableOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &var_name_));
    if (var_name_.empty()) var_name_ = name();
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr, errors::Internal("no resource manager for variable '", var_name_, "'"));
    std::shared_ptr<Var> var;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<Var>(container_, var_name_, &var, [this]() -> StatusOr<std::shared_ptr<Var>> {
      return std::make_shared<Var>(dtype_, shape_);
    }));
    OP_REQUIRES(ctx, var->dtype == dtype_,
                errors::InvalidArgument("variable '", var_name_, "' in container '", container_, "' holds ",
                                        DataTypeName(var->dtype), ", but this node declares ", DataTypeName(dtype_)));
    // The reference must stay valid while any kernel of this step may use
    // it, even if the container is reset meanwhile: the step holds the Var.
    ctx->set_output_ref(0, &var->mu, &var->tensor, &var->declared_shape);
    ctx->KeepAliveForStep(std::move(var));
  }
  bool IsExpensive() const override { return false; }

 private:
  PartialTensorShape shape_;
  DataType dtype_ = DT_INVALID;
  std::string container_;
  std::string var_name_;
};

class IsVariableInitializedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    bool initialized;
    if (ctx->input_is_ref(0)) {
      std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
      initialized = ctx->mutable_input(0)->IsInitialized();
    } else {
      initialized = ctx->input(0).IsInitialized();
    }
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape(), &out));
    out->scalar<bool>() = initialized;
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("VariableV2").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("Variable").Device(DEVICE_CPU), VariableOp);
REGISTER_KERNEL_BUILDER(Name("IsVariableInitialized").Device(DEVICE_CPU), IsVariableInitializedOp);

}  // namespace flowvm
