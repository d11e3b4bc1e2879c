// PreparedStep: everything one Run signature (feeds, fetches, targets)
// needs, built once and cached by the session (DESIGN.md "One step, end to
// end", step 2): the graph rewritten for the feeds and fetches and pruned,
// optimized, placed, partitioned per device with Send/Recv pairs, and one
// executor per partition. Immutable once built; shared by concurrent steps.
#ifndef FLOWVM_RUNTIME_PREPARED_STEP_H_
#define FLOWVM_RUNTIME_PREPARED_STEP_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "flowvm/session.h"
#include "runtime/cost_model.h"
#include "runtime/device.h"
#include "runtime/executor.h"
#include "runtime/feed_fetch_rewrite.h"
#include "runtime/placer.h"

namespace flowvm {

// The graph work of one signature, up to the partition graphs: what a
// local session turns into executors and a cluster's master registers with
// its workers.
struct StepPlan {
  std::vector<FeedSpec> feeds;
  std::vector<std::string> pruned;
  int num_fetches = 0;
  int graph_nodes = 0;     // nodes of the session's graph
  int executed_nodes = 0;  // nodes of all partitions
  // For `-v` (RunStats) and RunMetadata.partition_graphs.
  std::vector<std::string> optimizations, placement, transfers, scheduled_recvs;
  // Full device name -> its partition (nodes carry their device).
  std::map<std::string, GraphDef> partitions;
  // Stateful nodes and the devices they got (the session pins them).
  std::map<std::string, std::string> stateful_placements;
};

struct PlanInputs {
  const GraphDef* graph = nullptr;
  std::vector<PlacementDevice> devices;
  // Placement lines name devices of this task by their local name ("CPU:1").
  std::string local_task;
  // The incarnation of a device, by full name (for rendezvous keys).
  std::function<uint64_t(const std::string& device)> incarnation;
  const SessionOptions* options = nullptr;
  const CostModel* cost_model = nullptr;
  const std::map<std::string, std::string>* pinned = nullptr;  // stateful placements so far
};

// Rewrites for the signature, prunes, optimizes, places over `devices` and
// partitions (DESIGN.md, step 2 a-e).
StatusOr<StepPlan> PlanStep(const PlanInputs& in, const std::vector<std::string>& feeds,
                            const std::vector<std::string>& fetches, const std::vector<std::string>& targets);

struct PreparedStep {
  struct Partition {
    Device* device = nullptr;
    // The partition's functions (null if it calls none); declared before
    // the executor, whose kernels point to it, so it goes after them.
    std::shared_ptr<FunctionLibraryRuntime> functions;
    std::unique_ptr<Executor> executor;
  };
  std::vector<Partition> partitions;
  std::vector<FeedSpec> feeds;
  std::vector<std::string> pruned;
  int num_fetches = 0;
  int graph_nodes = 0;     // nodes of the session's graph
  int executed_nodes = 0;  // nodes of all partitions
  double prepare_ms = 0;
  // For `-v` (RunStats) and RunMetadata.partition_graphs.
  std::vector<std::string> optimizations, placement, transfers, scheduled_recvs;
  std::vector<GraphDef> partition_graphs;
  // Stateful nodes and the devices they got (the session pins them).
  std::map<std::string, std::string> stateful_placements;
};

struct PrepareInputs {
  const GraphDef* graph = nullptr;
  const DeviceMgr* devices = nullptr;
  const SessionOptions* options = nullptr;
  const CostModel* cost_model = nullptr;
  const std::map<std::string, std::string>* pinned = nullptr;  // stateful placements so far
};

StatusOr<std::unique_ptr<PreparedStep>> PrepareStep(const PrepareInputs& in, const std::vector<std::string>& feeds,
                                                    const std::vector<std::string>& fetches,
                                                    const std::vector<std::string>& targets);

// The devices of a DeviceMgr as the placer sees them.
std::vector<PlacementDevice> DescribeDevices(const DeviceMgr& devices);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PREPARED_STEP_H_
