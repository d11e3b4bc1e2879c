#include "graph/graph_to_function.h"

#include <map>
#include <set>

namespace flowvm {

namespace {

// "node:out_arg:k" for output `port` of `n`.
StatusOr<std::string> TensorRef(const Node* n, int port) {
  int index = 0;
  for (const OpDef::ArgDef& arg : n->op_def().output_arg()) {
    int start = 0, end = 0;
    FLOWVM_RETURN_IF_ERROR(NameRangeForArg(n->def(), n->op_def(), arg.name(), false, &start, &end));
    if (port >= start && port < end) return n->name() + ":" + arg.name() + ":" + std::to_string(port - start);
    index = end;
  }
  return errors::Internal(n->label(), " has no output ", port, " (", index, " outputs)");
}

}  // namespace

Status GraphToFunctionDef(const Graph& graph, const FunctionSignatureSpec& spec, FunctionDef* fdef) {
  fdef->Clear();
  const std::string where = "function '" + spec.name + "'";
  FLOWVM_RETURN_IF_ERROR(ValidateNodeName(spec.name, true).WithContext(where));
  if (spec.input_names.size() != spec.inputs.size() || spec.output_names.size() != spec.outputs.size() ||
      spec.control_output_names.size() != spec.control_outputs.size())
    return errors::InvalidArgument(where, ": one name is needed per argument, result and control output");
  OpDef* sig = fdef->mutable_signature();
  sig->set_name(spec.name);
  std::map<const Node*, std::string> arg_of;  // placeholder node -> argument name
  std::set<std::string> names;
  for (size_t i = 0; i < spec.inputs.size(); ++i) {
    const NodeOut& in = spec.inputs[i];
    const std::string& name = spec.input_names[i];
    if (!in.valid() || in.node->num_outputs() != 1 || in.node->num_inputs() != 0 ||
        in.node->op().rfind("Placeholder", 0) != 0)
      return errors::InvalidArgument(where, ": argument '", name, "' must be a placeholder's output, not '",
                                     in.valid() ? in.name() : "<none>", "'");
    if (!names.insert(name).second) return errors::InvalidArgument(where, ": two arguments are named '", name, "'");
    FLOWVM_RETURN_IF_ERROR(ValidateNodeName(name, true).WithContext(where + ": argument"));
    if (arg_of.count(in.node)) return errors::InvalidArgument(where, ": '", in.node->name(), "' is two arguments");
    arg_of[in.node] = name;
    OpDef::ArgDef* a = sig->add_input_arg();
    a->set_name(name);
    a->set_type(BaseType(in.dtype()));
  }
  auto ref = [&](const NodeOut& t) -> StatusOr<std::string> {
    auto it = arg_of.find(t.node);
    if (it != arg_of.end()) return it->second;
    return TensorRef(t.node, t.index);
  };
  bool stateful = spec.is_stateful;
  for (Node* n : graph.nodes()) {
    if (arg_of.count(n)) continue;
    NodeDef* nd = fdef->add_node_def();
    graph.ToNodeDef(n, nd);
    nd->clear_input();
    std::vector<const Edge*> data(n->num_inputs(), nullptr);
    std::vector<std::string> control;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) {
        auto it = arg_of.find(e->src());
        control.push_back("^" + (it != arg_of.end() ? it->second : e->src()->name()));
      } else {
        data[e->dst_input()] = e;
      }
    }
    for (int i = 0; i < n->num_inputs(); ++i) {
      if (data[i] == nullptr) return errors::InvalidArgument(where, ": ", n->label(), ": input ", i, " is not connected");
      FLOWVM_ASSIGN_OR_RETURN(std::string r, ref(NodeOut(data[i]->src(), data[i]->src_output())));
      nd->add_input(r);
    }
    for (std::string& c : control) nd->add_input(std::move(c));
    stateful |= n->is_stateful();
  }
  std::set<std::string> out_names;
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const NodeOut& out = spec.outputs[i];
    const std::string& name = spec.output_names[i];
    if (!out.valid()) return errors::InvalidArgument(where, ": result '", name, "' is not set");
    if (!out_names.insert(name).second) return errors::InvalidArgument(where, ": two results are named '", name, "'");
    FLOWVM_RETURN_IF_ERROR(ValidateNodeName(name, true).WithContext(where + ": result"));
    OpDef::ArgDef* a = sig->add_output_arg();
    a->set_name(name);
    a->set_type(BaseType(out.dtype()));
    FLOWVM_ASSIGN_OR_RETURN(std::string r, ref(out));
    (*fdef->mutable_ret())[name] = r;
  }
  for (size_t i = 0; i < spec.control_outputs.size(); ++i) {
    const std::string& name = spec.control_output_names[i];
    const Node* n = spec.control_outputs[i];
    if (n == nullptr || arg_of.count(n))
      return errors::InvalidArgument(where, ": control output '", name, "' must be a node of the body");
    sig->add_control_output(name);
    (*fdef->mutable_control_ret())[name] = n->name();
  }
  sig->set_is_stateful(stateful);
  return Status::OK();
}

}  // namespace flowvm
