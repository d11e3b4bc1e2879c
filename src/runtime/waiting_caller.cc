#include "runtime/waiting_caller.h"

namespace flowvm {

bool WaitingCaller::TrySchedule(std::function<void()>* fn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!waiting_ || finished_ || work_) return false;
  work_ = std::move(*fn);
  waiting_ = false;
  cv_.notify_one();
  return true;
}

void WaitingCaller::Finish() {
  std::lock_guard<std::mutex> lock(mu_);
  finished_ = true;
  cv_.notify_one();
}

void WaitingCaller::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (work_) {
      std::function<void()> fn = std::move(work_);
      work_ = nullptr;
      lock.unlock();
      fn();
      fn = nullptr;  // what it captured goes before the step may end
      lock.lock();
      continue;
    }
    if (finished_) return;
    waiting_ = true;
    cv_.wait(lock, [this] { return work_ || finished_; });
    waiting_ = false;
  }
}

}  // namespace flowvm
