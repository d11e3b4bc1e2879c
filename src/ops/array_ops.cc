// Array ops: Const, Placeholder, PlaceholderWithDefault, Identity.
// Names, attrs and defaults follow TensorFlow's array_ops.cc.
#include "flowvm/tensor_shape.h"
#include "graph/attr_value_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// Const: the shape of the `value` attr, read from the proto without parsing
// the elements.
Status ConstShape(InferenceContext* c) {
  const AttrValue* v = FindNodeAttr(c->node_def(), "value");
  if (v == nullptr || v->value_case() != AttrValue::kTensor)
    return errors::InvalidArgument("Const needs a 'value' attr of type tensor");
  DataType dtype;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("dtype", &dtype));
  if (v->tensor().dtype() != dtype)
    return errors::InvalidArgument("Type mismatch between value (", DataTypeName(v->tensor().dtype()),
                                   ") and dtype (", DataTypeName(dtype), ")");
  auto shape = TensorShape::FromProto(v->tensor().tensor_shape());
  if (!shape.ok()) return errors::InvalidArgument("Const value: ", shape.status().message());
  c->set_output(0, *shape);
  return Status::OK();
}

Status PlaceholderShape(InferenceContext* c) {
  PartialTensorShape shape;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

// The fed value must be compatible with the declared shape; the output has
// the declared (possibly less precise) shape.
Status PlaceholderWithDefaultShape(InferenceContext* c) {
  PartialTensorShape shape;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  auto merged = c->input(0).MergeWith(shape);
  if (!merged.ok())
    return errors::InvalidArgument("default value of shape ", c->input(0).DebugString(),
                                   " is not compatible with the declared shape ", shape.DebugString());
  c->set_output(0, shape);
  return Status::OK();
}

}  // namespace

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn(ConstShape)
    .Doc("Returns a constant tensor.");

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = <unknown>")
    .SetShapeFn(PlaceholderShape)
    .Doc("A placeholder for a value that will be fed into the computation.");

REGISTER_OP("PlaceholderWithDefault")
    .Input("input: dtype")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape")
    .SetShapeFn(PlaceholderWithDefaultShape)
    .Doc("A placeholder that passes through `input` when its output is not fed.");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(UnchangedShape)
    .Doc("Returns a tensor with the same shape and contents as the input tensor or value.");

}  // namespace flowvm
