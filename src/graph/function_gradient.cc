// Gradients of functions: SymbolicGradient's body (the gradient of a
// function as a function), and the gradients of nodes that call functions.
#include "graph/function_gradient.h"

#include <functional>

#include "graph/attr_value_util.h"
#include "graph/function_body.h"
#include "graph/gradients.h"

namespace flowvm {

namespace {

StatusOr<std::unique_ptr<FunctionBody>> LibraryGradient(std::shared_ptr<FunctionLibraryDefinition> library,
                                                        const NameAttrList& func, const std::string& grad_name) {
  // The gradient function takes (x..., dy...) and returns dx...: check its
  // signature against func's.
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> forward, InstantiateFunction(library, func));
  NameAttrList g = func;
  g.set_name(grad_name);
  auto grad = InstantiateFunction(library, g);
  if (!grad.ok()) return grad.status().WithContext("gradient function of '" + func.name() + "'");
  DataTypeVector want_args = forward->arg_types;
  want_args.insert(want_args.end(), forward->ret_types.begin(), forward->ret_types.end());
  if ((*grad)->arg_types != want_args || (*grad)->ret_types != forward->arg_types)
    return errors::InvalidArgument("function '", grad_name, "', the gradient of '", func.name(), "', takes ",
                                   (*grad)->arg_types.size(), " arguments and returns ", (*grad)->ret_types.size(),
                                   " results; it must take the ", forward->arg_types.size(), " arguments and ",
                                   forward->ret_types.size(), " output gradients of '", func.name(),
                                   "' (of the same types) and return one gradient per argument");
  return std::move(grad).value();
}

}  // namespace

StatusOr<std::unique_ptr<FunctionBody>> InstantiateGradient(std::shared_ptr<FunctionLibraryDefinition> library,
                                                            const NameAttrList& func) {
  const std::string grad_name = library->GradientFunction(func.name());
  if (!grad_name.empty()) return LibraryGradient(library, func, grad_name);

  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body, InstantiateFunction(library, func));
  Graph* g = body->graph.get();
  const int num_args = static_cast<int>(body->arg_nodes.size());
  const int num_rets = static_cast<int>(body->ret_nodes.size());
  // One dy argument per result.
  std::vector<NodeOut> ys, dys;
  for (int j = 0; j < num_rets; ++j) {
    NodeDef def;
    def.set_name(UniqueNodeName(*g, "dy_" + std::to_string(j)));
    def.set_op("_Arg");
    (*def.mutable_attr())["T"] = MakeAttrValue(body->ret_types[j]);
    (*def.mutable_attr())["index"] = MakeAttrValue(static_cast<int64_t>(num_args + j));
    def.mutable_experimental_debug_info()->add_original_func_names(func.name());
    FLOWVM_ASSIGN_OR_RETURN(Node * dy, g->AddNode(std::move(def)));
    const Edge* in = body->ret_nodes[j]->input_edge(0);
    if (IsDifferentiableType(body->ret_types[j])) {
      ys.push_back(NodeOut(in->src(), in->src_output()));
      dys.push_back(NodeOut(dy, 0));
    }
    body->arg_nodes.push_back(dy);
    body->arg_names.push_back("dy_" + std::to_string(j));
  }
  std::vector<NodeOut> xs;
  std::vector<int> x_index;
  for (int i = 0; i < num_args; ++i)
    if (IsDifferentiableType(body->arg_types[i])) {
      xs.push_back(NodeOut(body->arg_nodes[i], 0));
      x_index.push_back(i);
    }
  GraphScope root(g);
  std::vector<NodeOut> dx(num_args);
  if (!ys.empty() && !xs.empty()) {
    std::vector<NodeOut> grads;
    SymbolicGradientOptions options;
    options.zeros_for_unconnected = true;
    Status s = AddSymbolicGradients(root, ys, xs, dys, &grads, options);
    if (!s.ok()) return s.WithContext("gradient of function '" + func.name() + "'");
    for (size_t k = 0; k < x_index.size(); ++k) dx[x_index[k]] = grads[k];
  }
  for (int i = 0; i < num_args; ++i)
    if (!dx[i].valid()) dx[i] = root.NewSubScope("zeros").Op("ZerosLike", {NodeOut(body->arg_nodes[i], 0)});
  FLOWVM_RETURN_IF_ERROR(root.status().WithContext("gradient of function '" + func.name() + "'"));

  for (Node* r : body->ret_nodes) g->RemoveNode(r);
  body->ret_nodes.clear();
  body->ret_names.clear();
  body->ret_types.clear();
  for (int i = 0; i < num_args; ++i) {
    const DataType t = body->arg_types[i];
    NodeDef def;
    def.set_name(UniqueNodeName(*g, "dx_" + std::to_string(i)));
    def.set_op("_Retval");
    (*def.mutable_attr())["T"] = MakeAttrValue(t);
    (*def.mutable_attr())["index"] = MakeAttrValue(static_cast<int64_t>(i));
    def.mutable_experimental_debug_info()->add_original_func_names(func.name());
    FLOWVM_ASSIGN_OR_RETURN(Node * r, g->AddNodeToConnect(std::move(def)));
    FLOWVM_ASSIGN_OR_RETURN(const Edge* e, g->AddEdge(dx[i].node, dx[i].index, r, 0));
    (void)e;
    body->ret_nodes.push_back(r);
    body->ret_names.push_back("dx_" + std::to_string(i));
    body->ret_types.push_back(t);
  }
  // Arguments: the x's, then the dy's.
  for (int j = 0; j < num_rets; ++j) body->arg_types.push_back(body->arg_nodes[num_args + j]->output_type(0));
  body->name = "SymbolicGradient(" + func.name() + ")";
  return body;
}

Status AddFunctionCallGradient(const GraphScope& scope, const Node& call, const NameAttrList& func,
                               const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  const Node* node = &call;
  // Both forms take the call's inputs, then one gradient per output (zeros
  // for outputs that carry none, such as integer ones).
  std::vector<NodeOut> inputs;
  for (int i = 0; i < node->num_inputs(); ++i) {
    const Edge* e = node->input_edge(i);
    inputs.push_back(NodeOut(e->src(), e->src_output()));
  }
  for (int k = 0; k < node->num_outputs(); ++k)
    inputs.push_back(dy[k].valid() ? dy[k] : scope.Op("ZerosLike", {NodeOut(const_cast<Node*>(node), k)}));
  const FunctionLibraryDefinition& library = scope.graph()->library();
  const std::string grad_name = library.GradientFunction(func.name());
  Node* grad = nullptr;
  if (!grad_name.empty()) {
    AttrMap attrs(func.attr().begin(), func.attr().end());
    // The gradient function's arguments are one list per argument of its
    // signature: pass each as a single tensor or a list, as it declares.
    const FunctionDef* gdef = library.Find(grad_name);
    if (gdef == nullptr)
      return errors::NotFound("the gradient function '", grad_name, "' of function '", func.name(),
                              "' is not in the library");
    std::vector<OpInput> args;
    size_t next = 0;
    NodeDef probe;
    probe.set_name(node->name());
    probe.set_op(grad_name);
    for (const auto& [k, v] : attrs) (*probe.mutable_attr())[k] = v;
    for (const OpDef::ArgDef& arg : gdef->signature().input_arg()) {
      int start = 0, end = 0;
      FLOWVM_RETURN_IF_ERROR(NameRangeForArg(probe, gdef->signature(), arg.name(), true, &start, &end));
      const bool is_list = !arg.number_attr().empty() || !arg.type_list_attr().empty();
      std::vector<NodeOut> part;
      for (int i = start; i < end && next < inputs.size(); ++i) part.push_back(inputs[next++]);
      if (is_list) args.push_back(OpInput::List(part));
      else if (!part.empty()) args.push_back(part[0]);
    }
    if (next != inputs.size())
      return errors::InvalidArgument("the gradient function '", grad_name, "' of function '", func.name(), "' takes ",
                                     next, " tensors, but a call of '", func.name(), "' with ", node->num_outputs(),
                                     " outputs gives ", inputs.size());
    grad = scope.AddNode(grad_name, args, attrs);
  } else {
    std::vector<DataType> tin, tout;
    for (const NodeOut& t : inputs) tin.push_back(BaseType(t.dtype()));
    for (int i = 0; i < node->num_inputs(); ++i) tout.push_back(BaseType(node->input_type(i)));
    AttrMap attrs;
    attrs["Tin"] = MakeAttrValue(tin);
    attrs["Tout"] = MakeAttrValue(tout);
    AttrValue f;
    *f.mutable_func() = func;
    attrs["f"] = f;
    grad = scope.AddNode("SymbolicGradient", {OpInput::List(inputs)}, attrs);
  }
  FLOWVM_RETURN_IF_ERROR(scope.status());
  if (grad->num_outputs() != node->num_inputs())
    return errors::InvalidArgument("the gradient of function '", func.name(), "' has ", grad->num_outputs(),
                                   " outputs for its ", node->num_inputs(), " inputs");
  dx->clear();
  for (int i = 0; i < node->num_inputs(); ++i)
    dx->push_back(IsDifferentiableType(node->input_type(i)) ? NodeOut(grad, i) : NodeOut());
  return Status::OK();
}

StatusOr<NameAttrList> GradientFunctionOf(const GraphScope& scope, const NameAttrList& func) {
  FunctionLibraryDefinition* library = scope.graph()->mutable_library();
  const FunctionDef* fdef = library->Find(func.name());
  if (fdef == nullptr) return errors::NotFound("function '", func.name(), "' is not in the graph's library");
  const std::string declared = library->GradientFunction(func.name());
  if (!declared.empty()) {
    NameAttrList g = func;
    g.set_name(declared);
    return g;
  }
  // A function whose body is SymbolicGradient(func): (x..., dy...) -> dx...
  std::shared_ptr<FunctionLibraryDefinition> shared(std::shared_ptr<FunctionLibraryDefinition>(), library);
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body, InstantiateFunction(shared, func));
  const std::string key = CanonicalFunctionKey(func);
  char hash[17];
  std::snprintf(hash, sizeof(hash), "%016zx", std::hash<std::string>()(key));
  const std::string name = func.name() + "_SymbolicGradient_" + std::string(hash, 8);
  NameAttrList result;
  result.set_name(name);
  if (library->Find(name) != nullptr) return result;
  FunctionDef grad;
  OpDef* sig = grad.mutable_signature();
  sig->set_name(name);
  NodeDef* node = grad.add_node_def();
  node->set_name("grad");
  node->set_op("SymbolicGradient");
  std::vector<DataType> tin, tout;
  for (size_t i = 0; i < body->arg_types.size(); ++i) {
    OpDef::ArgDef* a = sig->add_input_arg();
    a->set_name("x_" + std::to_string(i));
    a->set_type(body->arg_types[i]);
    node->add_input(a->name());
    tin.push_back(body->arg_types[i]);
    tout.push_back(body->arg_types[i]);
    OpDef::ArgDef* r = sig->add_output_arg();
    r->set_name("dx_" + std::to_string(i));
    r->set_type(body->arg_types[i]);
    (*grad.mutable_ret())[r->name()] = "grad:output:" + std::to_string(i);
  }
  for (size_t j = 0; j < body->ret_types.size(); ++j) {
    OpDef::ArgDef* a = sig->add_input_arg();
    a->set_name("dy_" + std::to_string(j));
    a->set_type(body->ret_types[j]);
    node->add_input(a->name());
    tin.push_back(body->ret_types[j]);
  }
  (*node->mutable_attr())["Tin"] = MakeAttrValue(tin);
  (*node->mutable_attr())["Tout"] = MakeAttrValue(tout);
  (*node->mutable_attr())["f"] = MakeAttrValue(func);
  FLOWVM_RETURN_IF_ERROR(library->AddFunction(grad));
  return result;
}

}  // namespace flowvm
