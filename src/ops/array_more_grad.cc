// Gradients of the ops in array_more_ops.cc, scatter_nd_ops.cc and
// top_k_assert_ops.cc, following TensorFlow's array_grad.py / nn_grad.py.
// Index and shape inputs get none.
#include "graph/node_def_util.h"
#include "ops/gradient_helpers.h"

namespace flowvm {
namespace {

using grad::Int32;
using grad::Int32s;
using grad::OpInputTensor;

NodeOut Output(const Node& op, int k = 0) { return NodeOut(const_cast<Node*>(&op), k); }

// PadV2(x, paddings, value): the slice of dy where x sits. Like
// TensorFlow, constant_values gets no gradient.
Status PadV2Grad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut x = OpInputTensor(op, 0), paddings = OpInputTensor(op, 1);
  NodeOut column = s.Op("Pack", {OpInput::List({s.Op("Rank", {x}), Int32(s, 1)})});
  NodeOut before = s.Op("Slice", {grad::Cast(s, paddings, DT_INT32), Int32s(s, {0, 0}), column});
  NodeOut begin = grad::Reshape(s, before, Int32s(s, {-1}));
  *dx = {s.Op("Slice", {dy[0], begin, grad::Shape(s, x)}), NodeOut(), NodeOut()};
  return s.status();
}

// MirrorPad and MirrorPadGrad are each other's adjoint (both linear in
// their first input).
Status MirrorPadGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {s.Op("MirrorPadGrad", {dy[0], OpInputTensor(op, 1)}, grad::CopyAttrs(op, {"mode"})), NodeOut()};
  return s.status();
}
Status MirrorPadGradGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                         std::vector<NodeOut>* dx) {
  *dx = {s.Op("MirrorPad", {dy[0], OpInputTensor(op, 1)}, grad::CopyAttrs(op, {"mode"})), NodeOut()};
  return s.status();
}

Status ReverseV2Grad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {s.Op("ReverseV2", {dy[0], OpInputTensor(op, 1)}), NodeOut()};
  return s.status();
}

// ReverseSequence is its own inverse for fixed lengths: dy reversed the
// same way; the lengths get none.
Status ReverseSequenceGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                           std::vector<NodeOut>* dx) {
  *dx = {s.Op("ReverseSequence", {dy[0], OpInputTensor(op, 1)}, grad::CopyAttrs(op, {"seq_dim", "batch_dim"})),
         NodeOut()};
  return s.status();
}

// Indices as int32 or int64 (ScatterNd's shape input must share their
// type, and Shape has no int16 output).
NodeOut WideIndices(const GraphScope& s, NodeOut indices) {
  return BaseType(indices.dtype()) == DT_INT16 ? grad::Cast(s, indices, DT_INT32) : indices;
}

// y = GatherNd(params, indices): dy's slices added back where they came
// from (duplicates sum).
Status GatherNdGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut params = OpInputTensor(op, 0);
  NodeOut indices = WideIndices(s, OpInputTensor(op, 1));
  NodeOut shape = s.Op("Shape", {params}, {{"out_type", MakeAttrValue(BaseType(indices.dtype()))}});
  *dx = {s.Op("ScatterNd", {indices, dy[0], shape}), NodeOut()};
  return s.status();
}

// The slices of dy that the scatter wrote to.
NodeOut GatheredUpdates(const GraphScope& s, const Node& op, int indices_input, NodeOut g) {
  return s.Op("GatherNd", {g, OpInputTensor(op, indices_input)});
}

Status ScatterNdGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {NodeOut(), GatheredUpdates(s, op, 0, dy[0]), NodeOut()};
  return s.status();
}

// The overwritten slices of tensor get no gradient; updates get theirs.
Status TensorScatterUpdateGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                               std::vector<NodeOut>* dx) {
  NodeOut indices = OpInputTensor(op, 1), updates = OpInputTensor(op, 2);
  NodeOut dt = s.Op("TensorScatterUpdate", {dy[0], indices, s.Op("ZerosLike", {updates})});
  *dx = {dt, NodeOut(), GatheredUpdates(s, op, 1, dy[0])};
  return s.status();
}

Status TensorScatterAddGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                            std::vector<NodeOut>* dx) {
  *dx = {dy[0], NodeOut(), GatheredUpdates(s, op, 1, dy[0])};
  return s.status();
}

// (values, indices) = TopKV2(x, k): each row's value gradients go to the
// columns they were taken from, by one ScatterNd over x flattened (row r,
// column c at r * n + c).
Status TopKV2Grad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut x = OpInputTensor(op, 0), idx = Output(op, 1);
  NodeOut x_shape = grad::Shape(s, x);
  NodeOut last = s.Op("Sub", {s.Op("Rank", {x}), Int32(s, 1)});
  NodeOut n = grad::Reshape(s, s.Op("Slice", {x_shape, grad::Reshape(s, last, Int32s(s, {1})), Int32s(s, {1})}),
                            Int32s(s, {}));
  NodeOut k = grad::Reshape(s, s.Op("Slice", {grad::Shape(s, idx), grad::Reshape(s, last, Int32s(s, {1})),
                                               Int32s(s, {1})}),
                            Int32s(s, {}));
  NodeOut size = s.Op("Size", {x});
  NodeOut rows_idx = grad::Reshape(s, idx, s.Op("Pack", {OpInput::List({Int32(s, -1), k})}));
  // Maximum: an empty last dimension would make Range's step 0.
  NodeOut offsets = s.Op("Range", {Int32(s, 0), size, s.Op("Maximum", {n, Int32(s, 1)})});
  NodeOut flat = s.Op("AddV2", {rows_idx, s.Op("ExpandDims", {offsets, Int32(s, 1)})});
  NodeOut scattered = s.Op("ScatterNd", {grad::Reshape(s, flat, Int32s(s, {-1, 1})),
                                         grad::Reshape(s, dy[0], Int32s(s, {-1})),
                                         grad::Reshape(s, size, Int32s(s, {1}))});
  *dx = {grad::Reshape(s, scattered, x_shape), NodeOut()};
  return s.status();
}

Status DepthToSpaceGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                        std::vector<NodeOut>* dx) {
  *dx = {s.Op("SpaceToDepth", {dy[0]}, grad::CopyAttrs(op, {"block_size", "data_format"}))};
  return s.status();
}
Status SpaceToDepthGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                        std::vector<NodeOut>* dx) {
  *dx = {s.Op("DepthToSpace", {dy[0]}, grad::CopyAttrs(op, {"block_size", "data_format"}))};
  return s.status();
}

}  // namespace

REGISTER_GRADIENT("PadV2", PadV2Grad);
REGISTER_GRADIENT("MirrorPad", MirrorPadGrad);
REGISTER_GRADIENT("MirrorPadGrad", MirrorPadGradGrad);
REGISTER_GRADIENT("ReverseV2", ReverseV2Grad);
REGISTER_GRADIENT("ReverseSequence", ReverseSequenceGrad);
REGISTER_GRADIENT("GatherNd", GatherNdGrad);
REGISTER_GRADIENT("ScatterNd", ScatterNdGrad);
REGISTER_GRADIENT("TensorScatterUpdate", TensorScatterUpdateGrad);
REGISTER_GRADIENT("TensorScatterAdd", TensorScatterAddGrad);
REGISTER_GRADIENT("TopKV2", TopKV2Grad);
REGISTER_GRADIENT("DepthToSpace", DepthToSpaceGrad);
REGISTER_GRADIENT("SpaceToDepth", SpaceToDepthGrad);

}  // namespace flowvm
