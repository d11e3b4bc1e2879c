// Function inlining and the lowering of functional control flow: the pass a
// session runs on the pruned graph of a step before it is optimized, placed
// and partitioned, so that a function's body is placed and partitioned like
// any other subgraph and may span devices and tasks (white paper section
// 10).
//
// - A call of a function of the graph's library (its name as the op, or
//   PartitionedCall / StatefulPartitionedCall) is replaced by a copy of the
//   body: nodes "<call>/<body node>", an Identity per argument, the call's
//   consumers reading the body's results. Nested calls are inlined in turn.
// - SymbolicGradient is replaced by the gradient body of its function
//   (graph/function_body.h: InstantiateGradient).
// - If, StatelessIf, Case, StatelessCase, While and StatelessWhile become
//   Switch / Merge / Enter / Exit / NextIteration / LoopCond around copies
//   of their branch, cond and body functions, as tf.cond and tf.while_loop
//   build them (paper 4.4).
// - Calls of recursive functions stay calls (their kernel runs the body
//   when the call is reached, a base case permitting). A recursion that no
//   branch can end (a function that calls itself, directly or through
//   others, outside every conditional) is InvalidArgument naming the
//   function and the call.
// Errors name the call node and the function.
#ifndef FLOWVM_RUNTIME_PASSES_FUNCTION_INLINING_H_
#define FLOWVM_RUNTIME_PASSES_FUNCTION_INLINING_H_

#include <string>
#include <vector>

#include "flowvm/status.h"
#include "graph/graph.h"

namespace flowvm {

struct FunctionInliningReport {
  int inlined = 0;  // calls replaced by bodies (nested ones included)
  int lowered = 0;  // If/Case/While nodes lowered
  int kept = 0;     // calls of recursive functions left as calls
  // For `-v`: "function inlining: inlined 3 calls (f_call -> f, ...)".
  std::vector<std::string> lines;
};

// Whether `node` calls a function: by name, PartitionedCall,
// StatefulPartitionedCall or SymbolicGradient.
bool IsFunctionCall(const Graph& graph, const Node& node);
// Whether nodes of `op` are replaced by this pass (calls, SymbolicGradient,
// If, Case, While, ...), so that no kernel of their own is needed: checks
// of a graph before it is run look at their bodies' nodes instead.
bool ReplacedBeforePlacement(const FunctionLibraryDefinition& library, const std::string& op);

Status InlineFunctionCalls(Graph* graph, FunctionInliningReport* report);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PASSES_FUNCTION_INLINING_H_
