#include "runtime/placer.h"

#include <numeric>
#include <set>

#include "kernels/framework/kernel_registry.h"
#include "runtime/placement_simulator.h"

namespace flowvm {

namespace {

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Union(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);  // the lowest id is the root
  }

 private:
  std::vector<int> parent_;
};

struct Member {
  Node* node = nullptr;
  std::string colocated_with;  // why it is in the group, if not alone
  DeviceNameParts spec;
  bool pinned = false;
  // Uses state (a reference or resource input) made by another member:
  // its own request gives way to where the state is, as in TensorFlow
  // ("ignoring device specification ... because the input edge ... is a
  // reference connection").
  bool uses_state = false;
  // A control-flow node that goes where TensorFlow's partitioner puts it
  // (see FollowTarget): its request is not merged into the group's, only
  // checked on its own, and its placement line says when the group's
  // device does not match it.
  bool follower = false;
};

// What one group asks for and where it may go.
struct Group {
  std::vector<Member> members;
  bool holds_state = false;    // a member keeps state in its device (a variable)
  DeviceNameParts spec;        // merged requests
  std::string spec_owner;      // a node whose request is part of `spec`
  bool pinned = false;
  std::string soft_note;       // set when soft placement dropped a request
  std::vector<int> candidates;  // device indices
};

std::string MemberList(const Group& g) {
  std::string out;
  for (size_t i = 0; i < g.members.size() && i < 8; ++i) out += (i ? ", " : "") + g.members[i].node->label();
  if (g.members.size() > 8) out += ", ... (" + std::to_string(g.members.size()) + " nodes)";
  return out;
}

std::string DeviceList(const std::vector<PlacementDevice>& devices) {
  std::string out;
  for (const auto& d : devices) out += (out.empty() ? "" : ", ") + d.name;
  return out;
}

// Devices whose type has a kernel for every member.
std::vector<bool> KernelFeasible(const Group& g, const std::vector<PlacementDevice>& devices) {
  std::map<std::string, bool> by_type;
  std::vector<bool> ok(devices.size());
  for (size_t i = 0; i < devices.size(); ++i) {
    auto it = by_type.find(devices[i].type);
    if (it == by_type.end()) {
      bool all = true;
      for (const Member& m : g.members) all = all && HasKernel(devices[i].type, m.node->def());
      it = by_type.emplace(devices[i].type, all).first;
    }
    ok[i] = it->second;
  }
  return ok;
}

// Merges the members' requests; InvalidArgument naming both nodes on a
// conflict (a soft-placed group drops the later unpinned request instead).
Status MergeRequests(Group* g, bool soft) {
  // Pinned members first: their device is not negotiable; then the rest,
  // and last the members that only use another's state. Followers go
  // where the group goes.
  for (int pass = 0; pass < 3; ++pass) {
    for (const Member& m : g->members) {
      if (m.follower && !m.pinned) continue;
      const int member_pass = m.pinned ? 0 : m.uses_state ? 2 : 1;
      if (member_pass != pass) continue;
      if (m.pinned) g->pinned = true;
      Status s = MergeDeviceSpecs(&g->spec, m.spec);
      if (s.ok()) {
        if (g->spec_owner.empty() && (m.spec.has_job || m.spec.has_replica || m.spec.has_task || m.spec.has_type ||
                                      m.spec.has_id))
          g->spec_owner = m.node->name();
        continue;
      }
      if (m.uses_state && !m.pinned) {
        g->soft_note = "ignored the request '" + DeviceNameToString(m.spec) + "' of " + m.node->label() +
                       ": its reference or resource input lives elsewhere";
        continue;
      }
      if (soft && !m.pinned) {
        g->soft_note = "soft placement: dropped the request '" + DeviceNameToString(m.spec) + "' of " +
                       m.node->label() + ", which conflicts with its colocation group";
        continue;
      }
      return errors::InvalidArgument("cannot colocate ", m.node->label(), " (", m.colocated_with,
                                     ") with node '", g->spec_owner, "': ", s.message(),
                                     m.pinned || g->pinned ? " (a stateful node keeps the device of an earlier step)" : "");
    }
  }
  return Status::OK();
}

Status FindCandidates(Group* g, const std::vector<PlacementDevice>& devices, bool soft) {
  const std::vector<bool> feasible = KernelFeasible(*g, devices);
  std::vector<int> matching;
  for (size_t i = 0; i < devices.size(); ++i) {
    if (!DeviceSpecMatches(g->spec, devices[i].parsed)) continue;
    matching.push_back(static_cast<int>(i));
    if (feasible[i]) g->candidates.push_back(static_cast<int>(i));
  }
  if (!g->candidates.empty()) return Status::OK();
  const std::string spec = DeviceNameToString(g->spec);
  std::string problem;
  if (matching.empty()) {
    problem = "node '" + g->spec_owner + "' requests device '" + spec + "', which does not exist (devices: " +
              DeviceList(devices) + ")";
  } else {
    std::string types;
    for (int i : matching)
      if (types.find(devices[i].type) == std::string::npos) types += (types.empty() ? "" : ", ") + devices[i].type;
    std::string ops;
    for (const Member& m : g->members)
      if (!HasKernel(devices[matching[0]].type, m.node->def())) ops += (ops.empty() ? "" : ", ") + m.node->label();
    problem = "no " + types + " kernel for " + ops + " on '" + spec + "' (requested by node '" + g->spec_owner + "')";
  }
  if (soft && !g->pinned) {
    g->soft_note = "soft placement: " + problem;
    for (size_t i = 0; i < devices.size(); ++i)
      if (feasible[i]) g->candidates.push_back(static_cast<int>(i));
    if (!g->candidates.empty()) return Status::OK();
  }
  std::string group = g->members.size() > 1 ? " (colocation group: " + MemberList(*g) + ")" : "";
  if (g->candidates.empty() && !matching.empty() && soft)
    problem = "no device of " + DeviceList(devices) + " has a kernel for all of " + MemberList(*g);
  return errors::InvalidArgument("cannot place ", g->members[0].node->label(), group, ": ", problem,
                                 soft || g->pinned ? "" : "; soft placement (--soft-placement) would drop the request");
}

// TensorFlow's partitioner moves some control-flow nodes after placement
// (OptimizeControlFlowColocation), whatever they requested: a NextIteration
// to its Merge's device (here the loop's back edge ties them anyway), a
// Switch to its data input's (a conditional read of a remote variable
// reads it there), an Exit to its input's and a non-reference Enter to its
// first consumer's. It saves transfers and keeps a loop on as few devices
// as possible. Here such a node joins the group of the node it follows
// before the groups are placed, so the cost model sees where it runs. Only
// a node alone in its group joins (a reference or resource edge already
// ties it to the node it would follow, and a `_class` it was given is
// kept), and only one with a kernel on every device type (joining must not
// narrow where the group may go).
struct FollowRule {
  const Node* target = nullptr;
  std::string why;  // "beside x, its data input: ..."
};

FollowRule FollowTarget(const Node* n) {
  FollowRule rule;
  if (n->IsSwitch() || n->IsExit()) {
    const Edge* in = n->num_inputs() > 0 ? n->input_edge(0) : nullptr;
    if (in == nullptr) return rule;
    rule.target = in->src();
    rule.why = n->IsSwitch() ? ", its data input: a Switch runs where the value it routes is"
                             : ", its input: an Exit runs where its input is";
  } else if (n->IsEnter() && n->num_inputs() > 0 && !IsRefType(n->input_type(0))) {
    // TensorFlow takes the first data out-edge; ours are in the order the
    // GraphDef made them, so the lowest id keeps the choice stable.
    for (const Edge* e : n->out_edges())
      if (!e->IsControlEdge() && (rule.target == nullptr || e->dst()->id() < rule.target->id())) rule.target = e->dst();
    rule.why = ", its first consumer: an Enter runs where its value is used";
  }
  if (rule.target != nullptr) rule.why = "beside " + rule.target->name() + rule.why + " (as in TensorFlow)";
  return rule;
}

bool HasKernelEverywhere(const Node* n, const std::vector<PlacementDevice>& devices) {
  for (const PlacementDevice& d : devices)
    if (!HasKernel(d.type, n->def())) return false;
  return true;
}

}  // namespace

Status PlaceGraph(Graph* graph, const std::vector<PlacementDevice>& devices, const PlacerOptions& options,
                  std::vector<NodePlacement>* placements) {
  if (devices.empty()) return errors::FailedPrecondition("no devices to place nodes on");
  const int n_ids = graph->num_node_ids();
  const std::vector<Node*> nodes = graph->nodes();
  UnionFind uf(n_ids);
  std::vector<std::string> colocated_with(n_ids);
  std::vector<bool> uses_state(n_ids, false);
  for (Node* n : nodes) {
    std::vector<std::string> classes;
    if (GetNodeAttr(n->def(), "_class", &classes).ok()) {
      for (const std::string& c : classes) {
        if (c.rfind("loc:@", 0) != 0) continue;
        Node* other = graph->FindNode(c.substr(5));
        if (other == nullptr || other == n) continue;  // pruned away: nothing to follow
        uf.Union(n->id(), other->id());
        if (colocated_with[n->id()].empty()) colocated_with[n->id()] = "colocated with " + other->name() + " (_class)";
      }
    }
    // A loop's NextIteration runs beside its Merge: the value it passes on
    // belongs to the next iteration, which a transfer between devices
    // could not name.
    for (const Edge* e : n->in_edges()) {
      if (!e->IsBackEdge()) continue;
      uf.Union(n->id(), e->src()->id());
      if (colocated_with[e->src()->id()].empty())
        colocated_with[e->src()->id()] = "colocated with " + n->name() + " (the loop's back edge)";
    }
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      // A reference or a resource handle names state on its producer's
      // device: the op that uses it runs there.
      const bool is_resource = n->input_type(i) == DT_RESOURCE;
      if (e == nullptr || (!IsRefType(n->input_type(i)) && !is_resource)) continue;
      uf.Union(n->id(), e->src()->id());
      uses_state[n->id()] = true;
      if (colocated_with[n->id()].empty())
        colocated_with[n->id()] = "colocated with " + e->src()->name() +
                                  (is_resource ? " (resource input)" : " (reference input)");
    }
  }

  // Control-flow nodes join the node they follow (FollowTarget). Whether a
  // node is alone is decided before any joins, so chains (an Exit follows
  // a Switch that follows its Merge) end up in one group.
  std::vector<int> group_size(n_ids, 0);
  for (Node* n : nodes) ++group_size[uf.Find(n->id())];
  std::vector<bool> follower(n_ids, false);
  std::vector<std::pair<int, int>> joins;
  for (Node* n : nodes) {
    if (n->IsNextIteration()) {
      for (const Edge* e : n->out_edges()) follower[n->id()] = follower[n->id()] || e->IsBackEdge();
      continue;
    }
    if (group_size[uf.Find(n->id())] != 1 || !HasKernelEverywhere(n, devices)) continue;
    FollowRule rule = FollowTarget(n);
    if (rule.target == nullptr) continue;
    follower[n->id()] = true;
    colocated_with[n->id()] = std::move(rule.why);
    joins.emplace_back(n->id(), rule.target->id());
  }
  for (auto [a, b] : joins) uf.Union(a, b);

  std::vector<int> group_of(n_ids, -1);
  std::vector<Group> groups;
  std::map<int, int> group_of_root;
  for (Node* n : nodes) {
    const int root = uf.Find(n->id());
    auto [it, inserted] = group_of_root.try_emplace(root, static_cast<int>(groups.size()));
    if (inserted) groups.emplace_back();
    group_of[n->id()] = it->second;
    Member m;
    m.node = n;
    m.colocated_with = colocated_with[n->id()];
    m.uses_state = uses_state[n->id()];
    m.follower = follower[n->id()];
    std::string requested = n->requested_device();
    if (options.pinned != nullptr) {
      auto p = options.pinned->find(n->name());
      if (p != options.pinned->end()) {
        requested = p->second;
        m.pinned = true;
      }
    }
    auto spec = ParseDeviceName(requested);
    if (!spec.ok()) return AttachNode(spec.status(), n->def());
    m.spec = std::move(spec).value();
    for (DataType t : n->output_types())
      if (IsRefType(t) || t == DT_RESOURCE) groups[it->second].holds_state = true;
    groups[it->second].members.push_back(std::move(m));
  }
  for (Group& g : groups) {
    FLOWVM_RETURN_IF_ERROR(MergeRequests(&g, options.allow_soft_placement));
    FLOWVM_RETURN_IF_ERROR(FindCandidates(&g, devices, options.allow_soft_placement));
    // A follower's request is checked as TensorFlow's placer checks it
    // before its partitioner moves the node: a device that does not exist
    // (or has no kernel for it) is an error unless soft placement drops it.
    for (const Member& m : g.members) {
      if (!m.follower || m.pinned || m.node->requested_device().empty()) continue;
      Group alone;
      alone.members.push_back(m);
      alone.members.back().follower = false;
      FLOWVM_RETURN_IF_ERROR(MergeRequests(&alone, options.allow_soft_placement));
      FLOWVM_RETURN_IF_ERROR(FindCandidates(&alone, devices, options.allow_soft_placement));
    }
  }

  std::vector<SimGroup> sim(groups.size());
  bool all_fixed = true;
  for (size_t i = 0; i < groups.size(); ++i) {
    sim[i].candidates = groups[i].candidates;
    // State lives in its device's resource manager and cannot move once it
    // has a value, so where it goes must not depend on which signature
    // happened to run first: unrequested state goes to the first device it
    // may use (as in TensorFlow); the cost model places computation.
    if (sim[i].candidates.size() == 1 || groups[i].holds_state) sim[i].assigned = sim[i].candidates[0];
    else all_fixed = false;
  }
  std::vector<std::string> cost_reasons(n_ids);
  if (!all_fixed) {
    CostModel default_model;
    const CostModel& model = options.cost_model != nullptr ? *options.cost_model : default_model;
    FLOWVM_RETURN_IF_ERROR(SimulatePlacement(*graph, devices, model, group_of, &sim, &cost_reasons));
  }

  for (Node* n : nodes) {
    const int gi = group_of[n->id()];
    const Group& g = groups[gi];
    const PlacementDevice& d = devices[sim[gi].assigned];
    n->set_assigned_device(d.name);
    if (placements == nullptr) continue;
    std::string reason;
    const Member* self = nullptr;
    for (const Member& m : g.members)
      if (m.node == n) self = &m;
    std::string gave_way;
    if (self->follower && !self->pinned && !n->requested_device().empty() && !DeviceSpecMatches(self->spec, d.parsed))
      gave_way = "its request '" + n->requested_device() + "' gives way" +
                 (n->IsNextIteration() ? ": a NextIteration runs beside its Merge (as in TensorFlow)" : "");
    if (self->pinned) reason = "kept from an earlier step (a stateful node keeps its device)";
    else if (!gave_way.empty()) reason = self->colocated_with + "; " + gave_way;
    else if (!cost_reasons[n->id()].empty()) reason = cost_reasons[n->id()];
    else if (!n->requested_device().empty() && g.soft_note.empty()) reason = "requested '" + n->requested_device() + "'";
    else if (!self->colocated_with.empty()) reason = self->colocated_with;
    else if (g.members.size() > 1) reason = "in the colocation group of " + g.members[0].node->name();
    else if (sim[gi].candidates.size() == 1) reason = devices.size() == 1 ? "the only device" : "the only feasible device";
    else if (g.holds_state) reason = "state goes to the first device it may use unless a device is requested";
    else reason = "placed with its group";
    if (!g.soft_note.empty()) reason += "; " + g.soft_note;
    placements->push_back({n->name(), d.name, std::move(reason)});
  }
  return Status::OK();
}

}  // namespace flowvm
