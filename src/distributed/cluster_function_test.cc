// Functions on a cluster: a call on one task whose body runs on another
// (the body is placed and partitioned like any subgraph), and a recursive
// function, whose call kernel needs the library on the worker that runs it.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/session.h"
#include "runtime/runtime_test_util.h"
#include "util/function_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT
using distributed_testing::LocalCluster;

constexpr char kWorker0[] = "/job:worker/replica:0/task:0/device:CPU:0";

SessionOptions At(const std::string& target) {
  SessionOptions options;
  options.target = target;
  options.connect_timeout_ms = 10000;
  return options;
}

TEST(ClusterFunctionTest, BodyRunsOnAnotherTaskAndRecursionRunsOnTheWorker) {
  LocalCluster cluster({{"worker", 3}});
  ASSERT_TRUE(cluster.StartAll());
  // x * x + x, the multiplication pinned to worker 2 by the body itself.
  FunctionDef remote = testing::ParseFunctionDef(R"pb(
    signature { name: "RemoteSquarePlus" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "sq" op: "Mul" input: "x" input: "x" device: "/job:worker/task:2"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "plus" op: "AddV2" input: "sq:z:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "plus:z:0" })pb");
  FunctionDef fact = testing::FactorialFunction();
  NodeDef x = PlaceholderNode("x", DT_FLOAT, PartialTensorShape());
  x.set_device(kWorker0);
  NodeDef call;
  call.set_name("call");
  call.set_op("RemoteSquarePlus");
  call.add_input("x");
  call.set_device(kWorker0);
  NodeDef rec;
  rec.set_name("rec");
  rec.set_op("Fact");
  rec.add_input("x");
  rec.set_device("/job:worker/task:1");
  GraphDef g = GraphOf({x, call, rec});
  *g.mutable_library()->add_function() = remote;
  *g.mutable_library()->add_function() = fact;

  auto session = NewSessionOrDie(g, At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  RunStats stats;
  ASSERT_TRUE(session->Run({{"x", Tensor::Scalar<float>(4)}}, {"call:0", "rec:0"}, {}, &out, &stats).ok());
  EXPECT_EQ(out[0].scalar<float>(), 20.0f);
  EXPECT_EQ(out[1].scalar<float>(), 24.0f);
  bool sq_on_2 = false;
  for (const auto& line : stats.placement) sq_on_2 |= line.rfind("call/sq -> /job:worker/replica:0/task:2", 0) == 0;
  EXPECT_TRUE(sq_on_2) << ::testing::PrintToString(stats.placement);
}

}  // namespace
}  // namespace flowvm
