#include "board/board_graph.h"

#include <cctype>
#include <iterator>
#include <set>

#include <nlohmann/json.hpp>

#include "flowvm/inspect.h"

namespace flowvm::board {

namespace {

// The fields a device name gives: "/job:ps/replica:0/task:1/device:CPU:0",
// any of them left out ("/job:ps/task:0", "/device:CPU:1", "/cpu:0").
std::map<std::string, std::string> DeviceFields(const std::string& name) {
  std::map<std::string, std::string> fields;
  size_t start = 0;
  while (start < name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    const std::string part = name.substr(start, end - start);
    start = end + 1;
    const size_t colon = part.find(':');
    if (colon == std::string::npos) continue;
    std::string key = part.substr(0, colon), value = part.substr(colon + 1);
    if (key == "device") {
      const size_t c = value.find(':');
      fields["type"] = value.substr(0, c);
      if (c != std::string::npos) fields["index"] = value.substr(c + 1);
    } else if (key == "job" || key == "replica" || key == "task") {
      fields[key] = value;
    } else {  // the legacy "/cpu:0"
      for (char& ch : key) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
      fields["type"] = key;
      fields["index"] = value;
    }
  }
  for (auto it = fields.begin(); it != fields.end();)
    it = it->second.empty() || it->second == "*" ? fields.erase(it) : std::next(it);
  return fields;
}

}  // namespace

std::string ResolveRequestedDevice(const std::string& requested, const std::set<std::string>& placed) {
  if (requested.empty()) return requested;
  const std::map<std::string, std::string> want = DeviceFields(requested);
  if (want.empty()) return requested;
  const std::string* match = nullptr;
  for (const std::string& device : placed) {
    const std::map<std::string, std::string> have = DeviceFields(device);
    bool all = true;
    for (const auto& [key, value] : want) {
      auto it = have.find(key);
      all = all && it != have.end() && it->second == value;
    }
    if (!all) continue;
    if (match != nullptr) return requested;  // ambiguous: say what was asked
    match = &device;
  }
  return match != nullptr ? *match : requested;
}

std::string GraphToJson(const std::string& source, const GraphDef& graph,
                        const std::map<std::string, std::string>& placement) {
  using Json = nlohmann::ordered_json;
  const GraphReport report = InspectGraph(graph);
  Json nodes = Json::array();
  // Nodes the traced step did not run (initializers, the saver) keep their
  // requested device; where it names one device the step ran on, that one,
  // so that the legend lists each device once.
  std::set<std::string> placed_devices;
  for (const auto& [node, device] : placement) placed_devices.insert(device);
  std::set<std::string> devices;
  for (const NodeReport& n : report.nodes) {
    auto placed = placement.find(n.name);
    const std::string device =
        placed != placement.end() ? placed->second : ResolveRequestedDevice(n.device, placed_devices);
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
