// Small graph edits shared by the optimization passes.
#ifndef FLOWVM_RUNTIME_PASSES_EDIT_UTIL_H_
#define FLOWVM_RUNTIME_PASSES_EDIT_UTIL_H_

#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "graph/graph.h"

namespace flowvm {

// Makes `dst` run after `src` unless it already does through a direct edge
// (data or control) or `src` is `dst`.
inline void AddControlEdgeIfMissing(Graph* graph, Node* src, Node* dst) {
  if (src == dst) return;
  for (const Edge* e : src->out_edges())
    if (e->dst() == dst) return;
  graph->AddControlEdge(src, dst);
}

// A topological order that prefers lower node ids (the order nodes were
// added), so what a pass does, and reports, follows the graph as written.
// Back edges are left out, as in Graph::TopologicalOrder, which this
// fails like on any other cycle.
inline Status StableTopologicalOrder(const Graph& graph, std::vector<Node*>* order) {
  order->clear();
  std::vector<int> pending(graph.num_node_ids(), 0);
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;
  for (Node* n : graph.nodes()) {
    for (const Edge* e : n->in_edges()) pending[n->id()] += e->IsBackEdge() ? 0 : 1;
    if (pending[n->id()] == 0) ready.push(n->id());
  }
  while (!ready.empty()) {
    Node* n = graph.FindNodeId(ready.top());
    ready.pop();
    order->push_back(n);
    for (const Edge* e : n->out_edges())
      if (!e->IsBackEdge() && --pending[e->dst()->id()] == 0) ready.push(e->dst()->id());
  }
  if (static_cast<int>(order->size()) == graph.num_nodes()) return Status::OK();
  return graph.TopologicalOrder(order);  // names a cycle
}

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PASSES_EDIT_UTIL_H_
