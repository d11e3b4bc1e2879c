#include "kernels/data_flow/mutex.h"

namespace flowvm {

void Mutex::AcquireAsync(CancellationManager* cancel, AcquireDone done) {
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!locked_) {
      locked_ = true;
    } else {
      id = next_id_++;
      waiters_.push_back(Waiter{id, std::move(done), cancel, CancellationManager::kInvalidToken});
      done = nullptr;
    }
  }
  if (done) {
    done(Status::OK(), std::make_shared<Lock>(shared_from_this()));
    return;
  }
  if (cancel == nullptr) return;
  std::shared_ptr<Mutex> self = shared_from_this();
  CancellationManager::Token token = cancel->Register([self, id, cancel] { self->Abandon(id, cancel->reason()); });
  if (token == CancellationManager::kInvalidToken) {
    Abandon(id, cancel->reason());
    return;
  }
  bool waiting = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (Waiter& w : waiters_)
      if (w.id == id) {
        w.token = token;
        waiting = true;
      }
  }
  if (!waiting) cancel->Deregister(token);  // served meanwhile
}

void Mutex::Release() {
  Waiter next;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (waiters_.empty()) {
      locked_ = false;
      return;
    }
    next = std::move(waiters_.front());
    waiters_.pop_front();
  }
  // Still locked: ownership passes to the next waiter.
  if (next.cancel != nullptr && next.token != CancellationManager::kInvalidToken) next.cancel->Deregister(next.token);
  next.done(Status::OK(), std::make_shared<Lock>(shared_from_this()));
}

void Mutex::Abandon(int64_t id, const Status& status) {
  AcquireDone done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (it->id != id) continue;
      done = std::move(it->done);
      waiters_.erase(it);
      break;
    }
  }
  if (done) done(status.ok() ? errors::Cancelled("the step was cancelled") : status, nullptr);
}

bool Mutex::IsLocked() const {
  std::lock_guard<std::mutex> lock(mu_);
  return locked_;
}

}  // namespace flowvm
