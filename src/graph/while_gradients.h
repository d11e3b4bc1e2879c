// The gradient of a while loop (paper 4.4 and 4.1, as TensorFlow 1.x builds
// it): given the gradients of the loop's Exit outputs, builds a backward
// loop that runs as many iterations as the forward one did, in reverse,
// and returns the gradients of its Enter outputs (the loop variables'
// initial values and the loop invariants).
//
// The forward loop gets a counter of its iterations and, for every forward
// value the backward body needs, a push onto a stack (StackV2 /
// StackPushV2) in each iteration, in iteration order; the backward loop
// pops them (StackPopV2) in reverse. Invariants' gradients are summed over
// the iterations. The backward loop runs one iteration at a time, so its
// pops come in order. A conditional inside the body is differentiated with
// it: a value of one of its branches is pushed only in the iterations that
// took the branch, and popped under the backward twin of that branch (a
// Switch on the popped predicate), so pushes and pops still pair up.
//
// A loop nested in the body is differentiated as one unit inside the
// backward body: its backward loop runs in each backward iteration, its
// stacks are made in each forward iteration of the loop around it, and
// their handles reach the backward body the way any forward value does.
// The body's own ops need registered gradient functions (NotFound
// otherwise, naming the node and the loop).
#ifndef FLOWVM_GRAPH_WHILE_GRADIENTS_H_
#define FLOWVM_GRAPH_WHILE_GRADIENTS_H_

#include <map>

#include "flowvm/status.h"
#include "graph/control_flow.h"
#include "graph/graph_scope.h"

namespace flowvm {

// `frame` indexes `info.frames` (a child of the root frame). exit_grads: the
// gradient of each Exit node's output (missing: none). enter_grads gets the
// gradient of each Enter node's output that has one.
Status AddWhileLoopGradient(const GraphScope& scope, const ControlFlowInfo& info, int frame,
                            const std::map<const Node*, NodeOut>& exit_grads,
                            std::map<const Node*, NodeOut>* enter_grads);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_WHILE_GRADIENTS_H_
