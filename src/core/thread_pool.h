// ThreadPool: a fixed set of worker threads running closures.
//
// Idle workers spin briefly (polling the queue) before they sleep, because a
// sleeping thread takes ~20 µs to wake on a virtual machine while a spinning
// one picks up work in well under a microsecond; an executor hands off small
// nodes far more often than that. Schedule never blocks. The destructor runs
// every closure already scheduled, then joins the workers. Thread-safe.
#ifndef FLOWVM_CORE_THREAD_POOL_H_
#define FLOWVM_CORE_THREAD_POOL_H_

#include <atomic>
#include <cstdint>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace flowvm {

class ThreadPool {
 public:
  // `spin_us`: how long an idle worker polls before sleeping.
  ThreadPool(std::string name, int num_threads, int spin_us = 50);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  void Schedule(std::function<void()> fn);
  int num_threads() const { return static_cast<int>(threads_.size()); }
  // Whether an idle worker is polling for work right now: Schedule then
  // costs the caller no system call (a hint; it may change at once).
  bool HasSpinningWorker() const { return spinning_.load(std::memory_order_relaxed) > 0; }

  // Threads the machine offers (at least 1).
  static int HardwareConcurrency();

 private:
  void WorkerLoop();
  bool TryPop(std::function<void()>* fn);

  std::string name_;
  int spin_us_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> queue_;
  std::atomic<int> queued_{0};
  std::atomic<int> spinning_{0};  // workers polling for work
  int sleepers_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// Runs fn(begin, end) over disjoint ranges that cover [0, total), on the
// calling thread and on idle workers of `pool` (null: the caller alone), and
// returns when every range is done. `cost_per_unit` is a rough number of
// CPU cycles per unit; work too small to be worth a hand-off (under ~10 µs)
// runs inline as one range. The caller claims ranges itself, so calling
// this from a pool worker cannot deadlock, and it never adds threads beyond
// the pool's: kernels and the executor share one set of threads.
// fn must be safe to call concurrently on disjoint ranges.
void ParallelFor(ThreadPool* pool, int64_t total, int64_t cost_per_unit,
                 const std::function<void(int64_t, int64_t)>& fn);

// How many ranges ParallelFor would split this work into (1 = inline).
int ParallelForShards(const ThreadPool* pool, int64_t total, int64_t cost_per_unit);

}  // namespace flowvm

#endif  // FLOWVM_CORE_THREAD_POOL_H_
