#include "core/thread_pool.h"

#include <chrono>

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
    // Spin a little: new work usually arrives within microseconds.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us_);
    bool found = false;
    while (std::chrono::steady_clock::now() < deadline) {
      if (queued_.load(std::memory_order_acquire) > 0) {
        found = true;
        break;
      }
      for (int i = 0; i < 16; ++i) FLOWVM_CPU_RELAX();
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

}  // namespace flowvm
