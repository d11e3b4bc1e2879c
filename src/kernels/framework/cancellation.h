// CancellationManager: one per step. The first error (or a caller) starts
// cancellation; registered callbacks (e.g. of kernels blocked waiting for a
// tensor) run exactly once. Thread-safe.
#ifndef FLOWVM_KERNELS_FRAMEWORK_CANCELLATION_H_
#define FLOWVM_KERNELS_FRAMEWORK_CANCELLATION_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>

namespace flowvm {

class CancellationManager {
 public:
  using Token = int64_t;
  static constexpr Token kInvalidToken = -1;

  bool IsCancelled() const { return cancelled_.load(std::memory_order_acquire); }
  // Runs every registered callback (once); later registrations fail.
  void StartCancel();
  // Returns kInvalidToken (and does not register) if already cancelled.
  Token Register(std::function<void()> callback);
  // True if the callback was removed before it ran.
  bool Deregister(Token token);

 private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  Token next_ = 0;
  std::map<Token, std::function<void()>> callbacks_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_CANCELLATION_H_
