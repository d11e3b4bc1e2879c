#include "runtime/prepared_step.h"

#include <chrono>
#include <set>
#include <unordered_set>

#include "graph/graph.h"
#include "runtime/function_runtime.h"
#include "runtime/graph_optimizer.h"
#include "runtime/partition.h"
#include "runtime/passes/function_inlining.h"

namespace flowvm {

namespace {

// The runtime's own stateful nodes are made anew for every step; only the
// user's stateful nodes (variables, random ops, ...) keep their device.
bool PinsDevice(const Node* n) {
  const std::string& op = n->op();
  return n->is_stateful() && op != "_Arg" && op != "_Retval" && op != "_Send" && op != "_Recv";
}

}  // namespace

std::vector<PlacementDevice> DescribeDevices(const DeviceMgr& devices) {
  std::vector<PlacementDevice> out;
  for (const Device* d : devices.devices()) out.push_back({d->name(), d->parsed_name(), d->device_type()});
  return out;
}

StatusOr<StepPlan> PlanStep(const PlanInputs& in, const std::vector<std::string>& feeds,
                            const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
  StepPlan plan;
  auto graph = std::make_unique<Graph>();
  FLOWVM_RETURN_IF_ERROR(ConvertGraphDefToGraph(*in.graph, graph.get()));
  plan.graph_nodes = graph->num_nodes();

  RewriteResult rewrite;
  FLOWVM_RETURN_IF_ERROR(RewriteGraphForRun(graph.get(), feeds, fetches, targets, &rewrite));
  plan.feeds = std::move(rewrite.feeds);
  plan.pruned = std::move(rewrite.pruned);
  plan.num_fetches = static_cast<int>(fetches.size());

  // Function calls become their bodies, so that placement and partitioning
  // treat them like any other nodes (white paper section 10).
  FunctionInliningReport inlining;
  FLOWVM_RETURN_IF_ERROR(InlineFunctionCalls(graph.get(), &inlining));
  plan.optimizations = inlining.lines;

  // Optimization passes (paper 5.1) on the pruned graph, before placement.
  // The step's own feed and fetch nodes and its targets stay as they are.
  std::unordered_set<std::string> keep;
  for (const std::string& t : targets) keep.insert(!t.empty() && t[0] == '^' ? t.substr(1) : t);
  for (Node* n : graph->nodes())
    if (n->op() == "_Arg" || n->op() == "_Retval") keep.insert(n->name());
  GraphOptimizerReport report;
  FLOWVM_RETURN_IF_ERROR(OptimizeGraph(graph.get(), in.options->optimizer, keep, &report));
  plan.optimizations.insert(plan.optimizations.end(), report.lines.begin(), report.lines.end());

  PlacerOptions placer_options;
  placer_options.allow_soft_placement = in.options->allow_soft_placement;
  placer_options.pinned = in.pinned;
  placer_options.cost_model = in.cost_model;
  std::vector<NodePlacement> placements;
  FLOWVM_RETURN_IF_ERROR(PlaceGraph(graph.get(), in.devices, placer_options, &placements));
  for (const NodePlacement& p : placements) {
    auto parsed = ParseDeviceName(p.device);
    const std::string where =
        parsed.ok() && DeviceTaskName(*parsed) == in.local_task ? DeviceLocalName(*parsed) : p.device;
    plan.placement.push_back(p.node + " -> " + where + " (" + p.reason + ")");
  }
  for (Node* n : graph->nodes())
    if (PinsDevice(n)) plan.stateful_placements[n->name()] = n->assigned_device();

  FLOWVM_ASSIGN_OR_RETURN(int reads, AddCrossDeviceReads(graph.get()));
  if (reads > 0)
    plan.transfers.push_back(std::to_string(reads) + " variable read" + (reads == 1 ? "" : "s") +
                             " across devices made an Identity on the variable's device (it reads when the reader "
                             "would have)");
  PartitionOptions partition_options;
  partition_options.schedule_recvs = in.options->schedule_recvs;
  partition_options.cost_model = in.cost_model;
  partition_options.incarnation = in.incarnation;
  Partitions parts;
  FLOWVM_RETURN_IF_ERROR(PartitionGraph(*graph, partition_options, &parts));
  plan.transfers.insert(plan.transfers.end(), parts.transfers.begin(), parts.transfers.end());
  plan.scheduled_recvs = std::move(parts.scheduled);
  for (const auto& [device, def] : parts.graphs) plan.executed_nodes += def.node_size();
  // The functions kernels still call (datasets' functions, recursive
  // calls) travel with the partitions that use them.
  std::set<std::string> called;
  for (const auto& [device, def] : parts.graphs)
    for (const NodeDef& n : def.node())
      for (std::string& f : graph->library().CalledFunctions(n)) called.insert(std::move(f));
  if (!called.empty()) {
    FunctionDefLibrary library;
    graph->library().ReachableProto(called, &library);
    for (auto& [device, def] : parts.graphs) *def.mutable_library() = library;
  }
  plan.partitions = std::move(parts.graphs);
  return plan;
}

StatusOr<std::unique_ptr<PreparedStep>> PrepareStep(const PrepareInputs& in, const std::vector<std::string>& feeds,
                                                    const std::vector<std::string>& fetches,
                                                    const std::vector<std::string>& targets) {
  const auto start = std::chrono::steady_clock::now();
  PlanInputs plan_in;
  plan_in.graph = in.graph;
  plan_in.devices = DescribeDevices(*in.devices);
  if (in.devices->size() > 0) plan_in.local_task = DeviceTaskName(in.devices->devices()[0]->parsed_name());
  plan_in.incarnation = [&](const std::string& name) -> uint64_t {
    auto d = in.devices->Lookup(name);
    return d.ok() ? (*d)->incarnation() : 0;
  };
  plan_in.options = in.options;
  plan_in.cost_model = in.cost_model;
  plan_in.pinned = in.pinned;
  FLOWVM_ASSIGN_OR_RETURN(StepPlan plan, PlanStep(plan_in, feeds, fetches, targets));

  auto step = std::make_unique<PreparedStep>();
  step->feeds = std::move(plan.feeds);
  step->pruned = std::move(plan.pruned);
  step->num_fetches = plan.num_fetches;
  step->graph_nodes = plan.graph_nodes;
  step->optimizations = std::move(plan.optimizations);
  step->placement = std::move(plan.placement);
  step->transfers = std::move(plan.transfers);
  step->scheduled_recvs = std::move(plan.scheduled_recvs);
  step->stateful_placements = std::move(plan.stateful_placements);
  for (auto& [device_name, def] : plan.partitions) {
    FLOWVM_ASSIGN_OR_RETURN(Device * device, in.devices->Lookup(device_name));
    auto part_graph = std::make_unique<Graph>();
    part_graph->set_allow_internal_names(true);
    Status s = ConvertGraphDefToGraph(def, part_graph.get());
    if (!s.ok()) return s.WithContext("partition for " + device_name);
    step->executed_nodes += part_graph->num_nodes();
    ExecutorOptions exec_options;
    exec_options.device = device;
    exec_options.pool = device->thread_pool();
    PreparedStep::Partition p;
    p.device = device;
    if (!part_graph->library().empty()) {
      p.functions = DeviceFunctionRuntime::Create(device, part_graph->shared_library());
      exec_options.function_library = p.functions.get();
    }
    FLOWVM_ASSIGN_OR_RETURN(p.executor, Executor::Create(std::move(part_graph), exec_options));
    step->partitions.push_back(std::move(p));
    step->partition_graphs.push_back(std::move(def));
  }
  step->prepare_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return step;
}

}  // namespace flowvm
