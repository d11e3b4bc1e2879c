#include "board/board_graph.h"

#include <set>

#include <nlohmann/json.hpp>

#include "flowvm/inspect.h"

namespace flowvm::board {

std::string GraphToJson(const std::string& source, const GraphDef& graph,
                        const std::map<std::string, std::string>& placement) {
  using Json = nlohmann::ordered_json;
  const GraphReport report = InspectGraph(graph);
  Json nodes = Json::array();
  std::set<std::string> devices;
  for (const NodeReport& n : report.nodes) {
    auto placed = placement.find(n.name);
    const std::string& device = placed != placement.end() ? placed->second : n.device;
    if (!device.empty()) devices.insert(device);
    Json attrs = Json::array();
    for (const auto& [name, value] : n.attrs)
      attrs.push_back({name, value.size() > kMaxAttrChars ? value.substr(0, kMaxAttrChars) + "..." : value});
    nodes.push_back({{"name", n.name},
                     {"op", n.op},
                     {"device", device},
                     {"requested_device", n.device},
                     {"inputs", n.inputs},
                     {"attrs", std::move(attrs)},
                     {"outputs", n.outputs}});
  }
  Json errors = Json::array();
  for (const Status& s : report.errors) errors.push_back(s.ToString());
  Json out = {{"source", source}, {"nodes", std::move(nodes)}, {"devices", devices}, {"errors", std::move(errors)}};
  // Names and attrs come from files: never let a stray byte make dump() throw.
  return out.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace flowvm::board
