// Control flow and queue benchmarks (Google Benchmark).
//
//   BM_WhileLoop/iters:N   `i = 0; while i < N: i += 1` built with
//                          WhileLoop (int32 scalars: Merge, Less, LoopCond,
//                          Switch, Identity, Add, NextIteration, Exit), one
//                          Run per loop; counter ns_per_iteration is the
//                          time of N iterations less the time of 0, over N.
//   BM_QueueSteps          a producer thread runs enqueue steps (one float
//                          each) and the benchmark thread dequeue steps on
//                          one session's FIFOQueueV2 (capacity 100);
//                          counter ns_per_element.
//   BM_QueueDirect         the same traffic on the queue object itself
//                          (TryEnqueue / TryDequeue callbacks, no steps).
//   BM_MutexCvQueue        the floor: a std::deque under std::mutex with
//                          two condition variables, same traffic.
#include <benchmark/benchmark.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/control_flow.h"
#include "flowvm/cc/ops.h"
#include "kernels/data_flow/fifo_queue.h"

namespace {

using namespace flowvm;  // NOLINT: a benchmark

struct Loop {
  Scope root = Scope::NewRootScope();
  Output n, out;
  std::unique_ptr<ClientSession> session;
  Loop() {
    n = ops::Placeholder(root.WithOpName("n"), DT_INT32);
    std::vector<Output> exits;
    Status s = WhileLoop(
        root, {ops::Const(root, 0)},
        [&](const Scope& sc, const std::vector<Output>& v, Output* c) {
          *c = ops::Less(sc, v[0], n);
          return sc.status();
        },
        [](const Scope& sc, const std::vector<Output>& v, std::vector<Output>* next) {
          next->push_back(ops::Add(sc, v[0], 1));
          return sc.status();
        },
        &exits);
    if (s.ok()) out = exits[0];
    SessionOptions options;
    options.num_threads = 1;
    session = std::make_unique<ClientSession>(root, options);
  }
  double SecondsPerRun(int n_iters, int runs) {
    std::vector<Tensor> result;
    Tensor nt = Tensor::Scalar<int32_t>(n_iters);
    (void)session->Run({{n, nt}}, {out}, &result);
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < runs; ++i) (void)session->Run({{n, nt}}, {out}, &result);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() / runs;
  }
};

void BM_WhileLoop(benchmark::State& state) {
  const int iters = static_cast<int>(state.range(0));
  Loop loop;
  if (!loop.root.ok()) {
    state.SkipWithError(loop.root.status().ToString().c_str());
    return;
  }
  double empty = loop.SecondsPerRun(0, 200);
  double per_iteration = 0;
  for (auto _ : state) {
    std::vector<Tensor> result;
    auto t0 = std::chrono::steady_clock::now();
    Status s = loop.session->Run({{loop.n, Tensor::Scalar<int32_t>(iters)}}, {loop.out}, &result);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!s.ok() || result[0].scalar<int32_t>() != iters) {
      state.SkipWithError("wrong loop result");
      return;
    }
    state.SetIterationTime(secs);
    per_iteration = (secs - empty) / iters;
  }
  state.counters["ns_per_iteration"] = per_iteration * 1e9;
}
BENCHMARK(BM_WhileLoop)->Arg(10000)->UseManualTime()->Unit(benchmark::kMillisecond);

constexpr int kElements = 20000;

void BM_QueueSteps(benchmark::State& state) {
  Scope root = Scope::NewRootScope();
  auto q = ops::FIFOQueueV2(root.WithOpName("q"), {DT_FLOAT}, ops::FIFOQueueV2::Capacity(100));
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto enqueue = ops::QueueEnqueueV2(root.WithOpName("enqueue"), q, {x});
  auto dequeue = ops::QueueDequeueV2(root.WithOpName("dequeue"), q, {DT_FLOAT});
  ClientSession session(root);
  Tensor one = Tensor::Scalar<float>(1);
  std::vector<Tensor> out;
  (void)session.Run({{x, one}}, {}, {enqueue.operation}, nullptr);
  (void)session.Run({dequeue.components[0]}, &out);
  for (auto _ : state) {
    std::thread producer([&] {
      for (int i = 0; i < kElements; ++i) (void)session.Run({{x, one}}, {}, {enqueue.operation}, nullptr);
    });
    for (int i = 0; i < kElements; ++i) (void)session.Run({dequeue.components[0]}, &out);
    producer.join();
  }
  state.counters["ns_per_element"] =
      benchmark::Counter(static_cast<double>(kElements) * state.iterations() * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_QueueSteps)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_QueueDirect(benchmark::State& state) {
  auto queue = std::make_shared<FIFOQueue>("q", 100, DataTypeVector{DT_FLOAT}, std::vector<PartialTensorShape>{});
  Tensor one = Tensor::Scalar<float>(1);
  for (auto _ : state) {
    std::thread producer([&] {
      for (int i = 0; i < kElements; ++i) {
        std::promise<void> done;
        queue->TryEnqueue({one}, nullptr, 0, [&](const Status&) { done.set_value(); });
        done.get_future().wait();
      }
    });
    for (int i = 0; i < kElements; ++i) {
      std::promise<void> done;
      queue->TryDequeue(nullptr, 0, [&](const Status&, QueueBase::Tuple) { done.set_value(); });
      done.get_future().wait();
    }
    producer.join();
  }
  state.counters["ns_per_element"] =
      benchmark::Counter(static_cast<double>(kElements) * state.iterations() * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_QueueDirect)->UseRealTime()->Unit(benchmark::kMillisecond);

void BM_MutexCvQueue(benchmark::State& state) {
  std::mutex mu;
  std::condition_variable not_empty, not_full;
  std::deque<Tensor> q;
  Tensor one = Tensor::Scalar<float>(1);
  for (auto _ : state) {
    std::thread producer([&] {
      for (int i = 0; i < kElements; ++i) {
        std::unique_lock<std::mutex> lock(mu);
        not_full.wait(lock, [&] { return q.size() < 100; });
        q.push_back(one);
        not_empty.notify_one();
      }
    });
    for (int i = 0; i < kElements; ++i) {
      std::unique_lock<std::mutex> lock(mu);
      not_empty.wait(lock, [&] { return !q.empty(); });
      Tensor t = std::move(q.front());
      q.pop_front();
      not_full.notify_one();
    }
    producer.join();
  }
  state.counters["ns_per_element"] =
      benchmark::Counter(static_cast<double>(kElements) * state.iterations() * 1e-9,
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_MutexCvQueue)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
