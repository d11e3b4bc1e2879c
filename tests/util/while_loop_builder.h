// A counted while loop built through a GraphScope, node by node as
// TensorFlow 1.x's tf.while_loop writes it (header-only, for tests):
//
//   for (i = 0; i < trips; ++i) vars = body(i, vars, invariants)
//
// Loop variables enter with non-constant Enters, invariants (TensorArray
// handles, their flows, weights) with constant ones; every node the body
// adds hangs off the iteration's counter by a control edge, as tf.while_loop
// hangs a body's constants off its pivot, so it runs in the loop's frame.
#ifndef FLOWVM_TESTS_UTIL_WHILE_LOOP_BUILDER_H_
#define FLOWVM_TESTS_UTIL_WHILE_LOOP_BUILDER_H_

#include <functional>
#include <string>
#include <vector>

#include "graph/attr_value_util.h"
#include "graph/graph_scope.h"

namespace flowvm::testing {

// body(scope, i, vars, invariants) returns the variables' next values (one
// per var). `scope` adds nodes inside the loop.
using WhileBody = std::function<std::vector<NodeOut>(const GraphScope& scope, NodeOut i, const std::vector<NodeOut>& vars,
                                                     const std::vector<NodeOut>& invariants)>;

struct WhileLoopOutputs {
  std::vector<NodeOut> exits;  // each variable's final value
  NodeOut trips_done;          // the counter's final value
};

inline NodeOut LoopEnter(const GraphScope& s, NodeOut x, const std::string& frame, bool constant, int parallel) {
  return s.Op("Enter", {x},
              {{"frame_name", MakeAttrValue(frame)},
               {"is_constant", MakeAttrValue(constant)},
               {"parallel_iterations", MakeAttrValue(int64_t{parallel})}});
}

// `trips` is an int32 scalar from outside the loop. Errors are recorded in
// the scope.
inline WhileLoopOutputs BuildWhileLoop(const GraphScope& s, const std::string& frame, NodeOut trips,
                                       const std::vector<NodeOut>& var_inits, const std::vector<NodeOut>& invariants,
                                       int parallel, const WhileBody& body) {
  WhileLoopOutputs out;
  Graph* g = s.graph();
  // What runs outside the loop keeps `s`'s control dependencies (in the
  // body of an enclosing loop, its counter); what runs inside has none.
  const GraphScope outside = s.NewSubScope(frame);
  const GraphScope w = outside.WithNoControlDependencies();
  NodeOut zero = ConstOp(outside, Tensor::Scalar<int32_t>(0));
  std::vector<NodeOut> inits = {zero};
  inits.insert(inits.end(), var_inits.begin(), var_inits.end());
  std::vector<Node*> merges;
  for (const NodeOut& init : inits) {
    NodeOut enter = LoopEnter(outside, init, frame, false, parallel);
    merges.push_back(w.AddNode("Merge", {OpInput::List({enter, enter})}));
  }
  std::vector<NodeOut> inv;
  for (const NodeOut& x : invariants) inv.push_back(LoopEnter(outside, x, frame, true, parallel));
  NodeOut limit = LoopEnter(outside, trips, frame, true, parallel);
  if (!s.ok()) return out;
  NodeOut cond = w.Op("LoopCond", {w.Op("Less", {NodeOut(merges[0], 0), limit})});
  std::vector<NodeOut> values;
  for (Node* m : merges) {
    Node* sw = w.AddNode("Switch", {NodeOut(m, 0), cond});
    out.exits.push_back(w.Op("Exit", {NodeOut(sw, 0)}));
    values.push_back(w.Op("Identity", {NodeOut(sw, 1)}));
  }
  if (!s.ok()) return out;
  out.trips_done = out.exits[0];
  out.exits.erase(out.exits.begin());
  const GraphScope in_body = w.WithControlDependencies({values[0].node});
  NodeOut i = values[0];
  std::vector<NodeOut> next = {in_body.Op("Add", {i, ConstOp(in_body, Tensor::Scalar<int32_t>(1))})};
  std::vector<NodeOut> vars(values.begin() + 1, values.end());
  std::vector<NodeOut> body_next = body(in_body, i, vars, inv);
  if (!s.ok()) return out;
  if (body_next.size() != vars.size()) {
    s.UpdateStatus(errors::InvalidArgument("the loop body returned ", body_next.size(), " values for ", vars.size(),
                                           " variables"));
    return out;
  }
  next.insert(next.end(), body_next.begin(), body_next.end());
  for (size_t k = 0; k < merges.size(); ++k) {
    NodeOut ni = w.Op("NextIteration", {next[k]});
    if (!s.ok()) return out;
    g->RemoveEdge(merges[k]->input_edge(1));
    (void)g->AddEdge(ni.node, 0, merges[k], 1);
  }
  return out;
}

}  // namespace flowvm::testing

#endif  // FLOWVM_TESTS_UTIL_WHILE_LOOP_BUILDER_H_
