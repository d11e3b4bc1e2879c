// Constant folding: computes once, while a step is prepared, the parts of the
// graph whose values cannot change, and replaces them with Const nodes.
//
// A node is foldable when it is stateless, not in `keep`, has at least one
// output and no reference-typed input or output, is not an _Arg, _Retval,
// _Send, _Recv, Placeholder, PlaceholderWithDefault or ReadFile (a file is
// read on its node's device, under its allowed directories), and every input (data
// and control) comes from another foldable node or from a Const whose own
// control inputs are all constant. Connected foldable nodes form a subgraph
// that is evaluated once with the CPU kernels; each of its outputs that a
// node outside it reads becomes a Const named `<node>/_folded_<port>` (made
// unique with a suffix if taken) on the folded node's requested device.
// Control edges out of a folded node move to its new Const, or are dropped
// when it got none: an ordering after a pure constant computation orders
// nothing. Folded nodes, and the Const inputs that nothing reads any more,
// are removed (a Const in `keep` always stays).
//
// Left alone: a subgraph whose evaluation fails (integer division by zero, a
// shape error, a missing kernel): the step itself reports that error when it
// runs, exactly as it would have without folding. An output larger than
// `max_constant_bytes` (strings: the bytes of their characters) stays
// computed, with the nodes it needs.
#ifndef FLOWVM_RUNTIME_PASSES_CONSTANT_FOLDING_H_
#define FLOWVM_RUNTIME_PASSES_CONSTANT_FOLDING_H_

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "flowvm/status.h"
#include "graph/graph.h"

namespace flowvm {

struct ConstantFoldingResult {
  std::vector<std::string> removed;    // folded nodes and Const inputs removed
  std::vector<std::string> constants;  // the Const nodes added
  bool changed() const { return !removed.empty() || !constants.empty(); }
};

// Errors: InvalidArgument if the graph has a cycle; Internal if rewiring
// fails (the graph is then unusable). A failed evaluation is not an error.
Status FoldConstants(Graph* graph, const std::unordered_set<std::string>& keep, int64_t max_constant_bytes,
                     ConstantFoldingResult* result);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PASSES_CONSTANT_FOLDING_H_
