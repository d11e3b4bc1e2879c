// Kernels of the conditional accumulator ops (ops/data_flow_ops.cc), in
// both of TensorFlow's forms: ConditionalAccumulator, Accumulator* (the
// handle is a Ref(string) holding [container, name]) and
// ResourceConditionalAccumulator, ResourceAccumulator* (a resource handle).
// The creator looks its accumulator up (or creates it) every step, so a
// reset container yields a fresh one. AccumulatorTakeGradient is
// asynchronous: a take waiting for gradients holds no thread.
#include <mutex>

#include "kernels/data_flow/conditional_accumulator.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_handles.h"

namespace flowvm {
namespace {

class AccumulatorCreatorOp : public OpKernel {
 public:
  explicit AccumulatorCreatorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    resource_form_ = ctx->def().op().rfind("Resource", 0) == 0;
    std::string reduction;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shape", &shape_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &accumulator_name_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("reduction_type", &reduction));
    OP_REQUIRES_OK(ctx, ConditionalAccumulator::CheckDtype(dtype_));
    auto r = ConditionalAccumulator::ParseReduction(reduction);
    OP_REQUIRES_OK(ctx, r.status());
    reduction_ = *r;
    if (accumulator_name_.empty()) accumulator_name_ = name();
    std::lock_guard<std::mutex> lock(mu_);
    ref_handle_ = Tensor::FromVector<std::string>({container_, accumulator_name_});
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr, errors::Internal("no resource manager for accumulator '", accumulator_name_, "'"));
    std::shared_ptr<ConditionalAccumulator> accumulator;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<ConditionalAccumulator>(
                            container_, accumulator_name_, &accumulator,
                            [this]() -> StatusOr<std::shared_ptr<ConditionalAccumulator>> {
                              return std::make_shared<ConditionalAccumulator>(accumulator_name_, dtype_, shape_,
                                                                              reduction_);
                            }));
    OP_REQUIRES_OK(ctx, accumulator->MatchesSpec(dtype_, shape_, reduction_));
    if (resource_form_) {
      ctx->set_output(0, MakeResourceHandleTensor(ctx, container_, accumulator_name_, "ConditionalAccumulator"));
    } else {
      ctx->set_output_ref(0, &mu_, &ref_handle_);
    }
    ctx->KeepAliveForStep(std::move(accumulator));
  }
  bool IsExpensive() const override { return false; }

 private:
  bool resource_form_ = false;
  DataType dtype_ = DT_INVALID;
  PartialTensorShape shape_;
  ConditionalAccumulator::Reduction reduction_ = ConditionalAccumulator::Reduction::kMean;
  std::string container_, accumulator_name_;
  std::mutex mu_;
  Tensor ref_handle_;  // the reference form's output: [container, name]
};

// The accumulator named by input 0, kept alive for the step.
Status GetAccumulator(OpKernelContext* ctx, std::shared_ptr<ConditionalAccumulator>* out) {
  if (!ctx->input_is_ref(0) && ctx->input(0).dtype() == DT_RESOURCE)
    return LookupResource(ctx, 0, "accumulator", out);
  ResourceMgr* rm = ctx->resource_manager();
  if (rm == nullptr) return errors::Internal("no resource manager to find the accumulator in");
  std::string container, name;
  auto read = [&](const Tensor& h) -> Status {
    if (h.dtype() != DT_STRING || h.NumElements() != 2)
      return errors::InvalidArgument("an accumulator handle must be 2 strings [container, name]");
    container = h.flat<std::string>()[0];
    name = h.flat<std::string>()[1];
    return Status::OK();
  };
  if (ctx->input_is_ref(0)) {
    std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
    FLOWVM_RETURN_IF_ERROR(read(*ctx->mutable_input(0)));
  } else {
    FLOWVM_RETURN_IF_ERROR(read(ctx->input(0)));
  }
  if (!rm->Lookup<ConditionalAccumulator>(container, name, out).ok())
    return errors::NotFound("accumulator '", name, "' (container '", container,
                            "') does not exist on this device; run its ConditionalAccumulator op first, or the "
                            "container was reset");
  ctx->KeepAliveForStep(*out);
  return Status::OK();
}

Status CheckScalar(const Tensor& t, DataType dtype, const char* what) {
  if (t.dtype() != dtype || t.dims() != 0)
    return errors::InvalidArgument(what, " must be a ", DataTypeName(dtype), " scalar, got ", DataTypeName(t.dtype()),
                                   " of shape ", t.shape().DebugString());
  return Status::OK();
}

// The ops with a `dtype` attr check it against the accumulator's.
Status CheckDtype(const ConditionalAccumulator& a, DataType dtype, const std::string& op) {
  if (a.dtype() != dtype)
    return errors::InvalidArgument(a.DebugString(), " accumulates ", DataTypeName(a.dtype()), "; this ", op,
                                   " has dtype ", DataTypeName(dtype));
  return Status::OK();
}

class ApplyGradientOp : public OpKernel {
 public:
  explicit ApplyGradientOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<ConditionalAccumulator> a;
    OP_REQUIRES_OK(ctx, GetAccumulator(ctx, &a));
    OP_REQUIRES_OK(ctx, CheckDtype(*a, dtype_, type_string()));
    OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(1), DT_INT64, "local_step"));
    OP_REQUIRES_OK(ctx, a->ApplyGradient(ctx->input(1).scalar<int64_t>(), ctx->input(2)));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
};

class TakeGradientOp : public AsyncOpKernel {
 public:
  explicit TakeGradientOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<ConditionalAccumulator> a;
    OP_REQUIRES_OK_ASYNC(ctx, GetAccumulator(ctx, &a), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckDtype(*a, dtype_, type_string()), done);
    OP_REQUIRES_OK_ASYNC(ctx, CheckScalar(ctx->input(1), DT_INT32, "num_required"), done);
    a->TryTakeGradient(ctx->input(1).scalar<int32_t>(), ctx->cancellation_manager(),
                       [ctx, done = std::move(done)](const Status& s, Tensor average) {
                         if (s.ok()) ctx->set_output(0, std::move(average));
                         else ctx->SetStatus(s);
                         done();
                       });
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_INVALID;
};

class NumAccumulatedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<ConditionalAccumulator> a;
    OP_REQUIRES_OK(ctx, GetAccumulator(ctx, &a));
    ctx->set_output(0, Tensor::Scalar<int32_t>(a->NumAccumulated()));
  }
  bool IsExpensive() const override { return false; }
};

class SetGlobalStepOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<ConditionalAccumulator> a;
    OP_REQUIRES_OK(ctx, GetAccumulator(ctx, &a));
    OP_REQUIRES_OK(ctx, CheckScalar(ctx->input(1), DT_INT64, "new_global_step"));
    // Going back is allowed (a restored checkpoint): TensorFlow only warns.
    a->SetGlobalStep(ctx->input(1).scalar<int64_t>());
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

// Float and double gradients (TensorFlow's kernels also take half).
#define FLOWVM_REGISTER_ACCUMULATOR_KERNELS(PREFIX, T)                                                          \
  REGISTER_KERNEL_BUILDER(Name(PREFIX "ConditionalAccumulator").Device(DEVICE_CPU).TypeConstraint<T>("dtype"),  \
                          AccumulatorCreatorOp);                                                                \
  REGISTER_KERNEL_BUILDER(Name(PREFIX "AccumulatorApplyGradient").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
                          ApplyGradientOp);                                                                     \
  REGISTER_KERNEL_BUILDER(Name(PREFIX "AccumulatorTakeGradient").Device(DEVICE_CPU).TypeConstraint<T>("dtype"), \
                          TakeGradientOp)

FLOWVM_REGISTER_ACCUMULATOR_KERNELS("", float);
FLOWVM_REGISTER_ACCUMULATOR_KERNELS("", double);
FLOWVM_REGISTER_ACCUMULATOR_KERNELS("Resource", float);
FLOWVM_REGISTER_ACCUMULATOR_KERNELS("Resource", double);
REGISTER_KERNEL_BUILDER(Name("AccumulatorNumAccumulated").Device(DEVICE_CPU), NumAccumulatedOp);
REGISTER_KERNEL_BUILDER(Name("AccumulatorSetGlobalStep").Device(DEVICE_CPU), SetGlobalStepOp);
REGISTER_KERNEL_BUILDER(Name("ResourceAccumulatorNumAccumulated").Device(DEVICE_CPU), NumAccumulatedOp);
REGISTER_KERNEL_BUILDER(Name("ResourceAccumulatorSetGlobalStep").Device(DEVICE_CPU), SetGlobalStepOp);
#undef FLOWVM_REGISTER_ACCUMULATOR_KERNELS

}  // namespace flowvm
