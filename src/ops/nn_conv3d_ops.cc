// 3-D convolution and pooling ops: Conv3D, Conv3DBackpropInputV2,
// Conv3DBackpropFilterV2, MaxPool3D, MaxPool3DGrad, AvgPool3D,
// AvgPool3DGrad, with TensorFlow's names, attrs, defaults and type lists,
// their shape functions and their gradients. The window arithmetic is
// shared with the kernels (kernels/conv/conv3d_geometry.h).
#include <array>
#include <vector>

#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "kernels/conv/conv3d_geometry.h"
#include "ops/gradient_helpers.h"

namespace flowvm {
namespace {

using conv::Conv3DAttrs;

// Output size of one spatial dim, -1 when unknown.
Status SpatialOut(int64_t in, int64_t window, int64_t dilation, int64_t stride, conv::Padding padding, int64_t* out) {
  if (in < 0 || window < 0) {
    *out = -1;
    return Status::OK();
  }
  conv::WindowDim d;
  FLOWVM_RETURN_IF_ERROR(conv::WindowedOutputSize(in, window, dilation, stride, padding, 0, 0, &d));
  *out = d.out;
  return Status::OK();
}

PartialTensorShape Shape5(const Conv3DAttrs& a, int64_t n, const std::array<int64_t, 3>& s, int64_t c) {
  if (a.ncdhw) return PartialTensorShape({n, c, s[0], s[1], s[2]});
  return PartialTensorShape({n, s[0], s[1], s[2], c});
}

Status Conv3DShape(InferenceContext* c) {
  Conv3DAttrs a;
  FLOWVM_RETURN_IF_ERROR(conv::ParseConv3DAttrs(c->node_def(), &a));
  PartialTensorShape input, filter;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 5, &input));
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, 5, &filter));
  int64_t channels;
  FLOWVM_RETURN_IF_ERROR(c->MergeDim(input.dim_size(a.c_dim()), filter.dim_size(3), &channels,
                                     "Input depth must equal the filter's in_channels (dimension 3)"));
  std::array<int64_t, 3> out;
  for (int i = 0; i < 3; ++i)
    FLOWVM_RETURN_IF_ERROR(SpatialOut(input.dim_size(a.spatial_dim(i)), filter.dim_size(i), a.dilation[i],
                                      a.stride[i], a.padding, &out[i]));
  c->set_output(0, Shape5(a, input.dim_size(0), out, filter.dim_size(4)));
  return Status::OK();
}

// Output 0 is the 5-element shape in input `idx` when it is a constant.
Status ShapeFromInput(InferenceContext* c, int idx) {
  PartialTensorShape vec;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(idx, 1, &vec));
  if (vec.dim_size(0) >= 0 && vec.dim_size(0) != 5)
    return errors::InvalidArgument("Input ", idx, " must hold 5 values (a 5-D shape), got ", vec.dim_size(0));
  const Tensor* t = c->input_tensor(idx);
  if (t == nullptr) {
    c->set_output(0, PartialTensorShape::UnknownOfRank(5));
    return Status::OK();
  }
  auto dims = TensorToInt64s(*t);
  if (!dims.ok()) return dims.status();
  if (dims->size() != 5) return errors::InvalidArgument("Input ", idx, " must hold 5 values, got ", dims->size());
  for (int64_t d : *dims)
    if (d < 0) return errors::InvalidArgument("Input ", idx, " holds a negative dimension: ", d);
  c->set_output(0, PartialTensorShape::FromDims(*dims).value());
  return Status::OK();
}

Status Conv3DBackpropInputShape(InferenceContext* c) {
  Conv3DAttrs a;
  FLOWVM_RETURN_IF_ERROR(conv::ParseConv3DAttrs(c->node_def(), &a));
  PartialTensorShape filter, dy;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, 5, &filter));
  FLOWVM_RETURN_IF_ERROR(c->WithRank(2, 5, &dy));
  return ShapeFromInput(c, 0);
}

Status Conv3DBackpropFilterShape(InferenceContext* c) {
  Conv3DAttrs a;
  FLOWVM_RETURN_IF_ERROR(conv::ParseConv3DAttrs(c->node_def(), &a));
  PartialTensorShape input, dy;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 5, &input));
  FLOWVM_RETURN_IF_ERROR(c->WithRank(2, 5, &dy));
  return ShapeFromInput(c, 1);
}

Status Pool3DShape(InferenceContext* c) {
  Conv3DAttrs a;
  FLOWVM_RETURN_IF_ERROR(conv::ParsePool3DAttrs(c->node_def(), &a));
  PartialTensorShape input;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 5, &input));
  std::array<int64_t, 3> out;
  for (int i = 0; i < 3; ++i)
    FLOWVM_RETURN_IF_ERROR(
        SpatialOut(input.dim_size(a.spatial_dim(i)), a.ksize[i], 1, a.stride[i], a.padding, &out[i]));
  c->set_output(0, Shape5(a, input.dim_size(0), out, input.dim_size(a.c_dim())));
  return Status::OK();
}

// MaxPool3DGrad(orig_input, orig_output, grad): orig_input's shape; the
// other two must be the pooled shape.
Status MaxPool3DGradShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(Pool3DShape(c));
  const PartialTensorShape pooled = c->output(0);
  PartialTensorShape input, orig_out, grad;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 5, &input));
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, 5, &orig_out));
  FLOWVM_RETURN_IF_ERROR(c->WithRank(2, 5, &grad));
  if (!pooled.MergeWith(orig_out).ok())
    return errors::InvalidArgument("MaxPool3DGrad: orig_output has shape ", orig_out.DebugString(),
                                   " but the pooled output has shape ", pooled.DebugString());
  if (!pooled.MergeWith(grad).ok())
    return errors::InvalidArgument("MaxPool3DGrad: grad has shape ", grad.DebugString(),
                                   " but the pooled output has shape ", pooled.DebugString());
  c->set_output(0, input);
  return Status::OK();
}

Status AvgPool3DGradShape(InferenceContext* c) {
  Conv3DAttrs a;
  FLOWVM_RETURN_IF_ERROR(conv::ParsePool3DAttrs(c->node_def(), &a));
  PartialTensorShape grad;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, 5, &grad));
  return ShapeFromInput(c, 0);
}

// ---- gradients ----

NodeOut Output(const Node& op) { return NodeOut(const_cast<Node*>(&op), 0); }

AttrMap ConvAttrs(const Node& op) { return grad::CopyAttrs(op, {"strides", "padding", "data_format", "dilations"}); }
AttrMap PoolAttrs(const Node& op) { return grad::CopyAttrs(op, {"ksize", "strides", "padding", "data_format"}); }

Status Conv3DGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut input = grad::OpInputTensor(op, 0), filter = grad::OpInputTensor(op, 1);
  AttrMap attrs = ConvAttrs(op);
  *dx = {s.Op("Conv3DBackpropInputV2", {grad::Shape(s, input), filter, dy[0]}, attrs),
         s.Op("Conv3DBackpropFilterV2", {input, grad::Shape(s, filter), dy[0]}, attrs)};
  return s.status();
}

// Conv3DBackpropInputV2(sizes, filter, g) is linear in filter and in g.
Status Conv3DBackpropInputGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                               std::vector<NodeOut>* dx) {
  NodeOut filter = grad::OpInputTensor(op, 1), g = grad::OpInputTensor(op, 2);
  AttrMap attrs = ConvAttrs(op);
  *dx = {NodeOut(), s.Op("Conv3DBackpropFilterV2", {dy[0], grad::Shape(s, filter), g}, attrs),
         s.Op("Conv3D", {dy[0], filter}, attrs)};
  return s.status();
}

// Conv3DBackpropFilterV2(input, sizes, g) is linear in input and in g.
Status Conv3DBackpropFilterGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                                std::vector<NodeOut>* dx) {
  NodeOut input = grad::OpInputTensor(op, 0), g = grad::OpInputTensor(op, 2);
  AttrMap attrs = ConvAttrs(op);
  *dx = {s.Op("Conv3DBackpropInputV2", {grad::Shape(s, input), dy[0], g}, attrs), NodeOut(),
         s.Op("Conv3D", {input, dy[0]}, attrs)};
  return s.status();
}

Status MaxPool3DGradFn(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  AttrMap attrs = PoolAttrs(op);
  const AttrValue* t = FindNodeAttr(op.def(), "T");
  if (t != nullptr) {
    attrs["T"] = *t;
    attrs["TInput"] = *t;
  }
  *dx = {s.Op("MaxPool3DGrad", {grad::OpInputTensor(op, 0), Output(op), dy[0]}, attrs)};
  return s.status();
}

Status AvgPool3DGradFn(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {s.Op("AvgPool3DGrad", {grad::Shape(s, grad::OpInputTensor(op, 0)), dy[0]}, PoolAttrs(op))};
  return s.status();
}

// AvgPool3DGrad is linear in its gradient input, with AvgPool3D its adjoint.
Status AvgPool3DGradGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                         std::vector<NodeOut>* dx) {
  *dx = {NodeOut(), s.Op("AvgPool3D", {dy[0]}, PoolAttrs(op))};
  return s.status();
}

// MaxPool3DGradGrad is not implemented: an error naming the node rather
// than a silently missing second-order term.
Status MaxPool3DGradGrad(const GraphScope&, const Node& op, const std::vector<NodeOut>&, std::vector<NodeOut>*) {
  return errors::Unimplemented(op.label(), ": the gradient of MaxPool3DGrad is not implemented");
}

}  // namespace

REGISTER_OP("Conv3D")
    .Input("input: T")
    .Input("filter: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(Conv3DShape)
    .Doc("Computes a 3-D convolution of a 5-D input with a [KD, KH, KW, in, out] filter.");

REGISTER_OP("Conv3DBackpropInputV2")
    .Input("input_sizes: Tshape")
    .Input("filter: T")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .Attr("Tshape: {int32, int64} = DT_INT32")
    .SetShapeFn(Conv3DBackpropInputShape)
    .Doc("Computes the gradient of Conv3D with respect to its input.");

REGISTER_OP("Conv3DBackpropFilterV2")
    .Input("input: T")
    .Input("filter_sizes: int32")
    .Input("out_backprop: T")
    .Output("output: T")
    .Attr("T: {half, bfloat16, float, double}")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
    .SetShapeFn(Conv3DBackpropFilterShape)
    .Doc("Computes the gradient of Conv3D with respect to its filter.");

REGISTER_OP("AvgPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(Pool3DShape)
    .Doc("3-D average pooling; SAME padding averages over the input elements of each window only.");

REGISTER_OP("AvgPool3DGrad")
    .Input("orig_input_shape: int32")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float, double}")
    .SetShapeFn(AvgPool3DGradShape)
    .Doc("Gradient of AvgPool3D.");

REGISTER_OP("MaxPool3D")
    .Input("input: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float}")
    .SetShapeFn(Pool3DShape)
    .Doc("3-D max pooling.");

REGISTER_OP("MaxPool3DGrad")
    .Input("orig_input: TInput")
    .Input("orig_output: TInput")
    .Input("grad: T")
    .Output("output: T")
    .Attr("ksize: list(int) >= 5")
    .Attr("strides: list(int) >= 5")
    .Attr("padding: {'SAME', 'VALID'}")
    .Attr("data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'")
    .Attr("T: {half, bfloat16, float} = DT_FLOAT")
    .Attr("TInput: {half, bfloat16, float} = DT_FLOAT")
    .SetShapeFn(MaxPool3DGradShape)
    .Doc("Gradient of MaxPool3D: each output gradient goes to every element of its window equal to the maximum.");

REGISTER_GRADIENT("Conv3D", Conv3DGrad);
REGISTER_GRADIENT("Conv3DBackpropInputV2", Conv3DBackpropInputGrad);
REGISTER_GRADIENT("Conv3DBackpropFilterV2", Conv3DBackpropFilterGrad);
REGISTER_GRADIENT("MaxPool3D", MaxPool3DGradFn);
REGISTER_GRADIENT("AvgPool3D", AvgPool3DGradFn);
REGISTER_GRADIENT("AvgPool3DGrad", AvgPool3DGradGrad);
REGISTER_GRADIENT("MaxPool3DGrad", MaxPool3DGradGrad);

}  // namespace flowvm
