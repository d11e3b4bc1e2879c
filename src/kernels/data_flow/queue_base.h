// Queues (paper 4.6): bounded buffers of tuples of tensors that let
// different parts of a graph, and different steps, run at their own pace.
// A queue lives in a device's resource manager; enqueue and dequeue ops are
// asynchronous kernels that call back when they are served, so a blocked op
// holds no thread.
//
// Waiting operations ("attempts") are served in arrival order, enqueues and
// dequeues each in their own line. A dequeue of n elements collects them as
// they arrive; if it is cancelled, times out or finds the queue closed
// before it has all n, what it collected goes back to the front of the queue,
// so no element is lost. Close wakes the waiting dequeues with OutOfRange
// once fewer elements remain than they need (DequeueUpTo then takes what is
// left), and, with cancel_pending_enqueues, the waiting enqueues with
// Cancelled. A cancelled step (an error elsewhere, a deadline) ends its
// waiting attempts with the step's reason. An attempt that has completed
// belongs to its step: if that step fails afterwards, what it dequeued goes
// with it, as any other effect of a failed step would.
//
// Completion callbacks never run under the queue's lock, and the executor
// continues a completed kernel on its own threads, never on the stack of
// the producer that woke it. Thread-safe.
#ifndef FLOWVM_KERNELS_DATA_FLOW_QUEUE_BASE_H_
#define FLOWVM_KERNELS_DATA_FLOW_QUEUE_BASE_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/timer.h"
#include "flowvm/tensor.h"
#include "graph/node_def_util.h"
#include "kernels/data_flow/queue_element.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {

class QueueBase : public ResourceBase, public std::enable_shared_from_this<QueueBase> {
 public:
  using Tuple = QueueElement::Tuple;  // one tensor per component
  using EnqueueDone = std::function<void(const Status&)>;
  using DequeueDone = std::function<void(const Status&, Tuple)>;

  // capacity < 0: unbounded. `shapes` is empty (unknown) or one per
  // component (partially known for a padding queue).
  QueueBase(std::string type_name, std::string name, int64_t capacity, DataTypeVector dtypes,
            std::vector<PartialTensorShape> shapes);
  ~QueueBase() override;

  const std::string& name() const { return name_; }
  const DataTypeVector& component_dtypes() const { return dtypes_; }
  const std::vector<PartialTensorShape>& component_shapes() const { return shapes_; }
  std::string DebugString() const override;

  // Whether an existing queue matches what a graph asks for (types, shapes,
  // capacity): a shared queue must be the same queue everywhere.
  Status MatchesSpec(const std::string& type_name, int64_t capacity, const DataTypeVector& dtypes,
                     const std::vector<PartialTensorShape>& shapes) const;

  // One element, or (Many) a batch of them along dimension 0. `cancel` may
  // be null; timeout_ms <= 0: no timeout of its own. `done` runs once, on
  // any thread, never under the queue's lock.
  void TryEnqueue(Tuple element, CancellationManager* cancel, int64_t timeout_ms, EnqueueDone done);
  void TryEnqueueMany(const Tuple& batch, CancellationManager* cancel, int64_t timeout_ms, EnqueueDone done);
  void TryDequeue(CancellationManager* cancel, int64_t timeout_ms, DequeueDone done);
  // n elements stacked into one batch per component; with allow_small (Up
  // To), a closed queue gives what it has (at least one).
  void TryDequeueMany(int64_t n, bool allow_small, CancellationManager* cancel, int64_t timeout_ms,
                      DequeueDone done);
  void Close(bool cancel_pending_enqueues);

  int64_t Size() const;
  bool IsClosed() const;
  // A reset container closes its queues, cancelling pending enqueues: the
  // ops waiting on one end (dequeues with OutOfRange once it is drained).
  void OnContainerCleanup() override { Close(/*cancel_pending_enqueues=*/true); }

 protected:
  // Element storage, called under mu_.
  virtual size_t StoredLocked() const = 0;
  virtual void PushLocked(QueueElement element) = 0;
  // The next element a dequeue gets. REQUIRES: StoredLocked() > 0.
  virtual QueueElement PopLocked() = 0;
  // Puts back elements a dequeue had taken but not delivered, so that they
  // are the next ones out (in their order).
  virtual void PushBackFrontLocked(std::vector<QueueElement> elements) = 0;
  // Elements that must stay while the queue is open (RandomShuffleQueue's
  // min_after_dequeue).
  virtual size_t MinAfterDequeueLocked() const { return 0; }
  // Stacks `elements` into one tensor per component; a padding queue pads.
  virtual StatusOr<Tuple> BatchElements(const std::vector<QueueElement>& elements) const;

  mutable std::mutex mu_;

 private:
  struct Attempt;
  // Checks the types and shapes of an element, or with `rows`, of each row
  // of a batch.
  Status CheckElement(const Tuple& element, bool rows, const char* what) const;
  void Start(std::unique_ptr<Attempt> attempt, CancellationManager* cancel, int64_t timeout_ms);
  // Serves under mu_; moves completions to `done`.
  void ServeLocked(std::vector<std::function<void()>>* done);
  // Ends a waiting attempt with `status` (cancellation or timeout).
  void Abandon(int64_t id, const Status& status);
  std::function<void()> Complete(Attempt* attempt, const Status& status);

  const std::string type_name_;
  const std::string name_;
  const int64_t capacity_;
  const DataTypeVector dtypes_;
  const std::vector<PartialTensorShape> shapes_;
  bool closed_ = false;
  int64_t next_id_ = 0;
  std::deque<std::unique_ptr<Attempt>> enqueues_, dequeues_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_QUEUE_BASE_H_
