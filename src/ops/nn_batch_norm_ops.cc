// Fused batch normalization: FusedBatchNorm, FusedBatchNormV2,
// FusedBatchNormV3 and their gradients FusedBatchNormGrad(V2, V3), with
// TensorFlow's names, attrs and defaults (including exponential_avg_factor,
// which TensorFlow 2 added to all three forward ops with a default that
// keeps TensorFlow 1 graphs meaning what they meant). The gradient functions
// of the forward ops live here too; the math is in
// kernels/nn/fused_batch_norm_op.cc.
//
// Reserve spaces on CPU, as in TensorFlow's CPU kernels: reserve_space_1/2
// hold the batch mean and the biased batch variance in training (the given
// mean / variance in inference), which is what the gradient ops read back;
// reserve_space_3 (V3) and the gradient ops' reserve outputs are empty.
#include <string>

#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "ops/gradient_helpers.h"

namespace flowvm {
namespace {

// Rank of x and index of its channel dim for a data_format.
Status FormatDims(const std::string& format, int* rank, int* channel_dim) {
  if (format == "NHWC" || format == "NCHW") {
    *rank = 4;
  } else if (format == "NDHWC" || format == "NCDHW") {
    *rank = 5;
  } else {
    return errors::InvalidArgument("Invalid data_format: ", format);
  }
  *channel_dim = format[1] == 'C' ? 1 : *rank - 1;
  return Status::OK();
}

// Input i must be a vector; its length merges into *channels.
Status MergeChannelVector(InferenceContext* c, int i, const char* name, int64_t* channels) {
  PartialTensorShape v;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(i, 1, &v));
  const std::string what = std::string(name) + " must have as many elements as x has channels";
  return c->MergeDim(*channels, v.dim_size(0), channels, what.c_str());
}

Status FusedBatchNormShape(InferenceContext* c) {
  std::string format;
  bool is_training = true;
  float factor = 1.0f;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("is_training", &is_training));
  if (FindNodeAttr(c->node_def(), "exponential_avg_factor") != nullptr)
    FLOWVM_RETURN_IF_ERROR(c->GetAttr("exponential_avg_factor", &factor));
  int rank, cdim;
  FLOWVM_RETURN_IF_ERROR(FormatDims(format, &rank, &cdim));
  PartialTensorShape x;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, rank, &x));
  int64_t channels = x.dim_size(cdim);
  FLOWVM_RETURN_IF_ERROR(MergeChannelVector(c, 1, "scale", &channels));
  FLOWVM_RETURN_IF_ERROR(MergeChannelVector(c, 2, "offset", &channels));
  // In training with factor 1 the running mean / variance are not read (TF
  // programs pass empty tensors there).
  if (!is_training || factor != 1.0f) {
    FLOWVM_RETURN_IF_ERROR(MergeChannelVector(c, 3, "mean", &channels));
    FLOWVM_RETURN_IF_ERROR(MergeChannelVector(c, 4, "variance", &channels));
  }
  if (!x.unknown_rank()) {
    std::vector<int64_t> dims(x.dims());
    for (int d = 0; d < x.dims(); ++d) dims[d] = d == cdim ? channels : x.dim_size(d);
    x = PartialTensorShape::FromDims(dims).value();
  }
  c->set_output(0, x);
  for (int i = 1; i <= 4; ++i) c->set_output(i, PartialTensorShape({channels}));
  if (c->num_outputs() > 5) c->set_output(5, PartialTensorShape({0}));
  return Status::OK();
}

// (y_backprop, x, scale, reserve_space_1, reserve_space_2[, reserve_space_3]).
Status FusedBatchNormGradShape(InferenceContext* c) {
  std::string format;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  int rank, cdim;
  FLOWVM_RETURN_IF_ERROR(FormatDims(format, &rank, &cdim));
  PartialTensorShape dy, x;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, rank, &dy));
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, rank, &x));
  auto merged = dy.MergeWith(x);
  if (!merged.ok())
    return errors::InvalidArgument("y_backprop has shape ", dy.DebugString(), " but x has shape ", x.DebugString());
  PartialTensorShape shape = *merged;
  int64_t channels = shape.unknown_rank() ? -1 : shape.dim_size(cdim);
  FLOWVM_RETURN_IF_ERROR(MergeChannelVector(c, 2, "scale", &channels));
  FLOWVM_RETURN_IF_ERROR(MergeChannelVector(c, 3, "reserve_space_1", &channels));
  FLOWVM_RETURN_IF_ERROR(MergeChannelVector(c, 4, "reserve_space_2", &channels));
  if (!shape.unknown_rank()) {
    std::vector<int64_t> dims(shape.dims());
    for (int d = 0; d < shape.dims(); ++d) dims[d] = d == cdim ? channels : shape.dim_size(d);
    shape = PartialTensorShape::FromDims(dims).value();
  }
  c->set_output(0, shape);
  c->set_output(1, PartialTensorShape({channels}));
  c->set_output(2, PartialTensorShape({channels}));
  for (int i = 3; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape({0}));
  return Status::OK();
}

NodeOut Output(const Node& op, int i) { return NodeOut(const_cast<Node*>(&op), i); }

// The gradient of x, scale and offset (none for mean and variance, as in
// TensorFlow). Training reads the batch statistics the forward op saved in
// its reserve spaces; inference reads the given mean and variance, and the
// Grad op's is_training=false form treats them as constants.
Status FusedBatchNormGradFn(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                            std::vector<NodeOut>* dx) {
  bool is_training = true;
  FLOWVM_RETURN_IF_ERROR(GetNodeAttr(op.def(), "is_training", &is_training));
  const bool v3 = op.op() == "FusedBatchNormV3";
  const char* grad_op = op.op() == "FusedBatchNorm" ? "FusedBatchNormGrad"
                        : v3                        ? "FusedBatchNormGradV3"
                                                    : "FusedBatchNormGradV2";
  std::vector<OpInput> inputs = {dy[0], grad::OpInputTensor(op, 0), grad::OpInputTensor(op, 1)};
  if (is_training) {
    inputs.push_back(Output(op, 3));
    inputs.push_back(Output(op, 4));
  } else {
    inputs.push_back(grad::OpInputTensor(op, 3));
    inputs.push_back(grad::OpInputTensor(op, 4));
  }
  if (v3) inputs.push_back(Output(op, 5));
  AttrMap attrs = grad::CopyAttrs(op, {"T", "U", "epsilon", "data_format", "is_training"});
  Node* g = s.AddNode(grad_op, inputs, attrs);
  if (g == nullptr) return s.status();
  *dx = {NodeOut(g, 0), NodeOut(g, 1), NodeOut(g, 2), NodeOut(), NodeOut()};
  return s.status();
}

// Second-order gradients through batch normalization are not implemented:
// an error naming the node, rather than a silently missing term.
Status FusedBatchNormGradGradFn(const GraphScope&, const Node& op, const std::vector<NodeOut>&, std::vector<NodeOut>*) {
  return errors::Unimplemented(op.label(), ": the gradient of ", op.op(),
                               " (second-order batch norm) is not implemented");
}

}  // namespace

REGISTER_OP("FusedBatchNorm")
    .Input("x: T")
    .Input("scale: T")
    .Input("offset: T")
    .Input("mean: T")
    .Input("variance: T")
    .Output("y: T")
    .Output("batch_mean: T")
    .Output("batch_variance: T")
    .Output("reserve_space_1: T")
    .Output("reserve_space_2: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("Batch normalization of a 4-D x per channel: batch statistics in training, the given ones in inference.");

REGISTER_OP("FusedBatchNormV2")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("FusedBatchNorm with the statistics in float (U) for any x type T.");

REGISTER_OP("FusedBatchNormV3")
    .Input("x: T")
    .Input("scale: U")
    .Input("offset: U")
    .Input("mean: U")
    .Input("variance: U")
    .Output("y: T")
    .Output("batch_mean: U")
    .Output("batch_variance: U")
    .Output("reserve_space_1: U")
    .Output("reserve_space_2: U")
    .Output("reserve_space_3: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("exponential_avg_factor: float = 1.0")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormShape)
    .Doc("FusedBatchNormV2 with a third reserve space and 5-D (NDHWC / NCDHW) inputs.");

REGISTER_OP("FusedBatchNormGrad")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: T")
    .Input("reserve_space_1: T")
    .Input("reserve_space_2: T")
    .Output("x_backprop: T")
    .Output("scale_backprop: T")
    .Output("offset_backprop: T")
    .Output("reserve_space_3: T")
    .Output("reserve_space_4: T")
    .Attr("T: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("Gradient of FusedBatchNorm with respect to x, scale and offset.");

REGISTER_OP("FusedBatchNormGradV2")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_3: U")
    .Output("reserve_space_4: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("Gradient of FusedBatchNormV2.");

REGISTER_OP("FusedBatchNormGradV3")
    .Input("y_backprop: T")
    .Input("x: T")
    .Input("scale: float")
    .Input("reserve_space_1: U")
    .Input("reserve_space_2: U")
    .Input("reserve_space_3: U")
    .Output("x_backprop: T")
    .Output("scale_backprop: U")
    .Output("offset_backprop: U")
    .Output("reserve_space_4: U")
    .Output("reserve_space_5: U")
    .Attr("T: {half, bfloat16, float}")
    .Attr("U: {float}")
    .Attr("epsilon: float = 0.0001")
    .Attr("data_format: {'NHWC', 'NCHW', 'NDHWC', 'NCDHW'} = 'NHWC'")
    .Attr("is_training: bool = true")
    .SetShapeFn(FusedBatchNormGradShape)
    .Doc("Gradient of FusedBatchNormV3.");

REGISTER_GRADIENT("FusedBatchNorm", FusedBatchNormGradFn);
REGISTER_GRADIENT("FusedBatchNormV2", FusedBatchNormGradFn);
REGISTER_GRADIENT("FusedBatchNormV3", FusedBatchNormGradFn);
REGISTER_GRADIENT("FusedBatchNormGrad", FusedBatchNormGradGradFn);
REGISTER_GRADIENT("FusedBatchNormGradV2", FusedBatchNormGradGradFn);
REGISTER_GRADIENT("FusedBatchNormGradV3", FusedBatchNormGradGradFn);

}  // namespace flowvm
