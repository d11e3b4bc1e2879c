// The greedy part of the placer (paper 3.2): simulates one step with the
// cost model and gives each undecided colocation group the device where
// its first ready member would finish soonest. Internal to placer.cc.
#ifndef FLOWVM_RUNTIME_PLACEMENT_SIMULATOR_H_
#define FLOWVM_RUNTIME_PLACEMENT_SIMULATOR_H_

#include <string>
#include <vector>

#include "graph/graph.h"
#include "runtime/cost_model.h"
#include "runtime/placer.h"

namespace flowvm {

struct SimGroup {
  std::vector<int> candidates;  // device indices the group may use
  int assigned = -1;            // set on entry when decided, else by the simulation
};

// `group_of[node id]` is the node's group. Fills `assigned` of every group
// and, for the node whose simulation decided a group, a reason in
// `reasons[node id]` ("cost model: ...").
Status SimulatePlacement(const Graph& graph, const std::vector<PlacementDevice>& devices, const CostModel& model,
                         const std::vector<int>& group_of, std::vector<SimGroup>* groups,
                         std::vector<std::string>* reasons);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PLACEMENT_SIMULATOR_H_
