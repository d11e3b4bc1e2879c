// Partitioning (paper 3.2, Figure 4): cuts a placed graph into one GraphDef
// per device. Every data edge between devices becomes a _Send on the
// source's device and a _Recv on the destination's, with exactly one
// _Recv per (tensor, destination device) however many consumers the tensor
// has there. A control edge between devices travels as a small dummy
// tensor (a Const made after the source) whose _Recv becomes the control
// input of the destination node.
//
// Names: the _Send of tensor "a:1" to CPU:1 is "_send_a_1_to_CPU_1", its
// _Recv "_recv_a_1"; a control dummy is "_ctrl_a_to_CPU_1" and its _Recv
// "_recv_ctrl_a". The rendezvous tensor_name is the tensor's own name
// ("a:1", or "^a" for a control edge), with the source device's
// incarnation in every key (kernels/framework/rendezvous.h).
//
// Loops (paper 4.4): a loop whose nodes are on several devices gets a
// control loop on each (named "_loop<N>_<frame>/..."), driven by the
// loop's LoopCond value, and every Recv inside the loop waits for its
// device's control loop, so each device runs the loop's iterations in step
// and sees it end without a coordinator. A loop's back edge (NextIteration
// -> Merge) cannot cross devices (InvalidArgument): the placer keeps the
// two together, and moves the loop's other control-flow nodes where
// TensorFlow's partitioner would (runtime/placer.h).
//
// Recv scheduling (paper 5.2): a _Recv that nothing needs until late in the
// step would otherwise fire at its start and keep its tensor (and what its
// consumers make of it) alive all step. With `schedule_recvs`, each _Recv
// gets a control edge from the node of its partition that the static cost
// estimate finishes just before the Recv's latest start (ALAP), chosen so
// that no cycle, and so no deadlock, can arise. (Not in graphs with control
// flow: such an edge could join frames.)
#ifndef FLOWVM_RUNTIME_PARTITION_H_
#define FLOWVM_RUNTIME_PARTITION_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "flowvm/graph.pb.h"
#include "flowvm/status.h"
#include "graph/graph.h"
#include "runtime/cost_model.h"

namespace flowvm {

struct PartitionOptions {
  // The incarnation of a device, by full name (for rendezvous keys).
  std::function<uint64_t(const std::string& device)> incarnation;
  bool schedule_recvs = true;
  const CostModel* cost_model = nullptr;  // null: default estimates
};

struct Partitions {
  // Full device name -> that device's subgraph (nodes carry their device).
  std::map<std::string, GraphDef> graphs;
  // One line per transfer: "a:1 CPU:0 -> CPU:1 (2 consumers)".
  std::vector<std::string> transfers;
  // One line per scheduled Recv: "_recv_a_1 waits for c3 (ALAP ...)".
  std::vector<std::string> scheduled;
};

// REQUIRES: every node has an assigned device (see runtime/placer.h).
Status PartitionGraph(const Graph& graph, const PartitionOptions& options, Partitions* out);

// On one device a node that reads a variable by value (a reference output
// into a value input) reads it when it runs, after all its inputs. A _Send
// would read it as soon as the variable is there, possibly before an update
// the reader waits for. So before partitioning, each such read that crosses
// devices becomes an Identity on the variable's device that waits (control
// edges) for the reader's other inputs, and the reader gets its value.
// Returns how many reads were added. REQUIRES: placed.
StatusOr<int> AddCrossDeviceReads(Graph* graph);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PARTITION_H_
