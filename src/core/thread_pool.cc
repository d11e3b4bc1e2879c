#include "core/thread_pool.h"

#include <thread>

#include <algorithm>
#include <chrono>
#include <memory>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define FLOWVM_CPU_RELAX() _mm_pause()
#else
#define FLOWVM_CPU_RELAX() std::this_thread::yield()
#endif

namespace flowvm {

ThreadPool::ThreadPool(std::string name, int num_threads, int spin_us) : name_(std::move(name)), spin_us_(spin_us) {
  threads_.reserve(num_threads);
  for (int i = 0; i < num_threads; ++i) threads_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

int ThreadPool::HardwareConcurrency() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void ThreadPool::Schedule(std::function<void()> fn) {
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(std::move(fn));
    queued_.fetch_add(1, std::memory_order_release);
    wake = sleepers_ > 0;
  }
  if (wake) cv_.notify_one();
}

bool ThreadPool::TryPop(std::function<void()>* fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (queue_.empty()) return false;
  *fn = std::move(queue_.front());
  queue_.pop_front();
  queued_.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void ThreadPool::WorkerLoop() {
  std::function<void()> fn;
  for (;;) {
    if (TryPop(&fn)) {
      fn();
      fn = nullptr;
      continue;
    }
    // Spin a little: new work usually arrives within microseconds. The
    // spinner yields between checks, so that threads with work to do (an
    // input pipeline's steps, another session) get this core first.
    bool found = false;
    if (spin_us_ > 0) {
      auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us_);
      spinning_.fetch_add(1, std::memory_order_relaxed);
      for (int round = 0; std::chrono::steady_clock::now() < deadline; ++round) {
        if (queued_.load(std::memory_order_acquire) > 0) {
          found = true;
          break;
        }
        for (int i = 0; i < 16; ++i) FLOWVM_CPU_RELAX();
        if (round % 8 == 7) std::this_thread::yield();
      }
      spinning_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (found) continue;
    std::unique_lock<std::mutex> lock(mu_);
    if (queue_.empty()) {
      if (stopping_) return;
      ++sleepers_;
      cv_.wait(lock, [this] { return !queue_.empty() || stopping_; });
      --sleepers_;
      if (queue_.empty() && stopping_) return;
    }
  }
}

namespace {

// Below this many cycles of work a range is not worth handing to another
// thread (waking a spinning worker costs ~1 µs, a sleeping one ~20 µs).
constexpr int64_t kMinCyclesPerShard = 40000;

// Shared by the caller and the helpers it schedules; helpers that start after
// every range is claimed just return, so the state outlives the call.
struct ParallelForState {
  const std::function<void(int64_t, int64_t)>* fn;
  int64_t total = 0;
  int64_t block = 0;
  int64_t num_blocks = 0;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex mu;
  std::condition_variable cv;

  // Claims and runs ranges until none is left.
  void Work() {
    for (;;) {
      int64_t b = next.fetch_add(1, std::memory_order_relaxed);
      if (b >= num_blocks) return;
      int64_t begin = b * block;
      (*fn)(begin, std::min(total, begin + block));
      if (done.fetch_add(1, std::memory_order_acq_rel) + 1 == num_blocks) {
        std::lock_guard<std::mutex> lock(mu);
        cv.notify_all();
      }
    }
  }
};

}  // namespace

int ParallelForShards(const ThreadPool* pool, int64_t total, int64_t cost_per_unit) {
  if (pool == nullptr || total <= 1) return 1;
  const int threads = pool->num_threads() + 1;
  const double cycles = static_cast<double>(total) * static_cast<double>(std::max<int64_t>(cost_per_unit, 1));
  const double by_cost = cycles / kMinCyclesPerShard;
  if (by_cost < 2) return 1;
  return static_cast<int>(std::min<double>({by_cost, static_cast<double>(threads), static_cast<double>(total)}));
}

void ParallelFor(ThreadPool* pool, int64_t total, int64_t cost_per_unit,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (total <= 0) return;
  const int shards = ParallelForShards(pool, total, cost_per_unit);
  if (shards <= 1) {
    fn(0, total);
    return;
  }
  auto state = std::make_shared<ParallelForState>();
  state->fn = &fn;
  state->total = total;
  // A few ranges per thread, so a thread that is busy elsewhere delays the
  // step by a small range, not by 1/shards of the work.
  const int64_t blocks = std::min<int64_t>(total, static_cast<int64_t>(shards) * 4);
  state->block = (total + blocks - 1) / blocks;
  state->num_blocks = (total + state->block - 1) / state->block;
  for (int i = 1; i < shards; ++i) pool->Schedule([state] { state->Work(); });
  state->Work();
  // Every range is claimed; wait for the ones other threads are running.
  for (int spin = 0; spin < 2000; ++spin) {
    if (state->done.load(std::memory_order_acquire) == state->num_blocks) return;
    FLOWVM_CPU_RELAX();
  }
  std::unique_lock<std::mutex> lock(state->mu);
  state->cv.wait(lock, [&] { return state->done.load(std::memory_order_acquire) == state->num_blocks; });
}

}  // namespace flowvm
