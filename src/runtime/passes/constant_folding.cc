#include "runtime/passes/constant_folding.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <unordered_map>

#include "graph/attr_value_util.h"
#include "kernels/framework/call_frame.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/device_base.h"
#include "runtime/executor.h"
#include "runtime/passes/edit_util.h"

namespace flowvm {

namespace {

bool HasRefType(const Node* n) {
  for (DataType t : n->input_types())
    if (IsRefType(t)) return true;
  for (DataType t : n->output_types())
    if (IsRefType(t)) return true;
  return false;
}

// Everything but the inputs: those decide the rest (see FoldConstants).
bool CanFold(const Node* n, const std::unordered_set<std::string>& keep) {
  const std::string& op = n->op();
  // Control-flow ops give values their frame and deadness: folding one
  // would move what follows it out of its loop or branch. ReadFile and
  // MatchingFiles are stateless but read the file system: folding would read it here, in the process
  // that prepares the step, instead of on the device it is placed on, and
  // past that device's allowed directories (core/path_policy.h).
  return !n->is_stateful() && !n->IsControlFlow() && n->num_outputs() > 0 && !HasRefType(n) && !keep.count(n->name()) &&
         op != "ReadFile" && op != "MatchingFiles" && op != "Const" &&
         op != "_Arg" && op != "_Retval" && op != "_Send" && op != "_Recv" && op != "Placeholder" &&
         op != "PlaceholderWithDefault";
}

int64_t FoldedBytes(const Tensor& t) {
  if (t.dtype() != DT_STRING) return static_cast<int64_t>(t.TotalBytes());
  int64_t bytes = 0;
  for (const std::string& s : t.flat<std::string>()) bytes += static_cast<int64_t>(s.size());
  return bytes;
}

// The one place folding runs kernels: `def` holds copies of the nodes to
// evaluate and `num_outputs` _Retval nodes (indices 0..num_outputs-1). Any
// failure, from building kernels to running them, comes back as a Status.
StatusOr<std::vector<Tensor>> EvaluateConstantGraph(const GraphDef& def, int num_outputs) {
  auto graph = std::make_unique<Graph>();
  graph->set_allow_internal_names(true);
  FLOWVM_RETURN_IF_ERROR(ConvertGraphDefToGraph(def, graph.get()));
  // A scratch CPU device of its own (stateless kernels touch no resources);
  // the folded tensors outlive it, and so does its allocator while they live.
  DeviceBase device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, /*incarnation=*/1, nullptr);
  ExecutorOptions options;
  options.device = &device;
  options.pool = nullptr;  // on this thread
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Executor> executor, Executor::Create(std::move(graph), options));
  std::vector<Tensor> outputs(num_outputs);
  CallFrame frame(nullptr, 0, outputs.data(), num_outputs);
  CancellationManager cancellation;
  Executor::RunArgs args;
  args.cancellation = &cancellation;
  args.call_frame = &frame;
  FLOWVM_RETURN_IF_ERROR(executor->Run(args));
  for (int i = 0; i < num_outputs; ++i)
    if (!outputs[i].IsInitialized()) return errors::Internal("constant folding: output ", i, " produced no value");
  return outputs;
}

// Copies of `members` and the Consts they read, plus one _Retval per output.
GraphDef BuildEvaluationGraph(const Graph& graph, const std::vector<Node*>& members, const std::vector<bool>& is_member,
                              const std::vector<std::pair<Node*, int>>& outputs, std::vector<Node*>* const_inputs) {
  GraphDef def;
  *def.mutable_versions() = graph.versions();
  std::unordered_set<std::string> names;
  for (Node* m : members) {
    for (const Edge* e : m->in_edges()) {
      Node* src = e->src();
      if (e->IsControlEdge() || is_member[src->id()] || !names.insert(src->name()).second) continue;
      const_inputs->push_back(src);
      *def.add_node() = src->def();  // a Const; its control inputs order nothing here
    }
  }
  for (Node* m : members) {
    names.insert(m->name());
    NodeDef* copy = def.add_node();
    *copy = m->def();
    std::vector<std::string> data(m->num_inputs()), control;
    for (const Edge* e : m->in_edges()) {
      if (!e->IsControlEdge())
        data[e->dst_input()] = InputName(e->src(), e->src_output());
      else if (is_member[e->src()->id()])
        control.push_back("^" + e->src()->name());
    }
    for (auto& in : data) copy->add_input(std::move(in));
    for (auto& in : control) copy->add_input(std::move(in));
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string name = "folded/_retval_" + std::to_string(i);
    while (names.count(name)) name += "_";
    NodeDef* ret = def.add_node();
    ret->set_name(name);
    ret->set_op("_Retval");
    ret->add_input(InputName(outputs[i].first, outputs[i].second));
    (*ret->mutable_attr())["T"] = MakeAttrValue(outputs[i].first->output_type(outputs[i].second));
    (*ret->mutable_attr())["index"] = MakeAttrValue(static_cast<int64_t>(i));
  }
  return def;
}

int FindRoot(std::vector<int>& parent, int x) {
  while (parent[x] != x) x = parent[x] = parent[parent[x]];
  return x;
}

// Folds one connected foldable subgraph; `members` in topological order.
Status FoldComponent(Graph* graph, const std::vector<Node*>& members, const std::vector<bool>& foldable,
                     const std::unordered_set<std::string>& keep, int64_t max_bytes, ConstantFoldingResult* result) {
  std::vector<bool> is_member(graph->num_node_ids(), false);
  for (Node* m : members) is_member[m->id()] = true;
  // The outputs read outside the subgraph, each once.
  std::vector<std::pair<Node*, int>> outputs;
  for (Node* m : members) {
    std::vector<bool> read(m->num_outputs(), false);
    for (const Edge* e : m->out_edges())
      if (!e->IsControlEdge() && !is_member[e->dst()->id()]) read[e->src_output()] = true;
    for (int port = 0; port < m->num_outputs(); ++port)
      if (read[port]) outputs.emplace_back(m, port);
  }
  std::vector<Node*> const_inputs;
  GraphDef def = BuildEvaluationGraph(*graph, members, is_member, outputs, &const_inputs);
  auto values = EvaluateConstantGraph(def, static_cast<int>(outputs.size()));
  if (!values.ok()) return Status::OK();  // the step will report it when it runs

  std::unordered_map<const Node*, Node*> replacement;  // folded node -> its first new Const
  for (size_t i = 0; i < outputs.size(); ++i) {
    auto [m, port] = outputs[i];
    const Tensor& value = (*values)[i];
    if (!DataTypeIsSerializable(value.dtype()) || FoldedBytes(value) > max_bytes) continue;
    NodeDef c;
    c.set_name(UniqueNodeName(*graph, m->name() + "/_folded_" + std::to_string(port)));
    c.set_op("Const");
    c.set_device(m->requested_device());
    (*c.mutable_attr())["dtype"] = MakeAttrValue(value.dtype());
    value.AsProtoTensorContent((*c.mutable_attr())["value"].mutable_tensor());
    FLOWVM_ASSIGN_OR_RETURN(Node * constant, graph->AddNode(std::move(c)));
    result->constants.push_back(constant->name());
    replacement.emplace(m, constant);
    std::vector<const Edge*> outs = m->out_edges();
    for (const Edge* e : outs) {
      if (e->IsControlEdge() || e->src_output() != port || is_member[e->dst()->id()]) continue;
      Node* dst = e->dst();
      int slot = e->dst_input();
      graph->RemoveEdge(e);
      auto added = graph->AddEdge(constant, 0, dst, slot);
      if (!added.ok())
        return errors::Internal("constant folding: cannot feed ", dst->label(), " from '", constant->name(),
                                "': ", added.status().message());
    }
  }

  // A member is dead once nothing outside reads it and its member consumers
  // are dead; consumers come later in topological order, so walk backwards.
  std::vector<bool> dead(graph->num_node_ids(), false);
  std::vector<Node*> to_remove;
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    Node* m = *it;
    bool read = std::any_of(m->out_edges().begin(), m->out_edges().end(),
                            [&](const Edge* e) { return !e->IsControlEdge() && !dead[e->dst()->id()]; });
    if (read) continue;
    dead[m->id()] = true;
    to_remove.push_back(m);
  }
  for (Node* m : to_remove) {
    auto r = replacement.find(m);
    std::vector<const Edge*> outs = m->out_edges();
    for (const Edge* e : outs)
      if (e->IsControlEdge() && !foldable[e->dst()->id()] && r != replacement.end())
        AddControlEdgeIfMissing(graph, r->second, e->dst());
  }
  std::reverse(to_remove.begin(), to_remove.end());  // report in topological order
  for (Node* m : to_remove) {
    result->removed.push_back(m->name());
    graph->RemoveNode(m);
  }
  for (Node* c : const_inputs) {
    if (keep.count(c->name()) || !c->out_edges().empty()) continue;
    result->removed.push_back(c->name());
    graph->RemoveNode(c);
  }
  return Status::OK();
}

}  // namespace

Status FoldConstants(Graph* graph, const std::unordered_set<std::string>& keep, int64_t max_constant_bytes,
                     ConstantFoldingResult* result) {
  result->removed.clear();
  result->constants.clear();
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(StableTopologicalOrder(*graph, &order));
  const int ids = graph->num_node_ids();
  std::vector<bool> constant(ids, false), foldable(ids, false);
  std::vector<int> parent(ids);
  std::iota(parent.begin(), parent.end(), 0);
  for (Node* n : order) {
    bool inputs_constant = std::all_of(n->in_edges().begin(), n->in_edges().end(),
                                       [&](const Edge* e) { return constant[e->src()->id()]; });
    if (!inputs_constant) continue;
    if (n->op() == "Const") {
      constant[n->id()] = true;
    } else if (CanFold(n, keep)) {
      constant[n->id()] = foldable[n->id()] = true;
      for (const Edge* e : n->in_edges())
        if (foldable[e->src()->id()]) parent[FindRoot(parent, n->id())] = FindRoot(parent, e->src()->id());
    }
  }
  // Components in order of their first node; members in topological order.
  std::map<int, std::vector<Node*>> by_root;
  std::vector<int> roots;
  for (Node* n : order) {
    if (!foldable[n->id()]) continue;
    int root = FindRoot(parent, n->id());
    auto& members = by_root[root];
    if (members.empty()) roots.push_back(root);
    members.push_back(n);
  }
  for (int root : roots)
    FLOWVM_RETURN_IF_ERROR(FoldComponent(graph, by_root[root], foldable, keep, max_constant_bytes, result));
  return Status::OK();
}

}  // namespace flowvm
