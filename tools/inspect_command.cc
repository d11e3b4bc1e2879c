// `flowvm inspect`: list a graph's nodes and report what is wrong with it;
// with --placement, say where a session would run each node and why.
#include <cstdio>

#include "cli_args.h"
#include "commands.h"
#include "flowvm/graph_io.h"
#include "flowvm/inspect.h"

namespace flowvm::cli {

namespace {

// Device names without the part every device of a local session shares.
std::string Short(const std::string& device) {
  const std::string local = "/job:localhost/replica:0/task:0/device:";
  return device.rfind(local, 0) == 0 ? device.substr(local.size()) : device;
}

Status PrintPlacement(const std::string& path, const GraphDef& graph, const SessionOptions& options) {
  FLOWVM_ASSIGN_OR_RETURN(PlacementReport report, InspectPlacement(graph, options));
  std::printf("%s: %zu nodes on %zu device%s", path.c_str(), report.nodes.size(), report.devices.size(),
              report.devices.size() == 1 ? "" : "s");
  for (size_t i = 0; i < report.devices.size(); ++i) std::printf("%s%s", i ? ", " : " (", report.devices[i].c_str());
  std::printf(")\n");
  for (const auto& n : report.nodes)
    std::printf("%s (%s) -> %s: %s\n", n.node.c_str(), n.op.c_str(), Short(n.device).c_str(), n.reason.c_str());
  if (report.transfers.empty()) {
    std::printf("no transfers between devices\n");
  } else {
    std::printf("%zu transfer%s (a _Send/_Recv pair each):\n", report.transfers.size(),
                report.transfers.size() == 1 ? "" : "s");
    for (const std::string& t : report.transfers) std::printf("  %s\n", t.c_str());
  }
  return Status::OK();
}

}  // namespace

Status InspectCommand(const std::vector<std::string>& raw) {
  FLOWVM_ASSIGN_OR_RETURN(ParsedArgs args,
                          ParseArgs(raw, {"--cpu-devices"}, {"-v", "--placement", "--soft-placement"}));
  if (args.positional.size() != 1)
    return errors::InvalidArgument("usage: flowvm inspect GRAPH [--placement] (one graph file, got ",
                                   args.positional.size(), ")");
  FLOWVM_ASSIGN_OR_RETURN(GraphDef graph, ReadGraphDefFile(args.positional[0]));
  SessionOptions options;
  FLOWVM_ASSIGN_OR_RETURN(int64_t devices, ParseCount("--cpu-devices", args.last("--cpu-devices", "1")));
  if (devices < 1) return errors::InvalidArgument("--cpu-devices must be at least 1");
  options.cpu_devices = static_cast<int>(devices);
  options.allow_soft_placement = args.has("--soft-placement");
  if (args.has("--placement")) return PrintPlacement(args.positional[0], graph, options);
  GraphReport report = InspectGraph(graph, options);
  std::printf("%s: %zu nodes, producer version %d\n", args.positional[0].c_str(), report.nodes.size(),
              report.producer_version);
  for (const NodeReport& n : report.nodes) {
    std::printf("%s = %s(", n.name.c_str(), n.op.c_str());
    for (size_t i = 0; i < n.inputs.size(); ++i) std::printf("%s%s", i ? ", " : "", n.inputs[i].c_str());
    std::printf(")");
    if (!n.device.empty()) std::printf(" on %s", n.device.c_str());
    if (!n.outputs.empty()) {
      std::printf(" -> ");
      for (size_t i = 0; i < n.outputs.size(); ++i) std::printf("%s%s", i ? ", " : "", n.outputs[i].c_str());
    }
    std::printf("\n");
    for (const auto& [name, value] : n.attrs) {
      if (!args.has("-v") && name == "value" && value.size() > 120)
        std::printf("    %s: %.117s...\n", name.c_str(), value.c_str());
      else
        std::printf("    %s: %s\n", name.c_str(), value.c_str());
    }
  }
  if (report.errors.empty()) {
    std::printf("valid: every node has a registered op and kernel, attrs, types, edges and shapes check\n");
    return Status::OK();
  }
  for (const Status& s : report.errors) std::printf("error: %s\n", s.ToString().c_str());
  std::fflush(stdout);
  Status first = report.errors.front();
  if (report.errors.size() > 1)
    return first.WithContext(std::to_string(report.errors.size()) + " errors; the first");
  return first;
}

}  // namespace flowvm::cli
