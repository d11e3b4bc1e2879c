// Functions on a cluster: a call on one task whose body runs on another
// (the body is placed and partitioned like any subgraph), and a recursive
// function, whose call kernel needs the library on the worker that runs it.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/session.h"
#include "runtime/runtime_test_util.h"

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

FunctionDef Fn(const std::string& text) {
  FunctionDef f;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &f)) << text;
  return f;
}

TEST(ClusterFunctionTest, BodyRunsOnAnotherTaskAndRecursionRunsOnTheWorker) {
  LocalCluster cluster({{"worker", 3}});
  ASSERT_TRUE(cluster.StartAll());
  // x * x + x, the multiplication pinned to worker 2 by the body itself.
  FunctionDef remote = Fn(R"pb(
    signature { name: "RemoteSquarePlus" input_arg { name: "x" type: DT_FLOAT }
                output_arg { name: "y" type: DT_FLOAT } }
    node_def { name: "sq" op: "Mul" input: "x" input: "x" device: "/job:worker/task:2"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "plus" op: "AddV2" input: "sq:z:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "y" value: "plus:z:0" })pb");
  FunctionDef fact = Fn(R"pb(
    signature { name: "Fact" input_arg { name: "n" type: DT_FLOAT } output_arg { name: "f" type: DT_FLOAT } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } } }
    node_def { name: "le" op: "LessEqual" input: "n" input: "one:output:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "sw" op: "Switch" input: "n" input: "le:z:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "base" op: "OnesLike" input: "sw:output_true:0" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "nm1" op: "Sub" input: "sw:output_false:0" input: "one:output:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "rec" op: "Fact" input: "nm1:z:0" }
    node_def { name: "prod" op: "Mul" input: "sw:output_false:0" input: "rec:f:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "merge" op: "Merge" input: "base:y:0" input: "prod:z:0"
               attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 2 } } }
    ret { key: "f" value: "merge:output:0" })pb");
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
