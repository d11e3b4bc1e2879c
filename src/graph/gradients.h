// Symbolic differentiation (paper section 4.1): AddSymbolicGradients extends
// a graph with the nodes that compute d(sum of ys * grad_ys)/d(xs).
//
// It finds the nodes on a forward path from some x to some y, then walks
// them backwards from the ys, calling each op's registered gradient function
// (graph/gradient_registry.h) once every consumer's gradient is known:
// - partial gradients of a tensor used several times are summed (AddN);
// - an output of a multi-output op that is not on a path to the ys gets a
//   zero gradient;
// - integer (and other non-floating, non-complex) tensors get no gradient;
// - ops registered with REGISTER_NO_GRADIENT (StopGradient, Shape, ...) cut
//   the path; an op on a path with no gradient function is a NotFound error
//   naming the node;
// - an x with no path to any y gets zeros (ZerosLike), or nothing (see
//   UnconnectedGradients);
// - an op on the path with complex inputs or outputs is Unimplemented (the
//   gradient functions are TensorFlow's real-valued formulas);
// - a node with a `_gradient_op_type` attr uses the gradient registered
//   under that name (TensorFlow's gradient_override_map and Defun's
//   python_grad_func), from the registry or options.custom_gradient;
// - a call of a function of the graph's library uses the gradient function
//   a GradientDef names, else a SymbolicGradient node, which differentiates
//   the body (graph/function_body.h); PartitionedCall and
//   StatefulPartitionedCall too;
// - conditionals go through Switch's and Merge's gradient functions; a
//   while loop is differentiated as a whole (graph/while_gradients.h), from
//   its Exits' gradients to its Enters' (ys inside a loop are Unimplemented).
// The new nodes go under a "gradients" name scope below `scope` (made unique
// if it exists) and keep `scope`'s device and control dependencies; each
// op's gradient nodes sit in "<gradients>/<op name>_grad/". grad_ys may be
// empty (each y then gets OnesLike(y)) or have one entry per y.
// On error nothing is returned and the status names the node involved; the
// nodes added so far stay in the graph, unreferenced.
#ifndef FLOWVM_GRAPH_GRADIENTS_H_
#define FLOWVM_GRAPH_GRADIENTS_H_

#include <functional>
#include <string>
#include <vector>

#include "flowvm/status.h"
#include "graph/graph_scope.h"

namespace flowvm {

// A client's gradient functions (the Python front-end's, registered by
// name): called for a node whose `_gradient_op_type` attr names a gradient
// the C++ registry does not have. Sets *handled = false to decline.
using CustomGradientFn = std::function<Status(const GraphScope& scope, const Node& op, const std::string& grad_name,
                                              const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx,
                                              bool* handled)>;

struct SymbolicGradientOptions {
  // What an x gets when no path of differentiable ops leads from it to a y
  // (unconnected, or cut by StopGradient, integer tensors or ops without
  // gradients): zeros (ZerosLike(x)), or nothing (an invalid NodeOut, which
  // TensorFlow's Python tf.gradients returns as None).
  bool zeros_for_unconnected = true;
  // The name scope opened below `scope` (made unique) for the new nodes;
  // empty: `scope` itself, for a caller that opened its own.
  std::string name_scope = "gradients";
  // See CustomGradientFn; may be empty.
  CustomGradientFn custom_gradient;
};

Status AddSymbolicGradients(const GraphScope& scope, const std::vector<NodeOut>& ys, const std::vector<NodeOut>& xs,
                            const std::vector<NodeOut>& grad_ys, std::vector<NodeOut>* grad_xs,
                            const SymbolicGradientOptions& options = {});

// Whether tensors of this type carry gradients (floating and complex types).
bool IsDifferentiableType(DataType dtype);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_GRADIENTS_H_
