// Stacks (TensorFlow's StackV2 family): per-step LIFO stores of tensors. A
// while loop's gradient pushes the forward values its backward loop needs
// in each iteration and pops them in reverse order (graph/while_gradients.cc).
// A stack lives in a container of its own step and goes when the step ends.
#include <atomic>
#include <mutex>
#include <vector>

#include "flowvm/resource_handle.h"
#include "kernels/data_flow/step_container.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_handles.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {
namespace {

class Stack : public ResourceBase {
 public:
  Stack(std::string name, DataType dtype, int64_t max_size) : name_(std::move(name)), dtype_(dtype), max_size_(max_size) {}
  std::string DebugString() const override { return "Stack '" + name_ + "'"; }
  Status Push(const Tensor& t) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition(DebugString(), " is closed");
    if (t.dtype() != dtype_)
      return errors::InvalidArgument("pushing a ", DataTypeName(t.dtype()), " onto ", DebugString(), " of ",
                                     DataTypeName(dtype_));
    if (max_size_ >= 0 && static_cast<int64_t>(values_.size()) >= max_size_)
      return errors::ResourceExhausted(DebugString(), " is full (max_size ", max_size_, ")");
    values_.push_back(t);
    return Status::OK();
  }
  Status Pop(Tensor* t) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return errors::FailedPrecondition(DebugString(), " is closed");
    if (values_.empty()) return errors::InvalidArgument(DebugString(), " is empty");
    *t = std::move(values_.back());
    values_.pop_back();
    return Status::OK();
  }
  void Close() {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    values_.clear();
  }
  DataType dtype() const { return dtype_; }

 private:
  const std::string name_;
  const DataType dtype_;
  const int64_t max_size_;
  std::mutex mu_;
  bool closed_ = false;
  std::vector<Tensor> values_;
};

class StackOp : public OpKernel {
 public:
  explicit StackOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("elem_type", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("stack_name", &stack_name_));
    if (stack_name_.empty()) stack_name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& max = ctx->input(0);
    OP_REQUIRES(ctx, max.dims() == 0, errors::InvalidArgument("max_size must be a scalar"));
    // Held by the step only: when the step ends, its container goes.
    auto container_or = StepContainerForStep(ctx, "stack '" + stack_name_ + "'");
    OP_REQUIRES_OK(ctx, container_or.status());
    const std::string& container = *container_or;
    ResourceMgr* rm = ctx->resource_manager();
    // Each run makes a stack of its own (TensorFlow's rule): a StackV2 in
    // a loop body gives every iteration its own stack.
    static std::atomic<int64_t> next_id{0};
    const std::string name = stack_name_ + "_" + std::to_string(next_id.fetch_add(1, std::memory_order_relaxed));
    std::shared_ptr<Stack> stack;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<Stack>(container, name, &stack,
                                                  [&]() -> StatusOr<std::shared_ptr<Stack>> {
                                                    return std::make_shared<Stack>(name, dtype_,
                                                                                   max.scalar<int32_t>());
                                                  }));
    ctx->set_output(0, MakeResourceHandleTensor(ctx, container, name, "Stack"));
    ctx->KeepAliveForStep(std::move(stack));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_FLOAT;
  std::string stack_name_;
};

Status GetStack(OpKernelContext* ctx, std::shared_ptr<Stack>* stack) {
  return LookupResource(ctx, 0, "stack", stack);
}

class StackPushOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Stack> stack;
    OP_REQUIRES_OK(ctx, GetStack(ctx, &stack));
    OP_REQUIRES_OK(ctx, stack->Push(ctx->input(1)));
    ctx->set_output(0, ctx->input(1));
  }
  bool IsExpensive() const override { return false; }
};

class StackPopOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Stack> stack;
    OP_REQUIRES_OK(ctx, GetStack(ctx, &stack));
    Tensor t;
    OP_REQUIRES_OK(ctx, stack->Pop(&t));
    ctx->set_output(0, std::move(t));
  }
  bool IsExpensive() const override { return false; }
};

class StackCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<Stack> stack;
    OP_REQUIRES_OK(ctx, GetStack(ctx, &stack));
    stack->Close();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("StackV2").Device(DEVICE_CPU), StackOp);
REGISTER_KERNEL_BUILDER(Name("StackPushV2").Device(DEVICE_CPU), StackPushOp);
REGISTER_KERNEL_BUILDER(Name("StackPopV2").Device(DEVICE_CPU), StackPopOp);
REGISTER_KERNEL_BUILDER(Name("StackCloseV2").Device(DEVICE_CPU), StackCloseOp);

}  // namespace flowvm
