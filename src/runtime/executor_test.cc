// Executor, driven directly: asynchronous kernels (which hold no thread while
// they wait) and step cancellation on the first error.
#include "runtime/executor.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "core/thread_pool.h"
#include "graph/shape_inference.h"
#include "kernels/framework/call_frame.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/resource_mgr.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::ExpectTensorNear;
using testing::TestNode;

// State shared by the test kernels of one test; Reset() between tests.
struct TestKernelState {
  std::mutex mu;
  std::condition_variable cv;
  int started = 0;         // TestDelayAsync calls begun
  int cancelled = 0;       // ... that ended because the step was cancelled
  int completed = 0;       // ... that produced their output
  int min_peers_seen = 1 << 30;  // fewest peers any delay saw started when it ended
  std::vector<std::thread::id> start_threads;
  std::vector<std::thread> threads;
  std::atomic<int> counted{0};  // TestCount runs
  std::vector<std::thread::id> count_threads;  // where each TestCount ran

  void Reset() {
    JoinAll();
    std::lock_guard<std::mutex> lock(mu);
    started = cancelled = completed = 0;
    min_peers_seen = 1 << 30;
    start_threads.clear();
    count_threads.clear();
    counted = 0;
  }
  void JoinAll() {
    std::vector<std::thread> ts;
    {
      std::lock_guard<std::mutex> lock(mu);
      ts.swap(threads);
    }
    for (auto& t : ts) t.join();
  }
};
TestKernelState& State() {
  static TestKernelState* s = new TestKernelState;
  return *s;
}

REGISTER_OP("TestDelayAsync")
    .Input("x: float")
    .Output("y: float")
    .Attr("delay_ms: int = 10")
    .Attr("wait_for_peers: int = 0")
    .Attr("inline_done: bool = false")
    .SetShapeFn(UnchangedShape);
REGISTER_OP("TestFail").Input("x: float").Output("y: float").Attr("wait_for_started: int = 0");
REGISTER_OP("TestCount").Input("x: float").Output("y: float").SetShapeFn(UnchangedShape);
REGISTER_OP("TestNoKernel").Output("y: float");
REGISTER_OP("TestSpin").Input("x: float").Output("y: float").Attr("spin_us: int").SetShapeFn(UnchangedShape);

// Passes its input through from another thread after `delay_ms`, or as soon
// as `wait_for_peers` delays have started, or fails with Cancelled as soon
// as the step is cancelled.
class TestDelayAsyncOp : public AsyncOpKernel {
 public:
  explicit TestDelayAsyncOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("delay_ms", &delay_ms_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("wait_for_peers", &wait_for_peers_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("inline_done", &inline_done_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    if (inline_done_) {  // completes before ComputeAsync returns
      ctx->set_output(0, ctx->input(0));
      done();
      return;
    }
    TestKernelState& st = State();
    auto cancelled = std::make_shared<bool>(false);
    CancellationManager* cm = ctx->cancellation_manager();
    CancellationManager::Token token = CancellationManager::kInvalidToken;
    if (cm != nullptr) {
      token = cm->Register([cancelled, &st] {
        std::lock_guard<std::mutex> lock(st.mu);
        *cancelled = true;
        st.cv.notify_all();
      });
      OP_REQUIRES_ASYNC(ctx, token != CancellationManager::kInvalidToken, errors::Cancelled("already cancelled"),
                        done);
    }
    std::lock_guard<std::mutex> lock(st.mu);
    ++st.started;
    st.start_threads.push_back(std::this_thread::get_id());
    st.cv.notify_all();
    Tensor in = ctx->input(0);
    st.threads.emplace_back([this, ctx, done, cm, token, cancelled, in] {
      TestKernelState& st = State();
      bool was_cancelled;
      {
        std::unique_lock<std::mutex> lock(st.mu);
        st.cv.wait_for(lock, std::chrono::milliseconds(delay_ms_), [&] {
          return *cancelled || (wait_for_peers_ > 0 && st.started >= wait_for_peers_);
        });
        was_cancelled = *cancelled;
        st.min_peers_seen = std::min(st.min_peers_seen, st.started);
        if (was_cancelled) ++st.cancelled;
        else ++st.completed;
      }
      if (cm != nullptr) cm->Deregister(token);
      if (was_cancelled) ctx->SetStatus(errors::Cancelled("delay cancelled"));
      else ctx->set_output(0, in);
      done();
    });
  }

 private:
  int64_t delay_ms_ = 0, wait_for_peers_ = 0;
  bool inline_done_ = false;
};

// Fails, after waiting (up to 10 s) until `wait_for_started` delays began.
class TestFailOp : public OpKernel {
 public:
  explicit TestFailOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("wait_for_started", &wait_));
  }
  void Compute(OpKernelContext* ctx) override {
    TestKernelState& st = State();
    std::unique_lock<std::mutex> lock(st.mu);
    st.cv.wait_for(lock, std::chrono::seconds(10), [&] { return st.started >= wait_; });
    ctx->SetStatus(errors::InvalidArgument("deliberate failure"));
  }

 private:
  int64_t wait_ = 0;
};

class TestCountOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    State().counted.fetch_add(1);
    {
      std::lock_guard<std::mutex> lock(State().mu);
      State().count_threads.push_back(std::this_thread::get_id());
    }
    ctx->set_output(0, ctx->input(0));
  }
};

REGISTER_KERNEL_BUILDER(Name("TestDelayAsync").Device(DEVICE_CPU), TestDelayAsyncOp);
REGISTER_KERNEL_BUILDER(Name("TestFail").Device(DEVICE_CPU), TestFailOp);
// Busy for spin_us (an expensive kernel that really is), then like TestCount.
class TestSpinOp : public OpKernel {
 public:
  explicit TestSpinOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ctx->GetAttr("spin_us", &us_)); }
  void Compute(OpKernelContext* ctx) override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us_);
    while (std::chrono::steady_clock::now() < until) {
    }
    {
      std::lock_guard<std::mutex> lock(State().mu);
      State().count_threads.push_back(std::this_thread::get_id());
    }
    ctx->set_output(0, ctx->input(0));
  }

 private:
  int64_t us_ = 0;
};

REGISTER_KERNEL_BUILDER(Name("TestCount").Device(DEVICE_CPU), TestCountOp);
REGISTER_KERNEL_BUILDER(Name("TestSpin").Device(DEVICE_CPU), TestSpinOp);

NodeDef Node(const std::string& name, const std::string& op, std::vector<std::string> inputs) {
  TestNode n(name, op);
  for (const auto& in : inputs) n.Input(in);
  return n;
}
NodeDef Retval(const std::string& name, const std::string& input, int index) {
  return TestNode(name, "_Retval").Input(input).Attr("T", DT_FLOAT).Attr("index", index);
}

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override { State().Reset(); }
  void TearDown() override { State().JoinAll(); }

  StatusOr<std::unique_ptr<Executor>> Make(const std::vector<NodeDef>& nodes, ThreadPool* pool,
                                           int64_t inline_below_ns = ExecutorOptions().inline_below_ns) {
    GraphDef def;
    def.mutable_versions()->set_producer(1205);
    for (const auto& n : nodes) *def.add_node() = n;
    auto graph = std::make_unique<Graph>();
    FLOWVM_RETURN_IF_ERROR(ConvertGraphDefToGraph(def, graph.get()));
    ExecutorOptions opts;
    opts.device = &device_;
    opts.pool = pool;
    opts.inline_below_ns = inline_below_ns;
    return Executor::Create(std::move(graph), opts);
  }

  DeviceBase device_{"/job:localhost/replica:0/task:0/device:CPU:0", DEVICE_CPU, 1, nullptr};
};

TEST_F(ExecutorTest, AsyncKernelCompletesFromAnotherThread) {
  auto exec = Make({ConstNode("c", Tensor::FromVector<float>({1, 2})), Node("d", "TestDelayAsync", {"c"}),
                    Node("e", "TestCount", {"d"}), Retval("r", "e", 0)},
                   nullptr);
  ASSERT_TRUE(exec.ok()) << exec.status();
  for (int step = 1; step <= 3; ++step) {
    Tensor ret;
    CallFrame frame(nullptr, 0, &ret, 1);
    CancellationManager cm;
    Executor::RunArgs args;
    args.step_id = step;
    args.cancellation = &cm;
    args.call_frame = &frame;
    FLOWVM_ASSERT_OK((*exec)->Run(args));
    ExpectTensorNear(ret, Tensor::FromVector<float>({1, 2}));
    EXPECT_FALSE(cm.IsCancelled());
  }
  EXPECT_EQ(State().counted.load(), 3);
  EXPECT_EQ(State().completed, 3);

  // RunAsync calls done exactly once.
  std::mutex mu;
  std::condition_variable cv;
  int calls = 0;
  Status got;
  Tensor ret;
  CallFrame frame(nullptr, 0, &ret, 1);
  Executor::RunArgs args;
  args.call_frame = &frame;
  (*exec)->RunAsync(args, [&](const Status& s) {
    std::lock_guard<std::mutex> lock(mu);
    ++calls;
    got = s;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return calls > 0; });
  FLOWVM_EXPECT_OK(got);
  EXPECT_EQ(calls, 1);
  ExpectTensorNear(ret, Tensor::FromVector<float>({1, 2}));
}

// A transport's thread (RunArgs::caller_runs_only_cheap) runs the cheap
// nodes itself and hands the expensive one (TestCount, not measured yet) to
// the pool; without the flag the caller keeps the first expensive node.
TEST_F(ExecutorTest, CallerThatRunsOnlyCheapNodesHandsArithmeticToThePool) {
  ThreadPool pool("executor_test", 2);
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(4)), TestNode("i", "Identity").Input("c").Attr("T", DT_FLOAT),
                    Node("e", "TestCount", {"i"}), Retval("r", "e", 0)},
                   &pool);
  ASSERT_TRUE(exec.ok()) << exec.status();
  for (bool cheap_only : {true, false}) {
    State().Reset();
    Tensor ret;
    CallFrame frame(nullptr, 0, &ret, 1);
    Executor::RunArgs args;
    args.call_frame = &frame;
    args.caller_runs_only_cheap = cheap_only;
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    (*exec)->RunAsync(args, [&](const Status& s) {
      FLOWVM_EXPECT_OK(s);
      std::lock_guard<std::mutex> lock(mu);
      done = true;
      cv.notify_all();
    });
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return done; });
    }
    ExpectTensorNear(ret, Tensor::Scalar<float>(4));
    std::lock_guard<std::mutex> lock(State().mu);
    ASSERT_EQ(State().count_threads.size(), 1u);
    if (cheap_only) {
      EXPECT_NE(State().count_threads[0], std::this_thread::get_id()) << "arithmetic ran on the transport's thread";
    } else {
      EXPECT_EQ(State().count_threads[0], std::this_thread::get_id());
    }
  }
}

// Where the nodes ran in one step: the thread of each TestCount/TestSpin.
std::vector<std::thread::id> RunAndCollectThreads(Executor* exec, bool cheap_only) {
  State().Reset();
  Tensor ret[2];
  CallFrame frame(nullptr, 0, ret, 2);
  Executor::RunArgs args;
  args.call_frame = &frame;
  args.caller_runs_only_cheap = cheap_only;
  Status s = exec->Run(args);
  EXPECT_TRUE(s.ok()) << s;
  std::lock_guard<std::mutex> lock(State().mu);
  return State().count_threads;
}

// Kernels say whether they are expensive; the executor times those that
// do, and one that proves shorter than a hand-over to the pool runs where
// it became ready from then on (also on a transport's thread).
TEST_F(ExecutorTest, ExpensiveKernelsThatProveShortRunInline) {
  ThreadPool pool("executor_test", 2);
  // A generous bound: TestCount is far below it, also under sanitizers.
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(4)), Node("e1", "TestCount", {"c"}),
                    Node("e2", "TestCount", {"c"}), Retval("r1", "e1", 0), Retval("r2", "e2", 1)},
                   &pool, /*inline_below_ns=*/100'000'000);
  ASSERT_TRUE(exec.ok()) << exec.status();
  // Not measured yet: one of the two goes to the pool.
  std::vector<std::thread::id> first = RunAndCollectThreads(exec->get(), false);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_TRUE(first[0] != std::this_thread::get_id() || first[1] != std::this_thread::get_id());
  for (bool cheap_only : {false, true}) {
    std::vector<std::thread::id> later = RunAndCollectThreads(exec->get(), cheap_only);
    ASSERT_EQ(later.size(), 2u);
    EXPECT_EQ(later[0], std::this_thread::get_id()) << cheap_only;
    EXPECT_EQ(later[1], std::this_thread::get_id()) << cheap_only;
  }
}

TEST_F(ExecutorTest, LongKernelsStillRunInParallelOnThePool) {
  ThreadPool pool("executor_test", 2);
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(4)),
                    TestNode("s1", "TestSpin").Input("c").Attr("spin_us", 2000),
                    TestNode("s2", "TestSpin").Input("c").Attr("spin_us", 2000), Retval("r1", "s1", 0),
                    Retval("r2", "s2", 1)},
                   &pool, /*inline_below_ns=*/1'000'000);
  ASSERT_TRUE(exec.ok()) << exec.status();
  for (int step = 0; step < 3; ++step) {
    std::vector<std::thread::id> threads = RunAndCollectThreads(exec->get(), false);
    ASSERT_EQ(threads.size(), 2u);
    EXPECT_NE(threads[0], threads[1]) << "step " << step;
  }
}

// An async kernel completed on another thread: the step goes on on the
// thread that waits for it in Run, not on a pool thread nor on the
// completing thread's stack.
TEST_F(ExecutorTest, AsyncCompletionContinuesOnTheWaitingCaller) {
  // Workers that never poll for work (spin_us 0): a polling worker would be
  // preferred, and whether one polls at that moment is up to the scheduler.
  ThreadPool pool("executor_test", 2, /*spin_us=*/0);
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(4)),
                    TestNode("d", "TestDelayAsync").Input("c").Attr("delay_ms", 5), Node("e", "TestCount", {"d"}),
                    Retval("r", "e", 0)},
                   &pool);
  ASSERT_TRUE(exec.ok()) << exec.status();
  for (int step = 0; step < 3; ++step) {
    State().Reset();
    Tensor ret;
    CallFrame frame(nullptr, 0, &ret, 1);
    Executor::RunArgs args;
    args.call_frame = &frame;
    FLOWVM_ASSERT_OK((*exec)->Run(args));
    ExpectTensorNear(ret, Tensor::Scalar<float>(4));
    std::lock_guard<std::mutex> lock(State().mu);
    ASSERT_EQ(State().count_threads.size(), 1u);
    EXPECT_EQ(State().count_threads[0], std::this_thread::get_id()) << "step " << step;
  }
  State().Reset();
}

TEST_F(ExecutorTest, AsyncKernelHoldsNoThread) {
  // No pool: every node runs on the thread that calls Run. Each delay waits
  // until both have started (or 20 s); that can only happen quickly if the
  // first one gave the thread back while it waits.
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(3)),
                    TestNode("d1", "TestDelayAsync").Input("c").Attr("delay_ms", 20000).Attr("wait_for_peers", 2),
                    TestNode("d2", "TestDelayAsync").Input("c").Attr("delay_ms", 20000).Attr("wait_for_peers", 2),
                    TestNode("sum", "AddV2").Input("d1").Input("d2").Attr("T", DT_FLOAT), Retval("r", "sum", 0)},
                   nullptr);
  ASSERT_TRUE(exec.ok()) << exec.status();
  Tensor ret;
  CallFrame frame(nullptr, 0, &ret, 1);
  Executor::RunArgs args;
  args.call_frame = &frame;
  FLOWVM_ASSERT_OK((*exec)->Run(args));
  ExpectTensorNear(ret, Tensor::Scalar<float>(6));
  std::lock_guard<std::mutex> lock(State().mu);
  EXPECT_EQ(State().started, 2);
  EXPECT_EQ(State().min_peers_seen, 2) << "a delay ended before its peer started: the first held the thread";
  ASSERT_EQ(State().start_threads.size(), 2u);
  EXPECT_EQ(State().start_threads[0], std::this_thread::get_id());
  EXPECT_EQ(State().start_threads[1], std::this_thread::get_id());
}

TEST_F(ExecutorTest, ErrorCancelsTheStepAndNamesTheNode) {
  ThreadPool pool("executor_test", 3);
  // Branch 1: a long (30 s) delay, then a counter. Branch 2: fails once the
  // delay has started, then a counter.
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(1)),
                    TestNode("slow", "TestDelayAsync").Input("c").Attr("delay_ms", 30000),
                    Node("after_slow", "TestCount", {"slow"}),
                    TestNode("boom", "TestFail").Input("c").Attr("wait_for_started", 1),
                    Node("after_boom", "TestCount", {"boom"}), TestNode("sum", "AddV2").Input("after_slow").Input(
                        "after_boom").Attr("T", DT_FLOAT),
                    Retval("r", "sum", 0)},
                   &pool);
  ASSERT_TRUE(exec.ok()) << exec.status();
  Tensor ret;
  CallFrame frame(nullptr, 0, &ret, 1);
  CancellationManager cm;
  Executor::RunArgs args;
  args.cancellation = &cm;
  args.call_frame = &frame;
  auto start = std::chrono::steady_clock::now();
  Status s = (*exec)->Run(args);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("node 'boom' (TestFail)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("deliberate failure"), std::string::npos) << s;
  EXPECT_TRUE(cm.IsCancelled());
  EXPECT_EQ(State().counted.load(), 0) << "nodes after the failure or the cancelled delay ran";
  std::lock_guard<std::mutex> lock(State().mu);
  EXPECT_EQ(State().cancelled, 1) << "the waiting delay was not told about the cancellation";
  EXPECT_EQ(State().completed, 0);
  EXPECT_LT(seconds, 25) << "Run waited for the delay instead of cancelling it";
}

TEST_F(ExecutorTest, AlreadyCancelledStepRunsNothing) {
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(1)), Node("n", "TestCount", {"c"}),
                    Node("d", "TestDelayAsync", {"n"})},
                   nullptr);
  ASSERT_TRUE(exec.ok()) << exec.status();
  CancellationManager cm;
  cm.StartCancel();
  Executor::RunArgs args;
  args.cancellation = &cm;
  Status s = (*exec)->Run(args);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kCancelled) << s;
  EXPECT_EQ(State().counted.load(), 0);
  EXPECT_EQ(State().started, 0);
}

TEST_F(ExecutorTest, LongChainOfAsyncKernelsThatCompleteInline) {
  // An async kernel may call `done` before ComputeAsync returns (a Recv whose
  // tensor is already there); a long chain of them must not grow the stack.
  constexpr int kLength = 50000;
  std::vector<NodeDef> nodes{ConstNode("a0", Tensor::Scalar<float>(7))};
  for (int i = 1; i <= kLength; ++i)
    nodes.push_back(TestNode("a" + std::to_string(i), "TestDelayAsync")
                        .Input("a" + std::to_string(i - 1))
                        .Attr("inline_done", true));
  nodes.push_back(Retval("r", "a" + std::to_string(kLength), 0));
  auto exec = Make(nodes, nullptr);
  ASSERT_TRUE(exec.ok()) << exec.status();
  Tensor ret;
  CallFrame frame(nullptr, 0, &ret, 1);
  Executor::RunArgs args;
  args.call_frame = &frame;
  FLOWVM_ASSERT_OK((*exec)->Run(args));
  ExpectTensorNear(ret, Tensor::Scalar<float>(7));
}

TEST_F(ExecutorTest, MissingKernelNamesTheNode) {
  auto exec = Make({Node("lonely", "TestNoKernel", {})}, nullptr);
  ASSERT_FALSE(exec.ok());
  EXPECT_EQ(exec.status().code(), Code::kNotFound) << exec.status();
  EXPECT_NE(exec.status().message().find("lonely"), std::string::npos) << exec.status();
}

TEST_F(ExecutorTest, ConcurrentStepsOnOneExecutor) {
  ThreadPool pool("executor_test", 2);
  auto exec = Make({ConstNode("c", Tensor::Scalar<float>(2)), Node("d", "TestDelayAsync", {"c"}),
                    Node("e", "TestCount", {"d"}), TestNode("sq", "Mul").Input("e").Input("c").Attr("T", DT_FLOAT),
                    Retval("r", "sq", 0)},
                   &pool);
  ASSERT_TRUE(exec.ok()) << exec.status();
  std::vector<std::thread> threads;
  std::atomic<int> good{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 5; ++i) {
        Tensor ret;
        CallFrame frame(nullptr, 0, &ret, 1);
        Executor::RunArgs args;
        args.call_frame = &frame;
        if ((*exec)->Run(args).ok() && ret.IsInitialized() && ret.scalar<float>() == 4) good.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(good.load(), 20);
  EXPECT_EQ(State().counted.load(), 20);
}

}  // namespace
}  // namespace flowvm
