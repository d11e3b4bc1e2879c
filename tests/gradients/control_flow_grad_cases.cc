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
