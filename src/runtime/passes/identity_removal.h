// Removes Identity and NoOp relays that nothing needs.
//
// An Identity goes when it is not in `keep`, has no control inputs, does not
// read a reference (reading a variable through an Identity takes a snapshot
// at that point in the step), and its requested device is empty or equal to
// its input node's (an Identity on another device is a deliberate copy). Its
// data consumers read its input instead; its control consumers get a control
// edge from its input's node. Chains of such Identities collapse.
//
// A NoOp goes when it is not in `keep`, in * out <= in + out for its numbers
// of distinct predecessors and successors (TensorFlow's dependency-optimizer
// rule, so replacing it cannot blow up into fan-in x fan-out edges), and the
// direct edges that replace it cross no more requested-device boundaries
// than it did. Each predecessor then gets a control edge to each successor
// (none duplicated, no self loops, none where a direct edge exists).
#ifndef FLOWVM_RUNTIME_PASSES_IDENTITY_REMOVAL_H_
#define FLOWVM_RUNTIME_PASSES_IDENTITY_REMOVAL_H_

#include <string>
#include <unordered_set>
#include <vector>

#include "flowvm/status.h"
#include "graph/graph.h"

namespace flowvm {

struct IdentityRemovalResult {
  std::vector<std::string> identities;  // removed Identity nodes, in topological order
  std::vector<std::string> noops;       // removed NoOp nodes, in topological order
};

// Errors: InvalidArgument if the graph has a cycle; Internal if rewiring
// fails (the graph is then unusable).
Status RemoveIdentityAndNoOpRelays(Graph* graph, const std::unordered_set<std::string>& keep,
                                   IdentityRemovalResult* result);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PASSES_IDENTITY_REMOVAL_H_
