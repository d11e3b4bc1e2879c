// The placer: requests, colocation, pins, soft placement, and the cost
// model's choices (including after measurements).
#include "runtime/placer.h"

#include <gtest/gtest.h>

#include "graph/attr_value_util.h"
#include "runtime/control_flow_test_util.h"
#include "runtime/graph_validation.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT

struct Placed {
  Status status;
  std::map<std::string, std::string> device;  // node -> local name "CPU:1"
  std::map<std::string, std::string> reason;
};

Placed Place(const GraphDef& def, int cpus, PlacerOptions options = PlacerOptions(),
             std::vector<PlacementDevice> devices = {}) {
  Placed out;
  auto graph = ToGraph(def);
  if (graph == nullptr) return out;
  if (devices.empty()) devices = LocalCpuDevices(cpus);
  std::vector<NodePlacement> placements;
  out.status = PlaceGraph(graph.get(), devices, options, &placements);
  for (const NodePlacement& p : placements) {
    out.device[p.node] = DeviceLocalName(ParseDeviceName(p.device).value());
    out.reason[p.node] = p.reason;
  }
  if (out.status.ok()) {
    for (Node* n : graph->nodes()) EXPECT_FALSE(n->assigned_device().empty()) << n->name();
  }
  return out;
}

NodeDef Var(const std::string& name, const std::string& device = "") {
  return On(TestNode(name, "VariableV2").Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({2})), device);
}
NodeDef Assign(const std::string& name, const std::string& var, const std::string& value,
               const std::string& device = "") {
  return On(TestNode(name, "Assign").Input(var).Input(value).Attr("T", DT_FLOAT), device);
}
NodeDef Colocated(NodeDef n, const std::string& with) {
  (*n.mutable_attr())["_class"] = MakeAttrValue(std::vector<std::string>{"loc:@" + with});
  return n;
}

TEST(PlacerTest, ExplicitAndLegacyRequests) {
  Placed p = Place(GraphOf({On(ConstNode("a", F({1}, {1})), "/device:CPU:1"),
                              On(ConstNode("b", F({1}, {1})), "/cpu:2"),
                              On(ConstNode("c", F({1}, {1})), "/job:localhost/replica:0/task:0/device:CPU:0")}),
                   3);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["a"], "CPU:1");
  EXPECT_EQ(p.device["b"], "CPU:2");
  EXPECT_EQ(p.device["c"], "CPU:0");
  EXPECT_EQ(p.reason["a"], "requested '/device:CPU:1'");
}

TEST(PlacerTest, ColocationByClassAttr) {
  Placed p = Place(GraphOf({On(ConstNode("a", F({1}, {1})), "/device:CPU:1"),
                              Colocated(Unary("b", "Neg", "a"), "a"), Unary("c", "Neg", "b")}),
                   2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["b"], "CPU:1");
  EXPECT_EQ(p.reason["b"], "colocated with a (_class)");
}

TEST(PlacerTest, ReferenceInputsStayWithTheVariable) {
  Placed p = Place(GraphOf({Var("v", "/device:CPU:1"), ConstNode("zeros", F({0, 0}, {2})),
                              Assign("init", "v", "zeros")}),
                   2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["init"], "CPU:1");
  EXPECT_EQ(p.reason["init"], "colocated with v (reference input)");
}

TEST(PlacerTest, ConflictingRequestsInOneGroupNameBothNodes) {
  const GraphDef g = GraphOf({On(ConstNode("a", F({1}, {1})), "/device:CPU:0"),
                                On(Colocated(Unary("b", "Neg", "a"), "a"), "/device:CPU:1")});
  Placed p = Place(g, 2);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument, {"node 'b' (Neg)", "'a'", "CPU:0", "CPU:1"}));
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  p = Place(g, 2, soft);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["b"], "CPU:0");
  EXPECT_NE(p.reason["b"].find("soft placement"), std::string::npos) << p.reason["b"];
}

// As in TensorFlow, an op that uses a variable by reference (an update
// placed on a worker by replica_device_setter) runs where the variable is,
// whatever it requested.
TEST(PlacerTest, AStateUsersRequestGivesWayToTheState) {
  const GraphDef g = GraphOf({Var("v", "/device:CPU:0"), ConstNode("zeros", F({0, 0}, {2})),
                                Assign("init", "v", "zeros", "/device:CPU:1")});
  Placed p = Place(g, 2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["init"], "CPU:0");
  EXPECT_NE(p.reason["init"].find("ignored the request '/device:CPU:1' of node 'init' (Assign)"), std::string::npos)
      << p.reason["init"];
}

TEST(PlacerTest, MissingDeviceIsAnErrorUnlessSoft) {
  const GraphDef g = GraphOf({On(ConstNode("a", F({1}, {1})), "/device:CPU:7"), Unary("b", "Neg", "a")});
  Placed p = Place(g, 2);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument,
                       {"node 'a' (Const)", "'/device:CPU:7'", "does not exist", "device:CPU:1", "soft placement"}));
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  p = Place(g, 2, soft);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_NE(p.reason["a"].find("does not exist"), std::string::npos) << p.reason["a"];
  // A GPU is reserved in names: without one, asking for it is the same error.
  p = Place(GraphOf({On(ConstNode("g", F({1}, {1})), "/device:GPU:0")}), 1);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument, {"node 'g' (Const)", "/device:GPU:0", "does not exist"}));
}

TEST(PlacerTest, MalformedRequestNamesTheNode) {
  Placed p = Place(GraphOf({On(ConstNode("a", F({1}, {1})), "/job:")}), 1);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument, {"node 'a' (Const)", "'/job:'"}));
}

// A device type without the kernel is never chosen; asking for it by name
// is an error naming the type, unless soft placement moves the node. (A GPU
// described to the placer: it needs no CUDA to be a placement target.)
TEST(PlacerTest, DevicesWithoutAKernelAreNotFeasible) {
  std::vector<PlacementDevice> devices = LocalCpuDevices(1);
  PlacementDevice gpu;
  gpu.name = FullDeviceName("localhost", 0, 0, "GPU", 0);
  gpu.parsed = ParseDeviceName(gpu.name).value();
  gpu.type = "GPU";
  devices.push_back(gpu);
  const GraphDef free_graph = GraphOf({ConstNode("a", F({1}, {1})), Unary("b", "Neg", "a")});
  Placed p = Place(free_graph, 0, PlacerOptions(), devices);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["a"], "CPU:0");
  EXPECT_EQ(p.device["b"], "CPU:0");
  const GraphDef on_gpu = GraphOf({On(ConstNode("a", F({1}, {1})), "/device:GPU:0")});
  p = Place(on_gpu, 0, PlacerOptions(), devices);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument, {"no GPU kernel", "node 'a' (Const)"}));
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  p = Place(on_gpu, 0, soft, devices);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["a"], "CPU:0");
}

TEST(PlacerTest, PinnedNodesKeepTheirDevice) {
  std::map<std::string, std::string> pinned{{"v", FullDeviceName("localhost", 0, 0, "CPU", 1)}};
  PlacerOptions options;
  options.pinned = &pinned;
  Placed p = Place(GraphOf({Var("v"), ConstNode("zeros", F({0, 0}, {2})), Assign("init", "v", "zeros")}), 2,
                   options);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["v"], "CPU:1");
  EXPECT_EQ(p.device["init"], "CPU:1");
  EXPECT_NE(p.reason["v"].find("earlier step"), std::string::npos) << p.reason["v"];
  // A request that contradicts the pin cannot be honoured, even softly.
  options.allow_soft_placement = true;
  p = Place(GraphOf({Var("v", "/device:CPU:0")}), 2, options);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["v"], "CPU:1");
  options.allow_soft_placement = false;
  // The variable's user goes with it, whatever it asks for.
  p = Place(GraphOf({Var("v"), ConstNode("zeros", F({0, 0}, {2})), Assign("init", "v", "zeros", "/device:CPU:0")}),
            2, options);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["init"], "CPU:1");
}

// Two independent 512^3 MatMuls: the simulation puts them on different
// devices (each would otherwise wait ~34 ms for the other); the Consts that
// feed only one MatMul follow it.
TEST(PlacerTest, CostModelSpreadsHeavyIndependentBranches) {
  Tensor w(DT_FLOAT, TensorShape({512, 512}));
  Placed p = Place(GraphOf({PlaceholderNode("x", DT_FLOAT, PartialTensorShape({512, 512})), ConstNode("w1", w),
                              ConstNode("w2", w), Binary("m1", "MatMul", "x", "w1"), Binary("m2", "MatMul", "x", "w2"),
                              Binary("s", "AddV2", "m1", "m2")}),
                   2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_NE(p.device["m1"], p.device["m2"]);
  EXPECT_EQ(p.device["w1"], p.device["m1"]);
  EXPECT_EQ(p.device["w2"], p.device["m2"]);
  EXPECT_NE(p.reason["m2"].find("cost model: finishes at"), std::string::npos) << p.reason["m2"];
}

// Cheap work is not worth a transfer: a chain stays on one device.
TEST(PlacerTest, CheapChainStaysOnOneDevice) {
  std::vector<NodeDef> nodes{ConstNode("c0", F({1, 2}, {2}))};
  for (int i = 1; i <= 20; ++i) nodes.push_back(Unary("c" + std::to_string(i), "Neg", "c" + std::to_string(i - 1)));
  Placed p = Place(GraphOf(nodes), 4);
  ASSERT_TRUE(p.status.ok()) << p.status;
  for (int i = 1; i <= 20; ++i) EXPECT_EQ(p.device["c" + std::to_string(i)], p.device["c0"]) << i;
}

// The paper's future work: measured times replace the static estimate. Two
// tiny branches stay together until measurements say each takes 50 ms;
// then they run on different devices.
TEST(PlacerTest, MeasurementsChangeThePlacement) {
  const GraphDef g = GraphOf({ConstNode("x", F({1, 2}, {2})), Unary("b1", "Neg", "x"), Unary("b2", "Neg", "x"),
                                Binary("j", "AddV2", "b1", "b2")});
  CostModel model;
  PlacerOptions options;
  options.cost_model = &model;
  Placed before = Place(g, 2, options);
  ASSERT_TRUE(before.status.ok()) << before.status;
  EXPECT_EQ(before.device["b1"], before.device["b2"]);
  model.RecordMeasurement("b1", "CPU", 50e6);
  model.RecordMeasurement("b2", "CPU", 50e6);
  EXPECT_EQ(model.num_measurements(), 2);
  Placed after = Place(g, 2, options);
  ASSERT_TRUE(after.status.ok()) << after.status;
  EXPECT_NE(after.device["b1"], after.device["b2"]);
}

TEST(CostModelTest, StaticEstimatesAndTransfers) {
  auto graph = ToGraph(GraphOf({PlaceholderNode("a", DT_FLOAT, PartialTensorShape({64, 32})),
                                  PlaceholderNode("b", DT_FLOAT, PartialTensorShape({32, 16})),
                                  Binary("m", "MatMul", "a", "b"), Binary("e", "AddV2", "m", "m")}));
  ASSERT_NE(graph, nullptr);
  CostModelParams params;
  CostModel model(params);
  const Node* m = graph->FindNode("m");
  const double matmul = model.ComputeNanos(*m, {PartialTensorShape({64, 32}), PartialTensorShape({32, 16})},
                                           {PartialTensorShape({64, 16})}, "CPU");
  EXPECT_DOUBLE_EQ(matmul, params.node_overhead_ns + 2.0 * 64 * 16 * 32 / params.cpu_flops_per_ns);
  const Node* e = graph->FindNode("e");
  const double add = model.ComputeNanos(*e, {PartialTensorShape({64, 16}), PartialTensorShape({64, 16})},
                                        {PartialTensorShape({64, 16})}, "CPU");
  EXPECT_DOUBLE_EQ(add, params.node_overhead_ns + 3.0 * 64 * 16 * 4 / params.bytes_per_ns);
  const DeviceNameParts c0 = ParseDeviceName("/job:w/replica:0/task:0/device:CPU:0").value();
  const DeviceNameParts c1 = ParseDeviceName("/job:w/replica:0/task:0/device:CPU:1").value();
  const DeviceNameParts remote = ParseDeviceName("/job:w/replica:0/task:1/device:CPU:0").value();
  EXPECT_EQ(model.TransferNanos(1 << 20, c0, c0), 0);
  EXPECT_EQ(model.TransferNanos(1 << 20, c0, c1), params.local_transfer_ns);  // no bytes move in a process
  EXPECT_EQ(model.TransferNanos(1 << 20, c0, remote), params.remote_transfer_ns + (1 << 20) / params.remote_bytes_per_ns);
  model.RecordMeasurement("m", "CPU", 1000);
  model.RecordMeasurement("m", "CPU", 2000);
  EXPECT_DOUBLE_EQ(model.Measured("m", "CPU"), 0.7 * 1000 + 0.3 * 2000);
  EXPECT_LT(model.Measured("m", "GPU"), 0);
}

// Control-flow nodes go where TensorFlow's partitioner puts them, whatever
// they asked for (issue 27, section 6); runtime/control_flow_devices_test.cc
// runs such loops.
namespace cf = control_flow_testing;

std::vector<NodeDef> SumLoopOn(const std::map<std::string, std::string>& devices) {
  std::vector<NodeDef> nodes = cf::Concat({cf::IntConst("zero", 0), cf::IntConst("limit", 5)},
                                          cf::SumLoop("", "loop", "zero", "limit", "zero"));
  for (auto& n : nodes) {
    auto it = devices.find(n.name());
    if (it != devices.end()) n.set_device(it->second);
  }
  return nodes;
}

TEST(PlacerTest, ANextIterationsRequestGivesWayToItsMerge) {
  Placed p = Place(GraphOf(SumLoopOn({{"next_acc", "/device:CPU:0"}, {"merge_acc", "/device:CPU:1"}})), 2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["merge_acc"], "CPU:1");
  EXPECT_EQ(p.device["next_acc"], "CPU:1");
  EXPECT_EQ(p.reason["next_acc"],
            "colocated with merge_acc (the loop's back edge); its request '/device:CPU:0' gives way: a NextIteration "
            "runs beside its Merge (as in TensorFlow)");
  EXPECT_EQ(p.reason["merge_acc"], "requested '/device:CPU:1'");
  // As in TensorFlow, its request does not place its Merge: the Merge's
  // group goes where the cost model says, and the NextIteration with it.
  for (const char* device : {"/device:CPU:0", "/device:CPU:1"}) {
    p = Place(GraphOf(SumLoopOn({{"next_acc", device}})), 2);
    ASSERT_TRUE(p.status.ok()) << p.status;
    EXPECT_EQ(p.device["next_acc"], p.device["merge_acc"]);
    if ("/device:" + p.device["next_acc"] != device) {
      EXPECT_NE(p.reason["next_acc"].find("gives way"), std::string::npos) << p.reason["next_acc"];
    }
  }
}

TEST(PlacerTest, SwitchExitAndEnterFollowTheirNeighbours) {
  Placed p = Place(GraphOf(SumLoopOn({{"merge_acc", "/device:CPU:1"},
                                      {"switch_acc", "/device:CPU:0"},
                                      {"exit_acc", "/device:CPU:2"},
                                      {"enter_acc", "/device:CPU:0"},
                                      {"enter_limit", "/device:CPU:2"},
                                      {"less", "/device:CPU:0"},
                                      {"merge_i", "/device:CPU:2"}})),
                   3);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["switch_acc"], "CPU:1");
  EXPECT_EQ(p.reason["switch_acc"],
            "beside merge_acc, its data input: a Switch runs where the value it routes is (as in TensorFlow); its "
            "request '/device:CPU:0' gives way");
  // An Exit follows its Switch, which follows its Merge.
  EXPECT_EQ(p.device["exit_acc"], "CPU:1");
  EXPECT_EQ(p.reason["exit_acc"],
            "beside switch_acc, its input: an Exit runs where its input is (as in TensorFlow); its request "
            "'/device:CPU:2' gives way");
  EXPECT_EQ(p.device["enter_acc"], "CPU:1");
  EXPECT_EQ(p.reason["enter_acc"],
            "beside merge_acc, its first consumer: an Enter runs where its value is used (as in TensorFlow); its "
            "request '/device:CPU:0' gives way");
  EXPECT_EQ(p.device["enter_limit"], "CPU:0");  // its consumer is `less`
  EXPECT_EQ(p.device["enter_i"], "CPU:2");
  EXPECT_EQ(p.device["switch_i"], "CPU:2");
  EXPECT_EQ(p.device["exit_i"], "CPU:2");
  EXPECT_EQ(p.device["next_i"], "CPU:2");
  // Merge and LoopCond are not moved.
  EXPECT_EQ(p.device["merge_acc"], "CPU:1");
  EXPECT_EQ(p.device["less"], "CPU:0");
}

TEST(PlacerTest, ACondsSwitchFollowsItsDataInputNotItsPredicate) {
  std::vector<NodeDef> nodes = cf::Concat({On(cf::BoolPlaceholder("pred"), "/device:CPU:1"),
                                           cf::IntConst("x", 7, "", "/device:CPU:0")},
                                          cf::CondNodes("x"));
  for (auto& n : nodes)
    if (n.name() == "sw" || n.name() == "merge") n.set_device("/device:CPU:1");
  Placed p = Place(GraphOf(nodes), 2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["sw"], "CPU:0");
  EXPECT_EQ(p.device["merge"], "CPU:1");
}

// A conditional read of a variable another step pinned to CPU:1: the
// Switch reads it there (TensorFlow's reason for the rule).
TEST(PlacerTest, ASwitchReadingAPinnedVariableRunsBesideIt) {
  std::map<std::string, std::string> pinned{{"v", FullDeviceName("localhost", 0, 0, "CPU", 1)}};
  PlacerOptions options;
  options.pinned = &pinned;
  NodeDef sw = TestNode("sw", "Switch").Input("v").Input("pred").Attr("T", DT_FLOAT);
  Placed p = Place(GraphOf({Var("v"), cf::BoolPlaceholder("pred"), On(sw, "/device:CPU:0"),
                            Unary("taken", "Identity", "sw:1", "/device:CPU:0")}),
                   2, options);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["v"], "CPU:1");
  EXPECT_EQ(p.device["sw"], "CPU:1");
  EXPECT_EQ(p.device["taken"], "CPU:0");
}

// A Switch of a resource handle (a stack in a cond) is tied to the
// resource by its input: it and the op that uses its output stay with the
// resource, whatever they ask for.
TEST(PlacerTest, AResourceSwitchStaysWithTheResource) {
  NodeDef stack = TestNode("s", "StackV2").Input("max").Attr("elem_type", DT_FLOAT);
  NodeDef sw = TestNode("sw", "Switch").Input("s").Input("pred").Attr("T", DT_RESOURCE);
  NodeDef push = TestNode("push", "StackPushV2").Input("sw:1").Input("x").Attr("T", DT_FLOAT);
  Placed p = Place(GraphOf({On(cf::IntConst("max", -1), "/device:CPU:1"), On(stack, "/device:CPU:1"),
                            cf::BoolPlaceholder("pred"), ConstNode("x", F({1}, {1})), On(sw, "/device:CPU:0"),
                            On(push, "/device:CPU:0")}),
                   2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["sw"], "CPU:1");
  EXPECT_EQ(p.device["push"], "CPU:1");
  EXPECT_NE(p.reason["sw"].find("colocated with s (resource input)"), std::string::npos) << p.reason["sw"];
}

// A node tied to others by `_class` stays with them; real conflicts
// between nodes the rule does not move are still errors naming both.
TEST(PlacerTest, ColocationGroupsHoldControlFlowNodesAndConflictsStillFail) {
  std::vector<NodeDef> nodes = SumLoopOn({{"merge_acc", "/device:CPU:1"}, {"body_acc", "/device:CPU:0"}});
  for (auto& n : nodes)
    if (n.name() == "switch_acc") n = Colocated(n, "body_acc");
  Placed p = Place(GraphOf(nodes), 2);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["switch_acc"], "CPU:0");
  EXPECT_EQ(p.reason["switch_acc"], "colocated with body_acc (_class)");

  nodes = SumLoopOn({{"merge_acc", "/device:CPU:1"}, {"acc_plus", "/device:CPU:0"}});
  for (auto& n : nodes)
    if (n.name() == "acc_plus") n = Colocated(n, "merge_acc");
  p = Place(GraphOf(nodes), 2);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument,
                       {"cannot colocate", "node 'acc_plus' (Add)", "'merge_acc'", "CPU:0", "CPU:1"}));
  // A Merge is never moved: two Merges tied by `_class` that ask for
  // different devices conflict.
  nodes = SumLoopOn({{"merge_i", "/device:CPU:1"}, {"merge_acc", "/device:CPU:0"}});
  for (auto& n : nodes)
    if (n.name() == "merge_acc") n = Colocated(n, "merge_i");
  p = Place(GraphOf(nodes), 2);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument, {"cannot colocate", "merge_acc", "merge_i"}));
}

// TensorFlow's placer sees a request before its partitioner moves the
// node: a Switch asking for a device that does not exist is an error,
// unless soft placement drops the request.
TEST(PlacerTest, AMovedNodesImpossibleRequestIsStillAnErrorUnlessSoft) {
  const GraphDef g = GraphOf(SumLoopOn({{"switch_acc", "/device:CPU:5"}}));
  Placed p = Place(g, 2);
  EXPECT_TRUE(HasError(p.status, Code::kInvalidArgument, {"switch_acc", "/device:CPU:5", "does not exist"}));
  PlacerOptions soft;
  soft.allow_soft_placement = true;
  p = Place(g, 2, soft);
  ASSERT_TRUE(p.status.ok()) << p.status;
  EXPECT_EQ(p.device["switch_acc"], p.device["merge_acc"]);
}

}  // namespace
}  // namespace flowvm
