#include "runtime/passes/identity_removal.h"

#include <algorithm>

#include "runtime/passes/edit_util.h"

namespace flowvm {

namespace {

// Rewires and removes `n` if it is a removable Identity; returns whether it did.
StatusOr<bool> RemoveIdentity(Graph* graph, Node* n) {
  const Edge* in = n->input_edge(0);
  if (in == nullptr) return false;
  for (const Edge* e : n->in_edges())
    if (e->IsControlEdge()) return false;
  Node* src = in->src();
  int port = in->src_output();
  if (IsRefType(src->output_type(port))) return false;
  // A control edge from a Switch would fire in both branches, where one
  // from the Identity on its output fires only in that output's branch (the
  // pivot of a conditional).
  if (src->IsSwitch())
    for (const Edge* e : n->out_edges())
      if (e->IsControlEdge()) return false;
  if (!n->requested_device().empty() && n->requested_device() != src->requested_device()) return false;
  // Data edges first, so a control edge is added only where no data edge
  // already orders the consumer after `src`.
  std::vector<const Edge*> outs = n->out_edges();
  std::stable_partition(outs.begin(), outs.end(), [](const Edge* e) { return !e->IsControlEdge(); });
  for (const Edge* e : outs) {
    Node* dst = e->dst();
    if (e->IsControlEdge()) {
      AddControlEdgeIfMissing(graph, src, dst);
      continue;
    }
    int slot = e->dst_input();
    graph->RemoveEdge(e);
    auto added = graph->AddEdge(src, port, dst, slot);
    if (!added.ok())
      return errors::Internal("identity removal: cannot feed ", dst->label(), " from '", src->name(), ":", port,
                              "' instead of '", n->name(), "': ", added.status().message());
  }
  graph->RemoveNode(n);
  return true;
}

// Rewires and removes `n` if it is a removable NoOp; returns whether it did.
bool RemoveNoOp(Graph* graph, Node* n) {
  std::vector<Node*> preds, succs;
  for (const Edge* e : n->in_edges())
    if (std::find(preds.begin(), preds.end(), e->src()) == preds.end()) preds.push_back(e->src());
  for (const Edge* e : n->out_edges())
    if (std::find(succs.begin(), succs.end(), e->dst()) == succs.end()) succs.push_back(e->dst());
  const size_t in = preds.size(), out = succs.size();
  if (in * out > in + out) return false;
  // Do not add device crossings: each one may become a Send/Recv pair.
  const std::string& device = n->requested_device();
  size_t before = 0, after = 0;
  for (Node* p : preds) before += p->requested_device() != device;
  for (Node* s : succs) before += s->requested_device() != device;
  for (Node* p : preds)
    for (Node* s : succs) after += p->requested_device() != s->requested_device();
  if (after > before) return false;
  for (Node* p : preds)
    for (Node* s : succs) AddControlEdgeIfMissing(graph, p, s);
  graph->RemoveNode(n);
  return true;
}

}  // namespace

Status RemoveIdentityAndNoOpRelays(Graph* graph, const std::unordered_set<std::string>& keep,
                                   IdentityRemovalResult* result) {
  result->identities.clear();
  result->noops.clear();
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(StableTopologicalOrder(*graph, &order));
  // Visiting in topological order collapses chains: by the time an Identity
  // is visited, the Identities before it have been bypassed.
  for (Node* n : order) {
    if (keep.count(n->name())) continue;
    std::string name = n->name();
    if (n->op() == "Identity") {
      FLOWVM_ASSIGN_OR_RETURN(bool removed, RemoveIdentity(graph, n));
      if (removed) result->identities.push_back(std::move(name));
    } else if (n->op() == "NoOp") {
      if (RemoveNoOp(graph, n)) result->noops.push_back(std::move(name));
    }
  }
  return Status::OK();
}

}  // namespace flowvm
