// Ops that move values in and out of function bodies (_Arg, _Retval), and
// the ops that call functions named by attrs (white paper section 10):
// PartitionedCall, StatefulPartitionedCall, SymbolicGradient, and the
// functional control-flow ops If, StatelessIf, Case, While and
// StatelessWhile, with TensorFlow's signatures. A session inlines and lowers
// them before placement (runtime/passes/function_inlining.h); their shape
// functions see through the functions.
#include "graph/function_library.h"
#include "graph/function_shape.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {

namespace {

// The shape both a and b are instances of, as precise as possible: equal
// dims stay, others become unknown; different ranks give unknown rank.
PartialTensorShape CommonShape(const PartialTensorShape& a, const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank() || a.dims() != b.dims()) return PartialTensorShape();
  std::vector<int64_t> dims(a.dims());
  for (int i = 0; i < a.dims(); ++i) dims[i] = a.dim_size(i) == b.dim_size(i) ? a.dim_size(i) : -1;
  return *PartialTensorShape::FromDims(dims);
}

// Outputs from the `output_shapes` attr when it is set; false if it is not.
StatusOr<bool> ShapesFromAttr(InferenceContext* c) {
  std::vector<PartialTensorShape> shapes;
  if (!c->GetAttr("output_shapes", &shapes).ok() || shapes.empty()) return false;
  if (static_cast<int>(shapes.size()) != c->num_outputs())
    return errors::InvalidArgument("output_shapes has ", shapes.size(), " shapes for ", c->num_outputs(), " outputs");
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, shapes[i]);
  return true;
}

// Outputs as the common shapes of the results of `branches`, called with
// the inputs from `first_input` on.
Status BranchesShape(InferenceContext* c, const std::vector<NameAttrList>& branches, int first_input) {
  FLOWVM_ASSIGN_OR_RETURN(bool from_attr, ShapesFromAttr(c));
  if (from_attr || c->function_library() == nullptr) return Status::OK();
  std::vector<PartialTensorShape> merged;
  for (size_t b = 0; b < branches.size(); ++b) {
    std::vector<PartialTensorShape> results;
    FLOWVM_RETURN_IF_ERROR(InferFunctionShapes(*c->function_library(), branches[b], c, first_input, &results));
    if (static_cast<int>(results.size()) != c->num_outputs()) return Status::OK();  // not resolvable yet
    if (b == 0) {
      merged = results;
    } else {
      for (int i = 0; i < c->num_outputs(); ++i) merged[i] = CommonShape(merged[i], results[i]);
    }
  }
  for (int i = 0; i < c->num_outputs() && i < static_cast<int>(merged.size()); ++i) c->set_output(i, merged[i]);
  return Status::OK();
}

Status CallShape(InferenceContext* c) {
  NameAttrList f;
  FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(c->node_def(), "f", &f));
  if (c->function_library() == nullptr) return Status::OK();
  std::vector<PartialTensorShape> results;
  FLOWVM_RETURN_IF_ERROR(InferFunctionShapes(*c->function_library(), f, c, 0, &results));
  for (int i = 0; i < c->num_outputs() && i < static_cast<int>(results.size()); ++i) c->set_output(i, results[i]);
  return Status::OK();
}

Status IfShape(InferenceContext* c) {
  NameAttrList then_branch, else_branch;
  FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(c->node_def(), "then_branch", &then_branch));
  FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(c->node_def(), "else_branch", &else_branch));
  return BranchesShape(c, {then_branch, else_branch}, 1);
}

Status CaseShape(InferenceContext* c) {
  std::vector<NameAttrList> branches;
  FLOWVM_RETURN_IF_ERROR(GetFunctionListAttr(c->node_def(), "branches", &branches));
  if (branches.empty()) return errors::InvalidArgument("Case needs at least one branch");
  return BranchesShape(c, branches, 1);
}

// As TensorFlow: the loop variables keep the shapes they enter with unless
// output_shapes says otherwise.
Status WhileShape(InferenceContext* c) {
  FLOWVM_ASSIGN_OR_RETURN(bool from_attr, ShapesFromAttr(c));
  if (from_attr) return Status::OK();
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(i));
  return Status::OK();
}

}  // namespace

REGISTER_OP("_Arg")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("A value fed to the step (feed number `index`), or argument `index` of a function body.");

REGISTER_OP("_Retval")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .SetShapeFn(UnknownShape)
    .Doc("Returns its input as fetch number `index` of the step, or result `index` of a function body.");

REGISTER_OP("PartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetShapeFn(CallShape)
    .Doc("Calls function `f` on `args`; its body is placed and partitioned with the graph around it.");

REGISTER_OP("StatefulPartitionedCall")
    .Input("args: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("f: func")
    .Attr("config: string = ''")
    .Attr("config_proto: string = ''")
    .Attr("executor_type: string = ''")
    .SetIsStateful()
    .SetShapeFn(CallShape)
    .Doc("PartitionedCall of a function with side effects: never pruned, merged or folded.");

REGISTER_OP("SymbolicGradient")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 1")
    .Attr("Tout: list(type) >= 1")
    .Attr("f: func")
    .SetShapeFn([](InferenceContext* c) {
      // The gradient of each argument has the argument's shape.
      for (int i = 0; i < c->num_outputs() && i < c->num_inputs(); ++i) c->set_output(i, c->input(i));
      return Status::OK();
    })
    .Doc("The gradient of function `f`: given f's N inputs and the gradients of its M outputs, the gradients of "
         "its N inputs.");

REGISTER_OP("If")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(IfShape)
    .Doc("then_branch(input) if cond is true (a non-zero number, a non-empty string), else else_branch(input).");

REGISTER_OP("StatelessIf")
    .Input("cond: Tcond")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tcond: type")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("then_branch: func")
    .Attr("else_branch: func")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(IfShape)
    .Doc("If, for branches without side effects.");

REGISTER_OP("Case")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetIsStateful()
    .SetShapeFn(CaseShape)
    .Doc("branches[branch_index](input); an index out of range runs the last branch.");

REGISTER_OP("StatelessCase")
    .Input("branch_index: int32")
    .Input("input: Tin")
    .Output("output: Tout")
    .Attr("Tin: list(type) >= 0")
    .Attr("Tout: list(type) >= 0")
    .Attr("branches: list(func) >= 1")
    .Attr("output_shapes: list(shape) = []")
    .SetShapeFn(CaseShape)
    .Doc("Case, for branches without side effects.");

REGISTER_OP("While")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetIsStateful()
    .SetShapeFn(WhileShape)
    .Doc("output = input; while cond(output): output = body(output).");

REGISTER_OP("StatelessWhile")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: list(type) >= 0")
    .Attr("cond: func")
    .Attr("body: func")
    .Attr("output_shapes: list(shape) = []")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(WhileShape)
    .Doc("While, for a cond and body without side effects.");

}  // namespace flowvm
