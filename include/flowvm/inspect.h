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
#include "flowvm/session.h"
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

// Devices are checked as a session with `options` would (cpu_devices,
// allow_soft_placement).
GraphReport InspectGraph(const GraphDef& graph, const SessionOptions& options = SessionOptions());

// The first error of the full validation a default in-process Session
// (one CPU device, no soft placement) does, or OK.
Status ValidateGraphDef(const GraphDef& graph);

// Where a session with `options` would put every node of the graph (all of
// it, before pruning and optimization), why, and the transfers between
// devices that placement implies: `flowvm inspect --placement`.
struct PlacementReport {
  std::vector<std::string> devices;  // the session's devices
  struct Line {
    std::string node, op, device, reason;
  };
  std::vector<Line> nodes;                // in graph order
  std::vector<std::string> transfers;     // "a:0 CPU:0 -> CPU:1 (2 consumers)"
};
StatusOr<PlacementReport> InspectPlacement(const GraphDef& graph, const SessionOptions& options);

}  // namespace flowvm

#endif  // FLOWVM_INSPECT_H_
