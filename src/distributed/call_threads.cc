#include "distributed/call_threads.h"

#include <chrono>
#include <thread>

namespace flowvm {

CallThreads::~CallThreads() {
  std::unique_lock<std::mutex> lock(mu_);
  stopping_ = true;
  work_cv_.notify_all();
  exit_cv_.wait(lock, [this] { return threads_ == 0; });
}

void CallThreads::Run(std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  queue_.push_back(std::move(fn));
  // Every queued call needs a thread of its own.
  if (idle_ >= static_cast<int>(queue_.size())) {
    work_cv_.notify_one();
    return;
  }
  ++threads_;
  std::thread([this] { Loop(); }).detach();
}

void CallThreads::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    while (queue_.empty() && !stopping_) {
      ++idle_;
      const bool woke = work_cv_.wait_for(lock, std::chrono::minutes(1), [this] { return !queue_.empty() || stopping_; });
      --idle_;
      if (!woke) break;
    }
    if (queue_.empty()) break;
    std::function<void()> fn = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    fn();
    fn = nullptr;
    lock.lock();
  }
  if (--threads_ == 0) exit_cv_.notify_all();
}

}  // namespace flowvm
