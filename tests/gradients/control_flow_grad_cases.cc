// Gradient checks for ops/control_flow_grad.cc: a conditional, both ways.
#include "gradients/gradient_cases.h"

namespace flowvm::testing {
namespace {

// merge(x * x if pred else 3 * x): the gradient flows back through the
// Merge to the branch that ran and through the Switch to x.
GradientBuildFn Cond(bool pred) {
  return [pred](const GraphScope& s, const std::vector<NodeOut>& x) {
    NodeOut p = ConstOp(s, Tensor::Scalar<bool>(pred));
    Node* sw = s.AddNode("Switch", {x[0], p});
    NodeOut then_value = s.Op("Mul", {NodeOut(sw, 1), NodeOut(sw, 1)});
    NodeOut three = ConstOp(s, Tensor::Scalar<double>(3));
    NodeOut else_value = s.Op("Mul", {NodeOut(sw, 0), three});
    return Ys(s.Op("Merge", {OpInput::List({else_value, then_value})}));
  };
}

std::vector<GradCase> ControlFlowCases() {
  const Tensor x = RandomDoubles(TensorShape({2, 3}), -1, 1, 11);
  return {
      {"Switch_true", "Switch", {x}, Cond(true)},
      {"Switch_false", "Switch", {x}, Cond(false)},
      {"Merge_true", "Merge", {x}, Cond(true)},
      {"Merge_false", "Merge", {x}, Cond(false)},
  };
}

GradCaseRegistrar registrar(ControlFlowCases());

}  // namespace
}  // namespace flowvm::testing

namespace flowvm::testing {
namespace {

NodeOut Enter(const GraphScope& s, NodeOut x, const std::string& frame, bool constant) {
  return s.Op("Enter", {x},
              {{"frame_name", MakeAttrValue(frame)}, {"is_constant", MakeAttrValue(constant)},
               {"parallel_iterations", MakeAttrValue(int64_t{10})}});
}

using LoopBody = std::function<NodeOut(const GraphScope&, NodeOut v, NodeOut w, NodeOut i)>;

// for (i = 0; i < trips; ++i) v = body(v, w, i), written node by node as
// TensorFlow 1.x writes it, in frame `frame`; v enters from v_init, w is an
// invariant. Inside another loop, `anchor` is a node of that loop's body
// (its constants must run in its iterations). Returns v's Exit.
NodeOut CountedLoop(const GraphScope& s, const std::string& frame, int trips, NodeOut v_init, NodeOut w_init,
                    Node* anchor, const LoopBody& body) {
  Graph* g = s.graph();
  const GraphScope outer = anchor ? s.WithControlDependencies({anchor}) : s;
  NodeOut i_enter = Enter(s, ConstOp(outer, Tensor::Scalar<int32_t>(0)), frame, false);
  NodeOut v_enter = Enter(s, v_init, frame, false);
  NodeOut w = Enter(s, w_init, frame, true);
  Node* i_merge = s.AddNode("Merge", {OpInput::List({i_enter, i_enter})});
  Node* v_merge = s.AddNode("Merge", {OpInput::List({v_enter, v_enter})});
  NodeOut limit = ConstOp(s.WithControlDependencies({i_merge}), Tensor::Scalar<int32_t>(trips));
  NodeOut cond = s.Op("LoopCond", {s.Op("Less", {NodeOut(i_merge, 0), limit})});
  Node* i_switch = s.AddNode("Switch", {NodeOut(i_merge, 0), cond});
  Node* v_switch = s.AddNode("Switch", {NodeOut(v_merge, 0), cond});
  NodeOut i = s.Op("Identity", {NodeOut(i_switch, 1)});
  NodeOut v = s.Op("Identity", {NodeOut(v_switch, 1)});
  NodeOut one = ConstOp(s.WithControlDependencies({i.node}), Tensor::Scalar<int32_t>(1));
  NodeOut i_next = s.Op("NextIteration", {s.Op("Add", {i, one})});
  NodeOut v_next = s.Op("NextIteration", {body(s, v, w, i)});
  for (auto [merge, next] : {std::make_pair(i_merge, i_next), std::make_pair(v_merge, v_next)}) {
    g->RemoveEdge(merge->input_edge(1));
    (void)g->AddEdge(next.node, 0, merge, 1);
  }
  (void)s.Op("Exit", {NodeOut(i_switch, 0)});
  return s.Op("Exit", {NodeOut(v_switch, 0)});
}

// Three iterations of body(v, w, i); the gradient reaches v's initial value
// and the invariant w.
GradientBuildFn Loop(const LoopBody& body) {
  return [body](const GraphScope& s, const std::vector<NodeOut>& x) {
    return Ys(CountedLoop(s, "loop", 3, x[0], x[1], nullptr, body));
  };
}

std::vector<GradCase> LoopCases() {
  const Tensor v0 = RandomDoubles(TensorShape({2, 3}), -1, 1, 21);
  const Tensor w = RandomDoubles(TensorShape({2, 3}), 0.5, 1.5, 22);
  return {
      // v * w three times: v0 * w^3.
      {"Loop_product", "Exit", {v0, w}, Loop([](const GraphScope& s, NodeOut v, NodeOut w, NodeOut) { return s.Op("Mul", {v, w}); })},
      // tanh(v * w + v): the forward values the backward loop needs come
      // from stacks, in reverse order.
      {"Loop_tanh", "Enter", {v0, w}, Loop([](const GraphScope& s, NodeOut v, NodeOut w, NodeOut) {
         return s.Op("Tanh", {s.Op("Add", {s.Op("Mul", {v, w}), v})});
       })},
      // A conditional in the body whose branch changes with the iteration:
      // v * w in iteration 0, tanh(v + w) in 1 and 2. The forward values
      // of a branch are pushed only when it runs, and popped only then.
      {"Loop_cond", "Exit", {v0, w}, Loop([](const GraphScope& s, NodeOut v, NodeOut w, NodeOut i) {
         NodeOut one = ConstOp(s.WithControlDependencies({i.node}), Tensor::Scalar<int32_t>(1));
         NodeOut first = s.Op("Less", {i, one});
         Node* v_sw = s.AddNode("Switch", {v, first});
         Node* w_sw = s.AddNode("Switch", {w, first});
         NodeOut then_value = s.Op("Mul", {NodeOut(v_sw, 1), NodeOut(w_sw, 1)});
         NodeOut else_value = s.Op("Tanh", {s.Op("Add", {NodeOut(v_sw, 0), NodeOut(w_sw, 0)})});
         return s.Op("Merge", {OpInput::List({else_value, then_value})});
       })},
      // A loop in the body of a loop: three outer iterations of two inner
      // ones of tanh(u * w + u), the inner loop taking the outer invariant
      // as its own; its forward values are pushed on stacks made in each
      // outer iteration.
      {"Loop_nested", "Exit", {v0, w}, Loop([](const GraphScope& s, NodeOut v, NodeOut w, NodeOut i) {
         return CountedLoop(s, "inner", 2, v, w, i.node, [](const GraphScope& t, NodeOut u, NodeOut w2, NodeOut) {
           return t.Op("Tanh", {t.Op("Add", {t.Op("Mul", {u, w2}), u})});
         });
       })},
  };
}

GradCaseRegistrar loop_registrar(LoopCases());

}  // namespace
}  // namespace flowvm::testing
