#include "core/timer.h"

namespace flowvm {

Timer* Timer::Global() {
  static Timer* timer = new Timer();
  return timer;
}

Timer::Timer() {
  std::thread thread([this] { Loop(); });
  loop_id_ = thread.get_id();
  thread.detach();  // the timer lives as long as the process
}

Timer::Token Timer::Schedule(Clock::time_point deadline, std::function<void()> fn) {
  std::lock_guard<std::mutex> lock(mu_);
  const Token t = next_++;
  queue_.emplace(deadline, std::make_pair(t, std::move(fn)));
  cv_.notify_all();
  return t;
}

bool Timer::Cancel(Token token) {
  std::unique_lock<std::mutex> lock(mu_);
  for (auto it = queue_.begin(); it != queue_.end(); ++it) {
    if (it->second.first == token) {
      queue_.erase(it);
      return true;
    }
  }
  if (std::this_thread::get_id() == loop_id_) return false;  // from the callback itself
  cv_.wait(lock, [&] { return running_ != token; });
  return false;
}

void Timer::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    if (queue_.empty()) {
      cv_.wait(lock);
      continue;
    }
    auto first = queue_.begin();
    // A copy: the entry may be cancelled (erased) while we wait.
    const Clock::time_point deadline = first->first;
    if (deadline > Clock::now()) {
      cv_.wait_until(lock, deadline);
      continue;
    }
    running_ = first->second.first;
    std::function<void()> fn = std::move(first->second.second);
    queue_.erase(first);
    lock.unlock();
    fn();
    lock.lock();
    running_ = 0;
    cv_.notify_all();
  }
}

}  // namespace flowvm
