// Lowering of functional control flow (If, StatelessIf, Case,
// StatelessCase, While, StatelessWhile) into the dataflow control-flow
// primitives of paper section 4.4, around inlined copies of the branch,
// cond and body functions. Used by the function inlining pass
// (function_inlining.h), which says when.
#ifndef FLOWVM_RUNTIME_PASSES_LOWER_FUNCTIONAL_OPS_H_
#define FLOWVM_RUNTIME_PASSES_LOWER_FUNCTIONAL_OPS_H_

#include "flowvm/status.h"
#include "graph/graph.h"

namespace flowvm {

bool IsFunctionalControlFlow(const Node& node);

// Replaces `node` (which must be one of the ops above) by its lowered form;
// its consumers read the lowered outputs. Errors name the node.
//   If: Switch every input on the predicate (a non-bool predicate is cast
//     to bool: non-zero is true), the then-branch on the true outputs, the
//     else-branch on the false ones, a Merge per result.
//   Case: a chain of Ifs on branch_index == k; an index out of range runs
//     the last branch, as in TensorFlow.
//   While: Enter, Merge, the cond function, LoopCond, Switch, the body
//     function, NextIteration back to the Merge, Exit (a frame named after
//     the node, with its parallel_iterations).
Status LowerFunctionalOp(Graph* graph, Node* node);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PASSES_LOWER_FUNCTIONAL_OPS_H_
