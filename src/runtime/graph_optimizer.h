// Graph optimization passes (paper section 5.1), run by the session on the
// pruned graph of one Run signature, before placement: common subexpression
// elimination, constant folding, CSE again if folding changed something (two
// folded constants may now be equal), then removal of Identity and NoOp
// relays. Each pass leaves a valid graph that computes the same fetched
// values and performs the same stateful operations; see the pass headers in
// runtime/passes/ for what each one does and refuses to do.
#ifndef FLOWVM_RUNTIME_GRAPH_OPTIMIZER_H_
#define FLOWVM_RUNTIME_GRAPH_OPTIMIZER_H_

#include <cstdint>
#include <string>
#include <unordered_set>
#include <vector>

#include "flowvm/status.h"
#include "flowvm/session.h"
#include "graph/graph.h"

namespace flowvm {

// The passes to run and their limits: SessionOptions::optimizer
// (flowvm/session.h), the same struct users set.
using GraphOptimizerOptions = OptimizerOptions;

// What the passes did, for `flowvm run -v`: one line per pass that changed
// something, e.g.
//   "common subexpression elimination: merged 2 nodes (b into a, d into c)"
//   "constant folding: replaced 3 nodes with 1 constant (c/_folded_0)"
//   "identity removal: removed 1 Identity and 1 NoOp (i, n)"
// Each list names the first 10, then "...".
struct GraphOptimizerReport {
  std::vector<std::string> lines;
  int merged = 0;   // nodes removed by CSE (both runs)
  int folded = 0;   // nodes removed by constant folding
  int removed = 0;  // Identity and NoOp nodes removed
};

// `keep`: names of nodes that must survive unchanged (the step's _Arg and
// _Retval nodes, its targets, anything the caller needs by name). `report`
// may be null. Errors: InvalidArgument if the graph has a cycle; Internal if
// a pass could not rewire it. After an error the graph must not be used.
Status OptimizeGraph(Graph* graph, const GraphOptimizerOptions& options, const std::unordered_set<std::string>& keep,
                     GraphOptimizerReport* report);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_GRAPH_OPTIMIZER_H_
