// Kernels of MutexV2, MutexLock and ConsumeMutexLock (ops/data_flow_ops.cc).
#include "flowvm/resource_handle.h"
#include "flowvm/variant.h"
#include "kernels/data_flow/mutex.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_handles.h"

namespace flowvm {
namespace {

class MutexOp : public OpKernel {
 public:
  explicit MutexOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &mutex_name_));
    if (mutex_name_.empty()) mutex_name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr, errors::Internal("no resource manager for mutex '", mutex_name_, "'"));
    std::shared_ptr<Mutex> mutex;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<Mutex>(container_, mutex_name_, &mutex,
                                                  [this]() -> StatusOr<std::shared_ptr<Mutex>> {
                                                    return std::make_shared<Mutex>(mutex_name_);
                                                  }));
    ctx->set_output(0, MakeResourceHandleTensor(ctx, container_, mutex_name_, "Mutex"));
    ctx->KeepAliveForStep(std::move(mutex));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, mutex_name_;
};

class MutexLockOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    std::shared_ptr<Mutex> mutex;
    OP_REQUIRES_OK_ASYNC(ctx, LookupResource(ctx, 0, "mutex", &mutex), done);
    mutex->AcquireAsync(ctx->cancellation_manager(),
                        [ctx, done = std::move(done)](const Status& st, std::shared_ptr<Mutex::Lock> lock) {
                          if (!st.ok()) {
                            ctx->SetStatus(st);
                          } else {
                            Tensor out(DT_VARIANT, TensorShape({}));
                            out.scalar<Variant>() = Variant::Of(std::move(lock), "MutexLock");
                            ctx->set_output(0, std::move(out));
                          }
                          done();
                        });
  }
  bool IsExpensive() const override { return false; }
};

// Keeps the lock alive until it runs: the mutex is released when its input
// (the last copy of the lock) is dropped.
class ConsumeMutexLockOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& t = ctx->input(0);
    OP_REQUIRES(ctx, t.dtype() == DT_VARIANT && t.NumElements() == 1 && t.flat<Variant>()[0].get<Mutex::Lock>() != nullptr,
                errors::InvalidArgument("ConsumeMutexLock takes the lock a MutexLock produced"));
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("MutexV2").Device(DEVICE_CPU), MutexOp);
REGISTER_KERNEL_BUILDER(Name("MutexLock").Device(DEVICE_CPU), MutexLockOp);
REGISTER_KERNEL_BUILDER(Name("ConsumeMutexLock").Device(DEVICE_CPU), ConsumeMutexLockOp);

}  // namespace flowvm
