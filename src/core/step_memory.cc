#include "core/step_memory.h"

namespace flowvm {

bool StepMemoryBudget::TryTake(int64_t bytes) {
  int64_t used = in_use_.load(std::memory_order_relaxed);
  do {
    if (bytes > limit_ - used) return false;
  } while (!in_use_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
  return true;
}

BudgetAllocator* BudgetAllocator::New(Allocator* base, std::shared_ptr<StepMemoryBudget> budget) {
  return new BudgetAllocator(base, std::move(budget));
}

void* BudgetAllocator::AllocateRaw(size_t bytes, size_t* capacity) {
  if (bytes > static_cast<size_t>(budget_->limit()) || !budget_->TryTake(static_cast<int64_t>(bytes))) return nullptr;
  void* p = base_->AllocateRaw(bytes, capacity);
  if (p == nullptr) {
    budget_->Give(static_cast<int64_t>(bytes));
    return nullptr;
  }
  // What is given back is the capacity; account for it.
  budget_->Give(static_cast<int64_t>(bytes) - static_cast<int64_t>(*capacity));
  refs_.fetch_add(1, std::memory_order_relaxed);
  return p;
}

void BudgetAllocator::DeallocateRaw(void* ptr, size_t capacity) {
  base_->DeallocateRaw(ptr, capacity);
  budget_->Give(static_cast<int64_t>(capacity));
  Unref();
}

std::string BudgetAllocator::DescribeRefusal(size_t bytes) const {
  const int64_t left = budget_->limit() - budget_->in_use();
  if (left >= 0 && bytes <= static_cast<uint64_t>(left)) return base_->DescribeRefusal(bytes);
  return "the step already holds " + std::to_string(budget_->in_use()) + " bytes of tensors here, and its limit is " +
         std::to_string(budget_->limit()) + " (" + budget_->what() + ")";
}

void BudgetAllocator::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

}  // namespace flowvm
