// CallThreads: runs master calls, which block (a step waits for its
// workers), each on a thread of its own: an idle thread if there is one,
// else a new one. No call ever waits for another to finish first, so
// steps that depend on each other (a queue filled by a concurrent step)
// cannot deadlock on a full pool. Threads idle for a minute exit.
// Thread-safe; the destructor waits for running calls.
#ifndef FLOWVM_DISTRIBUTED_CALL_THREADS_H_
#define FLOWVM_DISTRIBUTED_CALL_THREADS_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

namespace flowvm {

class CallThreads {
 public:
  CallThreads() = default;
  ~CallThreads();
  CallThreads(const CallThreads&) = delete;
  CallThreads& operator=(const CallThreads&) = delete;

  void Run(std::function<void()> fn);

 private:
  void Loop();

  std::mutex mu_;
  std::condition_variable work_cv_;
  std::condition_variable exit_cv_;
  std::deque<std::function<void()>> queue_;
  int idle_ = 0;
  int threads_ = 0;
  bool stopping_ = false;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_CALL_THREADS_H_
