// Loops and conditionals whose control-flow nodes a GraphDef pins to
// different devices (issue 27, section 6). As in TensorFlow, the placer
// moves a NextIteration beside its Merge, a Switch to its data input's
// device, an Exit to its input's and an Enter to its first consumer's, and
// the partitioner builds the control loops the devices need. Results are
// compared with values computed by hand, on sessions with 2 and 3 CPUs.
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "runtime/control_flow_test_util.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;       // NOLINT
using namespace control_flow_testing;  // NOLINT

constexpr char kCpu2[] = "/job:localhost/replica:0/task:0/device:CPU:2";

// `nodes` with the devices of `devices` (node name -> device); the others
// keep theirs.
std::vector<NodeDef> Pin(std::vector<NodeDef> nodes, const std::map<std::string, std::string>& devices) {
  for (auto& n : nodes) {
    auto it = devices.find(n.name());
    if (it != devices.end()) n.set_device(it->second);
  }
  return nodes;
}

SessionOptions Cpus(int n) {
  SessionOptions options;
  options.cpu_devices = n;
  return options;
}

// sum(1..10) = 55: SumLoop from i = 1 while i < 11.
std::vector<NodeDef> SumOneToTen() {
  return Concat({IntConst("one_init", 1), IntConst("zero", 0), IntConst("limit", 11)},
                SumLoop("", "loop", "one_init", "limit", "zero"));
}

// x = 2x + 1, n times from x = 0 (2^n - 1), as tf.while_loop writes it:
// `i` counts, constants in the body hang off its pivot.
std::vector<NodeDef> DoublingLoop(const std::string& n) {
  return {IntConst("zero", 0),
          EnterNode("enter_i", "zero", "dbl", false),
          EnterNode("enter_x", "zero", "dbl", false),
          EnterNode("enter_n", n, "dbl", true),
          MergeNode("merge_i", {"enter_i", "next_i"}),
          MergeNode("merge_x", {"enter_x", "next_x"}),
          N("less", "Less", {"merge_i", "enter_n"}),
          N("cond", "LoopCond", {"less"}, DT_INVALID),
          N("switch_i", "Switch", {"merge_i", "cond"}),
          N("switch_x", "Switch", {"merge_x", "cond"}),
          N("exit_i", "Exit", {"switch_i:0"}),
          N("exit_x", "Exit", {"switch_x:0"}),
          N("body_i", "Identity", {"switch_i:1"}),
          N("body_x", "Identity", {"switch_x:1"}),
          IntConst("one_i", 1, "body_i"),
          N("i_plus_1", "Add", {"body_i", "one_i"}),
          IntConst("two", 2, "body_x"),
          IntConst("one_x", 1, "body_x"),
          N("twice", "Mul", {"body_x", "two"}),
          N("x_next", "Add", {"twice", "one_x"}),
          N("next_i", "NextIteration", {"i_plus_1"}),
          N("next_x", "NextIteration", {"x_next"})};
}

std::string DeviceOf(const RunStats& stats, const std::string& node) {
  for (const std::string& l : stats.placement)
    if (l.rfind(node + " -> ", 0) == 0) return l.substr(node.size() + 4, 5);
  return "?";
}
std::string LineOf(const RunStats& stats, const std::string& node) {
  for (const std::string& l : stats.placement)
    if (l.rfind(node + " -> ", 0) == 0) return l;
  return "";
}

// Runs `fetch` and returns its int32 scalar, with the step's stats.
int32_t RunWithStats(Session* session, const std::string& fetch, RunStats* stats,
                     const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
  std::vector<Tensor> out;
  Status s = session->Run(feeds, {fetch}, {}, &out, stats);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? out[0].scalar<int32_t>() : -1;
}

// The example: a NextIteration on CPU:0, its Merge on CPU:1.
TEST(ControlFlowDevicesTest, ANextIterationPinnedAwayFromItsMergeFollowsIt) {
  for (int cpus : {2, 3}) {
    SCOPED_TRACE(std::to_string(cpus) + " CPUs");
    auto session = NewSessionOrDie(
        GraphOf(Pin(SumOneToTen(), {{"next_acc", kCpu0}, {"merge_acc", kCpu1}, {"next_i", kCpu1}, {"merge_i", kCpu0}})),
        Cpus(cpus));
    ASSERT_NE(session, nullptr);
    RunStats stats;
    EXPECT_EQ(RunWithStats(session.get(), "exit_acc", &stats), 55);
    EXPECT_EQ(DeviceOf(stats, "next_acc"), "CPU:1");
    EXPECT_EQ(DeviceOf(stats, "next_i"), "CPU:0");
    EXPECT_NE(LineOf(stats, "next_acc").find("its request '/job:localhost/replica:0/task:0/device:CPU:0' gives way: "
                                             "a NextIteration runs beside its Merge"),
              std::string::npos)
        << LineOf(stats, "next_acc");
    EXPECT_EQ(RunScalar(session.get(), {}, "exit_i"), 11);
  }
}

TEST(ControlFlowDevicesTest, TheDoublingLoopWithEveryKindOfNodePinnedApart) {
  // Merges on CPU:1, everything that follows them asked elsewhere.
  const std::map<std::string, std::string> pins = {
      {"enter_i", kCpu0}, {"enter_x", kCpu0},  {"enter_n", kCpu0},  {"merge_i", kCpu1},
      {"merge_x", kCpu1}, {"switch_i", kCpu0}, {"switch_x", kCpu0}, {"exit_i", kCpu0},
      {"exit_x", kCpu0},  {"next_i", kCpu0},   {"next_x", kCpu0},   {"twice", kCpu0},
      {"x_next", kCpu0},  {"cond", kCpu0},     {"less", kCpu0}};
  for (int cpus : {2, 3}) {
    SCOPED_TRACE(std::to_string(cpus) + " CPUs");
    std::vector<NodeDef> nodes = Pin(DoublingLoop("n"), pins);
    nodes.push_back(PlaceholderNode("n", DT_INT32, PartialTensorShape({})));
    auto session = NewSessionOrDie(GraphOf(nodes), Cpus(cpus));
    ASSERT_NE(session, nullptr);
    RunStats stats;
    std::vector<Tensor> out;
    FLOWVM_ASSERT_OK(session->Run({{"n", Tensor::Scalar<int32_t>(10)}}, {"exit_x", "exit_i"}, {}, &out, &stats));
    EXPECT_EQ(out[0].scalar<int32_t>(), 1023);
    EXPECT_EQ(out[1].scalar<int32_t>(), 10);
    for (const char* node : {"enter_i", "enter_x", "switch_i", "switch_x", "exit_i", "exit_x", "next_i", "next_x"})
      EXPECT_EQ(DeviceOf(stats, node), "CPU:1") << LineOf(stats, node);
    // The constant Enter goes to its consumer `less`, which stays on CPU:0.
    EXPECT_EQ(DeviceOf(stats, "enter_n"), "CPU:0") << LineOf(stats, "enter_n");
    for (int n : {0, 1, 5, 20}) {
      EXPECT_EQ(RunScalar(session.get(), {{"n", Tensor::Scalar<int32_t>(n)}}, "exit_x"), (1 << n) - 1) << n;
      EXPECT_EQ(RunScalar(session.get(), {{"n", Tensor::Scalar<int32_t>(n)}}, "exit_i"), n) << n;
    }
  }
}

TEST(ControlFlowDevicesTest, ASwitchPinnedAwayFromItsDataInputFollowsIt) {
  // The loop's Merges on CPU:0, its Switches asked on CPU:1 (and CPU:2),
  // the body on CPU:1.
  for (int cpus : {2, 3}) {
    SCOPED_TRACE(std::to_string(cpus) + " CPUs");
    const std::string other = cpus == 3 ? kCpu2 : kCpu1;
    auto session = NewSessionOrDie(GraphOf(Pin(SumOneToTen(), {{"merge_i", kCpu0},
                                                               {"merge_acc", kCpu0},
                                                               {"switch_i", kCpu1},
                                                               {"switch_acc", other},
                                                               {"acc_plus", kCpu1},
                                                               {"i_plus_1", other}})),
                                   Cpus(cpus));
    ASSERT_NE(session, nullptr);
    RunStats stats;
    EXPECT_EQ(RunWithStats(session.get(), "exit_acc", &stats), 55);
    EXPECT_EQ(DeviceOf(stats, "switch_i"), "CPU:0");
    EXPECT_EQ(DeviceOf(stats, "switch_acc"), "CPU:0");
    EXPECT_EQ(DeviceOf(stats, "acc_plus"), "CPU:1");
    EXPECT_NE(LineOf(stats, "switch_i").find("beside merge_i, its data input: a Switch runs where the value it routes "
                                            "is (as in TensorFlow); its request '" + std::string(kCpu1) + "' gives way"),
              std::string::npos)
        << LineOf(stats, "switch_i");
  }
}

TEST(ControlFlowDevicesTest, AnExitPinnedAwayFromItsInputFollowsIt) {
  for (int cpus : {2, 3}) {
    SCOPED_TRACE(std::to_string(cpus) + " CPUs");
    const std::string far = cpus == 3 ? kCpu2 : kCpu1;
    std::vector<NodeDef> nodes = Pin(SumOneToTen(), {{"merge_acc", kCpu0}, {"switch_acc", kCpu0}, {"exit_acc", far},
                                                     {"merge_i", kCpu0}, {"exit_i", kCpu1}});
    // Consumers of the Exits on yet another device.
    nodes.push_back(N("twice_acc", "Add", {"exit_acc", "exit_acc"}, DT_INT32, kCpu1));
    nodes.push_back(N("i_and_acc", "Add", {"exit_i", "exit_acc"}, DT_INT32, far));
    auto session = NewSessionOrDie(GraphOf(nodes), Cpus(cpus));
    ASSERT_NE(session, nullptr);
    RunStats stats;
    EXPECT_EQ(RunWithStats(session.get(), "twice_acc", &stats), 110);
    EXPECT_EQ(DeviceOf(stats, "exit_acc"), "CPU:0");
    EXPECT_EQ(DeviceOf(stats, "twice_acc"), "CPU:1");
    EXPECT_NE(LineOf(stats, "exit_acc").find("beside switch_acc, its input: an Exit runs where its input is"),
              std::string::npos)
        << LineOf(stats, "exit_acc");
    EXPECT_EQ(RunScalar(session.get(), {}, "i_and_acc"), 66);
  }
}

// for i in 0..outer: acc += sum(j for j in 0..i), its inner loop spread
// over the devices and its control-flow nodes asked elsewhere.
std::vector<NodeDef> NestedSums(int outer) {
  std::vector<NodeDef> nodes = {IntConst("zero", 0), IntConst("outer_limit", outer)};
  nodes = Concat(nodes, SumLoop("o_", "outer", "zero", "outer_limit", "zero"));
  for (auto& n : nodes)
    if (n.name() == "o_acc_plus") n.set_input(1, "in_exit_acc");
  nodes.push_back(IntConst("o_zero", 0, "o_body_i"));
  return Concat(nodes, SumLoop("in_", "inner", "o_zero", "o_body_i", "o_zero"));
}

TEST(ControlFlowDevicesTest, ANestedLoopSpreadOverTheDevices) {
  int expected = 0;
  for (int i = 0; i < 6; ++i) expected += i * (i - 1) / 2;
  for (int cpus : {2, 3}) {
    SCOPED_TRACE(std::to_string(cpus) + " CPUs");
    const std::string third = cpus == 3 ? kCpu2 : kCpu0;
    const std::map<std::string, std::string> pins = {
        // The outer loop on CPU:0 but for pins on its control-flow nodes.
        {"o_merge_i", kCpu0}, {"o_merge_acc", kCpu0}, {"o_next_acc", kCpu1}, {"o_switch_i", kCpu1},
        {"o_exit_acc", kCpu1}, {"o_enter_i", third},
        // The inner loop's Merges on CPU:1, its other nodes asked elsewhere.
        {"in_merge_i", kCpu1}, {"in_merge_acc", kCpu1}, {"in_next_i", kCpu0}, {"in_next_acc", third},
        {"in_enter_i", kCpu0}, {"in_enter_acc", third}, {"in_enter_limit", kCpu0}, {"in_switch_acc", kCpu0},
        {"in_exit_acc", third}, {"in_acc_plus", third}, {"in_less", kCpu0}, {"in_cond", third}};
    auto session = NewSessionOrDie(GraphOf(Pin(NestedSums(6), pins)), Cpus(cpus));
    ASSERT_NE(session, nullptr);
    RunStats stats;
    EXPECT_EQ(RunWithStats(session.get(), "o_exit_acc", &stats), expected);
    EXPECT_EQ(DeviceOf(stats, "in_next_i"), "CPU:1");
    EXPECT_EQ(DeviceOf(stats, "in_exit_acc"), "CPU:1");
    EXPECT_EQ(DeviceOf(stats, "o_exit_acc"), "CPU:0");
    for (int round = 0; round < 3; ++round) EXPECT_EQ(RunScalar(session.get(), {}, "o_exit_acc"), expected);
  }
}

TEST(ControlFlowDevicesTest, ACondWhoseSwitchAndMergeArePinnedApart) {
  for (int cpus : {2, 3}) {
    SCOPED_TRACE(std::to_string(cpus) + " CPUs");
    const std::string far = cpus == 3 ? kCpu2 : kCpu0;
    // x on CPU:0, its Switch asked on CPU:1, the branches on CPU:1 and the
    // far device, the Merge on CPU:1.
    std::vector<NodeDef> nodes = Pin(Concat({BoolPlaceholder("pred"), IntConst("x", 7, "", kCpu0)}, CondNodes("x")),
                                     {{"sw", kCpu1}, {"then", kCpu1}, {"else", far}, {"merge", kCpu1}});
    auto session = NewSessionOrDie(GraphOf(nodes), Cpus(cpus));
    ASSERT_NE(session, nullptr);
    RunStats stats;
    EXPECT_EQ(RunWithStats(session.get(), "merge", &stats, {{"pred", Tensor::Scalar<bool>(true)}}), 14);
    EXPECT_EQ(DeviceOf(stats, "sw"), "CPU:0");
    EXPECT_EQ(DeviceOf(stats, "merge"), "CPU:1");
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(true)}}, "merge"), 14);
      EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "merge"), 107);
      EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "merge:1"), 0);
    }
  }
}

// Every node of the loop on a device picked by a seeded hash: whatever the
// GraphDef asks, the loop runs and gives what it gives on one device.
TEST(ControlFlowDevicesTest, AnyPinningOfTheLoopsNodesGivesTheSameResults) {
  for (int cpus : {2, 3}) {
    for (uint32_t seed = 1; seed <= 12; ++seed) {
      SCOPED_TRACE(std::to_string(cpus) + " CPUs, seed " + std::to_string(seed));
      std::vector<NodeDef> nodes = DoublingLoop("n");
      nodes.push_back(IntConst("n", 10));
      uint32_t h = seed * 2654435761u;
      for (auto& node : nodes) {
        h = h * 1103515245u + 12345u;
        const int d = static_cast<int>((h >> 16) % (cpus + 1));  // cpus: no request
        if (d < cpus) node.set_device("/device:CPU:" + std::to_string(d));
      }
      auto session = NewSessionOrDie(GraphOf(nodes), Cpus(cpus));
      ASSERT_NE(session, nullptr);
      EXPECT_EQ(RunScalar(session.get(), {}, "exit_x"), 1023);
      EXPECT_EQ(RunScalar(session.get(), {}, "exit_i"), 10);

      std::vector<NodeDef> nested = NestedSums(5);
      for (auto& node : nested) {
        h = h * 1103515245u + 12345u;
        const int d = static_cast<int>((h >> 16) % (cpus + 1));
        if (d < cpus) node.set_device("/device:CPU:" + std::to_string(d));
      }
      auto nested_session = NewSessionOrDie(GraphOf(nested), Cpus(cpus));
      ASSERT_NE(nested_session, nullptr);
      EXPECT_EQ(RunScalar(nested_session.get(), {}, "o_exit_acc"), 0 + 0 + 1 + 3 + 6);
    }
  }
}

// Two nodes that must be together (a _class), neither of them a
// control-flow node that TensorFlow moves, with contradictory requests:
// still an error naming both.
TEST(ControlFlowDevicesTest, ARealConflictInALoopStillFailsNamingBothNodes) {
  std::vector<NodeDef> nodes = Pin(SumOneToTen(), {{"merge_acc", kCpu1}, {"acc_plus", kCpu0}});
  for (auto& n : nodes)
    if (n.name() == "acc_plus")
      (*n.mutable_attr())["_class"] = MakeAttrValue(std::vector<std::string>{"loc:@merge_acc"});
  auto created = Session::Create(Cpus(2), GraphOf(nodes));
  Status s = created.status();
  if (s.ok()) {  // placed when a step is prepared
    std::vector<Tensor> out;
    s = (*created)->Run({}, {"exit_acc"}, {}, &out);
  }
  EXPECT_TRUE(HasError(s, Code::kInvalidArgument, {"cannot colocate", "acc_plus", "merge_acc", "CPU:0", "CPU:1"}));
}

}  // namespace
}  // namespace flowvm
