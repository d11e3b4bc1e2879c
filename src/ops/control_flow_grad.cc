// Gradients of the conditional ops (TensorFlow's control_flow_grad.py): a
// Switch's gradient merges the gradients of its two outputs (only the taken
// branch's is alive); a Merge's gradient goes back to the input it
// forwarded, through a Switch on its value_index.
#include "graph/gradients.h"
#include "ops/gradient_helpers.h"

namespace flowvm {
namespace {

Status SwitchGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  // An output off the path has ZerosLike(output) as its gradient: alive
  // exactly when its branch ran.
  NodeOut merged = s.Op("Merge", {OpInput::List({dy[0], dy[1]})});
  *dx = {merged, NodeOut()};  // none for the predicate
  return s.status();
}

Status MergeGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut value_index(const_cast<Node*>(&op), 1);
  dx->assign(op.num_inputs(), NodeOut());
  for (int i = 0; i < op.num_inputs(); ++i) {
    GraphScope branch = s.NewSubScope("input_" + std::to_string(i));
    NodeOut taken = branch.Op("Equal", {value_index, grad::Int32(branch, i)});
    (*dx)[i] = NodeOut(branch.AddNode("Switch", {dy[0], taken}), 1);
  }
  return s.status();
}

}  // namespace

REGISTER_GRADIENT("Switch", SwitchGrad);
REGISTER_GRADIENT("Merge", MergeGrad);
// The reference forms route a variable into a conditional: its gradient
// goes back to the variable the same way.
REGISTER_GRADIENT("RefSwitch", SwitchGrad);
REGISTER_GRADIENT("RefMerge", MergeGrad);
// A loop's gradient pushes forward values; the push itself is not on any
// path being differentiated.
REGISTER_NO_GRADIENT("StackPushV2");

}  // namespace flowvm
