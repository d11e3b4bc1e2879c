#include "runtime/placement_simulator.h"

#include <cstdio>
#include <limits>
#include <queue>

#include "graph/shape_inference.h"

namespace flowvm {

namespace {

// A free node without inputs (a Const, a feed, an initializer) does not race
// to an idle device, which would make its consumers pay for transfers: it
// follows the first of its consumers to be placed. Only nodes alone in
// their colocation group, whose device is not decided yet.
bool IsFollower(const Node* n, const std::vector<SimGroup>& groups, const std::vector<int>& group_of,
                const std::vector<int>& group_size) {
  const int g = group_of[n->id()];
  return n->in_edges().empty() && !n->out_edges().empty() && groups[g].assigned < 0 && group_size[g] == 1;
}

}  // namespace

Status SimulatePlacement(const Graph& graph, const std::vector<PlacementDevice>& devices, const CostModel& model,
                         const std::vector<int>& group_of, std::vector<SimGroup>* groups_ptr,
                         std::vector<std::string>* reasons) {
  std::vector<SimGroup>& groups = *groups_ptr;
  const int n_ids = graph.num_node_ids();
  // Shapes drive the static costs; a graph whose shapes do not infer (it
  // will fail at run time, with its own message) is simulated without them.
  ShapeRefiner refiner;
  const bool have_shapes = refiner.InferAll(graph).ok();
  static const std::vector<PartialTensorShape> kNone;
  auto out_shapes = [&](const Node* n) -> const std::vector<PartialTensorShape>& {
    return have_shapes ? refiner.OutputShapes(n->id()) : kNone;
  };
  auto shape_of = [&](const Node* n, int port) {
    const auto& s = out_shapes(n);
    return port >= 0 && port < static_cast<int>(s.size()) ? s[port] : PartialTensorShape();
  };

  std::vector<double> finish(n_ids, 0), device_free(devices.size(), 0);
  std::vector<int> device_of(n_ids, -1), pending(n_ids, 0), group_size(groups.size(), 0);
  std::vector<bool> follower(n_ids, false);
  for (Node* n : graph.nodes()) ++group_size[group_of[n->id()]];
  using Ready = std::pair<double, int>;  // (inputs ready at, node id), earliest first
  std::priority_queue<Ready, std::vector<Ready>, std::greater<Ready>> ready;
  for (Node* n : graph.nodes()) {
    for (const Edge* e : n->in_edges()) pending[n->id()] += e->IsBackEdge() ? 0 : 1;
    follower[n->id()] = IsFollower(n, groups, group_of, group_size);
    if (pending[n->id()] == 0) ready.push({0.0, n->id()});
  }

  auto cost_on = [&](const Node* n, const std::string& type) {
    std::vector<PartialTensorShape> in;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      in.push_back(e == nullptr ? PartialTensorShape() : shape_of(e->src(), e->src_output()));
    }
    return model.ComputeNanos(*n, in, out_shapes(n), type);
  };
  // When node n could start on device d: its device's queue and each input's
  // arrival (a follower not placed yet comes along, at no transfer).
  auto start_on = [&](const Node* n, int d) {
    double start = device_free[d];
    for (const Edge* e : n->in_edges()) {
      const Node* src = e->src();
      if (device_of[src->id()] < 0) continue;
      double arrives = finish[src->id()];
      if (device_of[src->id()] != d) {
        const int64_t bytes =
            e->IsControlEdge() ? 4 : CostModel::EstimatedBytes(shape_of(src, e->src_output()), src->output_type(e->src_output()));
        arrives += model.TransferNanos(bytes, devices[device_of[src->id()]].parsed, devices[d].parsed);
      }
      start = std::max(start, arrives);
    }
    return start;
  };

  int placed = 0;
  while (!ready.empty()) {
    const Node* n = graph.FindNodeId(ready.top().second);
    ready.pop();
    SimGroup& g = groups[group_of[n->id()]];
    if (!follower[n->id()]) {
      int best = g.assigned;
      double best_end = 0;
      if (best < 0) {
        // Evaluate every candidate; ties go to the device holding more of
        // the inputs, then to the lower index.
        std::string others;
        double best_start = 0;
        int best_local = -1;
        for (int d : g.candidates) {
          const double start = start_on(n, d);
          const double end = start + cost_on(n, devices[d].type);
          int local = 0;
          for (const Edge* e : n->in_edges()) local += device_of[e->src()->id()] == d;
          if (best < 0 || end < best_end - 1e-9 || (end <= best_end + 1e-9 && local > best_local)) {
            best = d;
            best_end = end;
            best_start = start;
            best_local = local;
          }
        }
        bool several_tasks = false;
        for (int d : g.candidates)
          several_tasks = several_tasks || DeviceTaskName(devices[d].parsed) != DeviceTaskName(devices[best].parsed);
        for (int d : g.candidates)
          if (d != best)
            others += (others.empty() ? "" : ", ") + DeviceDisplayName(devices[d].parsed, several_tasks) + " " +
                      FormatMicros(start_on(n, d) + cost_on(n, devices[d].type));
        g.assigned = best;
        (*reasons)[n->id()] = "cost model: finishes at " + FormatMicros(best_end) + " (starts " + FormatMicros(best_start) +
                              ") vs " + others;
      } else {
        best_end = start_on(n, best) + cost_on(n, devices[best].type);
      }
      device_of[n->id()] = best;
      finish[n->id()] = best_end;
      device_free[best] = best_end;
      // Followers not placed yet take this consumer's device, if they may.
      for (const Edge* e : n->in_edges()) {
        const Node* src = e->src();
        if (device_of[src->id()] >= 0) continue;
        SimGroup& sg = groups[group_of[src->id()]];
        bool allowed = false;
        for (int c : sg.candidates) allowed = allowed || c == best;
        sg.assigned = allowed ? best : sg.candidates[0];
        device_of[src->id()] = sg.assigned;
        if (allowed) (*reasons)[src->id()] = "with its first consumer, " + n->name() + " (cost model)";
        finish[src->id()] = cost_on(src, devices[sg.assigned].type);
      }
    }
    ++placed;
    for (const Edge* e : n->out_edges()) {
      const int dst = e->dst()->id();
      if (!e->IsBackEdge() && --pending[dst] == 0) {
        double at = 0;
        for (const Edge* in : e->dst()->in_edges()) at = std::max(at, finish[in->src()->id()]);
        ready.push({at, dst});
      }
    }
  }
  if (placed != graph.num_nodes()) return errors::InvalidArgument("the graph has a cycle; it cannot be placed");
  for (SimGroup& g : groups)
    if (g.assigned < 0 && !g.candidates.empty()) g.assigned = g.candidates[0];
  return Status::OK();
}

}  // namespace flowvm
