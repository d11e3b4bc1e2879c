// Mutex (TensorFlow's MutexV2): a resource that steps lock to run a part of
// their graph exclusively (read-modify-write of variables, paper 4.6's
// coordination). MutexLock waits asynchronously (holding no thread) and
// produces a lock as a DT_VARIANT tensor; the mutex is released when the
// last copy of that tensor goes away (after ConsumeMutexLock, or at the end
// of the step). Waiters are served in arrival order; a cancelled step's
// waiter leaves the line with the step's reason. Callbacks never run under
// the mutex's internal lock. Thread-safe.
#ifndef FLOWVM_KERNELS_DATA_FLOW_MUTEX_H_
#define FLOWVM_KERNELS_DATA_FLOW_MUTEX_H_

#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "flowvm/status.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {

class Mutex : public ResourceBase, public std::enable_shared_from_this<Mutex> {
 public:
  // Held while it lives; releasing it hands the mutex to the next waiter.
  class Lock {
   public:
    explicit Lock(std::shared_ptr<Mutex> mutex) : mutex_(std::move(mutex)) {}
    ~Lock() { mutex_->Release(); }
    Lock(const Lock&) = delete;
    Lock& operator=(const Lock&) = delete;
    const Mutex& mutex() const { return *mutex_; }

   private:
    std::shared_ptr<Mutex> mutex_;
  };
  using AcquireDone = std::function<void(const Status&, std::shared_ptr<Lock>)>;

  explicit Mutex(std::string name) : name_(std::move(name)) {}
  std::string DebugString() const override { return "Mutex '" + name_ + "'"; }

  // Calls `done` with the lock once it is this caller's turn (at once if the
  // mutex is free), or with the step's reason if `cancel` fires first.
  void AcquireAsync(CancellationManager* cancel, AcquireDone done);
  bool IsLocked() const;

 private:
  struct Waiter {
    int64_t id;
    AcquireDone done;
    CancellationManager* cancel;
    CancellationManager::Token token;
  };
  void Release();
  void Abandon(int64_t id, const Status& status);

  const std::string name_;
  mutable std::mutex mu_;
  bool locked_ = false;
  int64_t next_id_ = 0;
  std::deque<Waiter> waiters_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_MUTEX_H_
