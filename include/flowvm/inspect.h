// InspectGraph: what `flowvm inspect` prints. Lists every node with its op,
// inputs, requested device, attrs (defaults filled in) and, where they can be
// inferred, output types and shapes; collects every validation error it can
// find, each naming its node, instead of stopping at the first.
#ifndef FLOWVM_INSPECT_H_
#define FLOWVM_INSPECT_H_

#include <string>
#include <utility>
#include <vector>

#include "flowvm/graph.pb.h"
#include "flowvm/status.h"

namespace flowvm {

struct NodeReport {
  std::string name;
  std::string op;
  std::string device;
  std::vector<std::string> inputs;
  std::vector<std::pair<std::string, std::string>> attrs;  // name, rendered value
  std::vector<std::string> outputs;                        // "float [?,3]"
};

struct GraphReport {
  std::vector<NodeReport> nodes;
  std::vector<Status> errors;  // empty if the graph is valid
  int producer_version = 0;
};

GraphReport InspectGraph(const GraphDef& graph);

// The first error of the full validation a Session does, or OK.
Status ValidateGraphDef(const GraphDef& graph);

}  // namespace flowvm

#endif  // FLOWVM_INSPECT_H_
