// Queues through sessions (both op forms). The races of many producers and
// consumers are in runtime/queue_concurrency_test.cc (run under TSan).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "kernels/data_flow/fifo_queue.h"
#include "kernels/data_flow/random_shuffle_queue.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::PlaceholderNode;
using testing::TestNode;

NodeDef Node(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
             std::map<std::string, AttrValue> attrs = {}) {
  TestNode n(name, op);
  for (const auto& in : inputs) n.Input(in);
  NodeDef def = n;
  for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
  return def;
}

// A queue `q` of one float component of shape `shape`, with enqueue,
// enqueue_many, dequeue, dequeue_many, dequeue_up_to, close, size nodes.
GraphDef QueueGraph(const std::string& kind = "FIFOQueue", bool resource_form = true, int64_t capacity = -1,
                    PartialTensorShape shape = PartialTensorShape(std::initializer_list<int64_t>{}),
                    std::map<std::string, AttrValue> extra = {}) {
  const std::string v2 = resource_form ? "V2" : "";
  std::map<std::string, AttrValue> qattrs = {{"component_types", MakeAttrValue(DataTypeVector{DT_FLOAT})},
                                              {"capacity", MakeAttrValue(capacity)}};
  qattrs["shapes"] = MakeAttrValue(std::vector<PartialTensorShape>{shape});
  for (auto& [k, v] : extra) qattrs[k] = v;
  auto types = std::map<std::string, AttrValue>{{"Tcomponents", MakeAttrValue(DataTypeVector{DT_FLOAT})}};
  auto ctypes = std::map<std::string, AttrValue>{{"component_types", MakeAttrValue(DataTypeVector{DT_FLOAT})}};
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  for (NodeDef n : {Node("q", kind + v2, {}, qattrs), PlaceholderNode("x", DT_FLOAT, PartialTensorShape()),
                    PlaceholderNode("n", DT_INT32, PartialTensorShape(std::initializer_list<int64_t>{})),
                    Node("enqueue", "QueueEnqueue" + v2, {"q", "x"}, types),
                    Node("enqueue_many", "QueueEnqueueMany" + v2, {"q", "x"}, types),
                    Node("dequeue", "QueueDequeue" + v2, {"q"}, ctypes),
                    Node("dequeue_many", "QueueDequeueMany" + v2, {"q", "n"}, ctypes),
                    Node("dequeue_up_to", "QueueDequeueUpTo" + v2, {"q", "n"}, ctypes),
                    Node("close", "QueueClose" + v2, {"q"}),
                    Node("close_all", "QueueClose" + v2, {"q"}, {{"cancel_pending_enqueues", MakeAttrValue(true)}}),
                    Node("size", "QueueSize" + v2, {"q"})})
    *g.add_node() = n;
  return g;
}

std::unique_ptr<Session> NewSession(const GraphDef& g) {
  auto s = Session::Create(SessionOptions(), g);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

Tensor Scalar(float v) { return Tensor::Scalar<float>(v); }
Tensor Vec(std::vector<float> v) { return Tensor::FromVector<float>(v); }

Status Enqueue(Session* s, float v) { return s->Run({{"x", Scalar(v)}}, {}, {"enqueue"}, nullptr); }
Status EnqueueMany(Session* s, std::vector<float> v) { return s->Run({{"x", Vec(v)}}, {}, {"enqueue_many"}, nullptr); }
StatusOr<float> Dequeue(Session* s, int64_t timeout_ms = 0) {
  RunOptions options;
  if (timeout_ms > 0) options.set_timeout_in_ms(timeout_ms);
  std::vector<Tensor> out;
  FLOWVM_RETURN_IF_ERROR(s->Run(options, {}, {"dequeue"}, {}, &out, nullptr));
  return out[0].scalar<float>();
}
StatusOr<std::vector<float>> DequeueMany(Session* s, int n, const std::string& op = "dequeue_many") {
  std::vector<Tensor> out;
  FLOWVM_RETURN_IF_ERROR(s->Run({{"n", Tensor::Scalar<int32_t>(n)}}, {op}, {}, &out));
  auto f = out[0].flat<float>();
  return std::vector<float>(f.begin(), f.end());
}
int Size(Session* s) {
  std::vector<Tensor> out;
  Status st = s->Run({}, {"size"}, {}, &out);
  EXPECT_TRUE(st.ok()) << st;
  return st.ok() ? out[0].scalar<int32_t>() : -1;
}

TEST(QueueTest, FifoOrderInBothForms) {
  for (bool resource_form : {true, false}) {
    auto s = NewSession(QueueGraph("FIFOQueue", resource_form));
    ASSERT_NE(s, nullptr);
    for (float v : {1.f, 2.f, 3.f}) FLOWVM_ASSERT_OK(Enqueue(s.get(), v));
    FLOWVM_ASSERT_OK(EnqueueMany(s.get(), {4, 5}));
    EXPECT_EQ(Size(s.get()), 5);
    EXPECT_EQ(*Dequeue(s.get()), 1.f);
    EXPECT_EQ(*DequeueMany(s.get(), 3), (std::vector<float>{2, 3, 4}));
    EXPECT_EQ(*Dequeue(s.get()), 5.f);
    EXPECT_EQ(Size(s.get()), 0);
  }
}

TEST(QueueTest, ADequeueWaitsForAnEnqueueFromAnotherStep) {
  auto s = NewSession(QueueGraph());
  ASSERT_NE(s, nullptr);
  auto waiting = std::async(std::launch::async, [&] { return Dequeue(s.get()); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  FLOWVM_ASSERT_OK(Enqueue(s.get(), 7));
  auto got = waiting.get();
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, 7.f);
}

TEST(QueueTest, AnEnqueueWaitsWhileTheQueueIsFull) {
  auto s = NewSession(QueueGraph("FIFOQueue", true, /*capacity=*/2));
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(EnqueueMany(s.get(), {1, 2}));
  auto waiting = std::async(std::launch::async, [&] { return Enqueue(s.get(), 3); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  EXPECT_EQ(*Dequeue(s.get()), 1.f);
  FLOWVM_ASSERT_OK(waiting.get());
  EXPECT_EQ(*DequeueMany(s.get(), 2), (std::vector<float>{2, 3}));
}

TEST(QueueTest, CloseWakesDequeuesWithOutOfRangeAndUpToTakesWhatIsLeft) {
  auto s = NewSession(QueueGraph());
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(EnqueueMany(s.get(), {1, 2, 3}));
  auto waiting = std::async(std::launch::async, [&] { return DequeueMany(s.get(), 5); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"close"}, nullptr));
  auto many = waiting.get();
  EXPECT_EQ(many.status().code(), Code::kOutOfRange) << many.status();
  EXPECT_NE(many.status().message().find("closed"), std::string::npos);
  EXPECT_NE(many.status().message().find("dequeue_many"), std::string::npos) << many.status();  // the node
  // Nothing was lost: the 3 elements are still there, in order.
  EXPECT_EQ(Size(s.get()), 3);
  EXPECT_EQ(*DequeueMany(s.get(), 5, "dequeue_up_to"), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(Dequeue(s.get()).status().code(), Code::kOutOfRange);
  Status late = Enqueue(s.get(), 4);
  EXPECT_EQ(late.code(), Code::kCancelled) << late;
}

TEST(QueueTest, ClosingWithCancelPendingEnqueuesCancelsTheWaitingOnes) {
  auto s = NewSession(QueueGraph("FIFOQueue", true, 1));
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(Enqueue(s.get(), 1));
  auto waiting = std::async(std::launch::async, [&] { return Enqueue(s.get(), 2); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"close_all"}, nullptr));
  EXPECT_EQ(waiting.get().code(), Code::kCancelled);
  EXPECT_EQ(*Dequeue(s.get()), 1.f);
}

TEST(QueueTest, ADeadlineEndsAWaitingDequeueAndLosesNothing) {
  auto s = NewSession(QueueGraph());
  ASSERT_NE(s, nullptr);
  auto got = Dequeue(s.get(), /*timeout_ms=*/100);
  EXPECT_EQ(got.status().code(), Code::kDeadlineExceeded) << got.status();
  FLOWVM_ASSERT_OK(EnqueueMany(s.get(), {1, 2}));
  // A dequeue_many that has collected part of its batch when the deadline
  // passes puts it back.
  RunOptions options;
  options.set_timeout_in_ms(100);
  std::vector<Tensor> out;
  Status st = s->Run(options, {{"n", Tensor::Scalar<int32_t>(5)}}, {"dequeue_many"}, {}, &out, nullptr);
  EXPECT_EQ(st.code(), Code::kDeadlineExceeded) << st;
  EXPECT_EQ(Size(s.get()), 2);
  EXPECT_EQ(*DequeueMany(s.get(), 2), (std::vector<float>{1, 2}));
}

TEST(QueueTest, ResettingTheContainerEndsWaitingOps) {
  auto s = NewSession(QueueGraph());
  ASSERT_NE(s, nullptr);
  auto waiting = std::async(std::launch::async, [&] { return Dequeue(s.get()); });
  EXPECT_EQ(waiting.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout);
  FLOWVM_ASSERT_OK(s->ResetContainers({""}));
  auto got = waiting.get();
  EXPECT_EQ(got.status().code(), Code::kOutOfRange) << got.status();
  // The next step finds a fresh, open queue.
  FLOWVM_ASSERT_OK(Enqueue(s.get(), 5));
  EXPECT_EQ(*Dequeue(s.get()), 5.f);
}

TEST(QueueTest, TimeoutMsAttrEndsAWait) {
  GraphDef g = QueueGraph();
  for (auto& n : *g.mutable_node())
    if (n.name() == "dequeue") (*n.mutable_attr())["timeout_ms"] = MakeAttrValue(int64_t{50});
  auto s = NewSession(g);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(Dequeue(s.get()).status().code(), Code::kDeadlineExceeded);
}

TEST(QueueTest, RandomShuffleQueueKeepsMinAfterDequeueUntilClosed) {
  auto s = NewSession(QueueGraph("RandomShuffleQueue", true, 100, PartialTensorShape(std::initializer_list<int64_t>{}),
                                 {{"min_after_dequeue", MakeAttrValue(int64_t{5})},
                                  {"seed", MakeAttrValue(int64_t{3})}}));
  ASSERT_NE(s, nullptr);
  std::vector<float> in;
  for (int i = 0; i < 20; ++i) in.push_back(static_cast<float>(i));
  FLOWVM_ASSERT_OK(EnqueueMany(s.get(), in));
  auto first = DequeueMany(s.get(), 15);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(Size(s.get()), 5);
  auto blocked = Dequeue(s.get(), 100);  // 5 must stay while open
  EXPECT_EQ(blocked.status().code(), Code::kDeadlineExceeded);
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"close"}, nullptr));
  auto rest = DequeueMany(s.get(), 5);
  ASSERT_TRUE(rest.ok()) << rest.status();
  std::vector<float> all = *first;
  all.insert(all.end(), rest->begin(), rest->end());
  EXPECT_NE(all, in);  // shuffled
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, in);  // every element once
}

TEST(QueueTest, PaddingFifoQueuePadsABatchToItsLargestElement) {
  auto s = NewSession(QueueGraph("PaddingFIFOQueue", true, -1, PartialTensorShape({-1})));
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(s->Run({{"x", Vec({1})}}, {}, {"enqueue"}, nullptr));
  FLOWVM_ASSERT_OK(s->Run({{"x", Vec({2, 3, 4})}}, {}, {"enqueue"}, nullptr));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({{"n", Tensor::Scalar<int32_t>(2)}}, {"dequeue_many"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  auto f = out[0].flat<float>();
  EXPECT_EQ(std::vector<float>(f.begin(), f.end()), (std::vector<float>{1, 0, 0, 2, 3, 4}));
}

TEST(QueueTest, PaddingFifoQueuePadsRowsOfAnEnqueueManyBesideSingleElements) {
  auto s = NewSession(QueueGraph("PaddingFIFOQueue", true, -1, PartialTensorShape({-1})));
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(s->Run({{"x", Vec({7, 8, 9})}}, {}, {"enqueue"}, nullptr));
  Tensor rows(DT_FLOAT, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) rows.flat<float>()[i] = static_cast<float>(i + 1);
  FLOWVM_ASSERT_OK(s->Run({{"x", rows}}, {}, {"enqueue_many"}, nullptr));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({{"n", Tensor::Scalar<int32_t>(2)}}, {"dequeue_many"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  auto f = out[0].flat<float>();
  EXPECT_EQ(std::vector<float>(f.begin(), f.end()), (std::vector<float>{7, 8, 9, 1, 2, 0}));
  // The last row alone has its own shape.
  FLOWVM_ASSERT_OK(s->Run({}, {"dequeue"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2}));
  EXPECT_EQ(out[0].flat<float>()[0], 3);
  EXPECT_EQ(out[0].flat<float>()[1], 4);
}

TEST(QueueTest, EnqueueManyRowsOfTheWrongShapeAreRefused) {
  auto s = NewSession(QueueGraph("FIFOQueue", true, -1, PartialTensorShape({2})));
  ASSERT_NE(s, nullptr);
  Status st = s->Run({{"x", Vec({1, 2, 3})}}, {}, {"enqueue_many"}, nullptr);  // rows are scalars
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("rows of shape []"), std::string::npos) << st;
}

TEST(QueueTest, WrongComponentsAreRefusedNamingTheQueue) {
  auto s = NewSession(QueueGraph());
  ASSERT_NE(s, nullptr);
  Status st = s->Run({{"x", Vec({1, 2})}}, {}, {"enqueue"}, nullptr);  // the queue holds scalars
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("FIFOQueue 'q'"), std::string::npos) << st;
  EXPECT_NE(st.message().find("[2]"), std::string::npos) << st;
}

TEST(QueueTest, BlockedDequeuesHoldNoThread) {
  // 16 dequeues in one step on a session of 2 threads, and an enqueue_many
  // of 16 elements in the same step: if a waiting dequeue held a thread,
  // the enqueue could not run.
  GraphDef g = QueueGraph();
  auto ctypes = std::map<std::string, AttrValue>{{"component_types", MakeAttrValue(DataTypeVector{DT_FLOAT})}};
  std::vector<std::string> fetches;
  for (int i = 0; i < 16; ++i) {
    *g.add_node() = Node("d" + std::to_string(i), "QueueDequeueV2", {"q"}, ctypes);
    fetches.push_back("d" + std::to_string(i));
  }
  SessionOptions options;
  options.num_threads = 2;
  auto created = Session::Create(options, g);
  ASSERT_TRUE(created.ok()) << created.status();
  std::vector<float> values(16);
  std::iota(values.begin(), values.end(), 0.f);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK((*created)->Run({{"x", Vec(values)}}, fetches, {"enqueue_many"}, &out));
  std::vector<float> got;
  for (const Tensor& t : out) got.push_back(t.scalar<float>());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, values);
}

}  // namespace
}  // namespace flowvm
