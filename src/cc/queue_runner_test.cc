// QueueRunner and Coordinator: threads that fill a queue as concurrent
// steps until their input runs out, errors that stop everything and reach
// Join, and stops that wake enqueues waiting on a full queue.
#include "flowvm/cc/queue_runner.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "flowvm/cc/ops.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

// A source queue fed through `values`, runner threads that move its
// numbers, doubled, into `sink`, and `take` to drain the sink.
struct Plumbing {
  Scope root = Scope::NewRootScope();
  Output values, take;
  Operation fill_source, close_source, move, close_sink, cancel_sink;

  explicit Plumbing(int64_t sink_capacity = -1, float divisor = 1.0f) {
    auto source = ops::FIFOQueueV2(root.WithOpName("source"), {DT_FLOAT});
    values = ops::Placeholder(root.WithOpName("values"), DT_FLOAT);
    fill_source = ops::QueueEnqueueManyV2(root.WithOpName("fill"), source, {values}).operation;
    close_source = ops::QueueCloseV2(root.WithOpName("close_source"), source).operation;
    auto sink = ops::FIFOQueueV2(root.WithOpName("sink"), {DT_FLOAT}, ops::FIFOQueueV2::Capacity(sink_capacity));
    auto x = ops::QueueDequeueV2(root.WithOpName("next"), source, {DT_FLOAT});
    // A negative number fails the step: Fill cannot make -3 elements.
    auto doubled = ops::Mul(root.WithOpName("double"), x.components[0], 2.0f / divisor);
    auto check = ops::Fill(root.WithOpName("non_negative"), ops::Reshape(root, ops::Cast(root, x.components[0], DT_INT32), {1}),
                           0.0f);
    move = ops::QueueEnqueueV2(root.WithOpName("move").WithControlDependencies({check.operation}), sink, {doubled})
               .operation;
    close_sink = ops::QueueCloseV2(root.WithOpName("close_sink"), sink).operation;
    cancel_sink =
        ops::QueueCloseV2(root.WithOpName("cancel_sink"), sink, ops::QueueCloseV2::CancelPendingEnqueues(true))
            .operation;
    take = ops::QueueDequeueV2(root.WithOpName("take"), sink, {DT_FLOAT}).components[0];
  }
};

TEST(QueueRunnerTest, FillsTheQueueUntilTheInputRunsOutThenClosesIt) {
  Plumbing p;
  ASSERT_TRUE(p.root.ok()) << p.root.status();
  ClientSession session(p.root);
  std::vector<float> values;
  for (int i = 0; i < 100; ++i) values.push_back(static_cast<float>(i));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session.Run({{p.values, Tensor::FromVector<float>(values)}}, {}, {p.fill_source}, &out));
  FLOWVM_ASSERT_OK(session.Run({}, {}, {p.close_source}, &out));
  Coordinator coord;
  QueueRunner runner("sink", {p.move, p.move, p.move}, p.close_sink, p.cancel_sink);
  FLOWVM_ASSERT_OK(runner.Start(&session, &coord));
  // Training side: take until the end of the epoch.
  std::vector<float> got;
  for (;;) {
    Status s = session.Run({p.take}, &out);
    if (s.code() == Code::kOutOfRange) break;
    ASSERT_TRUE(s.ok()) << s;
    got.push_back(out[0].scalar<float>());
  }
  FLOWVM_ASSERT_OK(coord.Join());  // running out of input is not an error
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(got[i], 2.0f * i);
}

TEST(QueueRunnerTest, AnErrorInARunnerStopsEverythingAndReachesJoin) {
  Plumbing p;
  ClientSession session(p.root);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session.Run({{p.values, Tensor::FromVector<float>({1, 2, -3, 4})}}, {}, {p.fill_source}, &out));
  Coordinator coord;
  QueueRunner runner("sink", {p.move}, p.close_sink, p.cancel_sink);
  FLOWVM_ASSERT_OK(runner.Start(&session, &coord));
  EXPECT_TRUE(coord.WaitForStop(10000));
  Status s = coord.Join();
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("non_negative"), std::string::npos) << s;
}

TEST(QueueRunnerTest, AStopWakesEnqueuesWaitingOnAFullQueue) {
  Plumbing p(/*sink_capacity=*/2);
  ClientSession session(p.root);
  std::vector<Tensor> out;
  std::vector<float> values(50, 1.0f);
  FLOWVM_ASSERT_OK(session.Run({{p.values, Tensor::FromVector<float>(values)}}, {}, {p.fill_source}, &out));
  Coordinator coord;
  QueueRunner runner("sink", {p.move, p.move}, p.close_sink, p.cancel_sink);
  FLOWVM_ASSERT_OK(runner.Start(&session, &coord));
  FLOWVM_ASSERT_OK(session.Run({p.take}, &out));  // the queue is being filled
  coord.RequestStop();
  FLOWVM_ASSERT_OK(coord.Join());  // returns: the waiting enqueues were cancelled, which is no error
  EXPECT_EQ(runner.Start(&session, nullptr).code(), Code::kOk);  // a stopped runner can start again
  runner.Stop();
  FLOWVM_ASSERT_OK(runner.Join());
}

}  // namespace
}  // namespace flowvm
