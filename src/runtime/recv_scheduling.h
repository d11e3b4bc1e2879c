// Recv scheduling (paper 5.2), used by the partitioner: delays each _Recv
// until just before its consumers need it, by a control edge from a node of
// its partition (see runtime/partition.h). Internal to partition.cc.
#ifndef FLOWVM_RUNTIME_RECV_SCHEDULING_H_
#define FLOWVM_RUNTIME_RECV_SCHEDULING_H_

#include <map>
#include <string>
#include <vector>

#include "flowvm/graph.pb.h"
#include "graph/device_name.h"
#include "graph/graph.h"
#include "runtime/cost_model.h"

namespace flowvm {

// One _Recv the partitioner made.
struct RecvInfo {
  std::string recv;                      // its node name
  std::string device;                    // the partition it is in
  const Node* src = nullptr;             // the producer of the tensor
  std::vector<const Node*> consumers;    // the nodes on `device` that read it
};

// Adds the control inputs to the _Recv NodeDefs in `graphs` and one line per
// scheduled Recv to `lines`. `parsed` holds every assigned device, parsed.
Status ScheduleRecvs(const Graph& graph, const CostModel* model, const std::map<std::string, DeviceNameParts>& parsed,
                     const std::vector<RecvInfo>& recvs, std::map<std::string, GraphDef>* graphs,
                     std::vector<std::string>* lines);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_RECV_SCHEDULING_H_
