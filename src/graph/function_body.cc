#include "graph/function_body.h"

#include <cctype>
#include <map>

#include "graph/attr_value_util.h"
#include "graph/control_flow.h"
#include "graph/tensor_id.h"

namespace flowvm {

namespace {

std::vector<std::string> SplitColons(const std::string& s) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == ':') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

bool IsNumber(const std::string& s) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Replaces attr placeholders ("T" standing for the function's attr T) by
// their values, also inside the attrs of func and list(func) values.
Status Substitute(AttrValue* v, const std::map<std::string, AttrValue>& attrs, const std::string& where,
                  const std::string& attr_name) {
  if (v->value_case() == AttrValue::kPlaceholder) {
    auto it = attrs.find(v->placeholder());
    if (it == attrs.end())
      return errors::InvalidArgument(where, ": attr '", attr_name, "' refers to '", v->placeholder(),
                                     "', which is not an attr of the function");
    *v = it->second;
    return Status::OK();
  }
  if (v->has_func())
    for (auto& [k, a] : *v->mutable_func()->mutable_attr()) FLOWVM_RETURN_IF_ERROR(Substitute(&a, attrs, where, k));
  if (v->has_list())
    for (NameAttrList& f : *v->mutable_list()->mutable_func())
      for (auto& [k, a] : *f.mutable_attr()) FLOWVM_RETURN_IF_ERROR(Substitute(&a, attrs, where, k));
  return Status::OK();
}

class BodyBuilder {
 public:
  BodyBuilder(std::shared_ptr<FunctionLibraryDefinition> library, const FunctionDef& fdef, const NameAttrList& func)
      : library_(std::move(library)), fdef_(fdef), func_(func), where_("function '" + func.name() + "'") {}

  StatusOr<std::unique_ptr<FunctionBody>> Build() {
    body_ = std::make_unique<FunctionBody>();
    body_->name = func_.name();
    body_->graph = std::make_unique<Graph>(library_);
    body_->graph->set_allow_internal_names(true);
    FLOWVM_RETURN_IF_ERROR(ResolveAttrs());
    FLOWVM_RETURN_IF_ERROR(AddBodyNodes());
    FLOWVM_RETURN_IF_ERROR(AddArgs());
    FLOWVM_RETURN_IF_ERROR(ConnectBodyNodes());
    FLOWVM_RETURN_IF_ERROR(AddRets());
    std::vector<Node*> order;
    FLOWVM_RETURN_IF_ERROR(body_->graph->TopologicalOrder(&order).WithContext(where_));
    if (HasControlFlow(*body_->graph)) {
      ControlFlowInfo info;
      FLOWVM_RETURN_IF_ERROR(BuildControlFlowInfo(*body_->graph, &info).WithContext(where_));
    }
    for (Node* n : body_->graph->nodes()) body_->is_stateful |= n->is_stateful() && n->op() != "_Arg" && n->op() != "_Retval";
    return std::move(body_);
  }

 private:
  // The signature's attrs: given, else their defaults.
  Status ResolveAttrs() {
    for (const OpDef::AttrDef& a : fdef_.signature().attr()) {
      auto given = func_.attr().find(a.name());
      if (given != func_.attr().end()) {
        attrs_[a.name()] = given->second;
      } else if (a.has_default_value()) {
        attrs_[a.name()] = a.default_value();
      } else {
        return errors::InvalidArgument(where_, ": attr '", a.name(), "' (", a.type(),
                                       ") has no value; the call must give it");
      }
    }
    // The signature, as if it were a node calling the function: its arg
    // types come out of the same rules as any op's.
    signature_node_.set_name(func_.name());
    signature_node_.set_op(func_.name());
    for (const auto& [k, v] : attrs_) (*signature_node_.mutable_attr())[k] = v;
    Status s = InOutTypesForNode(signature_node_, fdef_.signature(), &body_->arg_types, &body_->ret_types);
    if (!s.ok()) return errors::InvalidArgument(where_, ": ", s.message());
    return Status::OK();
  }

  Status AddBodyNodes() {
    Graph* g = body_->graph.get();
    for (const NodeDef& nd : fdef_.node_def()) {
      NodeDef def = nd;
      def.clear_input();
      const std::string node_where = where_ + ": node '" + nd.name() + "'";
      for (auto& [k, v] : *def.mutable_attr()) FLOWVM_RETURN_IF_ERROR(Substitute(&v, attrs_, node_where, k));
      auto* info = def.mutable_experimental_debug_info();
      info->clear_original_func_names();
      info->add_original_func_names(func_.name());
      for (const std::string& f : nd.experimental_debug_info().original_func_names()) info->add_original_func_names(f);
      auto added = g->AddNodeToConnect(std::move(def));
      if (!added.ok()) return added.status().WithContext(where_);
      nodes_[nd.name()] = *added;
    }
    return Status::OK();
  }

  Status AddArgs() {
    Graph* g = body_->graph.get();
    int index = 0;
    for (const OpDef::ArgDef& arg : fdef_.signature().input_arg()) {
      int start = 0, end = 0;
      FLOWVM_RETURN_IF_ERROR(NameRangeForArg(signature_node_, fdef_.signature(), arg.name(), true, &start, &end));
      std::vector<NodeOut>& outs = args_[arg.name()];
      for (int i = start; i < end; ++i, ++index) {
        NodeDef def;
        const bool is_list = !arg.number_attr().empty() || !arg.type_list_attr().empty();
        def.set_name(UniqueNodeName(*g, is_list ? arg.name() + "_" + std::to_string(i - start) : arg.name()));
        def.set_op("_Arg");
        (*def.mutable_attr())["T"] = MakeAttrValue(body_->arg_types[index]);
        (*def.mutable_attr())["index"] = MakeAttrValue(static_cast<int64_t>(index));
        def.mutable_experimental_debug_info()->add_original_func_names(func_.name());
        FLOWVM_ASSIGN_OR_RETURN(Node * n, g->AddNode(std::move(def)));
        body_->arg_nodes.push_back(n);
        body_->arg_names.push_back(is_list ? arg.name() + ":" + std::to_string(i - start) : arg.name());
        outs.push_back(NodeOut(n, 0));
      }
    }
    return Status::OK();
  }

  // The tensors an input string names (see the file comment of the header).
  Status Resolve(const std::string& input, const std::string& where, std::vector<NodeOut>* out) {
    out->clear();
    const std::vector<std::string> parts = SplitColons(input);
    auto arg = args_.find(parts[0]);
    auto node = nodes_.find(parts[0]);
    if (parts.size() == 1) {
      if (arg != args_.end()) {
        *out = arg->second;
        return Status::OK();
      }
      if (node != nodes_.end() && node->second->num_outputs() > 0) {
        out->push_back(NodeOut(node->second, 0));  // GraphDef style: output 0
        return Status::OK();
      }
    } else if (parts.size() == 2 || parts.size() == 3) {
      if (node != nodes_.end()) {
        Node* n = node->second;
        int start = 0, end = 0;
        if (NameRangeForArg(n->def(), n->op_def(), parts[1], false, &start, &end).ok()) {
          if (parts.size() == 2) {
            for (int i = start; i < end; ++i) out->push_back(NodeOut(n, i));
            return Status::OK();
          }
          if (IsNumber(parts[2]) && start + std::stoi(parts[2]) < end) {
            out->push_back(NodeOut(n, start + std::stoi(parts[2])));
            return Status::OK();
          }
          return errors::InvalidArgument(where, ": input '", input, "': output '", parts[1], "' of node '", parts[0],
                                         "' has ", end - start, " tensor", end - start == 1 ? "" : "s");
        }
        if (parts.size() == 2 && IsNumber(parts[1]) && std::stoi(parts[1]) < n->num_outputs()) {
          out->push_back(NodeOut(n, std::stoi(parts[1])));  // GraphDef style: "node:port"
          return Status::OK();
        }
        return errors::InvalidArgument(where, ": input '", input, "': node '", parts[0], "' (", n->op(),
                                       ") has no output named '", parts[1], "'");
      }
      if (arg != args_.end() && parts.size() == 2 && IsNumber(parts[1]) &&
          std::stoi(parts[1]) < static_cast<int>(arg->second.size())) {
        out->push_back(arg->second[std::stoi(parts[1])]);
        return Status::OK();
      }
    }
    return errors::InvalidArgument(where, ": input '", input,
                                   "' names neither an argument of the function nor an output of a node of its body");
  }

  Status ConnectBodyNodes() {
    Graph* g = body_->graph.get();
    for (const NodeDef& nd : fdef_.node_def()) {
      Node* dst = nodes_[nd.name()];
      const std::string where = where_ + ": " + dst->label();
      int slot = 0;
      for (const std::string& input : nd.input()) {
        if (!input.empty() && input[0] == '^') {
          const std::string src = input.substr(1);
          auto node = nodes_.find(src);
          auto arg = args_.find(src);
          if (node != nodes_.end()) {
            g->AddControlEdge(node->second, dst);
          } else if (arg != args_.end()) {
            for (const NodeOut& t : arg->second) g->AddControlEdge(t.node, dst);
          } else {
            return errors::InvalidArgument(where, ": control input '", input, "' names no node of the body");
          }
          continue;
        }
        std::vector<NodeOut> tensors;
        FLOWVM_RETURN_IF_ERROR(Resolve(input, where, &tensors));
        for (const NodeOut& t : tensors) {
          if (slot >= dst->num_inputs())
            return errors::InvalidArgument(where, ": its inputs name more tensors than the op's ", dst->num_inputs(),
                                           " inputs");
          auto e = g->AddEdge(t.node, t.index, dst, slot++);
          if (!e.ok()) return e.status().WithContext(where_);
        }
      }
      if (slot != dst->num_inputs())
        return errors::InvalidArgument(where, ": its inputs name ", slot, " tensor", slot == 1 ? "" : "s",
                                       " but the op has ", dst->num_inputs(), " input",
                                       dst->num_inputs() == 1 ? "" : "s");
    }
    return Status::OK();
  }

  Status AddRets() {
    Graph* g = body_->graph.get();
    int index = 0;
    for (const OpDef::ArgDef& arg : fdef_.signature().output_arg()) {
      int start = 0, end = 0;
      FLOWVM_RETURN_IF_ERROR(NameRangeForArg(signature_node_, fdef_.signature(), arg.name(), false, &start, &end));
      const std::string& ref = fdef_.ret().at(arg.name());
      const std::string where = where_ + ": output '" + arg.name() + "'";
      std::vector<NodeOut> tensors;
      FLOWVM_RETURN_IF_ERROR(Resolve(ref, where, &tensors));
      if (static_cast<int>(tensors.size()) != end - start)
        return errors::InvalidArgument(where, " returns '", ref, "', ", tensors.size(), " tensor",
                                       tensors.size() == 1 ? "" : "s", ", but the signature has ", end - start);
      for (int i = 0; i < end - start; ++i, ++index) {
        const NodeOut& t = tensors[i];
        const DataType want = body_->ret_types[index];
        if (BaseType(t.dtype()) != want)
          return errors::InvalidArgument(where, " returns '", t.name(), "', a ", DataTypeName(t.dtype()),
                                         ", but the signature says ", DataTypeName(want));
        NodeDef def;
        def.set_name(UniqueNodeName(*g, arg.name() + "_RetVal"));
        def.set_op("_Retval");
        (*def.mutable_attr())["T"] = MakeAttrValue(want);
        (*def.mutable_attr())["index"] = MakeAttrValue(static_cast<int64_t>(index));
        def.mutable_experimental_debug_info()->add_original_func_names(func_.name());
        FLOWVM_ASSIGN_OR_RETURN(Node * n, g->AddNodeToConnect(std::move(def)));
        FLOWVM_ASSIGN_OR_RETURN(const Edge* e, g->AddEdge(t.node, t.index, n, 0));
        (void)e;
        body_->ret_nodes.push_back(n);
        body_->ret_names.push_back(end - start > 1 || !arg.number_attr().empty() || !arg.type_list_attr().empty()
                                       ? arg.name() + ":" + std::to_string(i)
                                       : arg.name());
      }
    }
    for (const std::string& c : fdef_.signature().control_output()) {
      const std::string& node_name = fdef_.control_ret().at(c);
      auto it = nodes_.find(node_name);
      if (it == nodes_.end())
        return errors::InvalidArgument(where_, ": control output '", c, "' names node '", node_name,
                                       "', which is not in the body");
      body_->control_ret_nodes.push_back(it->second);
    }
    return Status::OK();
  }

  std::shared_ptr<FunctionLibraryDefinition> library_;
  const FunctionDef& fdef_;
  const NameAttrList& func_;
  const std::string where_;
  std::unique_ptr<FunctionBody> body_;
  std::map<std::string, AttrValue> attrs_;
  NodeDef signature_node_;
  std::map<std::string, Node*> nodes_;
  std::map<std::string, std::vector<NodeOut>> args_;
};

}  // namespace

NameAttrList CallAttrs(const NodeDef& call, const std::string& function) {
  NameAttrList f;
  f.set_name(function);
  for (const auto& [k, v] : call.attr())
    if (k.empty() || k[0] != '_') (*f.mutable_attr())[k] = v;
  return f;
}

StatusOr<std::unique_ptr<FunctionBody>> InstantiateFunction(std::shared_ptr<FunctionLibraryDefinition> library,
                                                            const NameAttrList& func) {
  const FunctionDef* fdef = library->Find(func.name());
  if (fdef == nullptr) {
    if (library->ops()->LookUpOrNull(func.name()) != nullptr)
      return errors::InvalidArgument("'", func.name(), "' is an op, not a function of the graph's library");
    if (library->LookUpFunctionOp(func.name()) != nullptr)
      return errors::NotFound("function '", func.name(), "' is declared but never defined in the graph's library");
    return errors::NotFound("function '", func.name(), "' is not defined in the graph's library");
  }
  BodyBuilder builder(std::move(library), *fdef, func);
  return builder.Build();
}

}  // namespace flowvm
