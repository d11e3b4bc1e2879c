// Ops that move values in and out of function bodies (_Arg, _Retval), and
// the ops that call functions named by attrs (white paper section 10):
// PartitionedCall, StatefulPartitionedCall, SymbolicGradient, and the
// functional control-flow ops If, StatelessIf, Case, While and
// StatelessWhile, with TensorFlow's signatures. A session inlines and lowers
// them before placement (runtime/passes/function_inlining.h); their shape
// functions see through the functions.
#include "graph/attr_value_util.h"
#include "graph/function_gradient.h"
#include "graph/function_library.h"
#include "graph/function_shape.h"
#include "graph/gradient_registry.h"
#include "graph/gradients.h"
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

// ---- gradients ----------------------------------------------------------------

Status PartitionedCallGrad(const GraphScope& scope, const Node& op, const std::vector<NodeOut>& dy,
                           std::vector<NodeOut>* dx) {
  NameAttrList f;
  FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(op.def(), "f", &f));
  return AddFunctionCallGradient(scope, op, f, dy, dx);
}

// If and Case: the same op over the branches' gradient functions, taking
// the inputs and the output gradients; the predicate or index gets none.
Status BranchesGrad(const GraphScope& scope, const Node& op, const std::vector<NodeOut>& dy,
                    std::vector<NodeOut>* dx) {
  const bool is_case = op.op() == "Case" || op.op() == "StatelessCase";
  std::vector<NameAttrList> branches;
  if (is_case) {
    FLOWVM_RETURN_IF_ERROR(GetFunctionListAttr(op.def(), "branches", &branches));
  } else {
    NameAttrList t, e;
    FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(op.def(), "then_branch", &t));
    FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(op.def(), "else_branch", &e));
    branches = {t, e};
  }
  std::vector<NameAttrList> grads;
  for (const NameAttrList& b : branches) {
    FLOWVM_ASSIGN_OR_RETURN(NameAttrList g, GradientFunctionOf(scope, b));
    grads.push_back(g);
  }
  std::vector<NodeOut> inputs;
  std::vector<DataType> tin, tout;
  for (int i = 1; i < op.num_inputs(); ++i) {
    const Edge* e = op.input_edge(i);
    inputs.push_back(NodeOut(e->src(), e->src_output()));
    tin.push_back(BaseType(op.input_type(i)));
    tout.push_back(BaseType(op.input_type(i)));
  }
  for (int k = 0; k < op.num_outputs(); ++k) {
    NodeOut g = dy[k].valid() ? dy[k] : scope.Op("ZerosLike", {NodeOut(const_cast<Node*>(&op), k)});
    inputs.push_back(g);
    tin.push_back(op.output_type(k));
  }
  const Edge* selector = op.input_edge(0);
  AttrMap attrs;
  attrs["Tin"] = MakeAttrValue(tin);
  attrs["Tout"] = MakeAttrValue(tout);
  if (is_case) {
    attrs["branches"] = MakeAttrValue(grads);
  } else {
    attrs["Tcond"] = MakeAttrValue(BaseType(op.input_type(0)));
    attrs["then_branch"] = MakeAttrValue(grads[0]);
    attrs["else_branch"] = MakeAttrValue(grads[1]);
  }
  Node* grad = scope.AddNode(op.op(), {NodeOut(selector->src(), selector->src_output()), OpInput::List(inputs)}, attrs);
  FLOWVM_RETURN_IF_ERROR(scope.status());
  dx->assign(1, NodeOut());
  for (int i = 1; i < op.num_inputs(); ++i)
    dx->push_back(IsDifferentiableType(op.input_type(i)) ? NodeOut(grad, i - 1) : NodeOut());
  return Status::OK();
}

Status UnsupportedGrad(const GraphScope& scope, const Node& op, const std::vector<NodeOut>& dy,
                       std::vector<NodeOut>* dx) {
  if (op.op() == "SymbolicGradient")
    return errors::Unimplemented(op.label(), ": second-order gradients of functions are not supported");
  return errors::Unimplemented(op.label(), ": gradients through a functional ", op.op(),
                               " are not supported; build the loop with tf.while_loop (Enter/Exit/NextIteration), "
                               "which is differentiated");
}

}  // namespace

REGISTER_GRADIENT("PartitionedCall", PartitionedCallGrad);
REGISTER_GRADIENT("StatefulPartitionedCall", PartitionedCallGrad);
REGISTER_GRADIENT("If", BranchesGrad);
REGISTER_GRADIENT("StatelessIf", BranchesGrad);
REGISTER_GRADIENT("Case", BranchesGrad);
REGISTER_GRADIENT("StatelessCase", BranchesGrad);
REGISTER_GRADIENT("SymbolicGradient", UnsupportedGrad);
REGISTER_GRADIENT("While", UnsupportedGrad);
REGISTER_GRADIENT("StatelessWhile", UnsupportedGrad);

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
