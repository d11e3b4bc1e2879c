// Kernels of the queue ops (ops/data_flow_ops.cc). The creator op looks
// its queue up (or creates it) in its device's resource manager every step,
// so a reset container yields a fresh queue; the other ops find it through
// their handle input: a Ref(string) [container, name] or a resource handle.
// Enqueue and dequeue ops are asynchronous: a blocked one holds no thread.
#include <mutex>

#include "flowvm/resource_handle.h"
#include "kernels/data_flow/fifo_queue.h"
#include "kernels/data_flow/random_shuffle_queue.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_handles.h"

namespace flowvm {
namespace {

class QueueCreatorOp : public OpKernel {
 public:
  explicit QueueCreatorOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    type_ = ctx->def().op();
    if (type_.size() > 2 && type_.compare(type_.size() - 2, 2, "V2") == 0) {
      type_.resize(type_.size() - 2);
      resource_form_ = true;
    }
    OP_REQUIRES_OK(ctx, ctx->GetAttr("component_types", &dtypes_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shapes", &shapes_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("capacity", &capacity_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &queue_name_));
    if (queue_name_.empty()) queue_name_ = name();
    OP_REQUIRES(ctx, shapes_.empty() || shapes_.size() == dtypes_.size(),
                errors::InvalidArgument("shapes has ", shapes_.size(), " entries for ", dtypes_.size(),
                                        " component_types"));
    if (type_ != "PaddingFIFOQueue")
      for (size_t i = 0; i < shapes_.size(); ++i)
        OP_REQUIRES(ctx, shapes_[i].IsFullyDefined(),
                    errors::InvalidArgument("shape ", i, " (", shapes_[i].DebugString(), ") of a ", type_,
                                            " must be fully defined; a PaddingFIFOQueue allows unknown dimensions"));
    if (type_ == "PaddingFIFOQueue")
      OP_REQUIRES(ctx, shapes_.size() == dtypes_.size(),
                  errors::InvalidArgument("a PaddingFIFOQueue needs one shape per component"));
    if (type_ == "RandomShuffleQueue") {
      OP_REQUIRES_OK(ctx, ctx->GetAttr("min_after_dequeue", &min_after_dequeue_));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("seed", &seed_));
      OP_REQUIRES_OK(ctx, ctx->GetAttr("seed2", &seed2_));
      OP_REQUIRES(ctx, capacity_ < 0 || min_after_dequeue_ < capacity_,
                  errors::InvalidArgument("min_after_dequeue (", min_after_dequeue_, ") must be below capacity (",
                                          capacity_, ")"));
    }
    if (capacity_ < 0) capacity_ = -1;
    std::lock_guard<std::mutex> lock(mu_);
    ref_handle_ = Tensor::FromVector<std::string>({container_, queue_name_});
  }

  void Compute(OpKernelContext* ctx) override {
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr, errors::Internal("no resource manager for queue '", queue_name_, "'"));
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<QueueBase>(container_, queue_name_, &queue,
                                                      [this]() -> StatusOr<std::shared_ptr<QueueBase>> { return Make(); }));
    OP_REQUIRES_OK(ctx, queue->MatchesSpec(type_, capacity_, dtypes_, shapes_));
    if (resource_form_) {
      ctx->set_output(0, MakeResourceHandleTensor(ctx, container_, queue_name_, type_));
    } else {
      ctx->set_output_ref(0, &mu_, &ref_handle_);
    }
    ctx->KeepAliveForStep(std::move(queue));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::shared_ptr<QueueBase> Make() const {
    if (type_ == "RandomShuffleQueue")
      return std::make_shared<RandomShuffleQueue>(queue_name_, capacity_, min_after_dequeue_, seed_, seed2_, dtypes_,
                                                  shapes_);
    if (type_ == "PaddingFIFOQueue") return std::make_shared<PaddingFIFOQueue>(queue_name_, capacity_, dtypes_, shapes_);
    return std::make_shared<FIFOQueue>(queue_name_, capacity_, dtypes_, shapes_);
  }

  std::string type_;
  bool resource_form_ = false;
  DataTypeVector dtypes_;
  std::vector<PartialTensorShape> shapes_;
  int64_t capacity_ = -1;
  int64_t min_after_dequeue_ = 0, seed_ = 0, seed2_ = 0;
  std::string container_, queue_name_;
  std::mutex mu_;
  Tensor ref_handle_;  // the reference form's output: [container, name]
};

// The queue named by input 0, kept alive for the step.
Status GetQueue(OpKernelContext* ctx, std::shared_ptr<QueueBase>* queue) {
  if (!ctx->input_is_ref(0) && ctx->input(0).dtype() == DT_RESOURCE) return LookupResource(ctx, 0, "queue", queue);
  ResourceMgr* rm = ctx->resource_manager();
  if (rm == nullptr) return errors::Internal("no resource manager to find the queue in");
  std::string container, name;
  if (ctx->input_is_ref(0)) {
    std::lock_guard<std::mutex> lock(*ctx->input_ref_mutex(0));
    const Tensor& h = *ctx->mutable_input(0);
    if (h.dtype() != DT_STRING || h.NumElements() != 2)
      return errors::InvalidArgument("a queue handle must be 2 strings [container, name]");
    container = h.flat<std::string>()[0];
    name = h.flat<std::string>()[1];
  } else {
    const Tensor& h = ctx->input(0);
    if (h.dtype() != DT_STRING || h.NumElements() != 2)
      return errors::InvalidArgument("a queue handle must be 2 strings [container, name]");
    container = h.flat<std::string>()[0];
    name = h.flat<std::string>()[1];
  }
  Status s = rm->Lookup<QueueBase>(container, name, queue);
  if (!s.ok())
    return errors::NotFound("queue '", name, "' (container '", container,
                            "') does not exist on this device; run its queue op first, or the container was reset");
  ctx->KeepAliveForStep(*queue);
  return Status::OK();
}

class QueueAsyncOp : public AsyncOpKernel {
 public:
  explicit QueueAsyncOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("timeout_ms", &timeout_ms_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) final {
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK_ASYNC(ctx, GetQueue(ctx, &queue), done);
    ComputeOnQueue(ctx, queue.get(), std::move(done));
  }
  bool IsExpensive() const override { return false; }

 protected:
  virtual void ComputeOnQueue(OpKernelContext* ctx, QueueBase* queue, DoneCallback done) = 0;
  int64_t timeout_ms_ = -1;
};

class EnqueueOp : public QueueAsyncOp {
 public:
  explicit EnqueueOp(OpKernelConstruction* ctx) : QueueAsyncOp(ctx), many_(ctx->def().op().find("Many") != std::string::npos) {}

 protected:
  void ComputeOnQueue(OpKernelContext* ctx, QueueBase* queue, DoneCallback done) override {
    QueueBase::Tuple components;
    for (int i = 1; i < ctx->num_inputs(); ++i) components.push_back(ctx->input(i));
    auto finish = [ctx, done = std::move(done)](const Status& s) {
      if (!s.ok()) ctx->SetStatus(s);
      done();
    };
    if (many_) queue->TryEnqueueMany(components, ctx->cancellation_manager(), timeout_ms_, std::move(finish));
    else queue->TryEnqueue(std::move(components), ctx->cancellation_manager(), timeout_ms_, std::move(finish));
  }

 private:
  const bool many_;
};

class DequeueOp : public QueueAsyncOp {
 public:
  explicit DequeueOp(OpKernelConstruction* ctx) : QueueAsyncOp(ctx) {
    const std::string& op = ctx->def().op();
    many_ = op.find("Many") != std::string::npos;
    up_to_ = op.find("UpTo") != std::string::npos;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("component_types", &dtypes_));
  }

 protected:
  void ComputeOnQueue(OpKernelContext* ctx, QueueBase* queue, DoneCallback done) override {
    OP_REQUIRES_ASYNC(ctx, queue->component_dtypes() == dtypes_,
                      errors::InvalidArgument(queue->DebugString(), " holds other component types than this ",
                                              type_string(), " expects"),
                      done);
    auto finish = [ctx, done = std::move(done)](const Status& s, QueueBase::Tuple tuple) {
      if (!s.ok()) {
        ctx->SetStatus(s);
      } else {
        for (size_t i = 0; i < tuple.size(); ++i) ctx->set_output(static_cast<int>(i), std::move(tuple[i]));
      }
      done();
    };
    if (!many_ && !up_to_) {
      queue->TryDequeue(ctx->cancellation_manager(), timeout_ms_, std::move(finish));
      return;
    }
    const Tensor& n = ctx->input(1);
    OP_REQUIRES_ASYNC(ctx, n.dims() == 0 && n.dtype() == DT_INT32,
                      errors::InvalidArgument("n must be an int32 scalar, got ", n.shape().DebugString()), done);
    queue->TryDequeueMany(n.scalar<int32_t>(), up_to_, ctx->cancellation_manager(), timeout_ms_, std::move(finish));
  }

 private:
  bool many_ = false, up_to_ = false;
  DataTypeVector dtypes_;
};

class QueueCloseOp : public OpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("cancel_pending_enqueues", &cancel_pending_enqueues_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK(ctx, GetQueue(ctx, &queue));
    queue->Close(cancel_pending_enqueues_);
  }
  bool IsExpensive() const override { return false; }

 private:
  bool cancel_pending_enqueues_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK(ctx, GetQueue(ctx, &queue));
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(queue->Size())));
  }
  bool IsExpensive() const override { return false; }
};

class QueueIsClosedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<QueueBase> queue;
    OP_REQUIRES_OK(ctx, GetQueue(ctx, &queue));
    ctx->set_output(0, Tensor::Scalar<bool>(queue->IsClosed()));
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

#define FLOWVM_REGISTER_QUEUE_KERNELS(SUFFIX)                                                      \
  REGISTER_KERNEL_BUILDER(Name("FIFOQueue" SUFFIX).Device(DEVICE_CPU), QueueCreatorOp);            \
  REGISTER_KERNEL_BUILDER(Name("PaddingFIFOQueue" SUFFIX).Device(DEVICE_CPU), QueueCreatorOp);     \
  REGISTER_KERNEL_BUILDER(Name("RandomShuffleQueue" SUFFIX).Device(DEVICE_CPU), QueueCreatorOp);   \
  REGISTER_KERNEL_BUILDER(Name("QueueEnqueue" SUFFIX).Device(DEVICE_CPU), EnqueueOp);              \
  REGISTER_KERNEL_BUILDER(Name("QueueEnqueueMany" SUFFIX).Device(DEVICE_CPU), EnqueueOp);          \
  REGISTER_KERNEL_BUILDER(Name("QueueDequeue" SUFFIX).Device(DEVICE_CPU), DequeueOp);              \
  REGISTER_KERNEL_BUILDER(Name("QueueDequeueMany" SUFFIX).Device(DEVICE_CPU), DequeueOp);          \
  REGISTER_KERNEL_BUILDER(Name("QueueDequeueUpTo" SUFFIX).Device(DEVICE_CPU), DequeueOp);          \
  REGISTER_KERNEL_BUILDER(Name("QueueClose" SUFFIX).Device(DEVICE_CPU), QueueCloseOp);             \
  REGISTER_KERNEL_BUILDER(Name("QueueSize" SUFFIX).Device(DEVICE_CPU), QueueSizeOp);               \
  REGISTER_KERNEL_BUILDER(Name("QueueIsClosed" SUFFIX).Device(DEVICE_CPU), QueueIsClosedOp)

FLOWVM_REGISTER_QUEUE_KERNELS("");
FLOWVM_REGISTER_QUEUE_KERNELS("V2");
#undef FLOWVM_REGISTER_QUEUE_KERNELS

}  // namespace flowvm
