// State ops on reference-typed variables (paper section 4.7): VariableV2,
// the legacy Variable, Assign, AssignAdd, AssignSub, IsVariableInitialized,
// ScatterUpdate, ScatterAdd, ScatterSub and CountUpTo.
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

// ref [N, ...], indices I, updates: I + ref.shape[1:] (or a scalar, applied
// to every selected row). The output is the variable's shape.
Status ScatterShape(InferenceContext* c) {
  const PartialTensorShape& var = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  const PartialTensorShape& updates = c->input(2);
  if (var.dims() == 0) return errors::InvalidArgument("params must be at least 1-D, got shape ", var.DebugString());
  c->set_output(0, var);
  if (updates.dims() == 0 || var.unknown_rank() || indices.unknown_rank()) return Status::OK();
  std::vector<int64_t> want = indices.dim_sizes();
  want.insert(want.end(), var.dim_sizes().begin() + 1, var.dim_sizes().end());
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape expected, PartialTensorShape::FromDims(want));
  if (!expected.MergeWith(updates).ok())
    return errors::InvalidArgument("Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], "
                                   "got updates.shape ", updates.DebugString(), ", indices.shape ",
                                   indices.DebugString(), ", params.shape ", var.DebugString());
  return Status::OK();
}

Status CountUpToShape(InferenceContext* c) {
  const PartialTensorShape& ref = c->input(0);
  if (!ref.unknown_rank() && ref.dims() != 0)
    return errors::InvalidArgument("CountUpTo requires a scalar variable, got shape ", ref.DebugString());
  c->set_output(0, PartialTensorShape(TensorShape()));
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

REGISTER_OP("ScatterUpdate")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = true")
    .SetShapeFn(ScatterShape)
    .Doc("ref[indices[i], ...] = updates[i, ...]; with repeated indices, one of the updates wins.");

REGISTER_OP("ScatterAdd")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ScatterShape)
    .Doc("ref[indices[i], ...] += updates[i, ...]; repeated indices add up.");

REGISTER_OP("ScatterSub")
    .Input("ref: Ref(T)")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: numbertype")
    .Attr("Tindices: {int32, int64}")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ScatterShape)
    .Doc("ref[indices[i], ...] -= updates[i, ...]; repeated indices add up.");

REGISTER_OP("CountUpTo")
    .Input("ref: Ref(T)")
    .Output("output: T")
    .Attr("limit: int")
    .Attr("T: {int32, int64}")
    .SetShapeFn(CountUpToShape)
    .Doc("Increments the scalar 'ref' and outputs its value before the increment; fails with OutOfRange "
         "once the value has reached 'limit'.");

}  // namespace flowvm
