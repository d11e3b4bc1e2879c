#include "graph/graph_scope.h"

#include <unordered_map>

namespace flowvm {

DataType NodeOut::dtype() const { return node ? node->output_type(index) : DT_INVALID; }

std::string NodeOut::name() const {
  if (!node) return "<none>";
  return node->name() + ":" + std::to_string(index);
}

struct GraphScope::Shared {
  Graph* graph = nullptr;
  Status status;
  // Next suffix to try per name, for scopes and nodes alike.
  std::unordered_map<std::string, int> name_counts;
};

GraphScope::GraphScope(Graph* graph) : shared_(std::make_shared<Shared>()) { shared_->graph = graph; }

Graph* GraphScope::graph() const { return shared_->graph; }
bool GraphScope::ok() const { return shared_->status.ok(); }
Status GraphScope::status() const { return shared_->status; }

void GraphScope::UpdateStatus(const Status& s) const {
  if (shared_->status.ok() && !s.ok()) shared_->status = s;
}

void GraphScope::ClearStatus() const { shared_->status = Status::OK(); }

std::string GraphScope::MakeUnique(const std::string& base) const {
  auto& counts = shared_->name_counts;
  auto it = counts.find(base);
  if (it == counts.end() && shared_->graph->FindNode(base) == nullptr) {
    counts[base] = 1;
    return base;
  }
  int& next = counts[base];
  if (next == 0) next = 1;
  for (;;) {
    std::string candidate = base + "_" + std::to_string(next++);
    if (!counts.count(candidate) && shared_->graph->FindNode(candidate) == nullptr) {
      counts[candidate] = 1;
      return candidate;
    }
  }
}

GraphScope GraphScope::NewSubScope(std::string_view name) const {
  GraphScope child = *this;
  child.op_name_.clear();
  if (name.empty()) return child;
  std::string full = prefix_.empty() ? std::string(name) : prefix_ + "/" + std::string(name);
  child.prefix_ = MakeUnique(full);
  return child;
}

GraphScope GraphScope::WithExactNamePrefix(std::string_view prefix) const {
  GraphScope s = *this;
  s.op_name_.clear();
  s.prefix_ = std::string(prefix);
  return s;
}

GraphScope GraphScope::WithOpName(std::string_view name) const {
  GraphScope s = *this;
  s.op_name_ = std::string(name);
  return s;
}

GraphScope GraphScope::WithDevice(std::string_view device) const {
  GraphScope s = *this;
  s.device_ = std::string(device);
  return s;
}

GraphScope GraphScope::WithControlDependencies(const std::vector<Node*>& deps) const {
  GraphScope s = *this;
  for (Node* d : deps) {
    if (d == nullptr) continue;
    if (graph()->FindNodeId(d->id()) != d) {
      UpdateStatus(errors::InvalidArgument("control dependency '", d->name(),
                                           "' belongs to another graph (built from a different root scope)"));
      continue;
    }
    s.control_deps_.push_back(d);
  }
  return s;
}

GraphScope GraphScope::WithNoControlDependencies() const {
  GraphScope s = *this;
  s.control_deps_.clear();
  return s;
}

std::string GraphScope::UniqueNodeName(std::string_view default_name) const {
  if (!op_name_.empty()) return prefix_.empty() ? op_name_ : prefix_ + "/" + op_name_;
  std::string base = prefix_.empty() ? std::string(default_name) : prefix_ + "/" + std::string(default_name);
  return MakeUnique(base);
}

namespace {

std::string InputString(const NodeOut& t) {
  return t.index == 0 ? t.node->name() : t.node->name() + ":" + std::to_string(t.index);
}

// Sets `attr` to `value` unless the caller gave it.
void InferAttr(NodeDef* def, const std::string& attr, const AttrValue& value) {
  auto* attrs = def->mutable_attr();
  if (!attrs->count(attr)) (*attrs)[attr] = value;
}

}  // namespace

Node* GraphScope::AddNode(std::string_view op, const std::vector<OpInput>& inputs, const AttrMap& attrs) const {
  if (!ok()) return nullptr;
  Graph* graph = shared_->graph;
  NodeDef def;
  def.set_name(UniqueNodeName(op));
  def.set_op(std::string(op));
  if (!device_.empty()) def.set_device(device_);
  for (const auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;

  auto reg = graph->LookUpOp(def.op());
  if (!reg.ok()) {
    UpdateStatus(AttachNode(reg.status(), def));
    return nullptr;
  }
  const OpDef& op_def = (*reg)->op_def;
  if (static_cast<int>(inputs.size()) != op_def.input_arg_size()) {
    UpdateStatus(errors::InvalidArgument(NodeLabel(def), ": expects ", op_def.input_arg_size(),
                                         " input arguments, got ", inputs.size()));
    return nullptr;
  }
  std::vector<NodeOut> flat;
  for (int a = 0; a < op_def.input_arg_size(); ++a) {
    const auto& arg = op_def.input_arg(a);
    const OpInput& in = inputs[a];
    for (const NodeOut& t : in.tensors) {
      if (!t.valid()) {
        UpdateStatus(errors::InvalidArgument(NodeLabel(def), ": input '", arg.name(), "' is not set"));
        return nullptr;
      }
      if (graph->FindNodeId(t.node->id()) != t.node) {
        UpdateStatus(errors::InvalidArgument(NodeLabel(def), ": input '", arg.name(), "' is '", t.name(),
                                             "' of another graph (built from a different root scope)"));
        return nullptr;
      }
    }
    bool list_arg = !arg.number_attr().empty() || !arg.type_list_attr().empty();
    if (!list_arg && in.tensors.size() != 1) {
      UpdateStatus(errors::InvalidArgument(NodeLabel(def), ": input '", arg.name(), "' takes one tensor, got ",
                                           in.tensors.size()));
      return nullptr;
    }
    if (!arg.number_attr().empty()) {
      InferAttr(&def, arg.number_attr(), MakeAttrValue(static_cast<int64_t>(in.tensors.size())));
      if (!arg.type_attr().empty() && !in.tensors.empty())
        InferAttr(&def, arg.type_attr(), MakeAttrValue(BaseType(in.tensors[0].dtype())));
    } else if (!arg.type_list_attr().empty()) {
      std::vector<DataType> types;
      for (const NodeOut& t : in.tensors) types.push_back(BaseType(t.dtype()));
      InferAttr(&def, arg.type_list_attr(), MakeAttrValue(types));
    } else if (!arg.type_attr().empty()) {
      InferAttr(&def, arg.type_attr(), MakeAttrValue(BaseType(in.tensors[0].dtype())));
    }
    for (const NodeOut& t : in.tensors) {
      def.add_input(InputString(t));
      flat.push_back(t);
    }
  }
  for (Node* dep : control_deps_) def.add_input("^" + dep->name());

  std::string label = NodeLabel(def);
  auto added = graph->AddNode(def);
  if (!added.ok()) {
    UpdateStatus(added.status());
    return nullptr;
  }
  Node* node = *added;
  for (int i = 0; i < static_cast<int>(flat.size()); ++i) {
    auto e = graph->AddEdge(flat[i].node, flat[i].index, node, i);
    if (!e.ok()) {
      graph->RemoveNode(node);
      UpdateStatus(e.status());
      return nullptr;
    }
  }
  for (Node* dep : control_deps_) graph->AddControlEdge(dep, node);
  return node;
}

NodeOut GraphScope::Op(std::string_view op, const std::vector<OpInput>& inputs, const AttrMap& attrs) const {
  Node* n = AddNode(op, inputs, attrs);
  if (n == nullptr) return NodeOut();
  if (n->num_outputs() == 0) {
    UpdateStatus(errors::InvalidArgument(n->label(), ": has no outputs"));
    return NodeOut();
  }
  return NodeOut(n, 0);
}

NodeOut ConstOp(const GraphScope& scope, const Tensor& value) {
  return scope.Op("Const", {}, {{"dtype", MakeAttrValue(value.dtype())}, {"value", MakeAttrValue(value)}});
}

}  // namespace flowvm
