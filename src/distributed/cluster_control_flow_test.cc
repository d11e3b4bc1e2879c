// Loops and conditionals across the tasks of a cluster: each task runs its
// part of a loop in step with the others (a control loop per task, driven
// by the LoopCond value), and dead values cross tasks.
#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/session.h"
#include "runtime/control_flow_test_util.h"
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

}  // namespace
}  // namespace flowvm
