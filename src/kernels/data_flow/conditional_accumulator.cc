#include "kernels/data_flow/conditional_accumulator.h"

#include <cstring>
#include <utility>

namespace flowvm {

struct ConditionalAccumulator::Take {
  int64_t id = 0;
  int64_t num_required = 1;
  TakeDone done;
  CancellationManager* cancel = nullptr;
  CancellationManager::Token cancel_token = CancellationManager::kInvalidToken;
};

namespace {

template <typename T>
void AddInto(const Tensor& from, Tensor* to) {
  const T* src = from.data<T>();
  T* dst = to->data<T>();
  const int64_t n = from.NumElements();
  for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
}

template <typename T>
void DivideBy(int64_t count, Tensor* t) {
  T* p = t->data<T>();
  const T d = static_cast<T>(count);
  const int64_t n = t->NumElements();
  for (int64_t i = 0; i < n; ++i) p[i] /= d;
}

}  // namespace

ConditionalAccumulator::ConditionalAccumulator(std::string name, DataType dtype, PartialTensorShape shape,
                                               Reduction reduction)
    : name_(std::move(name)), dtype_(dtype), shape_(std::move(shape)), reduction_(reduction) {}

ConditionalAccumulator::~ConditionalAccumulator() = default;

Status ConditionalAccumulator::CheckDtype(DataType dtype) {
  if (dtype == DT_FLOAT || dtype == DT_DOUBLE) return Status::OK();
  return errors::InvalidArgument("a ConditionalAccumulator accumulates float or double gradients, not ",
                                 DataTypeName(dtype));
}

StatusOr<ConditionalAccumulator::Reduction> ConditionalAccumulator::ParseReduction(const std::string& r) {
  if (r == "MEAN") return Reduction::kMean;
  if (r == "SUM") return Reduction::kSum;
  return errors::InvalidArgument("reduction_type must be MEAN or SUM, not '", r, "'");
}

std::string ConditionalAccumulator::DebugString() const { return "ConditionalAccumulator '" + name_ + "'"; }

Status ConditionalAccumulator::MatchesSpec(DataType dtype, const PartialTensorShape& shape,
                                           Reduction reduction) const {
  if (dtype != dtype_)
    return errors::InvalidArgument(DebugString(), " is shared with dtype ", DataTypeName(dtype_), ", not ",
                                   DataTypeName(dtype));
  if (!(shape == shape_))
    return errors::InvalidArgument(DebugString(), " is shared with shape ", shape_.DebugString(), ", not ",
                                   shape.DebugString());
  if (reduction != reduction_)
    return errors::InvalidArgument(DebugString(), " is shared with another reduction_type");
  return Status::OK();
}

Status ConditionalAccumulator::ApplyGradient(int64_t local_step, const Tensor& gradient, bool* counted) {
  if (counted != nullptr) *counted = false;
  if (gradient.dtype() != dtype_)
    return errors::InvalidArgument("a gradient of type ", DataTypeName(gradient.dtype()), " applied to ",
                                   DebugString(), ", which accumulates ", DataTypeName(dtype_));
  if (!shape_.IsCompatibleWith(gradient.shape()))
    return errors::InvalidArgument("a gradient of shape ", gradient.shape().DebugString(), " applied to ",
                                   DebugString(), " of shape ", shape_.DebugString());
  std::deque<std::function<void()>> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (local_step < global_step_) {
      ++dropped_;
      return Status::OK();
    }
    if (count_ == 0) {
      // A copy of our own: the sum is added to in place.
      FLOWVM_ASSIGN_OR_RETURN(sum_, Tensor::Allocate(dtype_, gradient.shape()));
      if (gradient.TotalBytes() > 0) std::memcpy(sum_.raw_data(), gradient.raw_data(), gradient.TotalBytes());
    } else {
      if (!(sum_.shape() == gradient.shape()))
        return errors::InvalidArgument("a gradient of shape ", gradient.shape().DebugString(), " applied to ",
                                       DebugString(), ", which holds gradients of shape ",
                                       sum_.shape().DebugString(), " for this step");
      if (dtype_ == DT_FLOAT) AddInto<float>(gradient, &sum_);
      else AddInto<double>(gradient, &sum_);
    }
    ++count_;
    if (counted != nullptr) *counted = true;
    ServeLocked(&done);
  }
  for (auto& d : done) d();
  return Status::OK();
}

StatusOr<Tensor> ConditionalAccumulator::TakeLocked() {
  Tensor result = std::move(sum_);
  sum_ = Tensor();
  if (reduction_ == Reduction::kMean) {
    if (dtype_ == DT_FLOAT) DivideBy<float>(count_, &result);
    else DivideBy<double>(count_, &result);
  }
  count_ = 0;
  ++global_step_;
  return result;
}

void ConditionalAccumulator::ServeLocked(std::deque<std::function<void()>>* done) {
  while (!takes_.empty() && count_ >= takes_.front()->num_required) {
    std::unique_ptr<Take> take = std::move(takes_.front());
    takes_.pop_front();
    StatusOr<Tensor> result = TakeLocked();
    if (result.ok()) done->push_back(Complete(std::move(take), Status::OK(), *std::move(result)));
    else done->push_back(Complete(std::move(take), result.status(), Tensor()));
  }
}

std::function<void()> ConditionalAccumulator::Complete(std::unique_ptr<Take> take, const Status& status,
                                                       Tensor result) {
  // Runs under mu_; the returned closure runs after it is released.
  CancellationManager* cancel = take->cancel;
  CancellationManager::Token token = take->cancel_token;
  return [cancel, token, done = std::move(take->done), status, result = std::move(result)]() mutable {
    if (token != CancellationManager::kInvalidToken) cancel->Deregister(token);
    done(status, std::move(result));
  };
}

void ConditionalAccumulator::TryTakeGradient(int64_t num_required, CancellationManager* cancel, TakeDone done) {
  if (num_required < 1) {
    done(errors::InvalidArgument("a take from ", DebugString(), " needs num_required >= 1, got ", num_required),
         Tensor());
    return;
  }
  // A step that is already cancelled takes nothing (what it took would be
  // lost with it).
  if (cancel != nullptr && cancel->IsCancelled()) {
    done(cancel->reason().ok() ? errors::Cancelled("the step was cancelled") : cancel->reason(), Tensor());
    return;
  }
  auto take = std::make_unique<Take>();
  take->num_required = num_required;
  take->done = std::move(done);
  take->cancel = cancel;
  int64_t id;
  bool waiting = false;
  std::deque<std::function<void()>> completed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    // Once in the line, the take may be served (and deleted) by another
    // thread at any time: only its id is used from here on.
    id = take->id = next_id_++;
    takes_.push_back(std::move(take));
    ServeLocked(&completed);
    for (auto it = takes_.rbegin(); it != takes_.rend() && !waiting; ++it) waiting = (*it)->id == id;
  }
  for (auto& d : completed) d();
  if (!waiting || cancel == nullptr) return;
  // The callback keeps the accumulator alive: it may run after the step
  // that made the take let go of it. The take is in the line before its
  // callback is registered, so the callback can find it; if it completed
  // meanwhile, what was registered is removed here.
  std::shared_ptr<ConditionalAccumulator> self = shared_from_this();
  CancellationManager::Token token = cancel->Register([self, id, cancel] { self->Abandon(id, cancel->reason()); });
  if (token == CancellationManager::kInvalidToken) {  // cancelled meanwhile
    Abandon(id, cancel->reason());
    return;
  }
  bool still_waiting = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& t : takes_)
      if (t->id == id) {
        t->cancel_token = token;
        still_waiting = true;
      }
  }
  if (!still_waiting) cancel->Deregister(token);
}

void ConditionalAccumulator::Abandon(int64_t id, const Status& status) {
  std::deque<std::function<void()>> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = takes_.begin(); it != takes_.end(); ++it) {
      if ((*it)->id != id) continue;
      std::unique_ptr<Take> take = std::move(*it);
      takes_.erase(it);
      // Nothing was taken: the gradients counted stay for the next take.
      done.push_back(Complete(std::move(take), status.ok() ? errors::Cancelled("the step was cancelled") : status,
                              Tensor()));
      break;
    }
    // A take gone from the head of the line may let a smaller one through.
    if (!done.empty()) ServeLocked(&done);
  }
  for (auto& d : done) d();
}

void ConditionalAccumulator::OnContainerCleanup() {
  std::deque<std::function<void()>> done;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (!takes_.empty()) {
      std::unique_ptr<Take> take = std::move(takes_.front());
      takes_.pop_front();
      done.push_back(Complete(std::move(take), errors::Cancelled(DebugString(), ": its container was reset"), Tensor()));
    }
  }
  for (auto& d : done) d();
}

bool ConditionalAccumulator::SetGlobalStep(int64_t step) {
  std::lock_guard<std::mutex> lock(mu_);
  const bool back = step < global_step_;
  global_step_ = step;
  return back;
}

int64_t ConditionalAccumulator::global_step() const {
  std::lock_guard<std::mutex> lock(mu_);
  return global_step_;
}

int32_t ConditionalAccumulator::NumAccumulated() const {
  std::lock_guard<std::mutex> lock(mu_);
  return count_;
}

int64_t ConditionalAccumulator::NumDropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

int64_t ConditionalAccumulator::NumWaitingTakes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int64_t>(takes_.size());
}

}  // namespace flowvm
