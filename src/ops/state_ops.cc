// State ops on reference-typed variables (paper section 4.7): VariableV2,
// the legacy Variable, Assign, AssignAdd, AssignSub, IsVariableInitialized.
// Names, attrs and defaults follow TensorFlow's state_ops.cc.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

Status VariableV2Shape(InferenceContext* c) {
  PartialTensorShape shape;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape);
  return Status::OK();
}

// The legacy Variable could not tell a scalar shape attr from "unknown", so
// a rank-0 (or unknown) shape attr gives an unknown shape.
Status LegacyVariableShape(InferenceContext* c) {
  PartialTensorShape shape;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("shape", &shape));
  c->set_output(0, shape.dims() <= 0 ? PartialTensorShape::Unknown() : shape);
  return Status::OK();
}

// Inputs 0 (the variable) and 1 (the value) must agree; the output is the
// merged shape.
Status MergeBothInputs(InferenceContext* c, const char* op) {
  auto merged = c->input(0).MergeWith(c->input(1));
  if (!merged.ok())
    return errors::InvalidArgument(op, " requires shapes of both tensors to match. lhs shape= ",
                                   c->input(0).DebugString(), " rhs shape= ", c->input(1).DebugString());
  c->set_output(0, *merged);
  return Status::OK();
}

Status AssignShape(InferenceContext* c) {
  bool validate_shape = true;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("validate_shape", &validate_shape));
  if (validate_shape) return MergeBothInputs(c, "Assign");
  c->set_output(0, c->input(1));
  return Status::OK();
}

}  // namespace

REGISTER_OP("VariableV2")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(VariableV2Shape)
    .Doc("Holds state in the form of a tensor that persists across steps.");

REGISTER_OP("Variable")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = ''")
    .Attr("shared_name: string = ''")
    .SetIsStateful()
    .SetShapeFn(LegacyVariableShape)
    .Doc("Use VariableV2 instead.");

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .Attr("use_locking: bool = true")
    .SetAllowsUninitializedInput()
    .SetShapeFn(AssignShape)
    .Doc("Update 'ref' by assigning 'value' to it.");

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return MergeBothInputs(c, "AssignAdd"); })
    .Doc("Update 'ref' by adding 'value' to it.");

REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn([](InferenceContext* c) { return MergeBothInputs(c, "AssignSub"); })
    .Doc("Update 'ref' by subtracting 'value' from it.");

REGISTER_OP("IsVariableInitialized")
    .Input("ref: Ref(dtype)")
    .Output("is_initialized: bool")
    .Attr("dtype: type")
    .SetAllowsUninitializedInput()
    .SetShapeFn(ScalarShape)
    .Doc("Checks whether a tensor has been initialized.");

}  // namespace flowvm
