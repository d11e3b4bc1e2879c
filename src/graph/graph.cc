#include "graph/graph.h"

#include <algorithm>
#include <functional>

#include "graph/control_flow.h"
#include "graph/tensor_id.h"

namespace flowvm {

const Edge* Node::input_edge(int i) const {
  for (const Edge* e : in_edges_)
    if (!e->IsControlEdge() && e->dst_input() == i) return e;
  return nullptr;
}

bool Edge::IsBackEdge() const { return src_->IsNextIteration() && dst_->IsMerge(); }

Node::Class Node::ClassOf(const std::string& op) {
  static const std::unordered_map<std::string, Class>* const kClasses = new std::unordered_map<std::string, Class>{
      {"Switch", kSwitch},         {"RefSwitch", kSwitch},
      {"Merge", kMerge},           {"RefMerge", kMerge},
      {"Enter", kEnter},           {"RefEnter", kEnter},
      {"Exit", kExit},             {"RefExit", kExit},
      {"NextIteration", kNextIteration}, {"RefNextIteration", kNextIteration},
      {"LoopCond", kLoopCond},     {"ControlTrigger", kControlTrigger},
      {"_Send", kSend},            {"_Recv", kRecv},
  };
  auto it = kClasses->find(op);
  return it == kClasses->end() ? kOther : it->second;
}

Graph::Graph(const OpRegistry* registry)
    : registry_(registry), library_(std::make_shared<FunctionLibraryDefinition>(registry)) {}
Graph::Graph(std::shared_ptr<FunctionLibraryDefinition> library)
    : registry_(library->ops()), library_(std::move(library)) {}
Graph::~Graph() = default;

StatusOr<Node*> Graph::AddNode(NodeDef def) {
  if (by_name_.count(def.name()))
    return errors::InvalidArgument(NodeLabel(def), ": a node with this name already exists in the graph");
  auto reg = LookUpOp(def.op());
  if (!reg.ok()) return AttachNode(reg.status(), def);
  const OpDef& op = (*reg)->op_def;
  AddDefaultsToNodeDef(op, &def);
  FLOWVM_RETURN_IF_ERROR(ValidateNodeDef(def, op, allow_internal_names_));
  auto node = std::make_unique<Node>();
  FLOWVM_RETURN_IF_ERROR(InOutTypesForNode(def, op, &node->input_types_, &node->output_types_));
  node->id_ = static_cast<int>(nodes_.size());
  node->op_reg_ = *reg;
  node->op_def_ = &op;
  node->class_ = Node::ClassOf(def.op());
  def.clear_input();
  node->def_ = std::move(def);
  Node* raw = node.get();
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  ++num_nodes_;
  return raw;
}

StatusOr<Node*> Graph::AddNodeToConnect(NodeDef def) {
  def.clear_input();
  auto reg = LookUpOp(def.op());
  if (!reg.ok()) return AttachNode(reg.status(), def);
  NodeDef probe = def;
  AddDefaultsToNodeDef((*reg)->op_def, &probe);
  DataTypeVector ins, outs;
  FLOWVM_RETURN_IF_ERROR(InOutTypesForNode(probe, (*reg)->op_def, &ins, &outs));
  // Stand-ins for the inputs to come, so that the count is checked as usual.
  for (size_t i = 0; i < ins.size(); ++i) def.add_input("_");
  return AddNode(std::move(def));
}

StatusOr<const Edge*> Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  if (src_output < 0 || src_output >= src->num_outputs())
    return errors::InvalidArgument(dst->label(), ": input ", dst_input, " refers to output ", src_output, " of ",
                                   src->label(), ", which has ", src->num_outputs(), " output",
                                   src->num_outputs() == 1 ? "" : "s");
  if (dst_input < 0 || dst_input >= dst->num_inputs())
    return errors::InvalidArgument(dst->label(), ": has no input ", dst_input);
  DataType out = src->output_type(src_output);
  DataType in = dst->input_type(dst_input);
  if (out != in && !(IsRefType(out) && BaseType(out) == in)) {
    if (IsRefType(in) && !IsRefType(out))
      return errors::InvalidArgument(dst->label(), ": input ", dst_input, " must be a reference (",
                                     DataTypeName(in), ") but '", src->name(), ":", src_output, "' is ",
                                     DataTypeName(out));
    return errors::InvalidArgument(dst->label(), ": input ", dst_input, " expects ", DataTypeName(in), " but '",
                                   src->name(), ":", src_output, "' is ", DataTypeName(out));
  }
  if (dst->input_edge(dst_input) != nullptr)
    return errors::InvalidArgument(dst->label(), ": input ", dst_input, " is connected twice");
  return NewEdge(src, src_output, dst, dst_input);
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges_)
    if (e->IsControlEdge() && e->src() == src) return e;
  return NewEdge(src, Edge::kControlSlot, dst, Edge::kControlSlot);
}

const Edge* Graph::NewEdge(Node* src, int src_output, Node* dst, int dst_input) {
  auto e = std::make_unique<Edge>();
  e->src_ = src;
  e->dst_ = dst;
  e->src_output_ = src_output;
  e->dst_input_ = dst_input;
  e->id_ = static_cast<int>(edges_.size());
  const Edge* raw = e.get();
  src->out_edges_.push_back(raw);
  dst->in_edges_.push_back(raw);
  edges_.push_back(std::move(e));
  return raw;
}

void Graph::RemoveEdge(const Edge* e) {
  auto drop = [e](std::vector<const Edge*>& v) { v.erase(std::remove(v.begin(), v.end(), e), v.end()); };
  drop(e->src()->out_edges_);
  drop(e->dst()->in_edges_);
  edges_[e->id()].reset();
}

void Graph::SetRequestedDevice(Node* node, std::string device) { node->def_.set_device(std::move(device)); }

Status Graph::SetPrivateAttr(Node* node, const std::string& name, const AttrValue& value) {
  if (name.empty() || name[0] != '_')
    return errors::InvalidArgument(node->label(), ": only attrs beginning with '_' can be set after the node is added, not '",
                                   name, "'");
  (*node->def_.mutable_attr())[name] = value;
  return Status::OK();
}

void Graph::RemoveNode(Node* node) {
  std::vector<const Edge*> edges = node->in_edges_;
  edges.insert(edges.end(), node->out_edges_.begin(), node->out_edges_.end());
  for (const Edge* e : edges)
    if (edges_[e->id()]) RemoveEdge(e);
  by_name_.erase(node->name());
  nodes_[node->id()].reset();
  --num_nodes_;
}

StatusOr<const OpRegistrationData*> Graph::LookUpOp(const std::string& op) const {
  return library_->LookUpOp(op);
}

Node* Graph::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> out;
  out.reserve(num_nodes_);
  for (const auto& n : nodes_)
    if (n) out.push_back(n.get());
  return out;
}

void Graph::ToGraphDef(GraphDef* out) const { ToGraphDef(0, out); }

void Graph::ToGraphDef(int first_id, GraphDef* out) const {
  out->Clear();
  *out->mutable_versions() = versions_;
  if (!library_->empty()) library_->ToProto(out->mutable_library());
  for (size_t id = first_id < 0 ? 0 : first_id; id < nodes_.size(); ++id)
    if (nodes_[id]) ToNodeDef(nodes_[id].get(), out->add_node());
}

void Graph::ToNodeDef(const Node* n, NodeDef* def) const {
  *def = n->def_;
  def->clear_input();
  std::vector<const Edge*> data(n->num_inputs(), nullptr);
  std::vector<std::string> control;
  for (const Edge* e : n->in_edges_) {
    if (e->IsControlEdge()) control.push_back("^" + e->src()->name());
    else data[e->dst_input()] = e;
  }
  for (const Edge* e : data)
    if (e != nullptr) def->add_input(InputName(e));
  std::sort(control.begin(), control.end());
  for (auto& c : control) def->add_input(std::move(c));
}

Status Graph::TopologicalOrder(std::vector<Node*>* order) const {
  order->clear();
  std::vector<int> pending(nodes_.size(), 0);
  std::vector<Node*> ready;
  for (const auto& n : nodes_) {
    if (!n) continue;
    int count = 0;
    for (const Edge* e : n->in_edges_) count += e->IsBackEdge() ? 0 : 1;
    pending[n->id()] = count;
    if (count == 0) ready.push_back(n.get());
  }
  while (!ready.empty()) {
    Node* n = ready.back();
    ready.pop_back();
    order->push_back(n);
    for (const Edge* e : n->out_edges_)
      if (!e->IsBackEdge() && --pending[e->dst()->id()] == 0) ready.push_back(e->dst());
  }
  if (static_cast<int>(order->size()) == num_nodes_) return Status::OK();

  // Find one cycle among the nodes left over, to name it.
  std::vector<int> state(nodes_.size(), 0);  // 0 new, 1 on stack, 2 done
  std::vector<Node*> stack;
  std::string cycle;
  std::function<bool(Node*)> dfs = [&](Node* n) -> bool {
    state[n->id()] = 1;
    stack.push_back(n);
    for (const Edge* e : n->out_edges_) {
      Node* m = e->dst();
      if (pending[m->id()] == 0 || e->IsBackEdge()) continue;
      if (state[m->id()] == 1) {
        auto it = std::find(stack.begin(), stack.end(), m);
        for (; it != stack.end(); ++it) cycle += "'" + (*it)->name() + "' -> ";
        cycle += "'" + m->name() + "'";
        return true;
      }
      if (state[m->id()] == 0 && dfs(m)) return true;
    }
    stack.pop_back();
    state[n->id()] = 2;
    return false;
  };
  for (const auto& n : nodes_) {
    if (n && pending[n->id()] > 0 && state[n->id()] == 0 && dfs(n.get())) break;
  }
  return errors::InvalidArgument("the graph has a cycle: ", cycle.empty() ? "(unnamed)" : cycle);
}

std::string InputName(const Node* node, int port) {
  if (port == Edge::kControlSlot) return "^" + node->name();
  return port == 0 ? node->name() : node->name() + ":" + std::to_string(port);
}

std::string UniqueNodeName(const Graph& graph, const std::string& base) {
  std::string name = base;
  for (int i = 1; graph.FindNode(name) != nullptr; ++i) name = base + "_" + std::to_string(i);
  return name;
}

Status ConvertGraphDefToGraph(const GraphDef& def, Graph* graph) {
  if (graph->num_nodes() != 0) return errors::Internal("ConvertGraphDefToGraph needs an empty graph");
  graph->set_versions(def.versions());
  if (def.has_library()) FLOWVM_RETURN_IF_ERROR(graph->mutable_library()->AddLibrary(def.library()));
  bool legacy_shapes = def.versions().producer() <= 21;
  std::vector<Node*> nodes;
  nodes.reserve(def.node_size());
  for (const NodeDef& nd : def.node()) {
    NodeDef copy = nd;
    // Graphs from TensorFlow producers <= 21 wrote an unknown Placeholder
    // shape as an empty, known-rank shape.
    if (legacy_shapes && nd.op() == "Placeholder") {
      auto it = copy.mutable_attr()->find("shape");
      if (it != copy.mutable_attr()->end() && it->second.has_shape() && it->second.shape().dim_size() == 0 &&
          !it->second.shape().unknown_rank())
        it->second.mutable_shape()->set_unknown_rank(true);
    }
    FLOWVM_ASSIGN_OR_RETURN(Node * n, graph->AddNode(std::move(copy)));
    nodes.push_back(n);
  }
  for (int i = 0; i < def.node_size(); ++i) {
    const NodeDef& nd = def.node(i);
    Node* dst = nodes[i];
    int slot = 0;
    for (const std::string& input : nd.input()) {
      auto id = ParseTensorName(input);
      if (!id.ok()) return errors::InvalidArgument(dst->label(), ": bad input '", input, "': ", id.status().message());
      Node* src = graph->FindNode(id->node);
      if (src == nullptr)
        return errors::InvalidArgument(dst->label(), ": input '", input, "' refers to node '", id->node,
                                       "', which is not in the graph");
      if (id->is_control()) {
        graph->AddControlEdge(src, dst);
      } else {
        FLOWVM_ASSIGN_OR_RETURN(const Edge* e, graph->AddEdge(src, id->port, dst, slot));
        (void)e;
        ++slot;
      }
    }
  }
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(graph->TopologicalOrder(&order));
  if (!HasControlFlow(*graph)) return Status::OK();
  ControlFlowInfo info;
  return BuildControlFlowInfo(*graph, &info);
}

}  // namespace flowvm
