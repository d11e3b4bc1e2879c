#include "distributed/worker_interface.h"

namespace flowvm {

void CallOptions::SetCanceller(std::function<void()> cancel) {
  bool run_now = false;
  {
    std::lock_guard<std::recursive_mutex> lock(mu_);
    if (cancelled_) {
      run_now = true;
    } else {
      cancel_ = cancel;
    }
  }
  if (run_now) cancel();
}

void CallOptions::ClearCanceller() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  cancel_ = nullptr;
}

// The canceller runs under the lock, so the transport's ClearCanceller
// (before it frees the call) waits for it; the mutex is recursive in case
// the transport completes the call inline from inside the cancel.
void CallOptions::StartCancel() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  if (cancelled_) return;
  cancelled_ = true;
  if (cancel_) cancel_();
  cancel_ = nullptr;
}

bool CallOptions::cancelled() {
  std::lock_guard<std::recursive_mutex> lock(mu_);
  return cancelled_;
}

}  // namespace flowvm
