// CancellationManager: one per step. The first error (or a caller: a
// deadline, Session::Close) starts cancellation with a reason; registered
// callbacks (e.g. of kernels blocked waiting for a tensor) run exactly once.
// Thread-safe.
#ifndef FLOWVM_KERNELS_FRAMEWORK_CANCELLATION_H_
#define FLOWVM_KERNELS_FRAMEWORK_CANCELLATION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

#include "flowvm/status.h"

namespace flowvm {

class CancellationManager {
 public:
  using Token = int64_t;
  static constexpr Token kInvalidToken = -1;

  bool IsCancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // Records why (the first reason wins), then runs every registered callback
  // (once); later registrations fail.
  void StartCancel(const Status& reason);
  void StartCancel() { StartCancel(Status(Code::kCancelled, "the step was cancelled")); }
  // The reason given to the first StartCancel; OK while not cancelled.
  Status reason() const;
  // Returns kInvalidToken (and does not register) if already cancelled.
  Token Register(std::function<void()> callback);
  // True if the callback was removed before it ran.
  bool Deregister(Token token);

 private:
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mu_;
  Status reason_;
  Token next_ = 0;
  std::map<Token, std::function<void()>> callbacks_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_CANCELLATION_H_
