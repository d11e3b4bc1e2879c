// Timer: runs callbacks at deadlines on one background thread (started on
// first use), for step deadlines and, later, RPC and health-check timeouts.
// Callbacks must be short and must not wait for the thread that cancels
// them. Thread-safe.
#ifndef FLOWVM_CORE_TIMER_H_
#define FLOWVM_CORE_TIMER_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace flowvm {

// Timeouts users give (RunOptions.timeout_in_ms, connect timeouts) are
// whatever int64 they send; deadlines are now + timeout in nanoseconds,
// which overflows (undefined behaviour) past ~292 years. Longer timeouts are
// cut to a year, which no step or connection waits for.
inline constexpr int64_t kMaxTimeoutMs = int64_t{1000} * 60 * 60 * 24 * 365;
inline int64_t ClampTimeoutMs(int64_t ms) { return ms < kMaxTimeoutMs ? ms : kMaxTimeoutMs; }

class Timer {
 public:
  using Clock = std::chrono::steady_clock;
  using Token = int64_t;

  // The process-wide timer (never destroyed).
  static Timer* Global();

  // Runs `fn` once at `deadline` (at once if it has passed).
  Token Schedule(Clock::time_point deadline, std::function<void()> fn);
  // Removes a callback. Returns true if it had not started; otherwise waits
  // until it has finished (unless called from the callback itself) and
  // returns false. After Cancel returns, the callback is not running.
  bool Cancel(Token token);

 private:
  Timer();
  ~Timer() = delete;
  void Loop();

  std::mutex mu_;
  std::condition_variable cv_;       // new work, or the running callback finished
  std::multimap<Clock::time_point, std::pair<Token, std::function<void()>>> queue_;
  Token next_ = 1;
  Token running_ = 0;                // the callback being run, 0 if none
  std::thread::id loop_id_;
};

}  // namespace flowvm

#endif  // FLOWVM_CORE_TIMER_H_
