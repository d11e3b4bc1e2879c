// Conditional accumulators through sessions (both op forms), and the
// accumulator object's waiting takes directly.
#include "kernels/data_flow/conditional_accumulator.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::PlaceholderNode;
using testing::TestNode;

// An accumulator `acc` of float gradients shaped `shape`, with apply (fed
// g, step), take (fed n), num, set_step (fed new_step) nodes.
GraphDef AccumulatorGraph(bool resource_form, const PartialTensorShape& shape,
                          const std::string& reduction = "MEAN", DataType apply_dtype = DT_FLOAT) {
  const std::string r = resource_form ? "Resource" : "";
  const PartialTensorShape scalar(std::initializer_list<int64_t>{});
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  for (NodeDef n : {NodeDef(TestNode("acc", r + "ConditionalAccumulator")
                                .Attr("dtype", DT_FLOAT)
                                .Attr("shape", shape)
                                .Attr("reduction_type", reduction)),
                    PlaceholderNode("g", apply_dtype, PartialTensorShape()), PlaceholderNode("step", DT_INT64, scalar),
                    PlaceholderNode("n", DT_INT32, scalar), PlaceholderNode("new_step", DT_INT64, scalar),
                    NodeDef(TestNode("apply", r + "AccumulatorApplyGradient")
                                .Input("acc")
                                .Input("step")
                                .Input("g")
                                .Attr("dtype", apply_dtype)),
                    NodeDef(TestNode("take", r + "AccumulatorTakeGradient").Input("acc").Input("n").Attr("dtype", DT_FLOAT)),
                    NodeDef(TestNode("num", r + "AccumulatorNumAccumulated").Input("acc")),
                    NodeDef(TestNode("set_step", r + "AccumulatorSetGlobalStep").Input("acc").Input("new_step"))})
    *g.add_node() = n;
  return g;
}

std::unique_ptr<Session> NewSession(const GraphDef& g) {
  auto s = Session::Create(SessionOptions(), g);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

Tensor Vec(std::vector<float> v) { return Tensor::FromVector<float>(v); }

Status Apply(Session* s, int64_t step, const Tensor& g) {
  return s->Run({{"g", g}, {"step", Tensor::Scalar<int64_t>(step)}}, {}, {"apply"}, nullptr);
}
StatusOr<std::vector<float>> Take(Session* s, int n, int64_t timeout_ms = 0) {
  RunOptions options;
  if (timeout_ms > 0) options.set_timeout_in_ms(timeout_ms);
  std::vector<Tensor> out;
  FLOWVM_RETURN_IF_ERROR(s->Run(options, {{"n", Tensor::Scalar<int32_t>(n)}}, {"take"}, {}, &out, nullptr));
  auto f = out[0].flat<float>();
  return std::vector<float>(f.begin(), f.end());
}
int Num(Session* s) {
  std::vector<Tensor> out;
  Status st = s->Run({}, {"num"}, {}, &out);
  EXPECT_TRUE(st.ok()) << st;
  return st.ok() ? out[0].scalar<int32_t>() : -1;
}
Status SetStep(Session* s, int64_t step) {
  return s->Run({{"new_step", Tensor::Scalar<int64_t>(step)}}, {}, {"set_step"}, nullptr);
}

TEST(ConditionalAccumulatorTest, TakesTheMeanAndDropsStaleGradientsInBothForms) {
  for (bool resource_form : {true, false}) {
    SCOPED_TRACE(resource_form ? "resource form" : "reference form");
    auto s = NewSession(AccumulatorGraph(resource_form, PartialTensorShape({2})));
    ASSERT_NE(s, nullptr);
    FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({1, 2})));
    FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({3, 6})));
    EXPECT_EQ(Num(s.get()), 2);
    auto mean = Take(s.get(), 2);
    ASSERT_TRUE(mean.ok()) << mean.status();
    EXPECT_EQ(*mean, (std::vector<float>{2, 4}));
    EXPECT_EQ(Num(s.get()), 0);
    // The take advanced the global step to 1: a gradient of step 0 is stale.
    FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({100, 100})));
    EXPECT_EQ(Num(s.get()), 0);
    FLOWVM_ASSERT_OK(Apply(s.get(), 1, Vec({5, 5})));
    FLOWVM_ASSERT_OK(Apply(s.get(), 7, Vec({7, 9})));  // from the future: counted
    EXPECT_EQ(Num(s.get()), 2);
    EXPECT_EQ(*Take(s.get(), 1), (std::vector<float>{6, 7}));  // everything in, not just num_required
  }
}

TEST(ConditionalAccumulatorTest, SumReduction) {
  auto s = NewSession(AccumulatorGraph(true, PartialTensorShape({2}), "SUM"));
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({1, 2})));
  FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({3, 6})));
  EXPECT_EQ(*Take(s.get(), 2), (std::vector<float>{4, 8}));
}

TEST(ConditionalAccumulatorTest, SetGlobalStepMakesOlderGradientsStale) {
  auto s = NewSession(AccumulatorGraph(true, PartialTensorShape({2})));
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(SetStep(s.get(), 5));
  FLOWVM_ASSERT_OK(Apply(s.get(), 4, Vec({1, 1})));
  EXPECT_EQ(Num(s.get()), 0);
  FLOWVM_ASSERT_OK(Apply(s.get(), 5, Vec({1, 1})));
  EXPECT_EQ(Num(s.get()), 1);
  // Back (a restored checkpoint) is allowed.
  FLOWVM_ASSERT_OK(SetStep(s.get(), 2));
  FLOWVM_ASSERT_OK(Apply(s.get(), 2, Vec({3, 3})));
  EXPECT_EQ(*Take(s.get(), 2), (std::vector<float>{2, 2}));
}

TEST(ConditionalAccumulatorTest, ATakeWaitsForGradientsFromOtherSteps) {
  auto s = NewSession(AccumulatorGraph(true, PartialTensorShape({2})));
  ASSERT_NE(s, nullptr);
  auto waiting = std::async(std::launch::async, [&] { return Take(s.get(), 3); });
  FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({1, 1})));
  FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({2, 2})));
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({3, 3})));
  auto got = waiting.get();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<float>{2, 2}));
}

TEST(ConditionalAccumulatorTest, ManyWaitingTakesHoldNoThread) {
  // More takes wait at once than the session has threads; one gradient each
  // then lets them through, one after another.
  SessionOptions options;
  options.num_threads = 2;
  auto made = Session::Create(options, AccumulatorGraph(true, PartialTensorShape({1})));
  ASSERT_TRUE(made.ok()) << made.status();
  Session* s = made->get();
  constexpr int kTakes = 8;
  std::atomic<int> finished{0};
  std::vector<std::future<StatusOr<std::vector<float>>>> takes;
  for (int i = 0; i < kTakes; ++i)
    takes.push_back(std::async(std::launch::async, [s, &finished] {
      auto got = Take(s, 1, 30000);
      ++finished;
      return got;
    }));
  for (int i = 0; i < kTakes; ++i) {
    // A take gets every gradient in: one at a time, so each gets one. Each
    // take advances the global step, so each is applied at a step far ahead.
    FLOWVM_ASSERT_OK(Apply(s, 1000, Vec({static_cast<float>(i + 1)})));
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (finished.load() < i + 1 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    ASSERT_EQ(finished.load(), i + 1);
  }
  float total = 0;
  for (auto& t : takes) {
    auto got = t.get();
    ASSERT_TRUE(got.ok()) << got.status();
    total += (*got)[0];
  }
  EXPECT_EQ(total, kTakes * (kTakes + 1) / 2);
}

TEST(ConditionalAccumulatorTest, ATakePastItsDeadlineLosesNoGradient) {
  auto s = NewSession(AccumulatorGraph(false, PartialTensorShape({2})));
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({1, 3})));
  auto late = Take(s.get(), 2, /*timeout_ms=*/50);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), Code::kDeadlineExceeded) << late.status();
  EXPECT_EQ(Num(s.get()), 1);
  FLOWVM_ASSERT_OK(Apply(s.get(), 0, Vec({3, 5})));
  EXPECT_EQ(*Take(s.get(), 2), (std::vector<float>{2, 4}));
}

TEST(ConditionalAccumulatorTest, MismatchesAreInvalidArgumentNamingTheNode) {
  auto s = NewSession(AccumulatorGraph(true, PartialTensorShape({2})));
  ASSERT_NE(s, nullptr);
  Status st = Apply(s.get(), 0, Vec({1, 2, 3}));
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("'apply'"), std::string::npos) << st;
  EXPECT_NE(st.message().find("[3]"), std::string::npos) << st;

  // A partially known shape: the first gradient of a step fixes it.
  auto p = NewSession(AccumulatorGraph(true, PartialTensorShape({-1})));
  ASSERT_NE(p, nullptr);
  FLOWVM_ASSERT_OK(Apply(p.get(), 0, Vec({1, 2})));
  st = Apply(p.get(), 0, Vec({1, 2, 3}));
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("'apply'"), std::string::npos) << st;
  EXPECT_EQ(*Take(p.get(), 1), (std::vector<float>{1, 2}));
  FLOWVM_ASSERT_OK(Apply(p.get(), 1, Vec({1, 2, 3})));  // a new step, a new shape

  // The apply's dtype is not the accumulator's.
  auto d = NewSession(AccumulatorGraph(true, PartialTensorShape({2}), "MEAN", DT_DOUBLE));
  ASSERT_NE(d, nullptr);
  st = Apply(d.get(), 0, Tensor::FromVector<double>({1, 2}));
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("'apply'"), std::string::npos) << st;

  // num_required below 1.
  auto t = Take(s.get(), 0);
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find("'take'"), std::string::npos) << t.status();
}

TEST(ConditionalAccumulatorTest, AnAccumulatorOfIntegersIsRefused) {
  GraphDef g = AccumulatorGraph(true, PartialTensorShape({2}));
  (*g.mutable_node(0)->mutable_attr())["dtype"] = MakeAttrValue(DT_INT32);
  auto s = Session::Create(SessionOptions(), g);
  std::vector<Tensor> out;
  Status st = s.ok() ? (*s)->Run({}, {"num"}, {}, &out) : s.status();
  // No kernel takes int32 (float and double only), as for any op.
  EXPECT_EQ(st.code(), Code::kNotFound) << st;
  EXPECT_NE(st.message().find("'acc'"), std::string::npos) << st;
  EXPECT_NE(st.message().find("int32"), std::string::npos) << st;
}

// The object directly: order, cancellation, a reset container.
TEST(ConditionalAccumulatorTest, TakesAreServedInOrderAndACancelledOneLetsTheNextThrough) {
  auto a = std::make_shared<ConditionalAccumulator>("a", DT_FLOAT, PartialTensorShape({1}),
                                                    ConditionalAccumulator::Reduction::kSum);
  CancellationManager first_cancel;
  std::promise<Status> first;
  std::promise<std::pair<Status, float>> second;
  a->TryTakeGradient(3, &first_cancel, [&](const Status& s, Tensor) { first.set_value(s); });
  a->TryTakeGradient(1, nullptr, [&](const Status& s, Tensor t) {
    second.set_value({s, s.ok() ? t.scalar<float>() : 0.f});
  });
  bool counted = false;
  FLOWVM_ASSERT_OK(a->ApplyGradient(0, Tensor::FromVector<float>({2}), &counted));
  EXPECT_TRUE(counted);
  // The second waits behind the first, which needs 3.
  EXPECT_EQ(a->NumWaitingTakes(), 2);
  first_cancel.StartCancel(errors::Aborted("step failed elsewhere"));
  EXPECT_EQ(first.get_future().get().code(), Code::kAborted);
  auto got = second.get_future().get();
  FLOWVM_ASSERT_OK(got.first);
  EXPECT_EQ(got.second, 2.f);
  EXPECT_EQ(a->global_step(), 1);
  FLOWVM_ASSERT_OK(a->ApplyGradient(0, Tensor::FromVector<float>({2}), &counted));
  EXPECT_FALSE(counted);
  EXPECT_EQ(a->NumDropped(), 1);

  // A take of a step already cancelled takes nothing.
  FLOWVM_ASSERT_OK(a->ApplyGradient(1, Tensor::FromVector<float>({4}), &counted));
  CancellationManager cancelled;
  cancelled.StartCancel();
  Status late;
  a->TryTakeGradient(1, &cancelled, [&](const Status& s, Tensor) { late = s; });
  EXPECT_EQ(late.code(), Code::kCancelled);
  EXPECT_EQ(a->NumAccumulated(), 1);

  // A reset container wakes a waiting take.
  Status reset;
  a->TryTakeGradient(5, nullptr, [&](const Status& s, Tensor) { reset = s; });
  a->OnContainerCleanup();
  EXPECT_EQ(reset.code(), Code::kCancelled) << reset;
  EXPECT_EQ(a->NumWaitingTakes(), 0);
}

TEST(ConditionalAccumulatorTest, ConcurrentAppliesAndTakesLoseNothing) {
  // Producers apply ones at a step far ahead; takes of 1 each drain them.
  // Every gradient counted is in exactly one take (SUM): nothing is lost.
  auto a = std::make_shared<ConditionalAccumulator>("a", DT_DOUBLE, PartialTensorShape({1}),
                                                    ConditionalAccumulator::Reduction::kSum);
  constexpr int kProducers = 4, kEach = 200;
  std::atomic<int> counted_total{0};
  std::atomic<double> taken{0};
  std::atomic<int> outstanding{0};
  std::mutex mu;
  std::condition_variable cv;
  // The takes wait first: then each gradient serves at most one (a take
  // gets everything in), so there are gradients for all of them.
  constexpr int kTakes = 100;
  std::vector<std::unique_ptr<CancellationManager>> cancels;
  for (int round = 0; round < kTakes; ++round) {
    cancels.push_back(std::make_unique<CancellationManager>());
    ++outstanding;
    a->TryTakeGradient(1, cancels.back().get(), [&](const Status& s, Tensor t) {
      if (s.ok()) {
        double cur = taken.load();
        while (!taken.compare_exchange_weak(cur, cur + t.scalar<double>())) {
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      --outstanding;
      cv.notify_all();
    });
  }
  std::vector<std::thread> producers;
  for (int p = 0; p < kProducers; ++p)
    producers.emplace_back([&] {
      for (int i = 0; i < kEach; ++i) {
        bool counted = false;
        EXPECT_TRUE(a->ApplyGradient(1 << 30, Tensor::FromVector<double>({1}), &counted).ok());
        if (counted) ++counted_total;
      }
    });
  // Cancel every third take while the gradients come in.
  for (int round = 0; round < kTakes; round += 3) cancels[static_cast<size_t>(round)]->StartCancel();
  for (auto& t : producers) t.join();
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return outstanding.load() == 0; }));
  }
  EXPECT_EQ(counted_total.load(), kProducers * kEach);
  EXPECT_EQ(taken.load() + a->NumAccumulated(), kProducers * kEach);
}

}  // namespace
}  // namespace flowvm
