// Common subexpression elimination (paper section 5.1): nodes that compute
// the same thing from the same inputs are merged into one.
//
// Two nodes are the same computation when they have the same op, the same
// requested device, the same attrs (serialized AttrValues compared exactly,
// `_class` included), the same data inputs (source node and port, in slot
// order) and the same set of control inputs. Nodes are visited in
// topological order, so chains of duplicates collapse one level at a time.
//
// Never merged: stateful ops (variables, random ops, _Arg/_Retval, ...),
// Placeholder / PlaceholderWithDefault / _Send / _Recv, and nodes with a
// reference-typed input or output. The survivor takes over every out-edge
// (data and control) of the duplicate, which is removed. If one of the two
// is in `keep`, that one survives (if both are, both are left alone); else
// the one added to the graph first (the lower node id) does.
#ifndef FLOWVM_RUNTIME_PASSES_CSE_H_
#define FLOWVM_RUNTIME_PASSES_CSE_H_

#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "flowvm/status.h"
#include "graph/graph.h"

namespace flowvm {

struct CseResult {
  // (removed duplicate, survivor), in the order the merges happened.
  std::vector<std::pair<std::string, std::string>> merged;
};

// Errors: InvalidArgument if the graph has a cycle; Internal if rewiring
// fails (the graph is then unusable).
Status EliminateCommonSubexpressions(Graph* graph, const std::unordered_set<std::string>& keep, CseResult* result);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PASSES_CSE_H_
