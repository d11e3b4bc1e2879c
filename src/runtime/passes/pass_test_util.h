// Test helpers for the graph optimization passes: build a Graph from
// NodeDefs, and run one step of a GraphDef the way the session does (rewrite
// for the signature, optionally optimize, execute on the CPU) so tests can
// compare the optimized step with the plain one.
#ifndef FLOWVM_RUNTIME_PASSES_PASS_TEST_UTIL_H_
#define FLOWVM_RUNTIME_PASSES_PASS_TEST_UTIL_H_

#include <algorithm>
#include <memory>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "graph/graph.h"
#include "kernels/framework/call_frame.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/resource_mgr.h"
#include "runtime/executor.h"
#include "runtime/feed_fetch_rewrite.h"
#include "runtime/graph_optimizer.h"
#include "util/op_test_util.h"

namespace flowvm::testing {

inline NodeDef Binary(const std::string& name, const std::string& op, const std::string& a, const std::string& b,
                      DataType t = DT_FLOAT) {
  return TestNode(name, op).Input(a).Input(b).Attr("T", t);
}
inline NodeDef Unary(const std::string& name, const std::string& op, const std::string& x, DataType t = DT_FLOAT) {
  return TestNode(name, op).Input(x).Attr("T", t);
}
// A float Placeholder of unknown shape.
inline NodeDef FloatInput(const std::string& name) { return PlaceholderNode(name, DT_FLOAT, PartialTensorShape()); }
inline NodeDef FloatConst(const std::string& name, float v) { return ConstNode(name, Tensor::Scalar<float>(v)); }

inline GraphDef MakeGraphDef(const std::vector<NodeDef>& nodes) {
  GraphDef def;
  def.mutable_versions()->set_producer(1205);
  for (const NodeDef& n : nodes) *def.add_node() = n;
  return def;
}

inline std::unique_ptr<Graph> MakeGraph(const std::vector<NodeDef>& nodes) {
  auto graph = std::make_unique<Graph>();
  Status s = ConvertGraphDefToGraph(MakeGraphDef(nodes), graph.get());
  EXPECT_TRUE(s.ok()) << s;
  return graph;
}

// Live node names, sorted.
inline std::vector<std::string> NodeNames(const Graph& graph) {
  std::vector<std::string> names;
  for (Node* n : graph.nodes()) names.push_back(n->name());
  std::sort(names.begin(), names.end());
  return names;
}

// "src:port" for data input `slot` of node `name`, "" if none.
inline std::string InputOf(const Graph& graph, const std::string& name, int slot) {
  Node* n = graph.FindNode(name);
  const Edge* e = n == nullptr ? nullptr : n->input_edge(slot);
  return e == nullptr ? "" : e->src()->name() + ":" + std::to_string(e->src_output());
}

// Sorted names of the nodes with a control edge into `name`.
inline std::vector<std::string> ControlInputsOf(const Graph& graph, const std::string& name) {
  Node* n = graph.FindNode(name);
  if (n == nullptr) return {"<no node " + name + ">"};
  std::vector<std::string> out;
  for (const Edge* e : n->in_edges())
    if (e->IsControlEdge()) out.push_back(e->src()->name());
  std::sort(out.begin(), out.end());
  return out;
}

inline void ExpectValidGraph(const Graph& graph) {
  std::vector<Node*> order;
  Status s = graph.TopologicalOrder(&order);
  EXPECT_TRUE(s.ok()) << s;
  for (Node* n : graph.nodes())
    for (int i = 0; i < n->num_inputs(); ++i) EXPECT_NE(n->input_edge(i), nullptr) << n->name() << " input " << i;
}

struct StepResult {
  Status status;
  std::vector<Tensor> outputs;
  GraphOptimizerReport report;
  std::unique_ptr<Graph> graph;  // the graph that ran (null if it did not get that far)
  std::vector<std::string> graph_nodes;
};

// One step, as the session runs it: rewrite for (feeds, fetches, targets),
// then, if `options` is given, OptimizeGraph keeping the _Arg/_Retval nodes
// and the targets, then run on the CPU with a fresh ResourceMgr.
inline StepResult RunStep(const GraphDef& def, const std::vector<std::pair<std::string, Tensor>>& feeds,
                          const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                          const GraphOptimizerOptions* options) {
  StepResult r;
  auto graph = std::make_unique<Graph>();
  r.status = ConvertGraphDefToGraph(def, graph.get());
  if (!r.status.ok()) return r;
  std::vector<std::string> feed_names;
  for (const auto& f : feeds) feed_names.push_back(f.first);
  RewriteResult rewrite;
  r.status = RewriteGraphForRun(graph.get(), feed_names, fetches, targets, &rewrite);
  if (!r.status.ok()) return r;
  if (options != nullptr) {
    std::unordered_set<std::string> keep(targets.begin(), targets.end());
    for (Node* n : graph->nodes())
      if (n->op() == "_Arg" || n->op() == "_Retval") keep.insert(n->name());
    r.status = OptimizeGraph(graph.get(), *options, keep, &r.report);
    if (!r.status.ok()) return r;
    ExpectValidGraph(*graph);
  }
  r.graph_nodes = NodeNames(*graph);
  DeviceBase device("/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1, nullptr);
  ExecutorOptions exec_options;
  exec_options.device = &device;
  auto exec = Executor::Create(std::move(graph), exec_options);
  if (!exec.ok()) {
    r.status = exec.status();
    return r;
  }
  std::vector<Tensor> args;
  for (const auto& f : feeds) args.push_back(f.second);
  r.outputs.assign(fetches.size(), Tensor());
  CallFrame frame(args.data(), static_cast<int>(args.size()), r.outputs.data(), static_cast<int>(fetches.size()));
  CancellationManager cancellation;
  Executor::RunArgs run_args;
  run_args.cancellation = &cancellation;
  run_args.call_frame = &frame;
  r.status = (*exec)->Run(run_args);
  return r;
}

// Runs the step plain and optimized with `options`, expects the same values
// (or the same error), and returns the optimized run.
inline StepResult ExpectSameAsUnoptimized(const GraphDef& def, const std::vector<std::string>& fetches,
                                          const std::vector<std::string>& targets = {},
                                          const GraphOptimizerOptions& options = GraphOptimizerOptions(),
                                          const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
  StepResult plain = RunStep(def, feeds, fetches, targets, nullptr);
  StepResult optimized = RunStep(def, feeds, fetches, targets, &options);
  EXPECT_EQ(plain.status.ok(), optimized.status.ok())
      << "plain: " << plain.status << "\noptimized: " << optimized.status;
  if (!plain.status.ok() || !optimized.status.ok()) {
    EXPECT_EQ(plain.status.code(), optimized.status.code());
    EXPECT_EQ(plain.status.message(), optimized.status.message());
    return optimized;
  }
  EXPECT_EQ(plain.outputs.size(), optimized.outputs.size());
  for (size_t i = 0; i < plain.outputs.size() && i < optimized.outputs.size(); ++i) {
    SCOPED_TRACE("fetch " + fetches[i]);
    ExpectTensorEqual(optimized.outputs[i], plain.outputs[i]);
  }
  return optimized;
}

}  // namespace flowvm::testing

#endif  // FLOWVM_RUNTIME_PASSES_PASS_TEST_UTIL_H_
