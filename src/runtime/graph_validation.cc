#include "runtime/graph_validation.h"

#include "graph/graph.h"
#include "graph/shape_inference.h"
#include "kernels/framework/kernel_registry.h"
#include "runtime/passes/function_inlining.h"

namespace flowvm {

std::vector<PlacementDevice> LocalCpuDevices(int n) {
  std::vector<PlacementDevice> out;
  for (int i = 0; i < n; ++i) {
    PlacementDevice d;
    d.name = FullDeviceName("localhost", 0, 0, DEVICE_CPU, i);
    d.parsed = ParseDeviceName(d.name).value();
    d.type = DEVICE_CPU;
    out.push_back(std::move(d));
  }
  return out;
}

Status CheckNodeHasDevice(const NodeDef& node, const std::vector<PlacementDevice>& devices,
                          bool allow_soft_placement) {
  auto spec = ParseDeviceName(node.device());
  if (!spec.ok()) return AttachNode(spec.status(), node);
  std::vector<const PlacementDevice*> tried;
  for (const auto& d : devices)
    if (DeviceSpecMatches(*spec, d.parsed)) tried.push_back(&d);
  std::string all;
  for (const auto& d : devices) all += (all.empty() ? "" : ", ") + d.name;
  if (tried.empty() && !allow_soft_placement)
    return errors::InvalidArgument(NodeLabel(node), " requests device '", node.device(),
                                   "', which does not exist (devices: ", all,
                                   "); soft placement (--soft-placement) would place it elsewhere");
  for (const PlacementDevice* d : tried)
    if (HasKernel(d->type, node)) return Status::OK();
  if (allow_soft_placement) {
    tried.clear();
    for (const auto& d : devices) tried.push_back(&d);
    for (const PlacementDevice* d : tried)
      if (HasKernel(d->type, node)) return Status::OK();
  }
  // Nowhere to run: the registry's message for the first device type tried
  // says which types the node has and what is registered.
  std::string names;
  for (const PlacementDevice* d : tried) names += (names.empty() ? "" : ", ") + d->name;
  Status why = CheckKernelExists(tried.empty() ? DEVICE_CPU : tried[0]->type, node);
  return Status(why.ok() ? Code::kNotFound : why.code(),
                why.message() + "; no device it may be placed on can run it (tried: " + names + ")");
}

Status ValidateGraphForDevices(const GraphDef& def, const std::vector<PlacementDevice>& devices,
                               bool allow_soft_placement) {
  Graph graph;
  FLOWVM_RETURN_IF_ERROR(ConvertGraphDefToGraph(def, &graph));
  ShapeRefiner refiner;
  FLOWVM_RETURN_IF_ERROR(refiner.InferAll(graph));
  for (Node* n : graph.nodes()) {
    // A call of a function (an If, a While, ...) runs wherever its body's
    // nodes can, once it is inlined before placement: only the device
    // request is checked here.
    if (ReplacedBeforePlacement(graph.library(), n->op())) {
      auto spec = ParseDeviceName(n->requested_device());
      if (!spec.ok()) return AttachNode(spec.status(), n->def());
      continue;
    }
    FLOWVM_RETURN_IF_ERROR(CheckNodeHasDevice(n->def(), devices, allow_soft_placement));
  }
  return Status::OK();
}

}  // namespace flowvm
