// QueueRunner and Coordinator (TensorFlow's tf.train.QueueRunner and
// tf.train.Coordinator, paper 4.5 and 7): background threads that run the
// enqueue subgraphs of an input pipeline as concurrent steps of the same
// session while training dequeues from the queue they fill.
//
//   Coordinator coord;
//   QueueRunner runner(queue_name, {enqueue, enqueue}, close_op, cancel_op);
//   runner.Start(&session, &coord);      // 2 threads, one per enqueue op
//   ... training steps dequeue ...
//   coord.RequestStop();
//   Status s = coord.Join();             // the first error of any thread
//
// Each thread runs its enqueue op again and again. OutOfRange (its input
// is exhausted: the queue of file names was closed and drained) ends that
// thread; when the last one ends, `close_op` closes the queue, so the
// consumers get what is left and then OutOfRange: the end of an epoch, not
// an error. Cancelled (an enqueue on a queue someone closed) ends a thread
// quietly too. Any other error is reported to the coordinator, which stops
// every runner; `cancel_op` (a QueueClose with cancel_pending_enqueues)
// then wakes the enqueues that wait on a full queue. Thread-safe.
#ifndef FLOWVM_CC_QUEUE_RUNNER_H_
#define FLOWVM_CC_QUEUE_RUNNER_H_

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "flowvm/cc/client_session.h"

namespace flowvm {

class QueueRunner;

class Coordinator {
 public:
  Coordinator() = default;
  ~Coordinator();  // requests stop and joins
  Coordinator(const Coordinator&) = delete;
  Coordinator& operator=(const Coordinator&) = delete;

  void RequestStop();
  bool ShouldStop() const;
  // Records the first error (which also requests stop).
  void ReportStatus(const Status& status);
  Status status() const;
  // Waits until stop is requested (or `timeout_ms` passes, if >= 0);
  // returns whether it was requested.
  bool WaitForStop(int64_t timeout_ms = -1) const;
  // Requests stop, waits for every registered runner's threads, and returns
  // the first error reported.
  Status Join();

 private:
  friend class QueueRunner;
  void Register(QueueRunner* runner);

  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  bool stop_ = false;
  Status status_;
  std::vector<QueueRunner*> runners_;
};

class QueueRunner {
 public:
  // `enqueue_ops` run in one thread each; `close_op` closes the queue;
  // `cancel_op` closes it cancelling pending enqueues (may be invalid: then
  // close_op is used).
  QueueRunner(std::string queue_name, std::vector<Operation> enqueue_ops, Operation close_op,
              Operation cancel_op = Operation());
  ~QueueRunner();  // stops (runs cancel_op) and joins
  QueueRunner(const QueueRunner&) = delete;
  QueueRunner& operator=(const QueueRunner&) = delete;

  // Starts the threads. `session` (and `coord`, if not null) must outlive
  // them. FailedPrecondition if already started.
  Status Start(const ClientSession* session, Coordinator* coord = nullptr);
  // Waits for the threads to end (after input ran out, an error or a stop
  // request) and returns the first error of the runner (not OutOfRange,
  // not the Cancelled of enqueues woken by a stop).
  Status Join();
  // Stops the threads: they finish their current step, which cancel_op
  // wakes if it waits on a full queue.
  void Stop();
  const std::string& queue_name() const { return queue_name_; }

 private:
  void Loop(Operation enqueue);
  void RunClose(const Operation& op);

  const std::string queue_name_;
  const std::vector<Operation> enqueue_ops_;
  const Operation close_op_, cancel_op_;
  const ClientSession* session_ = nullptr;
  Coordinator* coord_ = nullptr;
  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  int running_ = 0;
  bool closed_ = false;
  Status status_;
};

}  // namespace flowvm

#endif  // FLOWVM_CC_QUEUE_RUNNER_H_
