#include "flowvm/cc/control_flow.h"

#include <map>
#include <set>

#include "cc/scope_impl.h"
#include "flowvm/cc/ops.h"

namespace flowvm {

namespace {

// Data inputs of the nodes made since `first_id` that come from older nodes
// are fed through `route(old tensor)` instead (one route per tensor); a
// control input from an older node is an error for loops (`allow_control`
// false), whose frames it would cross.
Status RouteCapturedInputs(Graph* graph, int first_id, const std::function<StatusOr<Output>(const Output&)>& route,
                           bool allow_control, const std::set<int>& keep_ids) {
  std::map<std::pair<Node*, int>, Output> routed;
  const int last_id = graph->num_node_ids();
  for (int id = first_id; id < last_id; ++id) {
    Node* n = graph->FindNodeId(id);
    if (n == nullptr || keep_ids.count(id)) continue;
    std::vector<const Edge*> edges = n->in_edges();
    for (const Edge* e : edges) {
      if (e->src()->id() >= first_id) continue;
      if (e->IsControlEdge()) {
        if (allow_control || keep_ids.count(e->src()->id())) continue;
        return errors::InvalidArgument(n->label(), " inside a loop has a control dependency on '", e->src()->name(),
                                       "' outside it; pass values into a loop as loop variables");
      }
      if (keep_ids.count(e->src()->id())) continue;
      Output outer(e->src(), e->src_output());
      auto key = std::make_pair(e->src(), e->src_output());
      auto it = routed.find(key);
      if (it == routed.end()) {
        FLOWVM_ASSIGN_OR_RETURN(Output r, route(outer));
        it = routed.emplace(key, r).first;
      }
      const int slot = e->dst_input();
      graph->RemoveEdge(e);
      FLOWVM_ASSIGN_OR_RETURN(const Edge* added, graph->AddEdge(it->second.node(), it->second.index(), n, slot));
      (void)added;
    }
  }
  return Status::OK();
}

Status Fail(const Scope& scope, Status s) {
  scope.UpdateStatus(s);
  return s;
}

}  // namespace

Status Cond(const Scope& scope, const Output& pred, const CondBranchFn& then_fn, const CondBranchFn& else_fn,
            std::vector<Output>* outputs) {
  FLOWVM_RETURN_IF_ERROR(scope.status());
  Scope s = scope.NewSubScope("cond");
  Graph* graph = scope.impl()->graph.get();
  auto pred_switch = ops::Switch(s.WithOpName("switch_pred"), pred, pred);
  auto pivot_f = ops::Identity(s.WithOpName("pivot_f"), pred_switch.output_false);
  auto pivot_t = ops::Identity(s.WithOpName("pivot_t"), pred_switch.output_true);
  FLOWVM_RETURN_IF_ERROR(s.status());
  std::vector<Output> branch_out[2];
  const CondBranchFn* fns[2] = {&else_fn, &then_fn};
  const Output pivots[2] = {pivot_f, pivot_t};
  for (int b = 0; b < 2; ++b) {
    // Every op of the branch waits for its pivot, which is dead when the
    // other branch is taken; tensors from outside come through a Switch.
    Scope bs = s.NewSubScope(b == 1 ? "then" : "else").WithControlDependencies({pivots[b].op()});
    const int first_id = graph->num_node_ids();
    Status st = (*fns[b])(bs, &branch_out[b]);
    if (st.ok()) st = bs.status();
    if (!st.ok()) return Fail(scope, st);
    // Outputs pass through an Identity of the branch, so an output that is
    // a tensor from outside is dead in the branch not taken too.
    for (Output& o : branch_out[b]) o = ops::Identity(bs, o);
    FLOWVM_RETURN_IF_ERROR(bs.status());
    const int branch = b;
    Status routed = RouteCapturedInputs(
        graph, first_id,
        [&](const Output& outer) -> StatusOr<Output> {
          // A variable stays a reference: the branch may update it.
          Scope ss = s.NewSubScope("switch").WithNoControlDependencies();
          if (IsRefType(outer.type())) {
            auto sw = ops::RefSwitch(ss, outer, pred);
            FLOWVM_RETURN_IF_ERROR(s.status());
            return branch == 1 ? sw.output_true : sw.output_false;
          }
          auto sw = ops::Switch(ss, outer, pred);
          FLOWVM_RETURN_IF_ERROR(s.status());
          return branch == 1 ? sw.output_true : sw.output_false;
        },
        /*allow_control=*/true, {pivots[b].node()->id()});
    if (!routed.ok()) return Fail(scope, routed);
  }
  if (branch_out[0].size() != branch_out[1].size())
    return Fail(scope, errors::InvalidArgument("Cond: the then branch has ", branch_out[1].size(),
                                               " outputs, the else branch ", branch_out[0].size()));
  outputs->clear();
  for (size_t i = 0; i < branch_out[0].size(); ++i) {
    if (branch_out[0][i].type() != branch_out[1][i].type())
      return Fail(scope, errors::InvalidArgument("Cond: output ", i, " is ", DataTypeName(branch_out[1][i].type()),
                                                 " in the then branch and ", DataTypeName(branch_out[0][i].type()),
                                                 " in the else branch"));
    auto merge = ops::Merge(s.WithOpName(i == 0 ? "merge" : "merge_" + std::to_string(i)),
                            {branch_out[0][i], branch_out[1][i]});
    outputs->push_back(merge.output);
  }
  return scope.status();
}

Status WhileLoop(const Scope& scope, const std::vector<Output>& loop_vars, const WhileCondFn& cond_fn,
                 const WhileBodyFn& body_fn, std::vector<Output>* outputs, int parallel_iterations,
                 const std::string& frame_name) {
  FLOWVM_RETURN_IF_ERROR(scope.status());
  if (loop_vars.empty()) return Fail(scope, errors::InvalidArgument("WhileLoop needs at least one loop variable"));
  if (parallel_iterations <= 0)
    return Fail(scope, errors::InvalidArgument("parallel_iterations must be positive, got ", parallel_iterations));
  Scope s = scope.NewSubScope("while").WithNoControlDependencies();
  Graph* graph = scope.impl()->graph.get();
  // The frame's name, unique in the graph as the scope's is (TensorFlow
  // names it "<scope>/while_context" too).
  const int first_id = graph->num_node_ids();
  const std::string probe = GetGraphScope(s).UniqueNodeName("enter");
  const std::string frame =
      frame_name.empty() ? probe.substr(0, probe.rfind('/') == std::string::npos ? 0 : probe.rfind('/')) + "/while_context"
                         : frame_name;
  std::vector<Output> enters, merges;
  std::vector<Node*> merge_nodes;
  for (size_t i = 0; i < loop_vars.size(); ++i) {
    Output e = ops::Enter(s.WithOpName(i == 0 ? "enter" : "enter_" + std::to_string(i)), loop_vars[i], frame,
                          ops::Enter::ParallelIterations(parallel_iterations));
    enters.push_back(e);
    // The second input becomes the back edge once the body is built.
    auto m = ops::Merge(s.WithOpName(i == 0 ? "merge" : "merge_" + std::to_string(i)), {e, e});
    merges.push_back(m.output);
    merge_nodes.push_back(m.operation.node());
  }
  FLOWVM_RETURN_IF_ERROR(s.status());
  std::set<int> loop_ids;
  for (int id = first_id; id < graph->num_node_ids(); ++id) loop_ids.insert(id);

  auto route_in = [&](const Output& outer) -> StatusOr<Output> {
    Output e;
    if (IsRefType(outer.type())) {  // a variable the body may update
      e = ops::RefEnter(s.NewSubScope("invariant"), outer, frame,
                        ops::RefEnter::IsConstant(true).ParallelIterations(parallel_iterations));
    } else {
      e = ops::Enter(s.NewSubScope("invariant"), outer, frame,
                     ops::Enter::IsConstant(true).ParallelIterations(parallel_iterations));
    }
    FLOWVM_RETURN_IF_ERROR(s.status());
    loop_ids.insert(e.node()->id());
    return e;
  };

  // The condition: its constants hang off the first Merge.
  Scope cs = s.NewSubScope("cond").WithControlDependencies({merges[0].op()});
  const int cond_first = graph->num_node_ids();
  Output pred;
  Status st = cond_fn(cs, merges, &pred);
  if (st.ok()) st = cs.status();
  if (st.ok() && !pred.valid()) st = errors::InvalidArgument("WhileLoop: the condition function set no output");
  if (st.ok() && pred.type() != DT_BOOL)
    st = errors::InvalidArgument("WhileLoop: the condition is ", DataTypeName(pred.type()), ", not bool");
  if (st.ok()) st = RouteCapturedInputs(graph, cond_first, route_in, false, loop_ids);
  if (!st.ok()) return Fail(scope, st);
  auto loop_cond = ops::LoopCond(s.WithOpName("loop_cond"), pred);
  std::vector<Output> idents, exits;
  for (size_t i = 0; i < merges.size(); ++i) {
    const std::string suffix = i == 0 ? "" : "_" + std::to_string(i);
    auto sw = ops::Switch(s.WithOpName("switch" + suffix), merges[i], loop_cond);
    exits.push_back(ops::Exit(s.WithOpName("exit" + suffix), sw.output_false));
    idents.push_back(ops::Identity(s.WithOpName("identity" + suffix), sw.output_true));
  }
  FLOWVM_RETURN_IF_ERROR(s.status());
  for (int id = cond_first; id < graph->num_node_ids(); ++id) loop_ids.insert(id);

  // The body: its constants hang off the first Identity (the pivot).
  Scope bs = s.NewSubScope("body").WithControlDependencies({idents[0].op()});
  const int body_first = graph->num_node_ids();
  std::vector<Output> next;
  st = body_fn(bs, idents, &next);
  if (st.ok()) st = bs.status();
  if (st.ok() && next.size() != loop_vars.size())
    st = errors::InvalidArgument("WhileLoop: the body returned ", next.size(), " values for ", loop_vars.size(),
                                 " loop variables");
  for (size_t i = 0; st.ok() && i < next.size(); ++i)
    if (BaseType(next[i].type()) != BaseType(loop_vars[i].type()))
      st = errors::InvalidArgument("WhileLoop: loop variable ", i, " is ", DataTypeName(loop_vars[i].type()),
                                   " but the body returned ", DataTypeName(next[i].type()));
  if (st.ok()) st = RouteCapturedInputs(graph, body_first, route_in, false, loop_ids);
  if (!st.ok()) return Fail(scope, st);
  for (size_t i = 0; i < next.size(); ++i) {
    auto ni = ops::NextIteration(s.WithOpName(i == 0 ? "next_iteration" : "next_iteration_" + std::to_string(i)),
                                 next[i]);
    FLOWVM_RETURN_IF_ERROR(s.status());
    // Close the loop: Merge's second input becomes the back edge.
    const Edge* placeholder = merge_nodes[i]->input_edge(1);
    graph->RemoveEdge(placeholder);
    auto added = graph->AddEdge(ni.output.node(), 0, merge_nodes[i], 1);
    if (!added.ok()) return Fail(scope, added.status());
  }
  *outputs = exits;
  return scope.status();
}

}  // namespace flowvm
