// WaitingCaller: the thread that started a step and now waits for it to
// end. It would sit idle, so work that must continue the step on some other
// thread (an async kernel completed on a producer's stack) can run there
// instead of waking a pool thread: one thread switch instead of two, and no
// pool thread left spinning for more work. It takes work only while it is
// idle, so continuations that could run in parallel still go to the pool.
//
// Thread-safe. The waiting thread owns the object; it must outlive every
// TrySchedule, which holds for continuations of the step it waits for (the
// step cannot end before they ran).
#ifndef FLOWVM_RUNTIME_WAITING_CALLER_H_
#define FLOWVM_RUNTIME_WAITING_CALLER_H_

#include <condition_variable>
#include <functional>
#include <mutex>

namespace flowvm {

class WaitingCaller {
 public:
  // Hands `fn` to the waiting thread if it is idle (waiting, nothing
  // queued); false otherwise, and `fn` is left alone.
  bool TrySchedule(std::function<void()>* fn);
  // The step is over: Wait returns (once the work it runs has returned).
  void Finish();
  // Runs what is handed over until Finish. Called once, by the owner.
  void Wait();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool waiting_ = false;  // in Wait, not running anything
  bool finished_ = false;
  std::function<void()> work_;
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_WAITING_CALLER_H_
