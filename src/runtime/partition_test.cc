// Partitioning: the exact _Send/_Recv nodes it inserts, one Recv per
// (tensor, device), control edges as dummy tensors, and Recv scheduling.
#include "runtime/partition.h"

#include <gtest/gtest.h>

#include "graph/attr_value_util.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT

// The graph with each node assigned the device it requests.
std::unique_ptr<Graph> Placed(const GraphDef& def) {
  auto g = ToGraph(def);
  if (g == nullptr) return nullptr;
  for (Node* n : g->nodes()) n->set_assigned_device(CanonicalizeDeviceName(n->requested_device()).value());
  return g;
}

const NodeDef* Find(const GraphDef& g, const std::string& name) {
  for (const NodeDef& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

std::vector<std::string> Names(const GraphDef& g) {
  std::vector<std::string> out;
  for (const NodeDef& n : g.node()) out.push_back(n.name());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Inputs(const NodeDef* n) { return {n->input().begin(), n->input().end()}; }

std::string Attr(const NodeDef* n, const std::string& name) {
  const AttrValue* v = FindNodeAttr(*n, name);
  return v == nullptr ? "<none>" : SummarizeAttrValue(*v);
}

TEST(PartitionTest, InsertsOneSendRecvPairPerTensorAndDevice) {
  auto g = Placed(GraphOf({On(ConstNode("a", F({1, 2}, {2})), kCpu0), Unary("b", "Neg", "a", kCpu1),
                           Unary("c", "Neg", "a", kCpu1), Binary("d", "AddV2", "b", "c", kCpu1),
                           Unary("e", "Neg", "a", kCpu0)}));
  ASSERT_NE(g, nullptr);
  PartitionOptions options;
  options.incarnation = [](const std::string& d) -> uint64_t { return d == kCpu0 ? 0x1234 : 0x5678; };
  Partitions p;
  ASSERT_TRUE(PartitionGraph(*g, options, &p).ok());
  ASSERT_EQ(p.graphs.size(), 2u);
  const GraphDef& g0 = p.graphs[kCpu0];
  const GraphDef& g1 = p.graphs[kCpu1];
  EXPECT_EQ(Names(g0), (std::vector<std::string>{"_send_a_0_to_CPU_1", "a", "e"}));
  EXPECT_EQ(Names(g1), (std::vector<std::string>{"_recv_a_0", "b", "c", "d"}));
  const NodeDef* send = Find(g0, "_send_a_0_to_CPU_1");
  EXPECT_EQ(send->op(), "_Send");
  EXPECT_EQ(send->device(), kCpu0);
  EXPECT_EQ(Inputs(send), std::vector<std::string>{"a"});
  EXPECT_EQ(Attr(send, "T"), "float");
  EXPECT_EQ(Attr(send, "tensor_name"), "\"a:0\"");
  EXPECT_EQ(Attr(send, "send_device"), "\"" + std::string(kCpu0) + "\"");
  EXPECT_EQ(Attr(send, "recv_device"), "\"" + std::string(kCpu1) + "\"");
  EXPECT_EQ(Attr(send, "send_device_incarnation"), std::to_string(0x1234));
  const NodeDef* recv = Find(g1, "_recv_a_0");
  EXPECT_EQ(recv->op(), "_Recv");
  EXPECT_EQ(recv->device(), kCpu1);
  EXPECT_EQ(Attr(recv, "tensor_type"), "float");
  EXPECT_EQ(Attr(recv, "send_device_incarnation"), std::to_string(0x1234));
  // Both consumers on CPU:1 read the one Recv.
  EXPECT_EQ(Inputs(Find(g1, "b")), std::vector<std::string>{"_recv_a_0"});
  EXPECT_EQ(Inputs(Find(g1, "c")), std::vector<std::string>{"_recv_a_0"});
  EXPECT_EQ(Inputs(Find(g0, "e")), std::vector<std::string>{"a"});
  EXPECT_EQ(p.transfers, std::vector<std::string>{"a:0 CPU:0 -> CPU:1 (2 consumers)"});
}

TEST(PartitionTest, ControlEdgesTravelAsDummyTensors) {
  auto g = Placed(GraphOf({On(ConstNode("a", F({1}, {1})), kCpu0), On(ConstNode("b", F({2}, {1})), kCpu1),
                           WithControl(Unary("c", "Neg", "b", kCpu1), "a")}));
  ASSERT_NE(g, nullptr);
  Partitions p;
  ASSERT_TRUE(PartitionGraph(*g, PartitionOptions(), &p).ok());
  const GraphDef& g0 = p.graphs[kCpu0];
  const GraphDef& g1 = p.graphs[kCpu1];
  EXPECT_EQ(Names(g0), (std::vector<std::string>{"_ctrl_a_to_CPU_1", "_send_ctrl_a_to_CPU_1", "a"}));
  EXPECT_EQ(Names(g1), (std::vector<std::string>{"_recv_ctrl_a", "b", "c"}));
  const NodeDef* dummy = Find(g0, "_ctrl_a_to_CPU_1");
  EXPECT_EQ(dummy->op(), "Const");
  EXPECT_EQ(Inputs(dummy), std::vector<std::string>{"^a"});
  EXPECT_EQ(Attr(Find(g0, "_send_ctrl_a_to_CPU_1"), "tensor_name"), "\"^a\"");
  EXPECT_EQ(Inputs(Find(g1, "c")), (std::vector<std::string>{"b", "^_recv_ctrl_a"}));
}

TEST(PartitionTest, OtherOutputPortsAndOtherTasks) {
  const std::string w1 = "/job:worker/replica:0/task:1/device:CPU:0";
  auto g = Placed(GraphOf({On(ConstNode("x", F({1, 2, 3, 4}, {4})), kCpu0), On(ConstNode("dim", Tensor::Scalar<int32_t>(0)), kCpu0),
                           On(TestNode("s", "Split").Input("dim").Input("x").Attr("T", DT_FLOAT).Attr("num_split", 2), kCpu0),
                           Unary("n", "Neg", "s:1", w1)}));
  ASSERT_NE(g, nullptr);
  Partitions p;
  ASSERT_TRUE(PartitionGraph(*g, PartitionOptions(), &p).ok());
  EXPECT_NE(Find(p.graphs[kCpu0], "_send_s_1_to_worker_1_CPU_0"), nullptr);
  EXPECT_EQ(Inputs(Find(p.graphs[kCpu0], "_send_s_1_to_worker_1_CPU_0")), std::vector<std::string>{"s:1"});
  EXPECT_EQ(Inputs(Find(p.graphs[w1], "n")), std::vector<std::string>{"_recv_s_1"});
}

TEST(PartitionTest, ReferencesCannotCrossDevices) {
  auto g = Placed(GraphOf({On(TestNode("v", "VariableV2").Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({1})), kCpu0),
                           On(ConstNode("one", F({1}, {1})), kCpu1),
                           On(TestNode("a", "Assign").Input("v").Input("one").Attr("T", DT_FLOAT), kCpu1)}));
  ASSERT_NE(g, nullptr);
  Partitions p;
  EXPECT_TRUE(HasError(PartitionGraph(*g, PartitionOptions(), &p), Code::kInvalidArgument,
                       {"node 'a' (Assign)", "reference", "'v'"}));
}

// A loop's control-flow nodes on three devices, as the placer leaves them
// (a NextIteration beside its Merge): each device with a node of the loop
// gets a control loop driven by the LoopCond, and the back edge stays on
// its device.
TEST(PartitionTest, ALoopOnThreeDevicesGetsAControlLoopOnEach) {
  auto frame = [](NodeDef n, bool constant) {
    (*n.mutable_attr())["frame_name"] = MakeAttrValue(std::string("f"));
    (*n.mutable_attr())["is_constant"] = MakeAttrValue(constant);
    return n;
  };
  auto i32 = [](const std::string& name, const std::string& op, std::vector<std::string> inputs,
                const std::string& device) {
    TestNode n(name, op);
    for (auto& in : inputs) n.Input(in);
    NodeDef def = n;
    if (op != "LoopCond") (*def.mutable_attr())["T"] = MakeAttrValue(DT_INT32);
    if (op == "Merge") (*def.mutable_attr())["N"] = MakeAttrValue(int64_t{2});
    def.set_device(device);
    return def;
  };
  const std::string cpu2 = "/job:localhost/replica:0/task:0/device:CPU:2";
  auto g = Placed(GraphOf({On(ConstNode("zero", Tensor::Scalar<int32_t>(0)), kCpu0),
                           On(ConstNode("limit", Tensor::Scalar<int32_t>(3)), kCpu0),
                           frame(i32("enter", "Enter", {"zero"}, kCpu1), false),
                           frame(i32("enter_limit", "Enter", {"limit"}, kCpu0), true),
                           i32("merge", "Merge", {"enter", "next"}, kCpu1),
                           i32("less", "Less", {"merge", "enter_limit"}, kCpu0),
                           i32("cond", "LoopCond", {"less"}, kCpu0),
                           i32("switch", "Switch", {"merge", "cond"}, kCpu1),
                           i32("exit", "Exit", {"switch"}, kCpu1),
                           i32("body", "Identity", {"switch:1"}, cpu2),
                           i32("next", "NextIteration", {"body"}, kCpu1)}));
  ASSERT_NE(g, nullptr);
  Partitions p;
  FLOWVM_ASSERT_OK(PartitionGraph(*g, PartitionOptions(), &p));
  ASSERT_EQ(p.graphs.size(), 3u);
  for (const std::string& device : {std::string(kCpu0), std::string(kCpu1), cpu2}) {
    SCOPED_TRACE(device);
    const GraphDef& part = p.graphs.at(device);
    const NodeDef* merge = Find(part, "_loop1_f/merge");
    ASSERT_NE(merge, nullptr);
    const NodeDef* sw = Find(part, "_loop1_f/switch");
    ASSERT_NE(sw, nullptr);
    // Driven by the LoopCond: itself on CPU:0, its value received elsewhere.
    EXPECT_EQ(Inputs(sw)[1], device == kCpu0 ? "cond" : "_recv_cond_0");
  }
  EXPECT_EQ(Inputs(Find(p.graphs.at(kCpu1), "merge")), (std::vector<std::string>{"enter", "next"}));
  // The body's value goes back to CPU:1 inside the iteration, and its Recv
  // waits for CPU:1's control loop.
  const NodeDef* recv = Find(p.graphs.at(kCpu1), "_recv_body_0");
  ASSERT_NE(recv, nullptr);
  EXPECT_EQ(Inputs(recv), (std::vector<std::string>{"^_loop1_f/merge"}));

  // A back edge across devices is refused, naming both ends.
  g->FindNode("next")->set_assigned_device(kCpu0);
  EXPECT_TRUE(HasError(PartitionGraph(*g, PartitionOptions(), &p), Code::kInvalidArgument,
                       {"node 'merge' (Merge)", "back edge", "node 'next' (NextIteration)", "CPU:0"}));
}

TEST(PartitionTest, UnplacedNodesAreAnInternalError) {
  auto g = ToGraph(GraphOf({ConstNode("a", F({1}, {1}))}));
  Partitions p;
  EXPECT_TRUE(HasError(PartitionGraph(*g, PartitionOptions(), &p), Code::kInternal, {"node 'a' (Const)"}));
}

// The memory example of paper 5.2: CPU:1 runs a chain of 1 MiB temporaries
// while a small seed from CPU:0 is tiled into a large tensor needed only at
// the end. Scheduled, the Recv waits for the chain's late nodes.
GraphDef LateConsumerGraph(int chain) {
  std::vector<NodeDef> nodes{On(ConstNode("seed", F({1, 2, 3, 4}, {4})), kCpu0),
                             Unary("seed2", "Neg", "seed", kCpu0),
                             On(ConstNode("mult", Tensor::FromVector<int32_t>({1 << 16})), kCpu1),
                             On(TestNode("big", "Tile").Input("seed2").Input("mult").Attr("T", DT_FLOAT).Attr("Tmultiples", DT_INT32), kCpu1),
                             On(PlaceholderNode("x", DT_FLOAT, PartialTensorShape({1 << 18})), kCpu1)};
  std::string prev = "x";
  for (int i = 0; i < chain; ++i) {
    const std::string name = "chain" + std::to_string(i);
    nodes.push_back(Unary(name, "Exp", prev, kCpu1));
    prev = name;
  }
  nodes.push_back(On(ConstNode("axis", Tensor::FromVector<int32_t>({0})), kCpu1));
  nodes.push_back(On(TestNode("sum_chain", "Sum").Input(prev).Input("axis").Attr("T", DT_FLOAT).Attr("Tidx", DT_INT32), kCpu1));
  nodes.push_back(On(TestNode("sum_big", "Sum").Input("big").Input("axis").Attr("T", DT_FLOAT).Attr("Tidx", DT_INT32), kCpu1));
  nodes.push_back(Binary("total", "AddV2", "sum_chain", "sum_big", kCpu1));
  return GraphOf(nodes);
}

TEST(PartitionTest, RecvsAreScheduledJustBeforeTheyAreNeeded) {
  auto g = Placed(LateConsumerGraph(8));
  ASSERT_NE(g, nullptr);
  Partitions p;
  ASSERT_TRUE(PartitionGraph(*g, PartitionOptions(), &p).ok());
  const NodeDef* recv = Find(p.graphs[kCpu1], "_recv_seed2_0");
  ASSERT_NE(recv, nullptr);
  // It waits for a late link of the chain (the estimate needs `big` only for
  // the last Sum), never for anything downstream of its own consumers.
  ASSERT_EQ(recv->input_size(), 1);
  const std::string waits_for = recv->input(0);
  EXPECT_EQ(waits_for.rfind("^chain", 0), 0u) << waits_for;
  EXPECT_GE(std::stoi(waits_for.substr(6)), 4) << waits_for;
  ASSERT_EQ(p.scheduled.size(), 1u);
  EXPECT_NE(p.scheduled[0].find("_recv_seed2_0 on CPU:1 waits for chain"), std::string::npos) << p.scheduled[0];

  PartitionOptions off;
  off.schedule_recvs = false;
  Partitions q;
  ASSERT_TRUE(PartitionGraph(*g, off, &q).ok());
  EXPECT_EQ(Find(q.graphs[kCpu1], "_recv_seed2_0")->input_size(), 0);
  EXPECT_TRUE(q.scheduled.empty());
}

// A Recv needed at once gets no control edge.
TEST(PartitionTest, RecvsNeededAtOnceAreNotDelayed) {
  auto g = Placed(GraphOf({On(ConstNode("a", F({1}, {1})), kCpu0), Unary("b", "Neg", "a", kCpu1),
                           Unary("c", "Neg", "b", kCpu1)}));
  Partitions p;
  ASSERT_TRUE(PartitionGraph(*g, PartitionOptions(), &p).ok());
  EXPECT_EQ(Find(p.graphs[kCpu1], "_recv_a_0")->input_size(), 0);
}

// A variable read on another device reads when the reader would have: an
// Identity on the variable's device waits for the reader's other inputs.
TEST(PartitionTest, CrossDeviceReadsOfVariablesWaitForTheReader) {
  auto g = Placed(GraphOf({On(TestNode("v", "VariableV2").Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({1})), kCpu0),
                           On(ConstNode("one", F({1}, {1})), kCpu0),
                           On(TestNode("bump", "AssignAdd").Input("v").Input("one").Attr("T", DT_FLOAT), kCpu0),
                           On(ConstNode("k", F({2}, {1})), kCpu1),
                           WithControl(Binary("after", "Mul", "v", "k", kCpu1), "bump"),
                           Unary("plain", "Neg", "v", kCpu0)}));
  ASSERT_NE(g, nullptr);
  auto added = AddCrossDeviceReads(g.get());
  ASSERT_TRUE(added.ok()) << added.status();
  EXPECT_EQ(*added, 1);  // "plain" reads on the variable's own device
  Partitions p;
  ASSERT_TRUE(PartitionGraph(*g, PartitionOptions(), &p).ok());
  const NodeDef* read = Find(p.graphs[kCpu0], "_read_v_0_for_after");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->op(), "Identity");
  EXPECT_EQ(Inputs(read), (std::vector<std::string>{"v", "^bump", "^_recv_ctrl_k"}));  // by node id
  EXPECT_EQ(Inputs(Find(p.graphs[kCpu1], "after")), (std::vector<std::string>{"_recv__read_v_0_for_after_0", "k", "^_recv_ctrl_bump"}));
}

// End to end: the value read on CPU:1 after an update on CPU:0 is the
// updated one, as on one device.
TEST(PartitionTest, CrossDeviceReadSeesTheUpdateItWaitsFor) {
  const GraphDef g = GraphOf({On(TestNode("v", "VariableV2").Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({1})), kCpu0),
                              On(ConstNode("zero", F({0}, {1})), kCpu0),
                              On(TestNode("init", "Assign").Input("v").Input("zero").Attr("T", DT_FLOAT), kCpu0),
                              On(ConstNode("one", F({1}, {1})), kCpu0),
                              On(TestNode("bump", "AssignAdd").Input("v").Input("one").Attr("T", DT_FLOAT), kCpu0),
                              WithControl(Unary("after", "Neg", "v", kCpu1), "bump")});
  SessionOptions options;
  options.cpu_devices = 2;
  for (int threads : {1, 2}) {
    options.num_threads = threads;
    auto session = NewSessionOrDie(g, options);
    std::vector<Tensor> out;
    ASSERT_TRUE(session->Run({}, {}, {"init"}, &out).ok());
    for (int step = 1; step <= 20; ++step) {
      ASSERT_TRUE(session->Run({}, {"after"}, {}, &out).ok());
      ASSERT_EQ(out[0].data<float>()[0], -static_cast<float>(step));
    }
  }
}

}  // namespace
}  // namespace flowvm
