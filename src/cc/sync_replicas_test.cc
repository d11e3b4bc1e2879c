// SyncReplicasOptimizer in one process: CPU:0 plays the ps, CPU:1..3 the
// N + b = 2 + 1 workers, each with its own train op (between-graph
// replication in one graph: every worker wraps its own optimizer).
#include "flowvm/cc/sync_replicas.h"

#include <atomic>
#include <chrono>
#include <future>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/cc/ops.h"
#include "flowvm/session.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

constexpr int kN = 2, kWorkers = 3;

std::string Cpu(int i) { return "/job:localhost/replica:0/task:0/device:CPU:" + std::to_string(i); }

// loss_i = sum(w * x_i): worker i's gradient is exactly what it is fed.
struct Cluster {
  Scope root = Scope::NewRootScope();
  Variable w, global_step;
  GradientDescentOptimizer sgd{1.0f};
  std::vector<std::unique_ptr<SyncReplicasOptimizer>> sync;
  std::vector<Output> x;
  std::vector<Operation> train;
  std::unique_ptr<Session> session;

  Cluster() {
    Scope ps = root.WithDevice(Cpu(0));
    w = Variable(ps.WithOpName("w"), {2}, DT_FLOAT, init::Zeros());
    global_step = Variable(ps.WithOpName("global_step"), {}, DT_INT64, init::Zeros(), /*trainable=*/false);
    for (int i = 0; i < kWorkers; ++i) {
      Scope worker = root.WithDevice(Cpu(i + 1)).NewSubScope("worker" + std::to_string(i));
      x.push_back(ops::Placeholder(worker.WithOpName("x"), DT_FLOAT));
      auto loss = ops::Sum(worker, ops::Mul(worker, w, x.back()), ops::Const(worker, 0));
      sync.push_back(std::make_unique<SyncReplicasOptimizer>(&sgd, kN, kWorkers));
      train.push_back(sync.back()->Minimize(worker, loss, global_step, {w}));
    }
    Operation init = GlobalVariablesInitializer(root);
    EXPECT_TRUE(root.ok()) << root.status();
    GraphDef g;
    EXPECT_TRUE(root.ToGraphDef(&g).ok());
    SessionOptions options;
    options.cpu_devices = kWorkers + 1;
    auto made = Session::Create(options, g);
    EXPECT_TRUE(made.ok()) << made.status();
    if (!made.ok()) return;
    session = std::move(*made);
    std::vector<std::string> targets = {init.name()};
    EXPECT_TRUE(session->Run({}, {}, targets, nullptr).ok());
    EXPECT_TRUE(session->Run({}, {}, {sync[0]->chief_init_op().name()}, nullptr).ok());
    for (auto& s : sync) EXPECT_TRUE(session->Run({}, {}, {s->local_step_init_op().name()}, nullptr).ok());
  }

  // Worker i's train step fed `grad`: {local step used, next local step}.
  StatusOr<std::pair<int64_t, int64_t>> Train(int i, std::vector<float> grad) {
    std::vector<Tensor> out;
    FLOWVM_RETURN_IF_ERROR(session->Run({{x[i].name(), Tensor::FromVector<float>(grad)}},
                                        {sync[i]->local_step().name(), sync[i]->next_local_step().name()},
                                        {train[i].name()}, &out));
    return std::make_pair(out[0].scalar<int64_t>(), out[1].scalar<int64_t>());
  }
  Status Sync() { return session->Run({}, {}, {sync[0]->sync_op().name()}, nullptr); }
  std::vector<float> W() {
    std::vector<Tensor> out;
    EXPECT_TRUE(session->Run({}, {w.ref().name()}, {}, &out).ok());
    auto f = out[0].flat<float>();
    return std::vector<float>(f.begin(), f.end());
  }
  int64_t Step() {
    std::vector<Tensor> out;
    EXPECT_TRUE(session->Run({}, {global_step.ref().name()}, {}, &out).ok());
    return out.empty() ? -1 : out[0].scalar<int64_t>();
  }
};

TEST(SyncReplicasTest, TheFirstNGradientsMakeAStepAndAStaleOneIsDropped) {
  Cluster c;
  ASSERT_NE(c.session, nullptr);
  // Step 0: workers 0 and 1 apply and wait for their tokens; the backup
  // (worker 2) is late.
  auto w0 = std::async(std::launch::async, [&] { return c.Train(0, {1, 2}); });
  auto w1 = std::async(std::launch::async, [&] { return c.Train(1, {3, 4}); });
  FLOWVM_ASSERT_OK(c.Sync());
  for (auto* f : {&w0, &w1}) {
    auto r = f->get();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->first, 0);   // applied at step 0
    EXPECT_EQ(r->second, 1);  // woken for step 1
  }
  EXPECT_EQ(c.W(), (std::vector<float>{-2, -3}));  // w -= mean([1,2], [3,4])
  EXPECT_EQ(c.Step(), 1);

  // The backup's gradient of step 0 arrives now: stale, dropped. It takes
  // the token the others left and goes on at step 1.
  auto late = c.Train(2, {100, 100});
  ASSERT_TRUE(late.ok()) << late.status();
  EXPECT_EQ(late->first, 0);
  EXPECT_EQ(late->second, 1);

  // Step 1 without worker 1: worker 0 and the backup are the first two.
  auto a = std::async(std::launch::async, [&] { return c.Train(0, {1, 1}); });
  auto b = std::async(std::launch::async, [&] { return c.Train(2, {3, 5}); });
  FLOWVM_ASSERT_OK(c.Sync());
  for (auto* f : {&a, &b}) {
    auto r = f->get();
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->first, 1);
    EXPECT_EQ(r->second, 2);
  }
  // The stale [100, 100] is in no step.
  EXPECT_EQ(c.W(), (std::vector<float>{-4, -6}));
  EXPECT_EQ(c.Step(), 2);
}

TEST(SyncReplicasTest, StepsGoOnWithoutAWorkerThatNeverComesAndItRejoinsLater) {
  Cluster c;
  ASSERT_NE(c.session, nullptr);
  constexpr int64_t kTarget = 30;
  std::atomic<bool> stop_chief{false};
  std::atomic<int64_t> synced{0};
  auto chief = std::async(std::launch::async, [&] {
    int64_t steps = 0;
    Status s = c.sync[0]->RunSyncLoop(c.session.get(), [&] { return stop_chief.load(); }, 1000, &steps);
    synced = steps;
    return s;
  });
  // Workers 0 and 1 train to the target; worker 2 is not there.
  auto worker = [&](int i) -> Status {
    for (;;) {
      auto r = c.Train(i, {1, 1});
      if (!r.ok()) return r.status();
      if (r->second >= kTarget) return Status::OK();
    }
  };
  auto w0 = std::async(std::launch::async, worker, 0);
  auto w1 = std::async(std::launch::async, worker, 1);
  // Halfway, the missing worker turns up with a gradient of step 0.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (c.Step() < kTarget / 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_GE(c.Step(), kTarget / 2);
  auto late = c.Train(2, {1000, 1000});
  ASSERT_TRUE(late.ok()) << late.status();
  EXPECT_EQ(late->first, 0);
  EXPECT_GE(late->second, kTarget / 2);  // it rejoined at the current step
  auto w2 = std::async(std::launch::async, worker, 2);
  for (auto* f : {&w0, &w1, &w2}) {
    ASSERT_EQ(f->wait_for(std::chrono::seconds(60)), std::future_status::ready);
    FLOWVM_EXPECT_OK(f->get());
  }
  stop_chief = true;
  FLOWVM_ASSERT_OK(chief.get());
  const int64_t step = c.Step();
  EXPECT_GE(step, kTarget);
  EXPECT_GT(synced.load(), 0);
  EXPECT_LE(synced.load(), step);  // a run that timed out as it finished counts in the step only
  // Every step applied the mean of fresh gradients of ones: w = -step. The
  // stale [1000, 1000] is in none.
  EXPECT_EQ(c.W(), (std::vector<float>{static_cast<float>(-step), static_cast<float>(-step)}));
}

TEST(SyncReplicasTest, BadArgumentsAreRecordedInTheScope) {
  Scope root = Scope::NewRootScope();
  Variable w(root.WithOpName("w"), {2}, DT_FLOAT, init::Zeros());
  Variable gs(root.WithOpName("global_step"), {}, DT_FLOAT, init::Zeros(), false);
  GradientDescentOptimizer sgd(0.1f);
  auto loss = ops::Sum(root, w.ref(), ops::Const(root, 0));
  SyncReplicasOptimizer bad_counts(&sgd, 3, 2);
  EXPECT_FALSE(bad_counts.Minimize(root, loss, gs).valid());
  EXPECT_EQ(root.status().code(), Code::kInvalidArgument);
  EXPECT_NE(root.status().message().find("replicas_to_aggregate"), std::string::npos) << root.status();

  Scope root2 = Scope::NewRootScope();
  Variable w2(root2.WithOpName("w"), {2}, DT_FLOAT, init::Zeros());
  Variable float_step(root2.WithOpName("global_step"), {}, DT_FLOAT, init::Zeros(), false);
  auto loss2 = ops::Sum(root2, w2.ref(), ops::Const(root2, 0));
  SyncReplicasOptimizer sync(&sgd, 1, 2);
  EXPECT_FALSE(sync.Minimize(root2, loss2, float_step, {w2}).valid());
  EXPECT_NE(root2.status().message().find("global step"), std::string::npos) << root2.status();
}

}  // namespace
}  // namespace flowvm
