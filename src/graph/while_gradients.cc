#include "graph/while_gradients.h"

#include <algorithm>
#include <functional>
#include <set>
#include <tuple>

#include "graph/gradient_registry.h"
#include "graph/gradients.h"

namespace flowvm {

namespace {

struct LoopVar {
  Node* enter = nullptr;
  Node* merge = nullptr;
  Node* next = nullptr;
  Node* exit = nullptr;
  NodeOut value;  // the variable's value inside an iteration (the Identity after the Switch)
};

struct Loop {
  std::string name;
  int parallel_iterations = 1;
  Node* loop_cond = nullptr;
  std::vector<LoopVar> vars;
  std::vector<Node*> invariants;  // constant Enter nodes of the frame
};

std::pair<int, int> Key(const NodeOut& t) { return {t.node->id(), t.index}; }

Status Analyze(Graph* graph, const ControlFlowInfo& info, int frame, Loop* loop) {
  loop->name = info.frames[frame].name;
  loop->parallel_iterations = info.frames[frame].parallel_iterations;
  const int known = static_cast<int>(info.frame_of.size());  // nodes added since are not the loop's
  for (Node* n : graph->nodes()) {
    if (n->id() >= known) continue;
    if (info.frame_of[n->id()] == frame && n->IsLoopCond()) loop->loop_cond = n;
  }
  if (loop->loop_cond == nullptr) return errors::InvalidArgument("loop '", loop->name, "' has no LoopCond");
  for (Node* n : graph->nodes()) {
    if (n->id() >= known) continue;
    if (n->IsEnter() && info.out_frame_of[n->id()] == frame) {
      bool is_constant = false;
      FLOWVM_RETURN_IF_ERROR(GetNodeAttr(n->def(), "is_constant", &is_constant));
      if (is_constant) loop->invariants.push_back(n);
    }
    if (info.frame_of[n->id()] != frame || !n->IsMerge()) continue;
    LoopVar v;
    v.merge = n;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) continue;
      if (e->IsBackEdge()) v.next = e->src();
      else if (e->src()->IsEnter()) v.enter = e->src();
    }
    if (v.next == nullptr || v.enter == nullptr) continue;  // a conditional's Merge inside the body
    for (const Edge* e : n->out_edges()) {
      Node* sw = e->dst();
      if (!sw->IsSwitch() || e->dst_input() != 0) continue;
      const Edge* pred = sw->input_edge(1);
      if (pred == nullptr || pred->src() != loop->loop_cond) continue;
      v.value = NodeOut(sw, 1);
      for (const Edge* o : sw->out_edges()) {
        if (o->IsControlEdge()) continue;
        if (o->src_output() == 0 && o->dst()->IsExit()) v.exit = o->dst();
        if (o->src_output() == 1 && o->dst()->op() == "Identity") v.value = NodeOut(o->dst(), 0);
      }
    }
    if (v.exit == nullptr)
      return errors::InvalidArgument("loop '", loop->name, "': the variable of ", n->label(), " has no Exit");
    loop->vars.push_back(v);
  }
  return Status::OK();
}

// Graph edits the scopes do not offer.
Status Rewire(Graph* graph, Node* dst, int slot, const NodeOut& src) {
  const Edge* old = dst->input_edge(slot);
  if (old != nullptr) graph->RemoveEdge(old);
  return graph->AddEdge(src.node, src.index, dst, slot).status();
}

NodeOut EnterOp(const GraphScope& s, const NodeOut& x, const std::string& frame, bool constant, int parallel) {
  return s.Op("Enter", {x},
              {{"frame_name", MakeAttrValue(frame)},
               {"is_constant", MakeAttrValue(constant)},
               {"parallel_iterations", MakeAttrValue(int64_t{parallel})}});
}

// A branch of a conditional inside the loop body: the values that exist
// only in the iterations where `pred` was `branch`. Nested in `parent`
// (-1: the body itself, every iteration).
struct CondContext {
  NodeOut pred;
  int branch = 0;
  int parent = -1;
};

struct CondContexts {
  std::vector<CondContext> contexts;
  std::vector<int> depth;
  std::map<std::pair<int, int>, int> of_output;  // (node id, output) -> context
  int Of(const NodeOut& t) const {
    auto it = of_output.find(Key(t));
    return it == of_output.end() ? -1 : it->second;
  }
  int Depth(int c) const { return c < 0 ? 0 : depth[c]; }
};

// The conditional context of every output of the frame's nodes, in
// topological order: a node lies in the deepest context of its inputs; a
// Switch (other than the loop's own, on its LoopCond) opens one context per
// output; a Merge closes the context its inputs came from.
CondContexts FindCondContexts(const ControlFlowInfo& info, int frame, const std::vector<Node*>& order,
                              const Node* loop_cond) {
  CondContexts cc;
  std::map<std::tuple<int, int, int, int>, int> made;  // (pred node, pred output, branch, parent)
  const int known = static_cast<int>(info.frame_of.size());
  auto child = [&](const NodeOut& pred, int branch, int parent) {
    auto key = std::make_tuple(pred.node->id(), pred.index, branch, parent);
    auto it = made.find(key);
    if (it != made.end()) return it->second;
    cc.contexts.push_back(CondContext{pred, branch, parent});
    cc.depth.push_back(cc.Depth(parent) + 1);
    made.emplace(key, static_cast<int>(cc.contexts.size()) - 1);
    return static_cast<int>(cc.contexts.size()) - 1;
  };
  for (Node* n : order) {
    if (n->id() >= known || info.frame_of[n->id()] != frame) continue;
    int c = -1;
    for (const Edge* e : n->in_edges()) {
      if (e->IsBackEdge()) continue;
      // A control edge carries the deadness of its source node; a Switch
      // node's is the context it lies in (one of its outputs is alive).
      const int from = e->IsControlEdge() ? cc.Of(NodeOut(e->src(), -1)) : cc.Of(NodeOut(e->src(), e->src_output()));
      if (cc.Depth(from) > cc.Depth(c)) c = from;
    }
    if (n->IsMerge() && c >= 0) c = cc.contexts[c].parent;
    cc.of_output[{n->id(), -1}] = c;
    for (int k = 0; k < n->num_outputs(); ++k) cc.of_output[{n->id(), k}] = c;
    const Edge* pred = n->IsSwitch() ? n->input_edge(1) : nullptr;
    if (pred != nullptr && pred->src() != loop_cond)
      for (int k = 0; k < 2; ++k) cc.of_output[{n->id(), k}] = child(NodeOut(pred->src(), pred->src_output()), k, c);
  }
  return cc;
}

// The loop around the one being differentiated, for a nested loop.
struct Enclosing {
  Node* anchor = nullptr;                 // in its forward body, every iteration (its counter)
  std::function<NodeOut(NodeOut)> route;  // a value of its forward body, or from outside it,
                                          // as its backward body sees it
  std::function<NodeOut(NodeOut)> route_new;  // the same for a node made in its forward body
};

// The direct child loop of `frame` that holds frame f (f a descendant of
// `frame`), or -1.
int ChildOf(const ControlFlowInfo& info, int frame, int f) {
  while (f > 0 && info.frames[f].parent != frame) f = info.frames[f].parent;
  return f > 0 ? f : -1;
}

Status LoopGradient(const GraphScope& scope, const ControlFlowInfo& info, int frame, const Enclosing* enclosing,
                    const std::map<const Node*, NodeOut>& exit_grads, std::map<const Node*, NodeOut>* enter_grads) {
  Graph* graph = scope.graph();
  Loop loop;
  FLOWVM_RETURN_IF_ERROR(Analyze(graph, info, frame, &loop));
  const GraphScope s = scope.NewSubScope("while_grad").WithNoControlDependencies();
  const GraphScope fwd = s.NewSubScope("forward");
  // Nodes made for the enclosing loop's forward body run in each of its
  // iterations; values from there reach this loop's backward body through
  // the enclosing loop's backward body.
  const GraphScope in_enclosing = enclosing ? fwd.WithControlDependencies({enclosing->anchor}) : fwd;
  auto outer_value = [&](const NodeOut& t) { return enclosing ? enclosing->route(t) : t; };
  auto outer_new_value = [&](const NodeOut& t) { return enclosing ? enclosing->route_new(t) : t; };

  // 1. Count the forward iterations, in the forward frame.
  NodeOut zero = ConstOp(in_enclosing, Tensor::Scalar<int32_t>(0));
  NodeOut cnt_enter = EnterOp(fwd, zero, loop.name, false, loop.parallel_iterations);
  Node* cnt_merge = fwd.AddNode("Merge", {OpInput::List({cnt_enter, cnt_enter})});
  Node* cnt_switch = fwd.AddNode("Switch", {NodeOut(cnt_merge, 0), NodeOut(loop.loop_cond, 0)});
  NodeOut cnt_exit = fwd.Op("Exit", {NodeOut(cnt_switch, 0)});
  NodeOut cnt_ident = fwd.Op("Identity", {NodeOut(cnt_switch, 1)});
  GraphScope in_fwd = fwd.WithControlDependencies({cnt_ident.node});
  NodeOut cnt_plus = in_fwd.Op("Add", {cnt_ident, ConstOp(in_fwd, Tensor::Scalar<int32_t>(1))});
  NodeOut cnt_next = fwd.Op("NextIteration", {cnt_plus});
  // The counter's next iteration waits for this iteration's pushes (so the
  // next ones come after them); through a ControlTrigger, because a push in
  // a conditional's untaken branch is dead, and deadness must not stop the
  // counter.
  Node* pushed = fwd.WithControlDependencies({cnt_ident.node}).AddNode("ControlTrigger", {});
  FLOWVM_RETURN_IF_ERROR(s.status());
  graph->AddControlEdge(pushed, cnt_next.node);
  FLOWVM_RETURN_IF_ERROR(Rewire(graph, cnt_merge, 1, cnt_next));

  // 2. The backward loop's variables: the counter, one gradient per
  //    forward variable, one sum per invariant.
  const int bwd_first = graph->num_node_ids();
  const std::string grad_frame = loop.name + "/gradient";
  const GraphScope bwd = s.NewSubScope("backward");
  // Variables of types without gradients (a counter) get no backward twin.
  std::vector<LoopVar> vars;
  for (const LoopVar& v : loop.vars)
    if (IsDifferentiableType(v.exit->output_type(0))) vars.push_back(v);
  std::vector<NodeOut> inits = {outer_new_value(cnt_exit)};
  for (const LoopVar& v : vars) {
    auto it = exit_grads.find(v.exit);
    inits.push_back(it != exit_grads.end() && it->second.valid()
                        ? it->second
                        : bwd.Op("ZerosLike", {outer_value(NodeOut(v.exit, 0))}));
  }
  std::vector<Node*> invariants;
  for (Node* inv : loop.invariants) {
    if (!IsDifferentiableType(inv->output_type(0))) continue;
    invariants.push_back(inv);
    const Edge* in = inv->input_edge(0);
    inits.push_back(bwd.Op("ZerosLike", {outer_value(NodeOut(in->src(), in->src_output()))}));
  }
  FLOWVM_RETURN_IF_ERROR(s.status());
  std::vector<Node*> merges;
  for (const NodeOut& init : inits) {
    NodeOut e = EnterOp(bwd, init, grad_frame, false, 1);
    merges.push_back(bwd.AddNode("Merge", {OpInput::List({e, e})}));
  }
  FLOWVM_RETURN_IF_ERROR(s.status());
  GraphScope in_cond = bwd.WithControlDependencies({merges[0]});
  NodeOut more = in_cond.Op("Greater", {NodeOut(merges[0], 0), ConstOp(in_cond, Tensor::Scalar<int32_t>(0))});
  NodeOut cond = bwd.Op("LoopCond", {more});
  std::vector<NodeOut> values, exits;
  for (Node* m : merges) {
    Node* sw = bwd.AddNode("Switch", {NodeOut(m, 0), cond});
    exits.push_back(bwd.Op("Exit", {NodeOut(sw, 0)}));
    values.push_back(bwd.Op("Identity", {NodeOut(sw, 1)}));
  }
  FLOWVM_RETURN_IF_ERROR(s.status());

  // 3. Forward values the backward body reads come from stacks; constants
  //    are made again, and values from outside the loop (the invariants'
  //    inputs included) enter the backward loop as invariants. A value of a
  //    conditional's branch was pushed only in the iterations that took the
  //    branch: its pop runs under the backward twin of that branch (a
  //    Switch on the popped predicate), so it is dead in the others too.
  //    A stack is made in the enclosing loop's body, so each of its
  //    iterations has its own, and its handle reaches the backward body as
  //    any value of the enclosing body does.
  const GraphScope body = bwd.WithControlDependencies({values[0].node}).NewSubScope("body");
  const int body_first = graph->num_node_ids();
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(graph->TopologicalOrder(&order));
  const int known = static_cast<int>(info.frame_of.size());
  CondContexts contexts = FindCondContexts(info, frame, order, loop.loop_cond);
  auto in_forward_frame = [&](const Node* n) { return n->id() < known && info.out_frame_of[n->id()] == frame; };
  std::map<std::pair<int, int>, NodeOut> routed;
  std::vector<Node*> pivots(contexts.contexts.size(), nullptr);
  Status route_status;
  // force_stack: t is a node made since `info` (in the forward body).
  std::function<NodeOut(NodeOut, bool)> route;
  std::function<Node*(int)> pivot = [&](int c) -> Node* {
    if (c < 0) return values[0].node;
    if (pivots[c] != nullptr) return pivots[c];
    const CondContext& ctx = contexts.contexts[c];
    Node* parent = pivot(ctx.parent);
    NodeOut pred = route(ctx.pred, false);
    GraphScope ps = s.NewSubScope("branch");
    Node* sw = ps.AddNode("Switch", {NodeOut(parent, 0), pred});
    pivots[c] = ps.Op("Identity", {NodeOut(sw, ctx.branch)}).node;
    return pivots[c];
  };
  route = [&](NodeOut t, bool force_stack) -> NodeOut {
    Node* src = t.node;
    const bool invariant =
        !force_stack && (std::find(invariants.begin(), invariants.end(), src) != invariants.end() ||
                         std::find(loop.invariants.begin(), loop.invariants.end(), src) != loop.invariants.end());
    if (invariant) {
      const Edge* in = src->input_edge(0);
      t = NodeOut(in->src(), in->src_output());
    }
    auto it = routed.find(Key(t));
    if (it != routed.end()) return it->second;
    NodeOut r;
    if (!invariant && in_forward_frame(src) && src->op() == "Const" && src->num_inputs() == 0) {
      Tensor value;
      Status st = GetNodeAttr(src->def(), "value", &value);
      if (!st.ok() && route_status.ok()) route_status = st;
      r = ConstOp(body, value);
    } else if (force_stack || (!invariant && in_forward_frame(src))) {
      const DataType type = BaseType(src->output_type(t.index));
      GraphScope st = s.NewSubScope("stack");
      GraphScope st_outer = enclosing ? st.WithControlDependencies({enclosing->anchor}) : st;
      NodeOut stack =
          st_outer.Op("StackV2", {ConstOp(st_outer, Tensor::Scalar<int32_t>(-1))}, {{"elem_type", MakeAttrValue(type)}});
      NodeOut in_f = EnterOp(st, stack, loop.name, true, loop.parallel_iterations);
      Node* push = st.WithControlDependencies({cnt_ident.node}).AddNode("StackPushV2", {in_f, t});
      NodeOut in_b = EnterOp(st, outer_new_value(stack), grad_frame, true, 1);
      Node* under = pivot(contexts.Of(t));
      r = st.WithControlDependencies({under}).Op("StackPopV2", {in_b}, {{"elem_type", MakeAttrValue(type)}});
      if (push != nullptr) graph->AddControlEdge(push, pushed);
    } else {
      r = EnterOp(s.NewSubScope("outer"), outer_value(t), grad_frame, true, 1);
    }
    routed.emplace(Key(t), r);
    return r;
  };

  // 4. The backward body: each forward body op's gradient function, from
  //    the NextIteration inputs back to the variables' values and the
  //    invariants, in reverse order. A loop nested in the body is one unit:
  //    its own backward loop (built the same way, inside this one's body)
  //    takes its Exits' gradients and gives its Enters'.
  NodeOut cnt_less = body.Op("Sub", {values[0], ConstOp(body, Tensor::Scalar<int32_t>(1))});
  std::set<int> sources;
  for (const LoopVar& v : vars) sources.insert(v.value.node->id());
  for (Node* inv : invariants) sources.insert(inv->id());
  // Owners: a node of the frame (or a source) is its own; a nested loop's
  // nodes belong to its unit, known + the index of the child frame.
  auto owner = [&](const Node* n) -> int {
    if (n->id() >= known) return -1;
    if (sources.count(n->id())) return n->id();
    const int f = info.frame_of[n->id()];
    if (f == frame) return n->id();
    const int child = f < 0 ? -1 : ChildOf(info, frame, f);
    return child < 0 ? -1 : known + child;
  };
  const int num_owners = known + static_cast<int>(info.frames.size());
  // The owners in topological order (a unit as one item).
  std::vector<std::vector<int>> succ(num_owners), data_succ(num_owners);
  std::vector<int> indegree(num_owners, 0);
  std::vector<bool> present(num_owners, false);
  for (Node* n : order) {
    const int o = owner(n);
    if (o < 0) continue;
    present[o] = true;
    for (const Edge* e : n->out_edges()) {
      if (e->IsBackEdge()) continue;
      const int d = owner(e->dst());
      if (d < 0 || d == o) continue;
      succ[o].push_back(d);
      if (!e->IsControlEdge()) data_succ[o].push_back(d);
      ++indegree[d];
    }
  }
  std::vector<int> units;  // topological order of owners
  for (int o = 0; o < num_owners; ++o)
    if (present[o] && indegree[o] == 0) units.push_back(o);
  for (size_t i = 0; i < units.size(); ++i)
    for (int d : succ[units[i]])
      if (--indegree[d] == 0) units.push_back(d);
  for (int o = 0; o < num_owners; ++o)
    if (present[o] && indegree[o] > 0)
      return errors::Unimplemented("gradients of loop '", loop.name, "': a loop nested in its body feeds itself ",
                                   "outside its own iterations");
  // On the path: reachable from a value or invariant within the frame, and
  // reaching a NextIteration input.
  std::vector<bool> from(num_owners, false), to(num_owners, false);
  for (int o : sources) from[o] = true;
  for (int o : units)
    if (from[o])
      for (int d : data_succ[o]) from[d] = true;
  for (const LoopVar& v : vars) {
    const Edge* e = v.next->input_edge(0);
    if (e != nullptr && owner(e->src()) >= 0) to[owner(e->src())] = true;
  }
  for (auto it = units.rbegin(); it != units.rend(); ++it)
    for (int d : data_succ[*it])
      if (to[d] && !(d < known && graph->FindNodeId(d)->IsNextIteration())) to[*it] = true;
  std::map<std::pair<int, int>, std::vector<NodeOut>> partials;
  auto sum = [&](const NodeOut& t) -> NodeOut {
    auto it = partials.find(Key(t));
    if (it == partials.end() || it->second.empty()) return NodeOut();
    if (it->second.size() == 1) return it->second[0];
    return body.Op("AddN", {OpInput::List(it->second)});
  };
  for (size_t k = 0; k < vars.size(); ++k) {
    const Edge* e = vars[k].next->input_edge(0);
    if (e != nullptr) partials[{e->src()->id(), e->src_output()}].push_back(values[1 + k]);
  }
  // What a nested loop's gradient made: already wired, not to be routed.
  std::vector<std::pair<int, int>> nested_ranges;
  Enclosing here{cnt_ident.node, [&](NodeOut t) { return route(t, false); },
                 [&](NodeOut t) { return route(t, true); }};
  auto add_partials = [&](Node* n, const std::vector<NodeOut>& dx) {
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() || e->dst_input() >= static_cast<int>(dx.size())) continue;
      const NodeOut& g = dx[e->dst_input()];
      if (!g.valid() || !IsDifferentiableType(e->src()->output_type(e->src_output()))) continue;
      const int o = owner(e->src());
      if (o < 0 || !from[o]) continue;
      partials[{e->src()->id(), e->src_output()}].push_back(g);
    }
  };
  for (auto it = units.rbegin(); it != units.rend(); ++it) {
    const int o = *it;
    if (!from[o] || !to[o] || sources.count(o)) continue;
    if (o >= known) {
      const int child = o - known;
      std::map<const Node*, NodeOut> child_exits, child_enters;
      bool any = false;
      for (Node* n : graph->nodes()) {
        if (n->id() >= known || info.frame_of[n->id()] != child || !n->IsExit()) continue;
        child_exits[n] = sum(NodeOut(n, 0));
        any = any || child_exits[n].valid();
      }
      if (!any) continue;
      const int first = graph->num_node_ids();
      FLOWVM_RETURN_IF_ERROR(LoopGradient(s.NewSubScope("nested"), info, child, &here, child_exits, &child_enters));
      FLOWVM_RETURN_IF_ERROR(route_status);
      nested_ranges.emplace_back(first, graph->num_node_ids());
      for (auto& [enter, grad] : child_enters) {
        const int eo = owner(enter);
        if (grad.valid() && eo >= 0 && from[eo]) partials[{enter->id(), 0}].push_back(grad);
      }
      continue;
    }
    Node* n = graph->FindNodeId(o);
    std::vector<NodeOut> dy(n->num_outputs());
    bool any = false;
    for (int k = 0; k < n->num_outputs(); ++k) {
      dy[k] = sum(NodeOut(n, k));
      any = any || dy[k].valid();
    }
    if (!any) continue;
    if (n->IsEnter()) {  // of a nested loop: its unit gave the gradient of what entered it
      add_partials(n, {dy[0]});
      continue;
    }
    bool no_gradient = false;
    const GradFunc* fn = GradientRegistry::Global()->LookUp(n->op(), &no_gradient);
    if (no_gradient) continue;
    if (fn == nullptr)
      return errors::NotFound(n->label(), ": no gradient is defined for op '", n->op(), "', which lies in loop '",
                              loop.name, "' on the path to the ys");
    GraphScope op_scope = body.NewSubScope(n->name() + "_grad");
    for (int k = 0; k < n->num_outputs(); ++k)
      if (!dy[k].valid() && IsDifferentiableType(n->output_type(k))) dy[k] = op_scope.Op("ZerosLike", {NodeOut(n, k)});
    std::vector<NodeOut> dx;
    Status st = (*fn)(op_scope, *n, dy, &dx);
    if (st.ok()) st = s.status();
    if (!st.ok()) return AttachNode(st, n->def());
    add_partials(n, dx);
  }
  std::vector<NodeOut> next = {cnt_less};
  for (size_t k = 0; k < vars.size(); ++k) {
    NodeOut g = sum(vars[k].value);
    if (!g.valid()) g = body.Op("ZerosLike", {vars[k].value});
    next.push_back(g);
  }
  for (size_t j = 0; j < invariants.size(); ++j) {
    NodeOut g = sum(NodeOut(invariants[j], 0));
    NodeOut acc = values[1 + vars.size() + j];
    next.push_back(g.valid() ? body.Op("Add", {acc, g}) : acc);
  }
  FLOWVM_RETURN_IF_ERROR(s.status());

  // 5. Wire the forward values the backward body reads to their twins.
  const int body_last = graph->num_node_ids();
  auto nested = [&](int id) {
    for (auto [a, b] : nested_ranges)
      if (id >= a && id < b) return true;
    return false;
  };
  for (int id = body_first; id < body_last; ++id) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr || nested(id)) continue;
    std::vector<const Edge*> edges = n->in_edges();
    for (const Edge* e : edges) {
      Node* src = e->src();
      if (e->IsControlEdge() || src->id() >= body_first) continue;
      if (src->id() >= bwd_first) continue;  // the backward loop's own skeleton
      NodeOut r = route(NodeOut(src, e->src_output()), false);
      FLOWVM_RETURN_IF_ERROR(route_status);
      FLOWVM_RETURN_IF_ERROR(s.status());
      FLOWVM_RETURN_IF_ERROR(Rewire(graph, n, e->dst_input(), r));
    }
  }
  for (size_t i = 0; i < merges.size(); ++i) {
    NodeOut ni = bwd.Op("NextIteration", {next[i]});
    FLOWVM_RETURN_IF_ERROR(s.status());
    FLOWVM_RETURN_IF_ERROR(Rewire(graph, merges[i], 1, ni));
  }
  for (size_t k = 0; k < vars.size(); ++k) (*enter_grads)[vars[k].enter] = exits[1 + k];
  for (size_t j = 0; j < invariants.size(); ++j) (*enter_grads)[invariants[j]] = exits[1 + vars.size() + j];
  return s.status();
}

}  // namespace

Status AddWhileLoopGradient(const GraphScope& scope, const ControlFlowInfo& info, int frame,
                            const std::map<const Node*, NodeOut>& exit_grads,
                            std::map<const Node*, NodeOut>* enter_grads) {
  return LoopGradient(scope, info, frame, nullptr, exit_grads, enter_grads);
}

}  // namespace flowvm
