// Kernels of the summary ops that output a serialized Summary
// (ops/summary_ops.cc): ScalarSummary, HistogramSummary, ImageSummary,
// TensorSummaryV2 and MergeSummary, on the CPU, as TensorFlow's behave.
// Errors name the tag; the executor adds the node.
#include <string>
#include <unordered_set>

#include "core/histogram.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/summary/summary_util.h"

namespace flowvm {
namespace {

// " (tag 'x')" when the tags are one string: what to name in a message.
std::string TagHint(const Tensor& tags) {
  if (tags.dtype() != DT_STRING || tags.NumElements() != 1) return "";
  return " (tag '" + tags.flat<std::string>()[0] + "')";
}

class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    OP_REQUIRES(ctx, tags.shape() == values.shape(),
                errors::InvalidArgument("tags and values not the same shape: ", tags.shape().DebugString(),
                                        " != ", values.shape().DebugString(), TagHint(tags)));
    Summary s;
    const Span<std::string> t = tags.flat<std::string>();
    for (int64_t i = 0; i < t.size(); ++i) {
      auto value = RealElement(values, i);
      OP_REQUIRES_OK(ctx, value.status().WithContext("scalar summary '" + t[i] + "'"));
      Summary::Value* v = s.add_value();
      v->set_tag(t[i]);
      v->set_simple_value(static_cast<float>(*value));
    }
    OutputSummary(ctx, s);
  }
  bool IsExpensive() const override { return false; }
};

class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, tag.dims() == 0,
                errors::InvalidArgument("tags must be scalar, got shape ", tag.shape().DebugString()));
    const std::string& name = tag.scalar<std::string>();
    Histogram h;
    OP_REQUIRES_OK(ctx, h.AddTensor(ctx->input(1), name));
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(name);
    h.EncodeToProto(v->mutable_histo());
    OutputSummary(ctx, s);
  }
};

class ImageSummaryOp : public OpKernel {
 public:
  explicit ImageSummaryOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    int64_t max_images = 0;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("max_images", &max_images));
    OP_REQUIRES(ctx, max_images >= 1 && max_images < (int64_t{1} << 31),
                errors::InvalidArgument("max_images must be in [1, 2^31), got ", max_images));
    max_images_ = static_cast<int>(max_images);
    OP_REQUIRES_OK(ctx, ctx->GetAttr("bad_color", &bad_color_));
    OP_REQUIRES(ctx, bad_color_.dtype() == DT_UINT8,
                errors::InvalidArgument("bad_color must be uint8, got ", DataTypeName(bad_color_.dtype())));
    OP_REQUIRES(ctx, bad_color_.dims() == 1,
                errors::InvalidArgument("bad_color must be a vector, got shape ", bad_color_.shape().DebugString()));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    OP_REQUIRES(ctx, tag.dims() == 0,
                errors::InvalidArgument("Tags must be a scalar, got shape ", tag.shape().DebugString()));
    Summary s;
    OP_REQUIRES_OK(ctx, AddImageSummaries(tag.scalar<std::string>(), ctx->input(1), max_images_, bad_color_, &s));
    OutputSummary(ctx, s);
  }

 private:
  int max_images_ = 3;
  Tensor bad_color_;
};

class TensorSummaryV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& tag = ctx->input(0);
    const Tensor& tensor = ctx->input(1);
    const Tensor& metadata = ctx->input(2);
    OP_REQUIRES(ctx, tag.dims() == 0,
                errors::InvalidArgument("tag must be scalar, got shape ", tag.shape().DebugString()));
    const std::string& name = tag.scalar<std::string>();
    OP_REQUIRES(ctx, metadata.dims() == 0,
                errors::InvalidArgument("tensor summary '", name, "': serialized_summary_metadata must be scalar"));
    OP_REQUIRES(ctx, DataTypeIsSerializable(tensor.dtype()),
                errors::InvalidArgument("tensor summary '", name, "': a ", DataTypeName(tensor.dtype()),
                                        " tensor cannot be serialized"));
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(name);
    OP_REQUIRES(ctx, v->mutable_metadata()->ParseFromString(metadata.scalar<std::string>()),
                errors::InvalidArgument("tensor summary '", name,
                                        "': serialized_summary_metadata is not a SummaryMetadata"));
    // Strings go to string_val, numbers to tensor_content: what TensorFlow
    // writes, and what TensorBoard's make_ndarray reads.
    tensor.AsProtoTensorContent(v->mutable_tensor());
    OutputSummary(ctx, s);
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Summary merged;
    std::unordered_set<std::string> tags;
    for (int input = 0; input < ctx->num_inputs(); ++input) {
      const Span<std::string> in = ctx->input(input).flat<std::string>();
      for (int64_t i = 0; i < in.size(); ++i) {
        Summary one;
        OP_REQUIRES(ctx, one.ParseFromString(in[i]),
                    errors::InvalidArgument("Could not parse one of the summary inputs (input ", input,
                                            ", element ", i, ")"));
        for (Summary::Value& v : *one.mutable_value()) {
          // Tensor summaries may leave the tag empty: only named ones clash.
          OP_REQUIRES(ctx, v.tag().empty() || tags.insert(v.tag()).second,
                      errors::InvalidArgument("Duplicate tag ", v.tag(), " found in summary inputs"));
          merged.add_value()->Swap(&v);
        }
      }
    }
    OutputSummary(ctx, merged);
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ScalarSummary").Device(DEVICE_CPU), ScalarSummaryOp);
REGISTER_KERNEL_BUILDER(Name("HistogramSummary").Device(DEVICE_CPU), HistogramSummaryOp);
REGISTER_KERNEL_BUILDER(Name("ImageSummary").Device(DEVICE_CPU), ImageSummaryOp);
REGISTER_KERNEL_BUILDER(Name("TensorSummaryV2").Device(DEVICE_CPU), TensorSummaryV2Op);
REGISTER_KERNEL_BUILDER(Name("MergeSummary").Device(DEVICE_CPU), MergeSummaryOp);

}  // namespace flowvm
