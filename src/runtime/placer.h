// Placer: gives every node of a step's graph a device (paper 3.2 and 4.3).
//
//  1. Feasible devices per node: those whose type has a kernel for it and
//     that match the node's requested device (any part may be left out:
//     "/job:ps", "/device:CPU:1").
//  2. Colocation groups: a node's `_class` attr ("loc:@other") and every
//     reference input (refs cannot cross devices) put nodes in one group,
//     whose requests are merged and whose feasible sets are intersected.
//     Nodes a session pinned earlier (stateful nodes keep their device for
//     the session's life) are requests that cannot be relaxed.
//  3. Groups left with one device get it, and so do groups holding state
//     (a variable: a node with a reference or resource output) that asked
//     for no device: they take the first device they may use, so that the
//     device a variable lives on never depends on which step ran first.
//     The rest are placed by the paper's greedy simulation: nodes are
//     taken in the order they would become ready, and each goes to the
//     device where it would finish soonest, counting the device's queue,
//     its compute time there and the transfers of its inputs
//     (runtime/cost_model.h). A cheap source node feeding a single
//     consumer follows that consumer.
//
// Control-flow nodes go where TensorFlow's partitioner puts them,
// whatever they requested: a NextIteration beside its Merge (a back edge
// cannot cross devices), and, when nothing else ties them, a Switch beside
// its data input, an Exit beside its input and a non-reference Enter
// beside its first consumer (through chains of such nodes). They join
// that node's group in step 2; their requests are checked (a device that
// does not exist is still an error) but do not place the group. The
// partitioner builds the control loops a loop spread over devices needs
// (runtime/partition.h). The placement line of a node whose request gave
// way says what it followed.
//
// Unsatisfiable constraints are InvalidArgument naming the nodes, their
// requests and the devices tried; with soft placement, a request that no
// device can honour is dropped (the node still needs a kernel somewhere).
// Devices are descriptions, not Device objects, so the distributed master
// places over the devices of a whole cluster with the same code.
#ifndef FLOWVM_RUNTIME_PLACER_H_
#define FLOWVM_RUNTIME_PLACER_H_

#include <map>
#include <string>
#include <vector>

#include "flowvm/status.h"
#include "graph/device_name.h"
#include "graph/graph.h"
#include "runtime/cost_model.h"

namespace flowvm {

struct PlacementDevice {
  std::string name;  // full name
  DeviceNameParts parsed;
  std::string type;  // "CPU", "GPU"
};

struct PlacerOptions {
  bool allow_soft_placement = false;
  // node name -> full device name: these nodes must go there (a session's
  // stateful nodes keep the device they first got). May be null.
  const std::map<std::string, std::string>* pinned = nullptr;
  // Null: the default static estimates.
  const CostModel* cost_model = nullptr;
};

struct NodePlacement {
  std::string node;
  std::string device;
  // Why: "requested /device:CPU:1", "colocated with w (reference input)",
  // "cost model: ...", "only feasible device", "kept from an earlier step",
  // "beside x, its data input: a Switch runs where ... gives way".
  std::string reason;
};

// Sets every node's assigned device and appends one NodePlacement per node
// (in node id order) to `placements` (may be null).
Status PlaceGraph(Graph* graph, const std::vector<PlacementDevice>& devices, const PlacerOptions& options,
                  std::vector<NodePlacement>* placements);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PLACER_H_
