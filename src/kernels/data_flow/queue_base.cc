#include "kernels/data_flow/queue_base.h"

#include <algorithm>

namespace flowvm {

// A waiting enqueue (elements still to push) or dequeue (elements
// collected so far, up to `wanted`).
struct QueueBase::Attempt {
  int64_t id = 0;
  bool is_enqueue = false;
  std::vector<QueueElement> elements;
  size_t next = 0;          // enqueue: elements pushed so far
  int64_t wanted = 1;       // dequeue: how many
  bool many = false;        // dequeue: batch the result (DequeueMany / UpTo)
  bool allow_small = false;
  EnqueueDone enqueue_done;
  DequeueDone dequeue_done;
  CancellationManager* cancel = nullptr;
  CancellationManager::Token cancel_token = CancellationManager::kInvalidToken;
  Timer::Token timer = -1;
};

QueueBase::QueueBase(std::string type_name, std::string name, int64_t capacity, DataTypeVector dtypes,
                     std::vector<PartialTensorShape> shapes)
    : type_name_(std::move(type_name)),
      name_(std::move(name)),
      capacity_(capacity),
      dtypes_(std::move(dtypes)),
      shapes_(std::move(shapes)) {}

QueueBase::~QueueBase() = default;

std::string QueueBase::DebugString() const { return type_name_ + " '" + name_ + "'"; }

Status QueueBase::MatchesSpec(const std::string& type_name, int64_t capacity, const DataTypeVector& dtypes,
                              const std::vector<PartialTensorShape>& shapes) const {
  if (type_name != type_name_)
    return errors::InvalidArgument("queue '", name_, "' is shared as a ", type_name_, ", not a ", type_name);
  if (capacity != capacity_)
    return errors::InvalidArgument("queue '", name_, "' is shared with capacity ", capacity_, ", not ", capacity);
  if (dtypes != dtypes_) return errors::InvalidArgument("queue '", name_, "' is shared with other component types");
  if (shapes != shapes_) return errors::InvalidArgument("queue '", name_, "' is shared with other component shapes");
  return Status::OK();
}

Status QueueBase::CheckElement(const Tuple& element, bool rows, const char* what) const {
  if (element.size() != dtypes_.size())
    return errors::InvalidArgument(what, " to ", DebugString(), " has ", element.size(), " components; the queue has ",
                                   dtypes_.size());
  for (size_t i = 0; i < element.size(); ++i) {
    if (element[i].dtype() != dtypes_[i])
      return errors::InvalidArgument(what, " to ", DebugString(), ": component ", i, " is ",
                                     DataTypeName(element[i].dtype()), ", the queue holds ", DataTypeName(dtypes_[i]));
    if (shapes_.empty()) continue;
    TensorShape shape = element[i].shape();
    if (rows) shape.RemoveDim(0);
    if (!shapes_[i].IsCompatibleWith(shape))
      return errors::InvalidArgument(what, " to ", DebugString(), ": component ", i, " has ",
                                     rows ? "rows of shape " : "shape ", shape.DebugString(),
                                     ", the queue holds ", shapes_[i].DebugString());
  }
  return Status::OK();
}

void QueueBase::TryEnqueue(Tuple element, CancellationManager* cancel, int64_t timeout_ms, EnqueueDone done) {
  Status s = CheckElement(element, /*rows=*/false, "an enqueue");
  if (!s.ok()) {
    done(s);
    return;
  }
  auto a = std::make_unique<Attempt>();
  a->is_enqueue = true;
  a->elements.push_back(QueueElement::Whole(std::move(element)));
  a->enqueue_done = std::move(done);
  Start(std::move(a), cancel, timeout_ms);
}

void QueueBase::TryEnqueueMany(const Tuple& batch, CancellationManager* cancel, int64_t timeout_ms,
                               EnqueueDone done) {
  if (batch.size() != dtypes_.size()) {
    done(errors::InvalidArgument("an enqueue_many to ", DebugString(), " has ", batch.size(),
                                 " components; the queue has ", dtypes_.size()));
    return;
  }
  int64_t n = -1;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (batch[i].dims() == 0) {
      done(errors::InvalidArgument("an enqueue_many to ", DebugString(), ": component ", i,
                                   " is a scalar; it needs a batch dimension"));
      return;
    }
    if (n >= 0 && batch[i].dim_size(0) != n) {
      done(errors::InvalidArgument("an enqueue_many to ", DebugString(), ": component ", i, " has ",
                                   batch[i].dim_size(0), " elements, component 0 has ", n));
      return;
    }
    n = batch[i].dim_size(0);
  }
  Status s = CheckElement(batch, /*rows=*/true, "an enqueue_many");
  if (!s.ok()) {
    done(s);
    return;
  }
  auto a = std::make_unique<Attempt>();
  a->is_enqueue = true;
  a->elements.reserve(static_cast<size_t>(std::max<int64_t>(n, 0)));
  // The rows share the batch: one tuple for all of them.
  auto shared = std::make_shared<const Tuple>(batch);
  for (int64_t j = 0; j < n; ++j) a->elements.push_back(QueueElement::Row(shared, j));
  a->enqueue_done = std::move(done);
  Start(std::move(a), cancel, timeout_ms);
}

void QueueBase::TryDequeue(CancellationManager* cancel, int64_t timeout_ms, DequeueDone done) {
  auto a = std::make_unique<Attempt>();
  a->dequeue_done = std::move(done);
  Start(std::move(a), cancel, timeout_ms);
}

void QueueBase::TryDequeueMany(int64_t n, bool allow_small, CancellationManager* cancel, int64_t timeout_ms,
                               DequeueDone done) {
  if (n < 0) {
    done(errors::InvalidArgument("a dequeue_many from ", DebugString(), " asks for ", n, " elements"), Tuple());
    return;
  }
  auto a = std::make_unique<Attempt>();
  a->wanted = n;
  a->elements.reserve(static_cast<size_t>(std::min<int64_t>(n, 1 << 16)));
  a->many = true;
  a->allow_small = allow_small;
  a->dequeue_done = std::move(done);
  Start(std::move(a), cancel, timeout_ms);
}

void QueueBase::Start(std::unique_ptr<Attempt> attempt, CancellationManager* cancel, int64_t timeout_ms) {
  // A step that is already cancelled takes nothing (what it took would be
  // lost with it).
  if (cancel != nullptr && cancel->IsCancelled()) {
    Status s = cancel->reason().ok() ? errors::Cancelled("the step was cancelled") : cancel->reason();
    if (attempt->is_enqueue) attempt->enqueue_done(s);
    else attempt->dequeue_done(s, Tuple());
    return;
  }
  int64_t id;
  std::vector<std::function<void()>> done;
  bool waiting = false;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (attempt->is_enqueue && closed_) {
      lock.unlock();
      attempt->enqueue_done(errors::Cancelled(DebugString(), " is closed"));
      return;
    }
    // Once in its line, the attempt may be served (and deleted) by another
    // thread at any time: only its id is used from here on.
    id = attempt->id = next_id_++;
    attempt->cancel = cancel;
    auto& line = attempt->is_enqueue ? enqueues_ : dequeues_;
    line.push_back(std::move(attempt));
    // Most attempts are served at once, and need no cancellation callback
    // or timer.
    ServeLocked(&done);
    for (auto it = line.rbegin(); it != line.rend() && !waiting; ++it) waiting = (*it)->id == id;
  }
  for (auto& d : done) d();
  if (!waiting) return;
  // The callbacks keep the queue alive: they may run after the step that
  // made the attempt let go of it.
  std::shared_ptr<QueueBase> self = shared_from_this();
  // The attempt is registered before its callbacks, so they can find it;
  // if it completed meanwhile, what was registered is removed here.
  CancellationManager::Token token = CancellationManager::kInvalidToken;
  bool already_cancelled = false;
  if (cancel != nullptr) {
    token = cancel->Register([self, id, cancel] { self->Abandon(id, cancel->reason()); });
    already_cancelled = token == CancellationManager::kInvalidToken;
  }
  Timer::Token timer = -1;
  if (timeout_ms > 0) {
    timer = Timer::Global()->Schedule(
        Timer::Clock::now() + std::chrono::milliseconds(ClampTimeoutMs(timeout_ms)), [self, id, timeout_ms] {
          self->Abandon(id, errors::DeadlineExceeded("timed out after ", timeout_ms, " ms waiting on ",
                                                     self->DebugString()));
        });
  }
  bool still_waiting = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto* line : {&enqueues_, &dequeues_})
      for (auto& w : *line)
        if (w->id == id) {
          w->cancel_token = token;
          w->timer = timer;
          still_waiting = true;
        }
  }
  if (!still_waiting) {
    // Completed meanwhile (by Abandon from the timer, or served by another
    // thread): remove what we registered.
    if (token != CancellationManager::kInvalidToken) cancel->Deregister(token);
    if (timer >= 0) Timer::Global()->Cancel(timer);
  }
  if (already_cancelled) Abandon(id, cancel->reason());
}

std::function<void()> QueueBase::Complete(Attempt* a, const Status& status) {
  // Runs under mu_; the returned closure runs after it is released.
  CancellationManager* cancel = a->cancel;
  CancellationManager::Token token = a->cancel_token;
  Timer::Token timer = a->timer;
  auto unregister = [cancel, token, timer] {
    if (token != CancellationManager::kInvalidToken) cancel->Deregister(token);
    if (timer >= 0) Timer::Global()->Cancel(timer);
  };
  if (a->is_enqueue) {
    return [unregister, done = std::move(a->enqueue_done), status] {
      unregister();
      done(status);
    };
  }
  Tuple result;
  Status s = status;
  if (s.ok()) {
    if (a->many) {
      StatusOr<Tuple> batch = BatchElements(a->elements);
      if (batch.ok()) result = *std::move(batch);
      else s = batch.status();
    } else {
      result = std::move(a->elements[0]).TakeTuple();
    }
  } else if (!a->elements.empty()) {
    // Nothing collected is lost: it goes back to the front.
    PushBackFrontLocked(std::move(a->elements));
  }
  return [unregister, done = std::move(a->dequeue_done), s, result = std::move(result)]() mutable {
    unregister();
    done(s, std::move(result));
  };
}

void QueueBase::Abandon(int64_t id, const Status& status) {
  std::vector<std::function<void()>> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto* line : {&enqueues_, &dequeues_}) {
      for (auto it = line->begin(); it != line->end(); ++it) {
        if ((*it)->id != id) continue;
        std::unique_ptr<Attempt> a = std::move(*it);
        line->erase(it);
        done.push_back(Complete(a.get(), status.ok() ? errors::Cancelled("the step was cancelled") : status));
        break;
      }
      if (!done.empty()) break;
    }
    // Elements put back, or an attempt gone from the head of its line, may
    // let others through.
    if (!done.empty()) ServeLocked(&done);
  }
  for (auto& d : done) d();
}

void QueueBase::ServeLocked(std::vector<std::function<void()>>* done) {
  bool progress = true;
  while (progress) {
    progress = false;
    // Dequeues first: they make room for enqueues.
    while (!dequeues_.empty()) {
      Attempt* a = dequeues_.front().get();
      const size_t keep = closed_ ? 0 : MinAfterDequeueLocked();
      while (static_cast<int64_t>(a->elements.size()) < a->wanted && StoredLocked() > keep) {
        a->elements.push_back(PopLocked());
        progress = true;
      }
      const int64_t have = static_cast<int64_t>(a->elements.size());
      Status status;
      if (have == a->wanted) {
        // served
      } else if (closed_ && StoredLocked() == 0) {
        if (a->allow_small && have > 0) {
          // DequeueUpTo on a closed queue: what is left
        } else {
          status = errors::OutOfRange(DebugString(), " is closed and has too few elements (asked for ", a->wanted,
                                      ", ", have + static_cast<int64_t>(StoredLocked()), " left)");
        }
      } else {
        break;  // waits for more
      }
      std::unique_ptr<Attempt> owned = std::move(dequeues_.front());
      dequeues_.pop_front();
      done->push_back(Complete(owned.get(), status));
      progress = true;
    }
    while (!enqueues_.empty()) {
      Attempt* a = enqueues_.front().get();
      // After a Close without cancel_pending_enqueues the enqueues that
      // were waiting go on as room appears.
      while (a->next < a->elements.size() && (capacity_ < 0 || static_cast<int64_t>(StoredLocked()) < capacity_)) {
        PushLocked(std::move(a->elements[a->next++]));
        progress = true;
      }
      if (a->next < a->elements.size()) break;
      std::unique_ptr<Attempt> owned = std::move(enqueues_.front());
      enqueues_.pop_front();
      done->push_back(Complete(owned.get(), Status::OK()));
      progress = true;
    }
  }
}

void QueueBase::Close(bool cancel_pending_enqueues) {
  std::vector<std::function<void()>> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
    if (cancel_pending_enqueues) {
      while (!enqueues_.empty()) {
        std::unique_ptr<Attempt> a = std::move(enqueues_.front());
        enqueues_.pop_front();
        done.push_back(Complete(a.get(), errors::Cancelled(DebugString(), " was closed with its pending enqueues cancelled")));
      }
    }
    ServeLocked(&done);
  }
  for (auto& d : done) d();
}

int64_t QueueBase::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(StoredLocked());
}

bool QueueBase::IsClosed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

StatusOr<QueueBase::Tuple> QueueBase::BatchElements(const std::vector<QueueElement>& elements) const {
  Tuple batch;
  for (size_t c = 0; c < dtypes_.size(); ++c) {
    TensorShape row_shape;
    if (!elements.empty()) {
      row_shape = elements[0].shape(c);
    } else if (!shapes_.empty() && shapes_[c].IsFullyDefined()) {
      row_shape = shapes_[c].AsTensorShape();
    } else {
      return errors::InvalidArgument("a dequeue_many of 0 elements from ", DebugString(),
                                     " needs the components' shapes to be fully defined");
    }
    for (const QueueElement& e : elements)
      if (!e.ShapeEquals(c, row_shape))
        return errors::InvalidArgument("a dequeue_many from ", DebugString(), " got component ", c,
                                       " of shapes ", row_shape.DebugString(), " and ", e.shape(c).DebugString(),
                                       "; a batch needs equal shapes (a PaddingFIFOQueue pads them)");
    TensorShape shape = row_shape;
    shape.InsertDim(0, static_cast<int64_t>(elements.size()));
    FLOWVM_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtypes_[c], shape));
    for (size_t r = 0; r < elements.size(); ++r) elements[r].CopyInto(c, static_cast<int64_t>(r), &t);
    batch.push_back(std::move(t));
  }
  return batch;
}

}  // namespace flowvm
