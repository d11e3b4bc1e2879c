// The /api/graph JSON of a GraphDef (tools/board/API.md): every node with
// its op, inputs, attrs and inferred outputs (InspectGraph, as `flowvm
// inspect` shows them), the device it ran on where placement is known, and
// the graph's validation errors as strings (the graph is shown anyway).
#ifndef FLOWVM_TOOLS_BOARD_BOARD_GRAPH_H_
#define FLOWVM_TOOLS_BOARD_BOARD_GRAPH_H_

#include <map>
#include <set>
#include <string>

#include "flowvm/graph.pb.h"

namespace flowvm::board {

// `source` is the run name or the --graph file's base name; `placement`
// maps node names to the devices they ran on (empty if unknown). Attr values
// longer than kMaxAttrChars are cut short with "...". Pure; may take a
// while on a large graph (shape inference), so callers cache the result.
inline constexpr size_t kMaxAttrChars = 1024;
std::string GraphToJson(const std::string& source, const GraphDef& graph,
                        const std::map<std::string, std::string>& placement);

// The one device of `placed` that a requested device name (any fields left
// out, e.g. "/job:ps/task:0") names; `requested` itself if none or several.
std::string ResolveRequestedDevice(const std::string& requested, const std::set<std::string>& placed);

}  // namespace flowvm::board

#endif  // FLOWVM_TOOLS_BOARD_BOARD_GRAPH_H_
