// TensorArrays (TensorFlow's TensorArrayV3 family, with TensorFlow 1.15's
// names, inputs, outputs, attrs and defaults): a per-step array of tensors
// written and read element by element, as tf.TensorArray, tf.scan,
// tf.map_fn and tf.nn.dynamic_rnn use it. Every op that uses an array takes
// its handle and a float `flow_in`; the ops that change it output
// `flow_out`, so data edges on the flow order the ops on one array.
// Kernels: kernels/data_flow/tensor_array_ops.cc; gradients:
// ops/tensor_array_grad.cc.
//
// Shapes, as TensorFlow infers them: a handle is a vector of 2 (TensorFlow's
// legacy static shape; at run time it is a scalar resource); the element
// shape of an array is its TensorArrayV3's element_shape attr when that is
// fully defined or identical_element_shapes is set (TensorFlow's handle
// data), found by following the handle back through Enter, Identity,
// Switch, Merge and Exit nodes and through gradient arrays. Read gives the
// element shape, Gather [len(indices)] + the element shape, and Write and
// Scatter refuse a value that cannot be an element.
#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// [len] + shape (unknown rank if shape's rank is unknown).
PartialTensorShape Prepend(int64_t len, const PartialTensorShape& shape) {
  if (shape.unknown_rank()) return PartialTensorShape::Unknown();
  std::vector<int64_t> dims = {len};
  dims.insert(dims.end(), shape.dim_sizes().begin(), shape.dim_sizes().end());
  return *PartialTensorShape::FromDims(dims);
}

// The element shape of the array whose handle is input `input` of `node`,
// if its maker declares one (see the file comment); false otherwise.
bool ElementShapeOfHandle(const Node* node, int input, PartialTensorShape* shape, int depth = 0) {
  const Edge* e = node->input_edge(input);
  for (int hops = 0; e != nullptr && hops < 10000 && depth < 100; ++hops) {
    const Node* src = e->src();
    const std::string& op = src->op();
    if (op == "TensorArrayV3") {
      PartialTensorShape declared;
      bool identical = false;
      if (!GetNodeAttr(src->def(), "element_shape", &declared).ok() ||
          !GetNodeAttr(src->def(), "identical_element_shapes", &identical).ok())
        return false;
      if (!declared.IsFullyDefined() && !identical) return false;
      *shape = declared;
      return true;
    }
    if (op == "TensorArrayGradV3") {
      e = src->input_edge(0);
      continue;
    }
    if (op == "TensorArrayGradWithShape") {
      // shape_to_prepend before the forward elements' shape, when it is a
      // constant here.
      PartialTensorShape forward;
      const Edge* p = src->input_edge(2);
      Tensor prepend;
      if (!ElementShapeOfHandle(src, 0, &forward, depth + 1) || forward.unknown_rank() || p == nullptr ||
          p->src()->op() != "Const" || !GetNodeAttr(p->src()->def(), "value", &prepend).ok())
        return false;
      auto dims = TensorToInt64s(prepend);
      if (!dims.ok()) return false;
      std::vector<int64_t> all = *dims;
      all.insert(all.end(), forward.dim_sizes().begin(), forward.dim_sizes().end());
      auto merged = PartialTensorShape::FromDims(all);
      if (!merged.ok()) return false;
      *shape = *merged;
      return true;
    }
    const bool passes_on = op == "Enter" || op == "RefEnter" || op == "Identity" || op == "RefIdentity" ||
                           op == "Switch" || op == "RefSwitch" || op == "Merge" || op == "RefMerge" ||
                           op == "Exit" || op == "RefExit" || op == "NextIteration" || op == "RefNextIteration";
    if (!passes_on) return false;
    e = src->input_edge(0);
  }
  return false;
}

// A handle input: a vector of 2 where its shape is known.
Status HandleInput(InferenceContext* c, int i) {
  PartialTensorShape h;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(i, 1, &h));
  int64_t unused;
  return c->MergeDim(h.dim_size(0), 2, &unused, "a TensorArray handle is a vector of 2");
}

Status ScalarInput(InferenceContext* c, int i) {
  PartialTensorShape unused;
  return c->WithRank(i, 0, &unused);
}

Status VectorInput(InferenceContext* c, int i, PartialTensorShape* out) { return c->WithRank(i, 1, out); }

// The value written as one element must fit the array's element shape.
Status CheckElement(InferenceContext* c, const PartialTensorShape& value, const char* what) {
  PartialTensorShape element;
  if (!ElementShapeOfHandle(c->node(), 0, &element)) return Status::OK();
  if (!element.IsCompatibleWith(value))
    return errors::InvalidArgument(what, " of shape ", value.DebugString(),
                                   " is not an element of this TensorArray, whose elements have shape ",
                                   element.DebugString());
  return Status::OK();
}

Status TensorArrayShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 0));
  c->set_output(0, PartialTensorShape({2}));
  c->set_output(1, TensorShape());
  return Status::OK();
}

Status GradShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  if (c->num_inputs() > 2) {
    PartialTensorShape unused;
    FLOWVM_RETURN_IF_ERROR(VectorInput(c, 2, &unused));
  }
  c->set_output(0, PartialTensorShape({2}));
  c->set_output(1, TensorShape());
  return Status::OK();
}

Status WriteShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 1));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 3));
  FLOWVM_RETURN_IF_ERROR(CheckElement(c, c->input(2), "the value"));
  c->set_output(0, TensorShape());
  return Status::OK();
}

Status ReadShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 1));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 2));
  PartialTensorShape element;
  c->set_output(0, ElementShapeOfHandle(c->node(), 0, &element) ? element : PartialTensorShape::Unknown());
  return Status::OK();
}

Status GatherShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  PartialTensorShape indices;
  FLOWVM_RETURN_IF_ERROR(VectorInput(c, 1, &indices));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 2));
  PartialTensorShape element;
  if (!ElementShapeOfHandle(c->node(), 0, &element)) FLOWVM_RETURN_IF_ERROR(c->GetAttr("element_shape", &element));
  c->set_output(0, Prepend(indices.dim_size(0), element));
  return Status::OK();
}

Status ScatterShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  PartialTensorShape indices;
  FLOWVM_RETURN_IF_ERROR(VectorInput(c, 1, &indices));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 3));
  const PartialTensorShape& value = c->input(2);
  if (!value.unknown_rank()) {
    if (value.dims() < 1)
      return errors::InvalidArgument("the value to scatter must be at least a vector, not of shape ",
                                     value.DebugString());
    int64_t unused;
    FLOWVM_RETURN_IF_ERROR(
        c->MergeDim(value.dim_size(0), indices.dim_size(0), &unused, "value.shape[0] must equal len(indices)"));
    std::vector<int64_t> rest(value.dim_sizes().begin() + 1, value.dim_sizes().end());
    FLOWVM_RETURN_IF_ERROR(CheckElement(c, *PartialTensorShape::FromDims(rest), "an element of the value"));
  }
  c->set_output(0, TensorShape());
  return Status::OK();
}

Status ConcatShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 1));
  PartialTensorShape except0;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("element_shape_except0", &except0));
  c->set_output(0, Prepend(-1, except0));
  c->set_output(1, PartialTensorShape({-1}));
  return Status::OK();
}

Status SplitShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  PartialTensorShape unused;
  FLOWVM_RETURN_IF_ERROR(VectorInput(c, 2, &unused));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 3));
  c->set_output(0, TensorShape());
  return Status::OK();
}

Status SizeShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(HandleInput(c, 0));
  FLOWVM_RETURN_IF_ERROR(ScalarInput(c, 1));
  c->set_output(0, TensorShape());
  return Status::OK();
}

Status CloseShape(InferenceContext* c) { return HandleInput(c, 0); }

}  // namespace

// All are stateful: two reads of one index are two reads (clear_after_read
// may make the second fail), never one common subexpression.
REGISTER_OP("TensorArrayV3")
    .Input("size: int32")
    .Attr("dtype: type")
    .Attr("element_shape: shape = <unknown>")
    .Attr("dynamic_size: bool = false")
    .Attr("clear_after_read: bool = true")
    .Attr("identical_element_shapes: bool = false")
    .Attr("tensor_array_name: string = ''")
    .Output("handle: resource")
    .Output("flow: float")
    .SetIsStateful()
    .SetShapeFn(TensorArrayShape)
    .Doc("An array of `size` tensors of type dtype for this step; its handle and a flow scalar that orders the ops "
         "on it.");

REGISTER_OP("TensorArrayGradV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("grad_handle: resource")
    .Output("flow_out: float")
    .Attr("source: string")
    .SetIsStateful()
    .SetShapeFn(GradShape)
    .Doc("The gradient array of `handle` for the gradient computation `source`: made once, of the forward array's "
         "size (which stops growing), and shared by every later caller; writes to one index add up.");

REGISTER_OP("TensorArrayGradWithShape")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Input("shape_to_prepend: int32")
    .Output("grad_handle: resource")
    .Output("flow_out: float")
    .Attr("source: string")
    .SetIsStateful()
    .SetShapeFn(GradShape)
    .Doc("TensorArrayGradV3 whose elements have shape_to_prepend before the forward elements' shape.");

REGISTER_OP("TensorArrayWriteV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(WriteShape)
    .Doc("Writes value at index (once per index).");

REGISTER_OP("TensorArrayReadV3")
    .Input("handle: resource")
    .Input("index: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .SetIsStateful()
    .SetShapeFn(ReadShape)
    .Doc("The element at index.");

REGISTER_OP("TensorArrayGatherV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Attr("dtype: type")
    .Attr("element_shape: shape = <unknown>")
    .SetIsStateful()
    .SetShapeFn(GatherShape)
    .Doc("The elements at indices, stacked along a new first dimension.");

REGISTER_OP("TensorArrayScatterV3")
    .Input("handle: resource")
    .Input("indices: int32")
    .Input("value: T")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(ScatterShape)
    .Doc("Writes value[i] at indices[i].");

REGISTER_OP("TensorArrayConcatV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("value: dtype")
    .Output("lengths: int64")
    .Attr("dtype: type")
    .Attr("element_shape_except0: shape = <unknown>")
    .SetIsStateful()
    .SetShapeFn(ConcatShape)
    .Doc("Every element, concatenated along their first dimension, and the length of each.");

REGISTER_OP("TensorArraySplitV3")
    .Input("handle: resource")
    .Input("value: T")
    .Input("lengths: int64")
    .Input("flow_in: float")
    .Output("flow_out: float")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(SplitShape)
    .Doc("Splits value along its first dimension into pieces of the given lengths, written at 0, 1, ...");

REGISTER_OP("TensorArraySizeV3")
    .Input("handle: resource")
    .Input("flow_in: float")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(SizeShape)
    .Doc("The current size of the array.");

REGISTER_OP("TensorArrayCloseV3")
    .Input("handle: resource")
    .SetIsStateful()
    .SetShapeFn(CloseShape)
    .Doc("Drops the array's elements; later ops on it fail.");

}  // namespace flowvm
