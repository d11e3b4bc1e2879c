// ConditionalAccumulator (TensorFlow's, for synchronous training with
// backup workers, OSDI'16 section 4.4): sums the gradients of the current
// step and hands out their mean (or sum) once enough have arrived.
//
// The accumulator has a global step. A gradient applied with a local step
// older than it is stale and is dropped; any other is added and counted.
// A take waits (holding no thread) until at least its num_required
// gradients are counted, then gets the mean (or sum) of all of them; the
// count and the sum start again from zero and the global step advances by
// one, so the gradients of the step just taken are stale from then on.
// Takes are served in arrival order. A take that is cancelled (its step
// failed or passed its deadline) ends with the step's reason and takes
// nothing: every gradient counted stays for the next take. A take that
// completed belongs to its step: if that step fails afterwards, the mean
// goes with it, as any other effect of a failed step would.
//
// Completion callbacks never run under the accumulator's lock; the
// executor continues a completed kernel on its own threads, never on the
// stack of the apply that woke it. Thread-safe.
#ifndef FLOWVM_KERNELS_DATA_FLOW_CONDITIONAL_ACCUMULATOR_H_
#define FLOWVM_KERNELS_DATA_FLOW_CONDITIONAL_ACCUMULATOR_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "flowvm/tensor.h"
#include "flowvm/tensor_shape.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {

class ConditionalAccumulator : public ResourceBase, public std::enable_shared_from_this<ConditionalAccumulator> {
 public:
  enum class Reduction { kMean, kSum };
  using TakeDone = std::function<void(const Status&, Tensor)>;

  // dtype: DT_FLOAT or DT_DOUBLE (CheckDtype). `shape` may be partially
  // known: the first gradient counted fixes it until the next take.
  ConditionalAccumulator(std::string name, DataType dtype, PartialTensorShape shape, Reduction reduction);
  ~ConditionalAccumulator() override;

  static Status CheckDtype(DataType dtype);
  // "MEAN" or "SUM".
  static StatusOr<Reduction> ParseReduction(const std::string& reduction_type);

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  std::string DebugString() const override;
  // Whether an existing accumulator is what a graph asks for: a shared
  // accumulator must be the same everywhere.
  Status MatchesSpec(DataType dtype, const PartialTensorShape& shape, Reduction reduction) const;

  // Adds `gradient` unless local_step is older than the global step.
  // `counted` (may be null) says which. InvalidArgument if its dtype or
  // shape does not fit. Never blocks.
  Status ApplyGradient(int64_t local_step, const Tensor& gradient, bool* counted = nullptr);
  // `done` runs once, on any thread, never under the lock. `cancel` may be
  // null. InvalidArgument (through `done`) if num_required < 1.
  void TryTakeGradient(int64_t num_required, CancellationManager* cancel, TakeDone done);
  // Sets the global step (a restored global step, say). Going back is
  // allowed (a restore may do it) and returns true then, for the caller to
  // report.
  bool SetGlobalStep(int64_t step);

  int64_t global_step() const;
  int32_t NumAccumulated() const;
  // Gradients dropped as stale so far (for tests and reports).
  int64_t NumDropped() const;
  int64_t NumWaitingTakes() const;
  // A reset container ends the waiting takes with Cancelled (no gradient
  // will reach them: new steps find a fresh accumulator).
  void OnContainerCleanup() override;

 private:
  struct Take;
  // Serves the takes at the front of the line; moves completions to `done`.
  void ServeLocked(std::deque<std::function<void()>>* done);
  void Abandon(int64_t id, const Status& status);
  std::function<void()> Complete(std::unique_ptr<Take> take, const Status& status, Tensor result);
  // The mean or sum of what is counted; resets the count and advances the step.
  StatusOr<Tensor> TakeLocked();

  const std::string name_;
  const DataType dtype_;
  const PartialTensorShape shape_;
  const Reduction reduction_;

  mutable std::mutex mu_;
  int64_t global_step_ = 0;
  int32_t count_ = 0;
  Tensor sum_;  // valid while count_ > 0
  int64_t dropped_ = 0;
  int64_t next_id_ = 0;
  std::deque<std::unique_ptr<Take>> takes_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_CONDITIONAL_ACCUMULATOR_H_
