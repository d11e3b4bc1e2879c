// `flowvm inspect`: list a graph's nodes and report what is wrong with it.
#include <cstdio>

#include "cli_args.h"
#include "commands.h"
#include "flowvm/graph_io.h"
#include "flowvm/inspect.h"

namespace flowvm::cli {

Status InspectCommand(const std::vector<std::string>& raw) {
  FLOWVM_ASSIGN_OR_RETURN(ParsedArgs args, ParseArgs(raw, {}, {"-v"}));
  if (args.positional.size() != 1)
    return errors::InvalidArgument("usage: flowvm inspect GRAPH (one graph file, got ", args.positional.size(), ")");
  FLOWVM_ASSIGN_OR_RETURN(GraphDef graph, ReadGraphDefFile(args.positional[0]));
  GraphReport report = InspectGraph(graph);
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
