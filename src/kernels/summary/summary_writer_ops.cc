// Kernels of the V2 summary write ops (ops/summary_ops.cc): a SummaryWriter
// (flowvm/summary_writer.h) held in the device's resource manager, opened
// by CreateSummaryFileWriter and written by the Write*Summary ops.
//
// As in TensorFlow, CreateSummaryFileWriter on a writer that is open does
// nothing, and CloseSummaryWriter closes it so that the next
// CreateSummaryFileWriter opens a new file. The log directory is checked
// against the device's allowed directories before anything is created.
#include <memory>
#include <mutex>
#include <string>

#include "flowvm/graph.pb.h"
#include "flowvm/summary_writer.h"
#include "kernels/framework/file_access.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_handles.h"
#include "kernels/summary/summary_util.h"

namespace flowvm {
namespace {

// The resource: a writer that may be open or closed. Kernels take a
// reference to the open writer, so a Close racing with a write finds the
// write either done or refused (FailedPrecondition), never half done.
class SummaryWriterResource : public ResourceBase {
 public:
  explicit SummaryWriterResource(std::string name) : name_(std::move(name)) {}
  std::string DebugString() const override { return "SummaryWriter '" + name_ + "'"; }

  // Opens an event file in `logdir` unless one is open.
  Status Open(const std::string& logdir, const SummaryWriterOptions& options) {
    std::lock_guard<std::mutex> lock(mu_);
    if (writer_ != nullptr) return Status::OK();
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<SummaryWriter> w, SummaryWriter::Create(logdir, options));
    writer_ = std::move(w);
    return Status::OK();
  }

  StatusOr<std::shared_ptr<SummaryWriter>> Get() const {
    std::lock_guard<std::mutex> lock(mu_);
    if (writer_ == nullptr)
      return errors::FailedPrecondition("summary writer '", name_,
                                        "' has no open event file: run CreateSummaryFileWriter first");
    return writer_;
  }

  Status Close() {
    std::shared_ptr<SummaryWriter> w;
    {
      std::lock_guard<std::mutex> lock(mu_);
      w.swap(writer_);
    }
    return w == nullptr ? Status::OK() : w->Close();
  }

 private:
  const std::string name_;
  mutable std::mutex mu_;
  std::shared_ptr<SummaryWriter> writer_;  // guarded by mu_; null when closed
};

// A scalar input of type T, or InvalidArgument naming it.
template <typename T>
Status ScalarInput(OpKernelContext* ctx, int i, const char* what, T* out) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0 || t.dtype() != DataTypeToEnum<T>::value)
    return errors::InvalidArgument(what, " must be a ", DataTypeName(DataTypeToEnum<T>::value),
                                   " scalar, got a ", DataTypeName(t.dtype()), " tensor of shape ",
                                   t.shape().DebugString());
  *out = t.scalar<T>();
  return Status::OK();
}

// The writer resource input 0 names; NotFound (as TensorFlow) before the
// first CreateSummaryFileWriter.
Status WriterResourceInput(OpKernelContext* ctx, std::shared_ptr<SummaryWriterResource>* out) {
  Status s = LookupResource(ctx, 0, "summary writer", out);
  if (s.code() != Code::kNotFound) return s;
  FLOWVM_ASSIGN_OR_RETURN(ResourceHandle h, HandleFromInput(ctx, 0));
  return errors::NotFound("summary writer '", h.name, "' (container '", h.container,
                          "') has no event file on this device: run CreateSummaryFileWriter first");
}

// The open writer input 0 names.
Status WriterInput(OpKernelContext* ctx, std::shared_ptr<SummaryWriter>* out) {
  std::shared_ptr<SummaryWriterResource> r;
  FLOWVM_RETURN_IF_ERROR(WriterResourceInput(ctx, &r));
  FLOWVM_ASSIGN_OR_RETURN(*out, r->Get());
  return Status::OK();
}

class SummaryWriterOp : public OpKernel {
 public:
  explicit SummaryWriterOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("container", &container_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shared_name", &name_));
    if (name_.empty()) name_ = name();
  }
  // Only the handle: the writer is made by CreateSummaryFileWriter.
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, MakeResourceHandleTensor(ctx, container_, name_, "SummaryWriter"));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, name_;
};

class CreateSummaryFileWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string logdir, suffix;
    int32_t max_queue = 0, flush_millis = 0;
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "logdir", &logdir));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 2, "max_queue", &max_queue));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 3, "flush_millis", &flush_millis));
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 4, "filename_suffix", &suffix));
    OP_REQUIRES_OK(ctx, CheckFileAccess(ctx, logdir, PathAccess::kWrite));
    auto handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    ResourceMgr* rm = ctx->resource_manager();
    OP_REQUIRES(ctx, rm != nullptr, errors::Internal("no resource manager for summary writer '", handle->name, "'"));
    std::shared_ptr<SummaryWriterResource> r;
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<SummaryWriterResource>(
                            handle->container, handle->name, &r,
                            [&]() -> StatusOr<std::shared_ptr<SummaryWriterResource>> {
                              return std::make_shared<SummaryWriterResource>(handle->name);
                            }));
    SummaryWriterOptions options;
    options.max_queue = max_queue;
    options.flush_interval_ms = flush_millis;
    options.filename_suffix = suffix;
    OP_REQUIRES_OK(ctx, r->Open(logdir, options));
  }
};

class FlushSummaryWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<SummaryWriter> w;
    OP_REQUIRES_OK(ctx, WriterInput(ctx, &w));
    OP_REQUIRES_OK(ctx, w->Flush());
  }
};

class CloseSummaryWriterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<SummaryWriterResource> r;
    OP_REQUIRES_OK(ctx, WriterResourceInput(ctx, &r));
    OP_REQUIRES_OK(ctx, r->Close());
  }
};

// A write op: the open writer (input 0), the step (input 1), and what
// Write makes of the other inputs. Every error names the op's tag where it
// has one (the executor adds the node).
class WriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) final {
    std::shared_ptr<SummaryWriter> w;
    OP_REQUIRES_OK(ctx, WriterInput(ctx, &w));
    int64_t step = 0;
    OP_REQUIRES_OK(ctx, ScalarInput(ctx, 1, "step", &step));
    OP_REQUIRES_OK(ctx, Write(ctx, *w, step));
  }

 protected:
  virtual Status Write(OpKernelContext* ctx, SummaryWriter& w, int64_t step) = 0;
};

class WriteSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Write(OpKernelContext* ctx, SummaryWriter& w, int64_t step) override {
    std::string tag, metadata;
    FLOWVM_RETURN_IF_ERROR(ScalarInput(ctx, 3, "tag", &tag));
    FLOWVM_RETURN_IF_ERROR(ScalarInput(ctx, 4, "summary_metadata", &metadata));
    const Tensor& tensor = ctx->input(2);
    if (!DataTypeIsSerializable(tensor.dtype()))
      return errors::InvalidArgument("summary '", tag, "': a ", DataTypeName(tensor.dtype()),
                                     " tensor cannot be serialized");
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(tag);
    if (!v->mutable_metadata()->ParseFromString(metadata))
      return errors::InvalidArgument("summary '", tag, "': summary_metadata is not a SummaryMetadata");
    tensor.AsProtoTensorContent(v->mutable_tensor());
    return w.AddSummary(s, step);
  }
};

class WriteRawProtoSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Write(OpKernelContext* ctx, SummaryWriter& w, int64_t step) override {
    for (const std::string& bytes : ctx->input(2).flat<std::string>())
      FLOWVM_RETURN_IF_ERROR(w.AddSerializedSummary(bytes, step));
    return Status::OK();
  }
};

class WriteScalarSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Write(OpKernelContext* ctx, SummaryWriter& w, int64_t step) override {
    std::string tag;
    FLOWVM_RETURN_IF_ERROR(ScalarInput(ctx, 2, "tag", &tag));
    const Tensor& value = ctx->input(3);
    if (value.dims() != 0)
      return errors::InvalidArgument("scalar summary '", tag, "': value must be a scalar, got shape ",
                                     value.shape().DebugString());
    auto v = RealElement(value, 0);
    FLOWVM_RETURN_IF_ERROR(v.status().WithContext("scalar summary '" + tag + "'"));
    return w.AddScalar(tag, *v, step);
  }
};

class WriteHistogramSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Write(OpKernelContext* ctx, SummaryWriter& w, int64_t step) override {
    std::string tag;
    FLOWVM_RETURN_IF_ERROR(ScalarInput(ctx, 2, "tag", &tag));
    return w.AddHistogram(tag, ctx->input(3), step);
  }
};

class WriteImageSummaryOp : public WriteOp {
 public:
  explicit WriteImageSummaryOp(OpKernelConstruction* ctx) : WriteOp(ctx) {
    int64_t max_images = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_images", &max_images));
    OP_REQUIRES(ctx, max_images >= 1 && max_images < (int64_t{1} << 31),
                errors::InvalidArgument("max_images must be in [1, 2^31), got ", max_images));
    max_images_ = static_cast<int>(max_images);
  }
  Status Write(OpKernelContext* ctx, SummaryWriter& w, int64_t step) override {
    std::string tag;
    FLOWVM_RETURN_IF_ERROR(ScalarInput(ctx, 2, "tag", &tag));
    const Tensor& bad_color = ctx->input(4);
    if (bad_color.dims() != 1)
      return errors::InvalidArgument("image summary '", tag, "': bad_color must be a vector, got shape ",
                                     bad_color.shape().DebugString());
    Summary s;
    FLOWVM_RETURN_IF_ERROR(AddImageSummaries(tag, ctx->input(3), max_images_, bad_color, &s));
    return w.AddSummary(s, step);
  }

 private:
  int max_images_ = 3;
};

class WriteGraphSummaryOp : public WriteOp {
 public:
  using WriteOp::WriteOp;
  Status Write(OpKernelContext* ctx, SummaryWriter& w, int64_t step) override {
    std::string bytes;
    FLOWVM_RETURN_IF_ERROR(ScalarInput(ctx, 2, "tensor", &bytes));
    GraphDef graph;
    if (!graph.ParseFromString(bytes))
      return errors::InvalidArgument("graph summary: tensor is not a serialized GraphDef (", bytes.size(),
                                     " bytes)");
    // The bytes as given (they parse), at the step given.
    Event e;
    e.set_step(step);
    e.set_graph_def(std::move(bytes));
    return w.AddEvent(std::move(e));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("SummaryWriter").Device(DEVICE_CPU), SummaryWriterOp);
REGISTER_KERNEL_BUILDER(Name("CreateSummaryFileWriter").Device(DEVICE_CPU), CreateSummaryFileWriterOp);
REGISTER_KERNEL_BUILDER(Name("FlushSummaryWriter").Device(DEVICE_CPU), FlushSummaryWriterOp);
REGISTER_KERNEL_BUILDER(Name("CloseSummaryWriter").Device(DEVICE_CPU), CloseSummaryWriterOp);
REGISTER_KERNEL_BUILDER(Name("WriteSummary").Device(DEVICE_CPU), WriteSummaryOp);
REGISTER_KERNEL_BUILDER(Name("WriteRawProtoSummary").Device(DEVICE_CPU), WriteRawProtoSummaryOp);
REGISTER_KERNEL_BUILDER(Name("WriteScalarSummary").Device(DEVICE_CPU), WriteScalarSummaryOp);
REGISTER_KERNEL_BUILDER(Name("WriteHistogramSummary").Device(DEVICE_CPU), WriteHistogramSummaryOp);
REGISTER_KERNEL_BUILDER(Name("WriteImageSummary").Device(DEVICE_CPU), WriteImageSummaryOp);
REGISTER_KERNEL_BUILDER(Name("WriteGraphSummary").Device(DEVICE_CPU), WriteGraphSummaryOp);

}  // namespace flowvm
