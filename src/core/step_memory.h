// StepMemoryBudget: the tensor bytes one step may hold at once on one
// process (SessionOptions::max_step_memory_bytes, ServerLimits), so that
// one client's step cannot take a server's memory. Kernels allocate through
// a BudgetAllocator over their device's allocator; an allocation that would
// take the step past its limit fails, and the kernel's error (naming the
// node) says which limit it was.
//
// Counted are the live bytes the step's kernels allocated: a tensor freed
// during the step gives its bytes back, and one that outlives the step (a
// variable's new value, a fetch) stays counted against that step's budget
// only until it is freed. Thread-safe.
#ifndef FLOWVM_CORE_STEP_MEMORY_H_
#define FLOWVM_CORE_STEP_MEMORY_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "flowvm/allocator.h"

namespace flowvm {

class StepMemoryBudget {
 public:
  // `limit` > 0 bytes; `what` names the limit in errors
  // ("max_step_memory_bytes of the session").
  StepMemoryBudget(int64_t limit, std::string what) : limit_(limit), what_(std::move(what)) {}

  // Takes `bytes` if they fit.
  bool TryTake(int64_t bytes);
  void Give(int64_t bytes) { in_use_.fetch_sub(bytes, std::memory_order_relaxed); }
  int64_t in_use() const { return in_use_.load(std::memory_order_relaxed); }
  int64_t limit() const { return limit_; }
  const std::string& what() const { return what_; }

 private:
  const int64_t limit_;
  const std::string what_;
  std::atomic<int64_t> in_use_{0};
};

// An allocator that draws from `base` within a budget. Reference-counted
// like TrackingAllocator (its owner plus one per live allocation): the step
// that made it calls Release(), and it goes away with its last allocation.
class BudgetAllocator final : public Allocator {
 public:
  // `base` must outlive every allocation (device allocators do: they are
  // reference-counted the same way).
  static BudgetAllocator* New(Allocator* base, std::shared_ptr<StepMemoryBudget> budget);
  void Release() { Unref(); }

  const std::string& Name() const override { return base_->Name(); }
  void* AllocateRaw(size_t bytes, size_t* capacity) override;
  void DeallocateRaw(void* ptr, size_t capacity) override;
  AllocatorStats GetStats() const override { return base_->GetStats(); }
  void ResetPeak() override { base_->ResetPeak(); }
  std::string DescribeRefusal(size_t bytes) const override;

 private:
  BudgetAllocator(Allocator* base, std::shared_ptr<StepMemoryBudget> budget)
      : base_(base), budget_(std::move(budget)) {}
  ~BudgetAllocator() override = default;
  void Unref();

  Allocator* const base_;
  const std::shared_ptr<StepMemoryBudget> budget_;
  std::atomic<int64_t> refs_{1};
};

}  // namespace flowvm

#endif  // FLOWVM_CORE_STEP_MEMORY_H_
