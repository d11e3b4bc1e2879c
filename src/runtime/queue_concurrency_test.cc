// Queues under concurrency, in the runtime's test binary so that the TSan
// stage runs them: many producers and consumers racing with close,
// cancellations and timeouts on the queue itself, and the same through
// concurrent steps of one session with deadlines.
#include <atomic>
#include <future>
#include <random>
#include <set>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "kernels/data_flow/fifo_queue.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

// Many producers and consumers on one queue, racing with cancellations,
// timeouts and a close: every element that an enqueue reported as done is
// dequeued exactly once, and every call returns.
TEST(QueueStressTest, EveryElementArrivesExactlyOnce) {
  for (int round = 0; round < 3; ++round) {
    auto queue = std::make_shared<FIFOQueue>("stress", /*capacity=*/8, DataTypeVector{DT_INT64},
                                             std::vector<PartialTensorShape>{PartialTensorShape(std::initializer_list<int64_t>{})});
    constexpr int kProducers = 4, kConsumers = 4, kPerProducer = 1000;
    std::mutex mu;
    std::set<int64_t> enqueued, dequeued;
    int duplicates = 0;
    std::atomic<int> calls_open{0};
    auto enqueue = [&](int64_t v, CancellationManager* cm, int64_t timeout) {
      std::promise<Status> p;
      ++calls_open;
      queue->TryEnqueue({Tensor::Scalar<int64_t>(v)}, cm, timeout, [&, v](const Status& s) {
        if (s.ok()) {
          std::lock_guard<std::mutex> lock(mu);
          enqueued.insert(v);
        }
        --calls_open;
        p.set_value(s);
      });
      return p.get_future().get();
    };
    auto take = [&](const QueueBase::Tuple& t) {
      std::lock_guard<std::mutex> lock(mu);
      for (int64_t i = 0; i < t[0].NumElements(); ++i)
        if (!dequeued.insert(t[0].flat<int64_t>()[i]).second) ++duplicates;
    };
    std::vector<std::thread> threads;
    for (int p = 0; p < kProducers; ++p) {
      threads.emplace_back([&, p] {
        std::mt19937 rng(round * 100 + p);
        for (int i = 0; i < kPerProducer; ++i) {
          CancellationManager cm;
          std::thread canceller;
          if (rng() % 10 == 0) canceller = std::thread([&cm] { cm.StartCancel(); });
          (void)enqueue(p * 100000 + i, &cm, rng() % 7 == 0 ? 1 : 0);
          if (canceller.joinable()) canceller.join();
        }
      });
    }
    std::atomic<bool> closed{false};
    for (int c = 0; c < kConsumers; ++c) {
      threads.emplace_back([&, c] {
        std::mt19937 rng(round * 100 + 50 + c);
        for (;;) {
          CancellationManager cm;
          std::thread canceller;
          if (rng() % 10 == 0) canceller = std::thread([&cm] { cm.StartCancel(); });
          std::promise<Status> p;
          ++calls_open;
          auto cb = [&](const Status& s, QueueBase::Tuple t) {
            if (s.ok()) take(t);
            --calls_open;
            p.set_value(s);
          };
          if (rng() % 2 == 0) queue->TryDequeue(&cm, rng() % 5 == 0 ? 1 : 0, cb);
          else queue->TryDequeueMany(1 + rng() % 5, rng() % 2 == 0, &cm, rng() % 5 == 0 ? 1 : 0, cb);
          Status s = p.get_future().get();
          if (canceller.joinable()) canceller.join();
          if (s.code() == Code::kOutOfRange && closed) break;
        }
      });
    }
    for (int p = 0; p < kProducers; ++p) threads[p].join();
    closed = true;
    queue->Close(false);
    for (size_t t = kProducers; t < threads.size(); ++t) threads[t].join();
    // A dequeue_many refused by the closed queue (too few left) put back
    // what it had taken, and its consumer stopped: what is left comes out
    // now, each element once.
    for (;;) {
      std::promise<Status> p;
      queue->TryDequeueMany(100, /*allow_small=*/true, nullptr, 0, [&](const Status& s, QueueBase::Tuple t) {
        if (s.ok()) take(t);
        p.set_value(s);
      });
      if (!p.get_future().get().ok()) break;
    }
    EXPECT_EQ(duplicates, 0);
    EXPECT_EQ(queue->Size(), 0);
    EXPECT_EQ(dequeued, enqueued) << "round " << round;
    EXPECT_EQ(calls_open.load(), 0);
  }
}

// Producer and consumer steps of one session on a small queue, with
// deadlines cutting some of them short. No element is taken twice or comes
// from nowhere. An element is lost only with a step that took it and then
// failed (its deadline passed after the dequeue ran, before the step ended:
// the element went with the failed step, as any of its effects would); a
// waiting dequeue cut short by its deadline takes nothing.
TEST(QueueStressTest, ConcurrentStepsWithDeadlinesLoseNothing) {
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  auto types = MakeAttrValue(DataTypeVector{DT_INT64});
  auto add = [&](const std::string& name, const std::string& op, std::vector<std::string> inputs,
                 std::map<std::string, AttrValue> attrs) {
    testing::TestNode n(name, op);
    for (auto& in : inputs) n.Input(in);
    NodeDef def = n;
    for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
    *g.add_node() = def;
  };
  add("q", "FIFOQueueV2", {}, {{"component_types", types}, {"capacity", MakeAttrValue(int64_t{4})}});
  *g.add_node() = testing::PlaceholderNode("x", DT_INT64, PartialTensorShape(std::initializer_list<int64_t>{}));
  add("put", "QueueEnqueueV2", {"q", "x"}, {{"Tcomponents", types}});
  add("get", "QueueDequeueV2", {"q"}, {{"component_types", types}});
  add("size", "QueueSizeV2", {"q"}, {});
  add("drain", "QueueDequeueUpToV2", {"q", "n"}, {{"component_types", types}});
  *g.add_node() = testing::PlaceholderNode("n", DT_INT32, PartialTensorShape(std::initializer_list<int64_t>{}));
  auto created = Session::Create(SessionOptions(), g);
  ASSERT_TRUE(created.ok()) << created.status();
  Session* session = created->get();
  std::mutex mu;
  std::set<int64_t> put, put_maybe, got;
  int duplicates = 0, failed_gets = 0;
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int i = 0; i < 150; ++i) {
        const int64_t v = t * 1000 + i;
        // Every step has a deadline: a producer whose consumers have all
        // finished must not wait on a full queue for ever.
        RunOptions options;
        options.set_timeout_in_ms(rng() % 4 == 0 ? 1 + rng() % 3 : 200);
        Status s = session->Run(options, {{"x", Tensor::Scalar<int64_t>(v)}}, {}, {"put"}, nullptr, nullptr);
        std::lock_guard<std::mutex> lock(mu);
        if (s.ok()) {
          put.insert(v);
        } else {
          EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
          put_maybe.insert(v);  // the enqueue may have run before the deadline ended the step
        }
      }
    });
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      for (int i = 0; i < 150; ++i) {
        RunOptions options;
        options.set_timeout_in_ms(rng() % 4 == 0 ? 1 + rng() % 3 : 200);
        std::vector<Tensor> out;
        Status s = session->Run(options, {}, {"get"}, {}, &out, nullptr);
        std::lock_guard<std::mutex> lock(mu);
        if (s.ok()) {
          if (!got.insert(out[0].scalar<int64_t>()).second) ++duplicates;
        } else {
          EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
          ++failed_gets;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::vector<Tensor> out;
  ASSERT_TRUE(session->Run({{"n", Tensor::Scalar<int32_t>(1000)}}, {"size"}, {}, &out).ok());
  const int left = out[0].scalar<int32_t>();
  if (left > 0) {
    Status s = session->Run({{"n", Tensor::Scalar<int32_t>(left)}}, {"drain"}, {}, &out);
    ASSERT_TRUE(s.ok()) << s;
    for (int64_t i = 0; i < out[0].NumElements(); ++i)
      if (!got.insert(out[0].flat<int64_t>()[i]).second) ++duplicates;
  }
  EXPECT_EQ(duplicates, 0);
  int missing = 0;
  for (int64_t v : put) missing += got.count(v) ? 0 : 1;
  EXPECT_LE(missing, failed_gets);
  for (int64_t v : got) EXPECT_TRUE(put.count(v) || put_maybe.count(v)) << v << " came from nowhere";
}

}  // namespace
}  // namespace flowvm
