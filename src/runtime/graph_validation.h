// The checks a session makes before it accepts a graph (Create, Extend):
// the graph converts (ops, attrs, types, edges, no cycles), its static
// shapes infer, and every node has somewhere to run: a device that matches
// its requested device string (well-formed, naming a device that exists,
// unless soft placement lets it go elsewhere) and has a kernel for it.
// Errors name the node, the device string and the devices tried.
#ifndef FLOWVM_RUNTIME_GRAPH_VALIDATION_H_
#define FLOWVM_RUNTIME_GRAPH_VALIDATION_H_

#include <vector>

#include "flowvm/graph.pb.h"
#include "flowvm/status.h"
#include "runtime/placer.h"

namespace flowvm {

Status ValidateGraphForDevices(const GraphDef& def, const std::vector<PlacementDevice>& devices,
                               bool allow_soft_placement);

// The device part of the check for one node (attr defaults filled in).
Status CheckNodeHasDevice(const NodeDef& node, const std::vector<PlacementDevice>& devices,
                          bool allow_soft_placement);

// Descriptions of /job:localhost/replica:0/task:0/device:CPU:0 .. n-1, the
// devices of an in-process session.
std::vector<PlacementDevice> LocalCpuDevices(int n);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_GRAPH_VALIDATION_H_
