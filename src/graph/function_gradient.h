// Gradients of nodes that call functions (graph/gradients.h uses these for
// calls by name; the gradient functions of PartitionedCall, If and Case in
// ops/function_ops.cc too).
#ifndef FLOWVM_GRAPH_FUNCTION_GRADIENT_H_
#define FLOWVM_GRAPH_FUNCTION_GRADIENT_H_

#include <vector>

#include "flowvm/attr_value.pb.h"
#include "flowvm/status.h"
#include "graph/graph_scope.h"

namespace flowvm {

// The gradients of the inputs of `node`, whose data inputs are the
// arguments of `func`: a call of the gradient function a GradientDef names
// for it, else a SymbolicGradient node. Missing output gradients become
// zeros; inputs of non-floating types get none.
Status AddFunctionCallGradient(const GraphScope& scope, const Node& node, const NameAttrList& func,
                               const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx);

// A function of `scope`'s graph library computing the gradient of `func`,
// (x..., dy...) -> dx...: the one a GradientDef names, else one made (once)
// around SymbolicGradient. For ops that call functions through attrs (If,
// Case), whose gradient calls the gradients of their branches.
StatusOr<NameAttrList> GradientFunctionOf(const GraphScope& scope, const NameAttrList& func);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_FUNCTION_GRADIENT_H_
