// SymbolicGradient's body: the gradient of a function as a function.
#include "graph/function_body.h"
#include "graph/gradients.h"
#include "graph/attr_value_util.h"

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

}  // namespace flowvm
