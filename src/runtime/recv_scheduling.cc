#include "runtime/recv_scheduling.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>

#include "graph/shape_inference.h"

namespace flowvm {

Status ScheduleRecvs(const Graph& graph, const CostModel* model_or_null,
                     const std::map<std::string, DeviceNameParts>& parsed, const std::vector<RecvInfo>& recvs,
                     std::map<std::string, GraphDef>* graphs, std::vector<std::string>* lines) {
  CostModel default_model;
  const CostModel& model = model_or_null != nullptr ? *model_or_null : default_model;
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(graph.TopologicalOrder(&order));
  ShapeRefiner refiner;
  const bool have_shapes = refiner.InferAll(graph).ok();
  auto shape_of = [&](const Node* n, int port) {
    if (!have_shapes || port < 0) return PartialTensorShape();
    const auto& s = refiner.OutputShapes(n->id());
    return port < static_cast<int>(s.size()) ? s[port] : PartialTensorShape();
  };
  auto transfer = [&](const Edge* e) -> double {
    const std::string& a = e->src()->assigned_device();
    const std::string& b = e->dst()->assigned_device();
    if (a == b) return 0;
    const int64_t bytes = e->IsControlEdge() ? 4
                                             : CostModel::EstimatedBytes(shape_of(e->src(), e->src_output()),
                                                                         e->src()->output_type(e->src_output()));
    return model.TransferNanos(bytes, parsed.at(a), parsed.at(b));
  };

  // Earliest finish (forward) and latest start (backward), ignoring queues.
  const int n_ids = graph.num_node_ids();
  std::vector<double> cost(n_ids, 0), asap_finish(n_ids, 0), alap_start(n_ids, 0);
  double makespan = 0;
  for (Node* n : order) {
    std::vector<PartialTensorShape> in;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      in.push_back(e == nullptr ? PartialTensorShape() : shape_of(e->src(), e->src_output()));
    }
    std::vector<PartialTensorShape> out;
    for (int i = 0; i < n->num_outputs(); ++i) out.push_back(shape_of(n, i));
    cost[n->id()] = model.ComputeNanos(*n, in, out, parsed.at(n->assigned_device()).type);
    double start = 0;
    for (const Edge* e : n->in_edges()) start = std::max(start, asap_finish[e->src()->id()] + transfer(e));
    asap_finish[n->id()] = start + cost[n->id()];
    makespan = std::max(makespan, asap_finish[n->id()]);
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    Node* n = *it;
    double latest_end = makespan;
    for (const Edge* e : n->out_edges()) latest_end = std::min(latest_end, alap_start[e->dst()->id()] - transfer(e));
    alap_start[n->id()] = latest_end - cost[n->id()];
  }

  // Control edges added so far, as "X must finish before these consumers":
  // checked with the graph's own edges so that no choice closes a cycle.
  std::unordered_map<int, std::vector<int>> extra_out;
  std::map<std::string, std::unordered_map<std::string, int>> index;  // device -> node name -> position
  for (auto& [device, g] : *graphs)
    for (int i = 0; i < g.node_size(); ++i) index[device][g.node(i).name()] = i;

  for (const RecvInfo& r : recvs) {
    double latest = makespan;
    const Edge* sample = nullptr;
    for (const Node* c : r.consumers) {
      for (const Edge* e : c->in_edges())
        if (e->src() == r.src) sample = e;
      latest = std::min(latest, alap_start[c->id()]);
    }
    if (sample == nullptr) continue;
    const double move = transfer(sample);
    latest -= move;
    const double arrival = asap_finish[r.src->id()] + move;
    if (latest <= arrival) continue;  // needed as soon as it can come
    // Everything downstream of the consumers (including through Send/Recv
    // and the edges added before) must not be what the Recv waits for.
    std::vector<bool> downstream(n_ids, false);
    std::vector<int> stack;
    for (const Node* c : r.consumers) stack.push_back(c->id());
    while (!stack.empty()) {
      const int id = stack.back();
      stack.pop_back();
      if (downstream[id]) continue;
      downstream[id] = true;
      for (const Edge* e : graph.FindNodeId(id)->out_edges()) stack.push_back(e->dst()->id());
      auto extra = extra_out.find(id);
      if (extra != extra_out.end())
        for (int d : extra->second) stack.push_back(d);
    }
    const Node* best = nullptr;
    for (Node* x : order) {
      if (x->assigned_device() != r.device || downstream[x->id()] || x == r.src) continue;
      const double f = asap_finish[x->id()];
      if (f <= arrival || f > latest) continue;
      if (best == nullptr || f > asap_finish[best->id()]) best = x;
    }
    if (best == nullptr) continue;
    GraphDef& g = (*graphs)[r.device];
    auto pos = index[r.device].find(r.recv);
    if (pos == index[r.device].end()) return errors::Internal("scheduled Recv '", r.recv, "' is not in its partition");
    g.mutable_node(pos->second)->add_input("^" + best->name());
    for (const Node* c : r.consumers) extra_out[best->id()].push_back(c->id());
    bool several_tasks = false;
    for (const auto& [name, parts] : parsed)
      several_tasks = several_tasks || DeviceTaskName(parts) != DeviceTaskName(parsed.at(r.device));
    lines->push_back(r.recv + " on " + DeviceDisplayName(parsed.at(r.device), several_tasks) + " waits for " + best->name() +
                     " (needed at ~" + FormatMicros(latest + move) + ", could arrive at " + FormatMicros(arrival) + ")");
  }
  return Status::OK();
}

}  // namespace flowvm
