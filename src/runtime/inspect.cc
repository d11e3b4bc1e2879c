#include "flowvm/inspect.h"

#include <algorithm>
#include <set>

#include "graph/attr_value_util.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "kernels/framework/kernel_registry.h"
#include "runtime/graph_validation.h"
#include "runtime/partition.h"
#include "runtime/passes/function_inlining.h"
#include "runtime/placer.h"

namespace flowvm {

Status ValidateGraphDef(const GraphDef& def) { return ValidateGraphForDevices(def, LocalCpuDevices(1), false); }

GraphReport InspectGraph(const GraphDef& def, const SessionOptions& options) {
  const std::vector<PlacementDevice> devices = LocalCpuDevices(std::max(1, options.cpu_devices));
  GraphReport report;
  report.producer_version = def.versions().producer();
  FunctionLibraryDefinition library;
  if (Status s = library.AddLibrary(def.library()); !s.ok()) report.errors.push_back(s);
  std::set<std::string> seen;
  // Per-node checks first, so that one bad node does not hide the others.
  for (const NodeDef& nd : def.node()) {
    NodeReport r;
    r.name = nd.name();
    r.op = nd.op();
    r.device = nd.device();
    r.inputs.assign(nd.input().begin(), nd.input().end());
    NodeDef filled = nd;
    auto reg = library.LookUpOp(nd.op());
    if (!reg.ok()) {
      report.errors.push_back(AttachNode(reg.status(), nd));
    } else {
      AddDefaultsToNodeDef((*reg)->op_def, &filled);
      Status s = ValidateNodeDef(filled, (*reg)->op_def);
      if (!s.ok()) report.errors.push_back(AttachNode(s, nd));
      else if (ReplacedBeforePlacement(library, nd.op())) {
        // A function call: its body's nodes are placed after inlining.
      } else if (Status k = CheckNodeHasDevice(filled, devices, options.allow_soft_placement); !k.ok()) {
        report.errors.push_back(k);
      }
    }
    if (!seen.insert(nd.name()).second)
      report.errors.push_back(errors::InvalidArgument(NodeLabel(nd), ": a node with this name already exists"));
    std::vector<std::string> names;
    for (const auto& [name, _] : filled.attr()) names.push_back(name);
    std::sort(names.begin(), names.end());
    for (const auto& name : names) r.attrs.emplace_back(name, SummarizeAttrValue(filled.attr().at(name)));
    report.nodes.push_back(std::move(r));
  }
  if (!report.errors.empty()) return report;
  // Edges, cycles and shapes need the whole graph.
  Graph graph;
  Status s = ConvertGraphDefToGraph(def, &graph);
  if (!s.ok()) {
    report.errors.push_back(s);
    return report;
  }
  ShapeRefiner refiner;
  Status shapes = refiner.InferAll(graph);
  if (!shapes.ok()) report.errors.push_back(shapes);
  for (NodeReport& r : report.nodes) {
    Node* n = graph.FindNode(r.name);
    if (n == nullptr) continue;
    const auto& out_shapes = refiner.OutputShapes(n->id());
    for (int i = 0; i < n->num_outputs(); ++i) {
      std::string out = DataTypeName(n->output_type(i));
      if (i < static_cast<int>(out_shapes.size())) out += " " + out_shapes[i].DebugString();
      r.outputs.push_back(out);
    }
  }
  return report;
}

StatusOr<PlacementReport> InspectPlacement(const GraphDef& def, const SessionOptions& options) {
  if (options.cpu_devices < 1) return errors::InvalidArgument("cpu_devices must be >= 1, got ", options.cpu_devices);
  const std::vector<PlacementDevice> devices = LocalCpuDevices(options.cpu_devices);
  FLOWVM_RETURN_IF_ERROR(ValidateGraphForDevices(def, devices, options.allow_soft_placement));
  Graph graph;
  FLOWVM_RETURN_IF_ERROR(ConvertGraphDefToGraph(def, &graph));
  PlacerOptions placer_options;
  placer_options.allow_soft_placement = options.allow_soft_placement;
  std::vector<NodePlacement> placements;
  FLOWVM_RETURN_IF_ERROR(PlaceGraph(&graph, devices, placer_options, &placements));
  PlacementReport report;
  for (const PlacementDevice& d : devices) report.devices.push_back(d.name);
  for (const NodePlacement& p : placements) {
    const Node* n = graph.FindNode(p.node);
    report.nodes.push_back({p.node, n == nullptr ? "" : n->op(), p.device, p.reason});
  }
  FLOWVM_ASSIGN_OR_RETURN(int reads, AddCrossDeviceReads(&graph));
  (void)reads;
  PartitionOptions partition_options;
  partition_options.schedule_recvs = false;
  Partitions parts;
  FLOWVM_RETURN_IF_ERROR(PartitionGraph(graph, partition_options, &parts));
  report.transfers = std::move(parts.transfers);
  return report;
}

}  // namespace flowvm
