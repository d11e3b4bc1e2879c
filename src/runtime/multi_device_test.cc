// Sessions with several CPU devices: results equal one device's, transfers
// move references, deadlines / Close / errors stop every partition, traces
// cover every device, and the stack stays flat however many times a step
// crosses between devices.
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/trace.h"
#include "graph/shape_inference.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/kernel_registry.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {

// Waits until the step is cancelled (a stand-in for a Recv or a queue whose
// producer never comes), then fails with Cancelled. Holds no thread.
REGISTER_OP("TestWaitForCancel").Input("x: float").Output("y: float").SetIsStateful().SetShapeFn(UnchangedShape);

namespace {

std::atomic<int> g_waiting{0};

class WaitForCancelOp : public AsyncOpKernel {
 public:
  using AsyncOpKernel::AsyncOpKernel;
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    CancellationManager* cm = ctx->cancellation_manager();
    OP_REQUIRES_ASYNC(ctx, cm != nullptr, errors::Internal("no cancellation manager"), done);
    g_waiting.fetch_add(1);
    auto token = cm->Register([ctx, done] {
      g_waiting.fetch_sub(1);
      ctx->SetStatus(errors::Cancelled("the wait was cancelled"));
      done();
    });
    if (token == CancellationManager::kInvalidToken) {
      g_waiting.fetch_sub(1);
      ctx->SetStatus(errors::Cancelled("the step was already cancelled"));
      done();
    }
  }
};
REGISTER_KERNEL_BUILDER(Name("TestWaitForCancel").Device(DEVICE_CPU), WaitForCancelOp);

// Passes its input through after sleeping `ms`: a node much slower than
// the cost model's static estimate (a tiny element-wise op).
REGISTER_OP("TestSleep").Input("x: float").Output("y: float").Attr("ms: int").SetShapeFn(UnchangedShape);
class SleepOp : public OpKernel {
 public:
  explicit SleepOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ctx->GetAttr("ms", &ms_)); }
  void Compute(OpKernelContext* ctx) override {
    std::this_thread::sleep_for(std::chrono::milliseconds(ms_));
    ctx->set_output(0, ctx->input(0));
  }

 private:
  int64_t ms_ = 0;
};
REGISTER_KERNEL_BUILDER(Name("TestSleep").Device(DEVICE_CPU), SleepOp);

using namespace runtime_testing;  // NOLINT

NodeDef Wait(const std::string& name, const std::string& input, const std::string& device) {
  return On(TestNode(name, "TestWaitForCancel").Input(input), device);
}

SessionOptions Devices(int n, int threads = 0) {
  SessionOptions o;
  o.cpu_devices = n;
  o.num_threads = threads;
  return o;
}

// A two-layer MLP with its layers pinned to CPU:0 and CPU:1 (or free).
GraphDef Mlp(const std::string& d0, const std::string& d1) {
  Tensor w1(DT_FLOAT, TensorShape({8, 16})), w2(DT_FLOAT, TensorShape({16, 4}));
  for (int i = 0; i < 128; ++i) w1.data<float>()[i] = 0.01f * static_cast<float>(i % 13) - 0.05f;
  for (int i = 0; i < 64; ++i) w2.data<float>()[i] = 0.02f * static_cast<float>(i % 7) - 0.06f;
  return GraphOf({PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1, 8})), On(ConstNode("w1", w1), d0),
                  On(ConstNode("w2", w2), d1), Binary("h", "MatMul", "x", "w1", d0), Unary("r", "Relu", "h", d0),
                  Binary("y", "MatMul", "r", "w2", d1), Unary("s", "Sigmoid", "y", d1)});
}

Tensor Batch() {
  Tensor x(DT_FLOAT, TensorShape({5, 8}));
  for (int i = 0; i < 40; ++i) x.data<float>()[i] = 0.1f * static_cast<float>(i % 9) - 0.3f;
  return x;
}

TEST(MultiDeviceTest, PlacedByHandOrByThePlacerGivesTheResultsOfOneDevice) {
  std::vector<Tensor> one;
  auto single = NewSessionOrDie(Mlp("", ""));
  ASSERT_TRUE(single->Run({{"x", Batch()}}, {"s"}, {}, &one).ok());
  for (int devices : {2, 4}) {
    for (int threads : {1, 2}) {
      SCOPED_TRACE(std::to_string(devices) + " devices, " + std::to_string(threads) + " threads");
      auto by_hand = NewSessionOrDie(Mlp("/device:CPU:0", "/device:CPU:1"), Devices(devices, threads));
      std::vector<Tensor> out;
      RunStats stats;
      ASSERT_TRUE(by_hand->Run({{"x", Batch()}}, {"s"}, {}, &out, &stats).ok());
      ExpectTensorNear(out[0], one[0], 0);
      EXPECT_EQ(stats.partitions, 2);
      EXPECT_EQ(stats.transfers, std::vector<std::string>{"r:0 CPU:0 -> CPU:1 (1 consumer)"});
      auto free = NewSessionOrDie(Mlp("", ""), Devices(devices, threads));
      ASSERT_TRUE(free->Run({{"x", Batch()}}, {"s"}, {}, &out, &stats).ok());
      ExpectTensorNear(out[0], one[0], 0);
      EXPECT_FALSE(stats.placement.empty());
      // Again from the cache, on the same devices.
      ASSERT_TRUE(by_hand->Run({{"x", Batch()}}, {"s"}, {}, &out, &stats).ok());
      EXPECT_TRUE(stats.cache_hit);
      ExpectTensorNear(out[0], one[0], 0);
    }
  }
}

// In one process a transfer hands over the buffer: the tensor on CPU:1 is
// the very memory CPU:0 produced, for 4 bytes as for 16 MiB.
TEST(MultiDeviceTest, TransfersMoveTheBufferNotTheBytes) {
  for (int64_t n : {int64_t{1}, int64_t{4} << 20}) {
    Tensor big(DT_FLOAT, TensorShape({n}));
    for (int64_t i = 0; i < n; i += 4096) big.data<float>()[i] = static_cast<float>(i);
    auto session = NewSessionOrDie(
        GraphOf({PlaceholderNode("x", DT_FLOAT, PartialTensorShape({n})), Unary("a", "Neg", "x", kCpu0),
                 Unary("b", "Identity", "a", kCpu1)}),
        Devices(2, 1));
    std::vector<Tensor> out;
    RunStats stats;
    ASSERT_TRUE(session->Run({{"x", big}}, {"a", "b"}, {}, &out, &stats).ok());
    EXPECT_EQ(stats.partitions, 2);
    EXPECT_EQ(out[0].raw_data(), out[1].raw_data()) << n << " floats";
    EXPECT_EQ(out[1].data<float>()[0], -0.0f);
  }
}

// Every op-graph style error on one device: the step fails with the real
// cause and the failing node's name, not with the Cancelled its abort caused
// in the partition waiting for it.
TEST(MultiDeviceTest, TheFirstErrorIsReportedNotTheCancellationItCaused) {
  auto session = NewSessionOrDie(
      GraphOf({PlaceholderNode("a", DT_FLOAT, PartialTensorShape()), PlaceholderNode("b", DT_FLOAT, PartialTensorShape()),
               Binary("m", "MatMul", "a", "b", kCpu0), On(ConstNode("c", F({1}, {1})), kCpu1),
               Wait("wait", "c", kCpu1), Binary("sum", "AddV2", "m", "wait", kCpu1)}),
      Devices(2));
  std::vector<Tensor> out;
  Status s = session->Run({{"a", F({1, 2}, {1, 2})}, {"b", F({1, 2, 3}, {3, 1})}}, {"sum"}, {}, &out);
  EXPECT_TRUE(HasError(s, Code::kInvalidArgument, {"node 'm' (MatMul)"}));
}

// A step blocked on CPU:1 in a Recv (whose Send waits on CPU:0) ends at its
// deadline everywhere, with DeadlineExceeded naming what was still running.
TEST(MultiDeviceTest, DeadlineStopsAStepBlockedInARecv) {
  for (int threads : {1, 2}) {
    auto session = NewSessionOrDie(GraphOf({On(ConstNode("c", F({1}, {1})), kCpu0),
                                            Wait("wait", "c", kCpu0),
                                            Unary("after", "Neg", "wait", kCpu1)}),
                                   Devices(2, threads));
    RunOptions options;
    options.set_timeout_in_ms(100);
    std::vector<Tensor> out;
    const auto start = std::chrono::steady_clock::now();
    Status s = session->Run(options, {}, {"after"}, {}, &out, nullptr);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    EXPECT_TRUE(HasError(s, Code::kDeadlineExceeded,
                         {"deadline of 100 ms", "still running", "node 'wait' (TestWaitForCancel) on " + std::string(kCpu0),
                          "node '_recv_wait_0' (_Recv) on " + std::string(kCpu1)}));
    EXPECT_GE(seconds, 0.09);
    EXPECT_LT(seconds, 10);
    EXPECT_EQ(g_waiting.load(), 0);
    // The session is still usable.
    EXPECT_TRUE(session->Run({}, {"c"}, {}, &out).ok());
  }
  RunOptions bad;
  bad.set_timeout_in_ms(-1);
  auto session = NewSessionOrDie(GraphOf({ConstNode("c", F({1}, {1}))}));
  std::vector<Tensor> out;
  EXPECT_TRUE(HasError(session->Run(bad, {}, {"c"}, {}, &out, nullptr), Code::kInvalidArgument, {"timeout_in_ms"}));
  RunOptions pool;
  pool.set_inter_op_thread_pool(3);
  EXPECT_TRUE(HasError(session->Run(pool, {}, {"c"}, {}, &out, nullptr), Code::kInvalidArgument,
                       {"inter_op_thread_pool 3"}));
}

// Close cancels a step blocked in a Recv instead of waiting for it forever.
TEST(MultiDeviceTest, CloseCancelsABlockedStep) {
  auto session = NewSessionOrDie(GraphOf({On(ConstNode("c", F({1}, {1})), kCpu0),
                                          Wait("wait", "c", kCpu0),
                                          Unary("after", "Neg", "wait", kCpu1)}),
                                 Devices(2));
  Status run_status;
  std::thread runner([&] {
    std::vector<Tensor> out;
    run_status = session->Run({}, {"after"}, {}, &out);
  });
  for (int i = 0; i < 1000 && g_waiting.load() == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(g_waiting.load(), 1);
  EXPECT_TRUE(session->Close().ok());
  runner.join();
  EXPECT_TRUE(HasError(run_status, Code::kCancelled, {"session was closed"}));
  std::vector<Tensor> out;
  EXPECT_EQ(session->Run({}, {"c"}, {}, &out).code(), Code::kFailedPrecondition);
}

// Runs `fn` on a thread with a small stack (256 KiB): if completions nested
// a partition's nodes inside another's kernels, a long chain would overflow.
void OnSmallStack(const std::function<void()>& fn) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 256 << 10);
  pthread_t thread;
  auto* arg = new std::function<void()>(fn);
  ASSERT_EQ(pthread_create(&thread, &attr,
                           [](void* p) -> void* {
                             auto* f = static_cast<std::function<void()>*>(p);
                             (*f)();
                             delete f;
                             return nullptr;
                           },
                           arg),
            0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

TEST(MultiDeviceTest, LongAlternatingChainRunsInConstantStackDepth) {
  const int kLinks = 5000;
  std::vector<NodeDef> nodes{On(ConstNode("n0", F({0}, {1})), kCpu0), On(ConstNode("one", F({1}, {1})), kCpu0)};
  // (Names built with append: GCC 12 warns falsely about "n" + to_string.)
  auto name = [](int i) { return std::string("n").append(std::to_string(i)); };
  for (int i = 1; i <= kLinks; ++i) nodes.push_back(Binary(name(i), "AddV2", name(i - 1), "one", i % 2 ? kCpu1 : kCpu0));
  const GraphDef g = GraphOf(nodes);
  for (int threads : {1, 2}) {
    SessionOptions options = Devices(2, threads);
    options.optimizer.constant_folding = false;  // keep the chain
    auto session = NewSessionOrDie(g, options);
    std::vector<Tensor> out;
    RunStats stats;
    Status s;
    OnSmallStack([&] { s = session->Run({}, {name(kLinks)}, {}, &out, &stats); });
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(out[0].data<float>()[0], static_cast<float>(kLinks));
    EXPECT_EQ(static_cast<int>(stats.transfers.size()), kLinks + 1);  // each link, and "one" to CPU:1 once
  }
}

TEST(MultiDeviceTest, TracesCoverEveryDeviceAndLinkSendToRecv) {
  auto session = NewSessionOrDie(Mlp("/device:CPU:0", "/device:CPU:1"), Devices(2));
  RunOptions options;
  options.set_trace_level(RunOptions::FULL_TRACE);
  options.set_output_partition_graphs(true);
  RunMetadata metadata;
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run(options, {{"x", Batch()}}, {"s"}, {}, &out, &metadata).ok());
  ASSERT_EQ(metadata.partition_graphs_size(), 2);
  ASSERT_EQ(metadata.step_stats().dev_stats_size(), 2);
  int nodes = 0, partition_nodes = 0;
  for (const GraphDef& g : metadata.partition_graphs()) partition_nodes += g.node_size();
  bool saw_send = false, saw_recv = false;
  for (const DeviceStepStats& d : metadata.step_stats().dev_stats()) {
    EXPECT_TRUE(d.device() == kCpu0 || d.device() == kCpu1) << d.device();
    for (const NodeExecStats& n : d.node_stats()) {
      ++nodes;
      EXPECT_GT(n.all_start_micros(), 0);
      EXPECT_GE(n.op_end_rel_nanos(), 0);
      EXPECT_GT(n.thread_id(), 0u);
      if (n.timeline_label().find(" = _Send(") != std::string::npos) {
        saw_send = true;
        EXPECT_NE(n.timeline_label().find("r:0 from " + std::string(kCpu0) + " to " + kCpu1), std::string::npos)
            << n.timeline_label();
      }
      if (n.timeline_label().find(" = _Recv(") != std::string::npos) saw_recv = true;
      if (n.node_name() == "h") {
        ASSERT_EQ(n.output_size(), 1);
        EXPECT_EQ(n.output(0).tensor_description().allocation_description().requested_bytes(), 5 * 16 * 4);
        ASSERT_EQ(n.memory_size(), 1);
        EXPECT_EQ(n.memory(0).allocator_name(), kCpu0);
        EXPECT_GE(n.memory(0).peak_bytes(), 5 * 16 * 4);
      }
    }
  }
  EXPECT_EQ(nodes, partition_nodes);
  EXPECT_TRUE(saw_send);
  EXPECT_TRUE(saw_recv);
  auto json = StepStatsToChromeTrace(metadata.step_stats());
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_NE(json->find("\"ph\":\"s\""), std::string::npos);
  EXPECT_NE(json->find("\"ph\":\"f\""), std::string::npos);
  // Untraced steps return no statistics.
  RunMetadata none;
  ASSERT_TRUE(session->Run(RunOptions(), {{"x", Batch()}}, {"s"}, {}, &out, &none).ok());
  EXPECT_EQ(none.step_stats().dev_stats_size(), 0);
  EXPECT_EQ(none.partition_graphs_size(), 0);
}

// Resetting a container while steps use its variables never frees one under
// a running kernel (ASan would report it): each step holds what it uses.
TEST(MultiDeviceTest, ResetContainersRacingRunningStepsIsSafe) {
  const GraphDef g = GraphOf({TestNode("v", "VariableV2").Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({256})),
                              ConstNode("init_value", Tensor(DT_FLOAT, TensorShape({256}))),
                              TestNode("init", "Assign").Input("v").Input("init_value").Attr("T", DT_FLOAT),
                              ConstNode("one", F(std::vector<float>(256, 1.0f), {256})),
                              TestNode("inc", "AssignAdd").Input("v").Input("one").Attr("T", DT_FLOAT),
                              Unary("read", "Identity", "v")});
  auto session = NewSessionOrDie(g, Devices(2, 3));
  std::atomic<bool> stop{false};
  std::atomic<int> ok{0}, uninitialized{0};
  std::vector<std::thread> steps;
  for (int t = 0; t < 2; ++t)
    steps.emplace_back([&] {
      std::vector<Tensor> out;
      while (!stop.load()) {
        session->Run({}, {}, {"init"}, &out).IgnoreError();
        Status s = session->Run({}, {"inc"}, {}, &out);
        if (s.ok()) ok.fetch_add(1);
        else if (s.code() == Code::kFailedPrecondition) uninitialized.fetch_add(1);
        else ADD_FAILURE() << s;
      }
    });
  for (int i = 0; i < 300; ++i) {
    ASSERT_TRUE(session->ResetContainers({""}).ok());
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  stop = true;
  for (auto& t : steps) t.join();
  EXPECT_GT(ok.load(), 0);
}

// A stateful node keeps the device it first got, whatever signature runs it.
TEST(MultiDeviceTest, StatefulNodesKeepTheirDeviceAcrossSignatures) {
  const GraphDef g = GraphOf({TestNode("v", "VariableV2").Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({2})),
                              ConstNode("z", F({0, 0}, {2})), TestNode("init", "Assign").Input("v").Input("z").Attr("T", DT_FLOAT),
                              Unary("read", "Identity", "v"), Unary("neg", "Neg", "v")});
  auto session = NewSessionOrDie(g, Devices(3));
  std::vector<Tensor> out;
  RunStats first, second;
  ASSERT_TRUE(session->Run({}, {}, {"init"}, &out, &first).ok());
  ASSERT_TRUE(session->Run({}, {"neg"}, {}, &out, &second).ok());
  auto line_of = [](const RunStats& s, const std::string& node) {
    for (const std::string& l : s.placement)
      if (l.rfind(node + " -> ", 0) == 0) return l;
    return std::string();
  };
  const std::string a = line_of(first, "v"), b = line_of(second, "v");
  ASSERT_FALSE(a.empty());
  ASSERT_FALSE(b.empty());
  EXPECT_EQ(a.substr(0, a.find(" (")), b.substr(0, b.find(" (")));
  EXPECT_NE(b.find("kept from an earlier step"), std::string::npos) << b;
}

// The cost model learns from traced steps: two branches the static
// estimate keeps together (tiny element-wise ops) turn out to take 30 ms
// each; a signature prepared after the traced step puts them on different
// devices, where they run at the same time.
TEST(MultiDeviceTest, TracedStepsRefineThePlacementOfLaterSteps) {
  // (Different attrs, or CSE would rightly merge them.)
  auto sleep = [](const std::string& name, const std::string& input, int ms) {
    return TestNode(name, "TestSleep").Input(input).Attr("ms", ms);
  };
  auto session = NewSessionOrDie(GraphOf({PlaceholderNode("x", DT_FLOAT, PartialTensorShape({2})),
                                          sleep("b1", "x", 30), sleep("b2", "x", 31), Binary("j", "AddV2", "b1", "b2"), Unary("k", "Neg", "j")}),
                                 Devices(2, 2));
  auto device_of = [](const RunStats& s, const std::string& node) {
    for (const std::string& l : s.placement)
      if (l.rfind(node + " -> ", 0) == 0) return l.substr(node.size() + 4, 5);
    return std::string("?");
  };
  std::vector<Tensor> out;
  RunStats before, after;
  RunOptions traced;
  traced.set_trace_level(RunOptions::SOFTWARE_TRACE);
  RunMetadata metadata;
  ASSERT_TRUE(session->Run(traced, {{"x", F({1, 2}, {2})}}, {"j"}, {}, &out, &metadata, &before).ok());
  EXPECT_EQ(device_of(before, "b1"), device_of(before, "b2"));
  // Another signature is prepared with what the traced step measured.
  ASSERT_TRUE(session->Run({{"x", F({1, 2}, {2})}}, {"k"}, {}, &out, &after).ok());
  EXPECT_NE(device_of(after, "b1"), device_of(after, "b2"));
  bool measured = false;
  for (const std::string& l : after.placement) measured = measured || l.find("cost model") != std::string::npos;
  EXPECT_TRUE(measured);
  EXPECT_EQ(out[0].data<float>()[1], -4);
}

TEST(MultiDeviceTest, DeviceRequestsAreCheckedWhenTheGraphIsGiven) {
  const GraphDef g = GraphOf({On(ConstNode("a", F({1}, {1})), "/device:CPU:3"), Unary("b", "Neg", "a")});
  auto strict = Session::Create(Devices(2), g);
  EXPECT_TRUE(HasError(strict.status(), Code::kInvalidArgument,
                       {"node 'a' (Const)", "'/device:CPU:3'", "does not exist", kCpu1}));
  SessionOptions soft = Devices(2);
  soft.allow_soft_placement = true;
  auto session = NewSessionOrDie(g, soft);
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({}, {"b"}, {}, &out).ok());
  EXPECT_EQ(out[0].data<float>()[0], -1);
  EXPECT_TRUE(Session::Create(Devices(1), GraphOf({On(ConstNode("a", F({1}, {1})), "/device:CPU")})).ok());
  EXPECT_TRUE(HasError(Session::Create(Devices(1), GraphOf({On(ConstNode("a", F({1}, {1})), "/job:")})).status(),
                       Code::kInvalidArgument, {"node 'a' (Const)", "'/job:'"}));
  // A node with no kernel anywhere it may go names the devices tried.
  EXPECT_TRUE(HasError(Session::Create(Devices(2), GraphOf({ConstNode("s", Tensor::FromVector<std::string>({"x"})),
                                                            On(TestNode("n", "Neg").Input("s").Attr("T", DT_STRING), kCpu1)}))
                           .status(),
                       Code::kInvalidArgument, {"node 'n' (Neg)"}));
}

TEST(MultiDeviceTest, UserNodesCannotUseTheRuntimesNames) {
  auto s = Session::Create(SessionOptions(), GraphOf({ConstNode("_send_x", F({1}, {1}))}));
  EXPECT_TRUE(HasError(s.status(), Code::kInvalidArgument, {"'_send_x'", "reserved for the runtime"}));
}

TEST(MultiDeviceTest, ListDevicesAndTargets) {
  auto session = NewSessionOrDie(GraphOf({ConstNode("c", F({1}, {1}))}), Devices(3));
  std::vector<DeviceInfo> devices;
  ASSERT_TRUE(session->ListDevices(&devices).ok());
  ASSERT_EQ(devices.size(), 3u);
  EXPECT_EQ(devices[2].name, "/job:localhost/replica:0/task:0/device:CPU:2");
  EXPECT_EQ(devices[2].type, "CPU");
  EXPECT_NE(devices[0].incarnation, devices[1].incarnation);
  SessionOptions remote;
  remote.target = "nosuch://localhost:2222";
  EXPECT_TRUE(HasError(Session::Create(remote, GraphOf({ConstNode("c", F({1}, {1}))})).status(), Code::kNotFound,
                       {"'nosuch://localhost:2222'", "local"}));
  SessionOptions local;
  local.target = "local";
  EXPECT_NE(NewSessionOrDie(GraphOf({ConstNode("c", F({1}, {1}))}), local), nullptr);
  SessionOptions zero;
  zero.cpu_devices = 0;
  EXPECT_TRUE(HasError(Session::Create(zero, GraphOf({})).status(), Code::kInvalidArgument, {"cpu_devices"}));
}

// Paper 5.2: an 8 MiB tensor made from a small Recv'd seed is needed only
// at the end of a chain on CPU:1 whose every link holds two 16 MiB
// temporaries (c + (-c)). Unscheduled (and with one thread, deterministically)
// the Recv fires first and the tensor lives through the whole chain;
// scheduled, the Recv waits for the chain's last link. The device
// allocator's peak shows the difference.
TEST(MultiDeviceTest, RecvSchedulingLowersThePeakMemoryOfTheDevice) {
  const int64_t kChain = int64_t{1} << 22;  // floats: 16 MiB
  const int64_t kBig = int64_t{1} << 21;    // floats: 8 MiB
  Tensor x0(DT_FLOAT, TensorShape({kChain}));
  for (int64_t i = 0; i < kChain; ++i) x0.data<float>()[i] = 0;
  std::vector<NodeDef> nodes{On(ConstNode("x0", x0), kCpu1), On(ConstNode("seed", F({1, 2, 3, 4}, {4})), kCpu0),
                             Unary("seed2", "Neg", "seed", kCpu0),
                             On(ConstNode("mult", Tensor::FromVector<int32_t>({static_cast<int32_t>(kBig / 4)})), kCpu1),
                             On(TestNode("big", "Tile").Input("seed2").Input("mult").Attr("T", DT_FLOAT).Attr("Tmultiples", DT_INT32), kCpu1)};
  std::string prev = "x0";
  for (int i = 0; i < 4; ++i) {
    const std::string n = "n" + std::to_string(i), c = "c" + std::to_string(i + 1);
    nodes.push_back(Unary(n, "Neg", prev, kCpu1));
    nodes.push_back(Binary(c, "AddV2", prev, n, kCpu1));
    prev = c;
  }
  nodes.push_back(On(ConstNode("axis", Tensor::FromVector<int32_t>({0})), kCpu1));
  nodes.push_back(On(TestNode("s", "Sum").Input(prev).Input("axis").Attr("T", DT_FLOAT).Attr("Tidx", DT_INT32), kCpu1));
  nodes.push_back(Binary("final", "Mul", "big", "s", kCpu1));
  const GraphDef g = GraphOf(nodes);
  int64_t peak[2];
  for (int scheduled = 0; scheduled < 2; ++scheduled) {
    SessionOptions options = Devices(2, 1);
    options.schedule_recvs = scheduled == 1;
    options.optimizer.constant_folding = false;  // keep the chain of constants a chain
    auto session = NewSessionOrDie(g, options);
    std::vector<Tensor> out;
    RunStats stats;
    ASSERT_TRUE(session->Run({}, {"final"}, {}, &out, &stats).ok());
    EXPECT_EQ(out[0].NumElements(), kBig);
    EXPECT_EQ(stats.scheduled_recvs.size(), static_cast<size_t>(scheduled));
    std::vector<DeviceInfo> devices;
    ASSERT_TRUE(session->ListDevices(&devices).ok());
    peak[scheduled] = devices[1].memory.peak_bytes_in_use;
  }
  const int64_t mib = 1 << 20;
  // Unscheduled: big and both temporaries of a link at once (x0 is the
  // graph's, not the allocator's); scheduled: a link's two temporaries.
  EXPECT_GE(peak[0], 40 * mib);
  EXPECT_LE(peak[1], 33 * mib) << "unscheduled " << peak[0] << " bytes, scheduled " << peak[1];
}

}  // namespace
}  // namespace flowvm
