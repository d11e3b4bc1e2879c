// Sessions on a cluster of in-process servers: graphs placed across tasks,
// shared state, feeds and fetches, large and compressed transfers, and the
// errors of bad graphs, missing tasks and restarted ones.
#include <chrono>
#include <cstring>
#include <limits>
#include <thread>

#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/session.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT
using distributed_testing::LocalCluster;

constexpr char kPs[] = "/job:ps/replica:0/task:0/device:CPU:0";
constexpr char kWorker0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1/device:CPU:0";

NodeDef Variable(const std::string& name, const std::string& device, PartialTensorShape shape) {
  return On(TestNode(name, "VariableV2").Attr("dtype", DT_FLOAT).Attr("shape", shape), device);
}

// v (on ps) = [1, 2]; y = v * x on worker 1; z = y + v on worker 0.
GraphDef AcrossTasks() {
  return GraphOf({Variable("v", kPs, PartialTensorShape({2})), On(ConstNode("init_value", F({1, 2}, {2})), kPs),
                  On(Binary("init", "Assign", "v", "init_value"), kPs),
                  On(PlaceholderNode("x", DT_FLOAT, PartialTensorShape({2})), kWorker1),
                  Binary("y", "Mul", "v", "x", kWorker1), Binary("z", "Add", "y", "v", kWorker0),
                  On(Binary("inc", "AssignAdd", "v", "x"), kPs)});
}

SessionOptions At(const std::string& target) {
  SessionOptions options;
  options.target = target;
  options.connect_timeout_ms = 10000;
  return options;
}

TEST(ClusterSessionTest, RunsAGraphAcrossTasks) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  auto session = NewSessionOrDie(AcrossTasks(), At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  RunStats stats;
  FLOWVM_ASSERT_OK(session->Run({{"x", F({3, 4}, {2})}}, {"y", "z"}, {}, &out, &stats));
  ASSERT_EQ(out.size(), 2u);
  ExpectTensorNear(out[0], F({3, 8}, {2}));
  ExpectTensorNear(out[1], F({4, 10}, {2}));
  EXPECT_EQ(stats.partitions, 3);
  EXPECT_FALSE(stats.cache_hit);
  // The same signature again: cached, same values.
  FLOWVM_ASSERT_OK(session->Run({{"x", F({3, 4}, {2})}}, {"y", "z"}, {}, &out, &stats));
  EXPECT_TRUE(stats.cache_hit);
  ExpectTensorNear(out[1], F({4, 10}, {2}));
  // Step ids are random 64-bit numbers, not a counter.
  RunStats again;
  FLOWVM_ASSERT_OK(session->Run({{"x", F({3, 4}, {2})}}, {"y"}, {}, &out, &again));
  EXPECT_NE(again.step_id, stats.step_id + 1);
  EXPECT_NE(again.step_id, 0);
}

TEST(ClusterSessionTest, SessionsOnOneServerShareVariables) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  auto a = NewSessionOrDie(AcrossTasks(), At(cluster.Target("ps")));
  auto b = NewSessionOrDie(AcrossTasks(), At(cluster.Target("ps")));
  ASSERT_TRUE(a && b);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(a->Run({}, {}, {"init"}, &out));
  FLOWVM_ASSERT_OK(a->Run({{"x", F({10, 10}, {2})}}, {}, {"inc"}, &out));
  // b never initialized v, yet reads what a left there.
  FLOWVM_ASSERT_OK(b->Extend(GraphOf({Unary("r", "Identity", "v", kPs)})));
  FLOWVM_ASSERT_OK(b->Run({}, {"r"}, {}, &out));
  ExpectTensorNear(out[0], F({11, 12}, {2}));
  // Closing a session leaves the server's state alone.
  FLOWVM_ASSERT_OK(a->Close());
  FLOWVM_ASSERT_OK(b->Run({}, {"r"}, {}, &out));
  ExpectTensorNear(out[0], F({11, 12}, {2}));
  // ResetContainers drops it for everyone.
  FLOWVM_ASSERT_OK(b->ResetContainers({""}));
  EXPECT_TRUE(HasError(b->Run({}, {"r"}, {}, &out), Code::kFailedPrecondition, {"v"}));
}

TEST(ClusterSessionTest, ListsTheDevicesOfEveryTask) {
  ServerOptions base;
  base.cpu_devices = 2;
  LocalCluster cluster({{"ps", 1}, {"worker", 2}}, base);
  ASSERT_TRUE(cluster.StartAll());
  auto session = NewSessionOrDie(GraphOf({}), At(cluster.Target()));
  ASSERT_NE(session, nullptr);
  std::vector<DeviceInfo> devices;
  FLOWVM_ASSERT_OK(session->ListDevices(&devices));
  std::vector<std::string> names;
  for (const auto& d : devices) names.push_back(d.name);
  EXPECT_EQ(names.size(), 6u);
  EXPECT_NE(std::find(names.begin(), names.end(), "/job:worker/replica:0/task:1/device:CPU:1"), names.end());
  for (const auto& d : devices) EXPECT_NE(d.incarnation, 0u);
}

TEST(ClusterSessionTest, DeviceFiltersLimitTheTasks) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  SessionOptions options = At(cluster.Target("worker"));
  options.device_filters = {"/job:worker/task:0"};
  auto session = NewSessionOrDie(GraphOf({ConstNode("c", F({1}, {1}))}), options);
  ASSERT_NE(session, nullptr);
  std::vector<DeviceInfo> devices;
  FLOWVM_ASSERT_OK(session->ListDevices(&devices));
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].name, kWorker0);
  // A node pinned to a filtered-out task has no device.
  auto bad = Session::Create(options, GraphOf({On(ConstNode("c", F({1}, {1})), kPs)}));
  EXPECT_FALSE(bad.ok());
}

TEST(ClusterSessionTest, ErrorNamesTheNodeAndTaskNotTheCancellations) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  // a (worker 0) feeds a Reshape on worker 1 that fails at run time; worker
  // 0 waits meanwhile for the result and is cancelled by the abort.
  GraphDef g = GraphOf({On(PlaceholderNode("a", DT_FLOAT, PartialTensorShape({-1})), kWorker0),
                        On(ConstNode("shape", Tensor::FromVector<int32_t>({2, 2})), kWorker1),
                        On(TestNode("bad_reshape", "Reshape").Input("a").Input("shape").Attr("T", DT_FLOAT)
                               .Attr("Tshape", DT_INT32),
                           kWorker1),
                        Unary("after", "Neg", "bad_reshape", kWorker0)});
  auto session = NewSessionOrDie(g, At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  Status s = session->Run({{"a", F({1, 2, 3}, {3})}}, {"after"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kInvalidArgument, {"bad_reshape", "/job:worker/replica:0/task:1"})) << s;
  // The session still works afterwards.
  FLOWVM_ASSERT_OK(session->Run({{"a", F({1, 2, 3, 4}, {4})}}, {"after"}, {}, &out));
  ExpectTensorNear(out[0], F({-1, -2, -3, -4}, {2, 2}));
}

TEST(ClusterSessionTest, AMissingTaskIsNamedWithinTheBound) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.Start({"ps", 0}));
  ASSERT_TRUE(cluster.Start({"worker", 0}));  // worker 1 never comes up
  SessionOptions options = At(cluster.Target("worker"));
  options.connect_timeout_ms = 1500;
  const auto start = std::chrono::steady_clock::now();
  auto s = Session::Create(options, GraphOf({}));
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(HasError(s.status(), Code::kUnavailable,
                       {"1 of 3 tasks", "/job:worker/replica:0/task:1", *cluster.spec().Address({"worker", 1})}))
      << s.status();
  EXPECT_EQ(s.status().message().find("task:0 "), std::string::npos) << s.status();
  EXPECT_LT(secs, 10);
}

TEST(ClusterSessionTest, NoMasterAtTheTargetIsUnavailableWithinTheBound) {
  SessionOptions options = At("grpc://127.0.0.1:" + std::to_string(distributed_testing::PickUnusedPort()));
  options.connect_timeout_ms = 300;
  auto s = Session::Create(options, GraphOf({}));
  EXPECT_TRUE(HasError(s.status(), Code::kUnavailable, {"the master at " + options.target, "300 ms"})) << s.status();
  options.target = "grpc://no-port";
  EXPECT_TRUE(HasError(Session::Create(options, GraphOf({})).status(), Code::kInvalidArgument, {"grpc://no-port"}));
}

TEST(ClusterSessionTest, HugeTimeoutsAreNoDeadline) {
  // Deadlines are now + timeout in nanoseconds: timeouts of centuries must
  // not overflow into the past (or into undefined behaviour) anywhere on
  // the way (client, master, workers).
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  SessionOptions options = At(cluster.Target("worker"));
  options.connect_timeout_ms = std::numeric_limits<int64_t>::max();
  options.health_check_interval_ms = options.health_check_timeout_ms = std::numeric_limits<int64_t>::max();
  auto session = NewSessionOrDie(AcrossTasks(), options);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  for (int64_t timeout : {int64_t{1} << 40, int64_t{1} << 62, std::numeric_limits<int64_t>::max()}) {
    RunOptions run_options;
    run_options.set_timeout_in_ms(timeout);
    FLOWVM_ASSERT_OK(session->Run(run_options, {}, {}, {"init"}, &out, nullptr));
    FLOWVM_ASSERT_OK(session->Run(run_options, {{"x", F({3, 4}, {2})}}, {"z"}, {}, &out, nullptr));
    ExpectTensorNear(out[0], F({4, 10}, {2}));
  }
}

TEST(ClusterSessionTest, NegativeTimeoutsAreRefusedNamingTheOption) {
  LocalCluster cluster({{"worker", 1}});
  ASSERT_TRUE(cluster.StartAll());
  for (int which = 0; which < 2; ++which) {
    SessionOptions options = At(cluster.Target("worker"));
    (which == 0 ? options.health_check_interval_ms : options.health_check_timeout_ms) = -5;
    auto session = Session::Create(options, GraphDef());
    ASSERT_FALSE(session.ok());
    EXPECT_TRUE(HasError(session.status(), Code::kInvalidArgument, {"health_check", "-5"})) << session.status();
  }
}

TEST(ClusterSessionTest, ADeadTaskFailsTheStepNamingIt) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  auto session = NewSessionOrDie(AcrossTasks(), At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  cluster.Stop({"worker", 1});
  Status s = session->Run({{"x", F({3, 4}, {2})}}, {"z"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kUnavailable, {"/job:worker/replica:0/task:1"})) << s;
  // Still gone: the next step says so too.
  s = session->Run({{"x", F({3, 4}, {2})}}, {"z"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kUnavailable, {"/job:worker/replica:0/task:1"})) << s;
}

TEST(ClusterSessionTest, ARestartedTaskIsReportedOnceThenUsedAgain) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  auto session = NewSessionOrDie(AcrossTasks(), At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  FLOWVM_ASSERT_OK(session->Run({{"x", F({3, 4}, {2})}}, {"z"}, {}, &out));
  // ps restarts: its variable is gone.
  cluster.Stop({"ps", 0});
  ASSERT_TRUE(cluster.Start({"ps", 0}));
  // The step that meets the restart says so...
  Status s = session->Run({{"x", F({3, 4}, {2})}}, {"z"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kAborted, {"/job:ps/replica:0/task:0", "restarted", "variables"})) << s;
  // ... and the next ones work with it again.
  FLOWVM_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  FLOWVM_ASSERT_OK(session->Run({{"x", F({3, 4}, {2})}}, {"z"}, {}, &out));
  ExpectTensorNear(out[0], F({4, 10}, {2}));
}

// The master's own server stops (SIGTERM, a restart) while a step waits
// on it: the client hears Unavailable naming the master's task, which it
// may recover from, not the Cancelled of a session it closed itself.
TEST(ClusterSessionTest, AStepWhoseMasterStopsFailsUnavailable) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  auto types = MakeAttrValue(DataTypeVector{DT_FLOAT});
  NodeDef q = On(TestNode("q", "FIFOQueueV2"), kWorker0);
  (*q.mutable_attr())["component_types"] = types;
  NodeDef get = On(TestNode("get", "QueueDequeueV2").Input("q"), kWorker0);
  (*get.mutable_attr())["component_types"] = types;
  auto session = NewSessionOrDie(GraphOf({q, get, Unary("got", "Identity", "get", kWorker1)}),
                                 At(cluster.Target("worker")));
  ASSERT_NE(session, nullptr);
  Status s;
  std::thread step([&] {
    std::vector<Tensor> out;
    s = session->Run({}, {"got"}, {}, &out);  // waits on the empty queue
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  cluster.Stop({"worker", 0});
  step.join();
  EXPECT_TRUE(HasError(s, Code::kUnavailable, {"/job:worker/replica:0/task:0", "shutting down"})) << s;
}

TEST(ClusterSessionTest, LargeTensorsTravelInChunks) {
  ServerOptions base;
  base.recv_chunk_bytes = 4096 + 2;  // odd chunking: not a multiple of 4
  LocalCluster cluster({{"worker", 2}}, base);
  ASSERT_TRUE(cluster.StartAll());
  const int n = 100000;
  std::vector<float> values(n);
  for (int i = 0; i < n; ++i) values[i] = static_cast<float>(i) * 0.5f;
  GraphDef g = GraphOf({On(PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1})), kWorker0),
                        Unary("y", "Neg", "x", kWorker0), Unary("z", "Neg", "y", kWorker1)});
  auto session = NewSessionOrDie(g, At(cluster.Target()));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", Tensor::FromVector<float>(values)}}, {"z"}, {}, &out));
  ExpectTensorNear(out[0], Tensor::FromVector<float>(values));
}

// Feeds and fetches beyond one message's worth (here 4 KiB + 2) travel
// beside the step's messages, in chunks: client -> master (PutTensor),
// master -> worker 1 (PutTensor), worker 1 -> master (RecvTensor), master
// -> client (RecvTensor); small ones stay in the messages.
TEST(ClusterSessionTest, LargeFeedsAndFetchesTravelBesideTheStep) {
  ServerOptions base;
  base.recv_chunk_bytes = 4096 + 2;
  LocalCluster cluster({{"worker", 2}}, base);
  ASSERT_TRUE(cluster.StartAll());
  GraphDef g = GraphOf({On(PlaceholderNode("a", DT_FLOAT, PartialTensorShape({-1})), kWorker1),
                        Unary("b", "Neg", "a", kWorker1),
                        On(PlaceholderNode("c", DT_FLOAT, PartialTensorShape({-1})), kWorker0),
                        Unary("d", "Neg", "c", kWorker0),
                        On(PlaceholderNode("s", DT_STRING, PartialTensorShape({-1})), kWorker1),
                        On(TestNode("t", "Identity").Input("s").Attr("T", DT_STRING), kWorker1),
                        On(PlaceholderNode("k", DT_FLOAT, PartialTensorShape({})), kWorker0),
                        Unary("kk", "Neg", "k", kWorker0)});
  auto session = NewSessionOrDie(g, At(cluster.Target()));
  ASSERT_NE(session, nullptr);
  std::vector<float> a(10000), c(3000);
  for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i);
  for (size_t i = 0; i < c.size(); ++i) c[i] = static_cast<float>(i) * -2.0f;
  std::vector<std::string> words;
  for (int i = 0; i < 200; ++i) words.push_back(std::string(i % 50, static_cast<char>('a' + i % 26)));
  int64_t word_bytes = 0;  // encoded: a 1-byte varint length and the bytes
  for (const std::string& w : words) word_bytes += 1 + static_cast<int64_t>(w.size());
  for (int step = 0; step < 3; ++step) {
    std::vector<Tensor> out;
    RunStats stats;
    FLOWVM_ASSERT_OK(session->Run(RunOptions(),
                                  {{"a", Tensor::FromVector<float>(a)},
                                   {"c", Tensor::FromVector<float>(c)},
                                   {"s", Tensor::FromVector<std::string>(words)},
                                   {"k", Tensor::Scalar<float>(step)}},
                                  {"b", "d", "t", "kk"}, {}, &out, nullptr, &stats));
    ASSERT_EQ(out.size(), 4u);
    // a, s: client -> master -> worker 1; b, t: worker 1 -> master ->
    // client; c: client -> master; d: master -> client. k, kk fit.
    EXPECT_EQ(stats.out_of_band_bytes, 4 * 40000 + 4 * word_bytes + 2 * 12000);
    std::vector<float> neg_a(a.size()), neg_c(c.size());
    for (size_t i = 0; i < a.size(); ++i) neg_a[i] = -a[i];
    for (size_t i = 0; i < c.size(); ++i) neg_c[i] = -c[i];
    ExpectTensorNear(out[0], Tensor::FromVector<float>(neg_a));
    ExpectTensorNear(out[1], Tensor::FromVector<float>(neg_c));
    ASSERT_EQ(out[2].NumElements(), 200);
    for (int i = 0; i < 200; ++i) EXPECT_EQ(out[2].flat<std::string>()[i], words[i]);
    ExpectTensorNear(out[3], Tensor::Scalar<float>(-static_cast<float>(step)));
  }
}

TEST(ClusterSessionTest, StringsCrossTasks) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  GraphDef g = GraphOf({On(PlaceholderNode("s", DT_STRING, PartialTensorShape({-1})), kWorker0),
                        On(TestNode("id0", "Identity").Input("s").Attr("T", DT_STRING), kWorker0),
                        On(TestNode("id1", "Identity").Input("id0").Attr("T", DT_STRING), kWorker1)});
  auto session = NewSessionOrDie(g, At(cluster.Target()));
  ASSERT_NE(session, nullptr);
  std::vector<std::string> words = {"", "a", std::string(300, 'x'), std::string("nul\0byte", 8)};
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"s", Tensor::FromVector<std::string>(words)}}, {"id1"}, {}, &out));
  ASSERT_EQ(out[0].NumElements(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(out[0].flat<std::string>()[i], words[i]);
}

TEST(ClusterSessionTest, Bfloat16TransfersHalveTheBytesWithinTheirErrorBound) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  GraphDef g = GraphOf({On(PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1})), kWorker0),
                        Unary("y", "Identity", "x", kWorker0), Unary("z", "Identity", "y", kWorker1)});
  SessionOptions options = At(cluster.Target());
  options.compress_float_transfers = true;
  auto session = NewSessionOrDie(g, options);
  ASSERT_NE(session, nullptr);
  std::vector<float> values = {1.0f, 3.14159265f, -2.5e-3f, 65504.0f, 1e30f, 0.1f};
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", Tensor::FromVector<float>(values)}}, {"z"}, {}, &out));
  for (size_t i = 0; i < values.size(); ++i) {
    const float got = out[0].flat<float>()[i];
    // bfloat16 keeps 8 significant bits: relative error at most 2^-9.
    EXPECT_LE(std::abs(got - values[i]), std::abs(values[i]) / 512.0f) << values[i] << " -> " << got;
  }
  EXPECT_NE(out[0].flat<float>()[1], values[1]);  // really compressed
}

TEST(ClusterSessionTest, CompressionCanBeAskedForPerTensor) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  // Two float tensors cross from worker 0 to worker 1; only y is compressed.
  GraphDef g = GraphOf({On(PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1})), kWorker0),
                        Unary("y", "Neg", "x", kWorker0), Unary("w", "Relu", "x", kWorker0),
                        Unary("y1", "Neg", "y", kWorker1), Unary("w1", "Neg", "w", kWorker1)});
  SessionOptions options = At(cluster.Target());
  options.compressed_tensors = {"y"};
  auto session = NewSessionOrDie(g, options);
  ASSERT_NE(session, nullptr);
  const float pi = 3.14159265f;
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", Tensor::FromVector<float>({pi})}}, {"y1", "w1"}, {}, &out));
  EXPECT_NE(out[0].flat<float>()[0], pi);
  EXPECT_NEAR(out[0].flat<float>()[0], pi, pi / 512);
  EXPECT_EQ(out[1].flat<float>()[0], -pi);
}

}  // namespace
}  // namespace flowvm

namespace flowvm {
namespace {

// Over protobuf's 2 GiB limit (where TensorFlow's RecvTensor fails): a
// 2.5 GiB float tensor made on worker 0 is checked element by element on
// worker 1. About 9 GiB of memory: run by ctest as `distributed_huge_tensor`
// (label slow), not with the rest of this binary.
TEST(ClusterSessionTest, DISABLED_MovesA2Point5GiBTensorBetweenTasks) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  const float n = 671088640.0f;  // 2.5 GiB of floats
  auto scalar = [](const std::string& name, float v, const std::string& device) {
    return On(ConstNode(name, Tensor::Scalar<float>(v)), device);
  };
  auto range = [](const std::string& name, const std::string& device) {
    return On(TestNode(name, "Range").Input("start_" + name).Input("limit_" + name).Input("delta_" + name)
                  .Attr("Tidx", DT_FLOAT),
              device);
  };
  GraphDef g = GraphOf({scalar("start_sent", 0, kWorker0), scalar("limit_sent", n, kWorker0),
                        scalar("delta_sent", 1, kWorker0), range("sent", kWorker0),
                        scalar("start_expected", 0, kWorker1), scalar("limit_expected", n, kWorker1),
                        scalar("delta_expected", 1, kWorker1), range("expected", kWorker1),
                        On(TestNode("same", "Equal").Input("sent").Input("expected").Attr("T", DT_FLOAT), kWorker1),
                        On(ConstNode("axis", Tensor::FromVector<int32_t>({0})), kWorker1),
                        On(TestNode("all_same", "All").Input("same").Input("axis").Attr("Tidx", DT_INT32), kWorker1),
                        On(TestNode("size", "Size").Input("sent").Attr("T", DT_FLOAT).Attr("out_type", DT_INT64),
                           kWorker1)});
  SessionOptions options = At(cluster.Target());
  options.optimizer.constant_folding = false;
  auto session = NewSessionOrDie(g, options);
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({}, {"all_same", "size"}, {}, &out));
  EXPECT_TRUE(out[0].scalar<bool>());
  EXPECT_EQ(out[1].scalar<int64_t>(), static_cast<int64_t>(n));
}

// A graph is one protobuf, which cannot pass 2 GiB: a graph with a larger
// constant is refused with a clear error before anything is sent (Extend
// checks the same way). About 5 GiB of memory: run by ctest as
// `distributed_huge_tensor`.
TEST(ClusterSessionTest, DISABLED_AGraphOver2GiBIsRefusedClearly) {
  // Refused before anything is sent: no server needs to be there.
  SessionOptions options = At("grpc://127.0.0.1:" + std::to_string(distributed_testing::PickUnusedPort()));
  options.connect_timeout_ms = 1000;
  GraphDef g;
  NodeDef* big = g.add_node();
  *big = On(ConstNode("big", Tensor::Scalar<float>(1)), kWorker0);
  TensorProto* value = (*big->mutable_attr())["value"].mutable_tensor();
  value->clear_float_val();
  value->mutable_tensor_shape()->add_dim()->set_size(int64_t{9} << 26);  // 2.25 GiB of floats
  value->mutable_tensor_content()->assign(size_t{9} << 28, '\0');
  auto session = Session::Create(options, g);
  ASSERT_FALSE(session.ok());
  EXPECT_TRUE(HasError(session.status(), Code::kInvalidArgument, {"GraphDef", "variables"})) << session.status();
}

// Over gRPC's 2 GiB message limit from the client and back: a 2.25 GiB
// feed goes to worker 1 and comes back as a fetch (the master is worker
// 0): four hops of three 1 GiB chunks. About 11 GiB of memory: run by ctest
// as `distributed_huge_tensor`, after the test above.
TEST(ClusterSessionTest, DISABLED_FeedsAndFetchesOver2GiB) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  const int64_t n = int64_t{9} << 26;  // 2.25 GiB of floats
  auto x = Tensor::Allocate(DT_FLOAT, TensorShape({n}));
  ASSERT_TRUE(x.ok()) << x.status();
  float* p = x->data<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<float>(i % 1000003);
  GraphDef g = GraphOf({On(PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1})), kWorker1),
                        On(TestNode("y", "Identity").Input("x").Attr("T", DT_FLOAT), kWorker1)});
  auto session = NewSessionOrDie(g, At(cluster.Target()));
  ASSERT_NE(session, nullptr);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", *x}}, {"y"}, {}, &out));
  ASSERT_EQ(out[0].NumElements(), n);
  EXPECT_NE(out[0].data<float>(), p) << "the fetch must be a copy that travelled";
  EXPECT_EQ(std::memcmp(out[0].data<float>(), p, static_cast<size_t>(n) * sizeof(float)), 0);
}

}  // namespace
}  // namespace flowvm
