#include "kernels/framework/cancellation.h"

namespace flowvm {

void CancellationManager::StartCancel(const Status& reason) {
  std::map<Token, std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.load(std::memory_order_relaxed)) return;
    reason_ = reason.ok() ? Status(Code::kCancelled, "the step was cancelled") : reason;
    cancelled_.store(true, std::memory_order_release);
    callbacks.swap(callbacks_);
  }
  for (auto& [token, cb] : callbacks) cb();
}

Status CancellationManager::reason() const {
  std::lock_guard<std::mutex> lock(mu_);
  return reason_;
}

CancellationManager::Token CancellationManager::Register(std::function<void()> callback) {
  std::lock_guard<std::mutex> lock(mu_);
  if (cancelled_.load(std::memory_order_relaxed)) return kInvalidToken;
  Token t = next_++;
  callbacks_.emplace(t, std::move(callback));
  return t;
}

bool CancellationManager::Deregister(Token token) {
  std::lock_guard<std::mutex> lock(mu_);
  return callbacks_.erase(token) > 0;
}

}  // namespace flowvm
