// Loops and conditionals across the tasks of a cluster: each task runs its
// part of a loop in step with the others (a control loop per task, driven
// by the LoopCond value), and dead values cross tasks.
#include <map>

#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/session.h"
#include "runtime/control_flow_test_util.h"
#include "graph/attr_value_util.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;       // NOLINT
using namespace control_flow_testing;  // NOLINT
using distributed_testing::LocalCluster;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1/device:CPU:0";

SessionOptions At(const std::string& target) {
  SessionOptions options;
  options.target = target;
  options.connect_timeout_ms = 10000;
  return options;
}

// Every node on worker 0 except the ones named `on_worker1`.
GraphDef Placed(std::vector<NodeDef> nodes, const std::vector<std::string>& on_worker1) {
  for (auto& n : nodes) {
    bool remote = std::find(on_worker1.begin(), on_worker1.end(), n.name()) != on_worker1.end();
    n.set_device(remote ? kWorker1 : kWorker0);
  }
  return GraphOf(nodes);
}

TEST(ClusterControlFlowTest, ALoopWhoseBodySpansTwoTasks) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  GraphDef g = Placed(Concat({IntConst("zero", 0), PlaceholderNode("limit", DT_INT32, PartialTensorShape({}))},
                             SumLoop("", "loop", "zero", "limit", "zero")),
                      {"acc_plus", "body_acc"});
  auto session = NewSessionOrDie(g, At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  for (int limit : {0, 1, 25, 200})
    EXPECT_EQ(RunScalar(session.get(), {{"limit", Tensor::Scalar<int32_t>(limit)}}, "exit_acc"),
              limit * (limit - 1) / 2)
        << limit;
}

TEST(ClusterControlFlowTest, NestedLoopsAcrossTasks) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  std::vector<NodeDef> nodes = {IntConst("zero", 0), IntConst("outer_limit", 4)};
  nodes = Concat(nodes, SumLoop("o_", "outer", "zero", "outer_limit", "zero"));
  for (auto& n : nodes)
    if (n.name() == "o_acc_plus") n.set_input(1, "in_exit_acc");
  nodes.push_back(IntConst("o_zero", 0, "o_body_i"));
  nodes = Concat(nodes, SumLoop("in_", "inner", "o_zero", "o_body_i", "o_zero"));
  auto session = NewSessionOrDie(Placed(nodes, {"in_acc_plus", "in_i_plus_1", "in_one"}),
                                 At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  int expected = 0;
  for (int i = 0; i < 4; ++i) expected += i * (i - 1) / 2;
  EXPECT_EQ(RunScalar(session.get(), {}, "o_exit_acc"), expected);
}

TEST(ClusterControlFlowTest, ACondBranchOnAnotherTask) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  GraphDef g = Placed(Concat({BoolPlaceholder("pred"), IntConst("x", 7)}, CondNodes("x")), {"then", "two"});
  auto session = NewSessionOrDie(g, At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  for (int round = 0; round < 2; ++round) {
    EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(true)}}, "merge"), 14);
    EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "merge"), 107);
  }
}

// A loop whose control-flow nodes ask for tasks other than their Merges'
// (issue 27, section 6): as in TensorFlow, the NextIterations, Switches,
// Exits and Enters go beside the nodes they follow, and three tasks run
// the loop in step.
TEST(ClusterControlFlowTest, ALoopWhoseControlFlowNodesAreOnDifferentTasks) {
  LocalCluster cluster({{"worker", 3}});
  ASSERT_TRUE(cluster.StartAll());
  constexpr char kWorker2[] = "/job:worker/replica:0/task:2/device:CPU:0";
  std::vector<NodeDef> nodes = Concat({IntConst("start", 1), IntConst("zero", 0), IntConst("limit", 11)},
                                      SumLoop("", "loop", "start", "limit", "zero"));
  const std::map<std::string, std::string> devices = {
      {"merge_i", kWorker1},  {"merge_acc", kWorker1}, {"next_i", kWorker0},   {"next_acc", kWorker2},
      {"switch_i", kWorker2}, {"switch_acc", kWorker0}, {"exit_acc", kWorker2}, {"enter_i", kWorker0},
      {"enter_acc", kWorker2}, {"acc_plus", kWorker2},  {"i_plus_1", kWorker0}, {"less", kWorker0}};
  for (auto& n : nodes) {
    auto it = devices.find(n.name());
    if (it != devices.end()) n.set_device(it->second);
  }
  auto session = NewSessionOrDie(GraphOf(nodes), At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  for (int round = 0; round < 2; ++round) {
    std::vector<Tensor> out;
    RunStats stats;
    FLOWVM_ASSERT_OK(session->Run({}, {"exit_acc", "exit_i"}, {}, &out, &stats));
    EXPECT_EQ(out[0].scalar<int32_t>(), 55);  // 1 + 2 + ... + 10
    EXPECT_EQ(out[1].scalar<int32_t>(), 11);
    if (round > 0) continue;
    for (const char* node : {"next_i", "next_acc", "switch_i", "switch_acc", "exit_acc", "enter_i", "enter_acc"}) {
      bool found = false;
      for (const std::string& line : stats.placement) {
        if (line.rfind(std::string(node) + " -> ", 0) != 0) continue;
        found = true;
        EXPECT_NE(line.find("task:1"), std::string::npos) << line;
      }
      EXPECT_TRUE(found) << node;
    }
  }
}

}  // namespace
}  // namespace flowvm

namespace flowvm {
namespace {

// A queue on /job:ps filled by steps whose data comes from one worker and
// drained by steps of another client session, through the cluster; a
// dequeue waiting on the empty queue holds no thread and is ended by its
// deadline.
TEST(ClusterControlFlowTest, AQueueOnThePsServesEveryTask) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  constexpr char kPs[] = "/job:ps/replica:0/task:0/device:CPU:0";
  constexpr char kW0[] = "/job:worker/replica:0/task:0/device:CPU:0";
  constexpr char kW1[] = "/job:worker/replica:0/task:1/device:CPU:0";
  auto types = MakeAttrValue(DataTypeVector{DT_FLOAT});
  auto node = [&](const std::string& name, const std::string& op, std::vector<std::string> inputs,
                  std::map<std::string, AttrValue> attrs, const std::string& device) {
    TestNode n(name, op);
    for (auto& in : inputs) n.Input(in);
    NodeDef def = n;
    for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
    def.set_device(device);
    return def;
  };
  GraphDef g = GraphOf({node("q", "FIFOQueueV2", {}, {{"component_types", types}, {"shared_name", MakeAttrValue(std::string("shared_q"))}}, kPs),
                        On(PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1})), kW0),
                        Unary("doubled", "Neg", "x", kW0),
                        node("put", "QueueEnqueueManyV2", {"q", "doubled"}, {{"Tcomponents", types}}, ""),
                        node("get", "QueueDequeueV2", {"q"}, {{"component_types", types}}, ""),
                        Unary("got", "Identity", "get", kW1)});
  auto producer = NewSessionOrDie(g, At(cluster.Target("worker", 0)));
  auto consumer = NewSessionOrDie(g, At(cluster.Target("worker", 1)));
  ASSERT_NE(producer, nullptr);
  ASSERT_NE(consumer, nullptr);
  FLOWVM_ASSERT_OK(producer->Run({{"x", F({1, 2, 3}, {3})}}, {}, {"put"}, nullptr));
  std::vector<float> got;
  for (int i = 0; i < 3; ++i) {
    std::vector<Tensor> out;
    FLOWVM_ASSERT_OK(consumer->Run({}, {"got"}, {}, &out));
    got.push_back(out[0].scalar<float>());
  }
  EXPECT_EQ(got, (std::vector<float>{-1, -2, -3}));
  RunOptions options;
  options.set_timeout_in_ms(300);
  std::vector<Tensor> out;
  Status s = consumer->Run(options, {}, {"got"}, {}, &out, nullptr);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
  FLOWVM_ASSERT_OK(producer->Run({{"x", F({7}, {1})}}, {}, {"put"}, nullptr));
  FLOWVM_ASSERT_OK(consumer->Run({}, {"got"}, {}, &out));
  EXPECT_EQ(out[0].scalar<float>(), -7.f);  // the timed-out dequeue took nothing
}

}  // namespace
}  // namespace flowvm
