#include "flowvm/allocator.h"

#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/memory_info.h"

namespace flowvm {

namespace {

#if defined(__SANITIZE_ADDRESS__)
#define FLOWVM_TENSOR_BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLOWVM_TENSOR_BLOCK_CACHE 0
#endif
#endif
#ifndef FLOWVM_TENSOR_BLOCK_CACHE
#define FLOWVM_TENSOR_BLOCK_CACHE 1
#endif

// Large blocks that tensors freed, kept for the next tensor of about the
// same size. Without it every large tensor of every step is a fresh mmap
// whose pages fault in on first touch (for a 64 MB AddV2 output that costs
// as much as the addition). Bounded: a few blocks, 256 MiB in all; blocks
// are reused only for requests of 75-100% of their size. Off under ASan so
// that use-after-free stays detectable.
class BlockCache {
 public:
  static constexpr size_t kMinBytes = size_t{1} << 20;
  static constexpr size_t kMaxBytes = size_t{256} << 20;
  static constexpr size_t kMaxBlocks = 8;

  static BlockCache& Get() {
    static BlockCache* cache = new BlockCache;  // never destroyed: tensors may die at exit
    return *cache;
  }

  // A cached block of capacity in [bytes, bytes * 4/3], or null.
  void* Take(size_t bytes, size_t* capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    size_t best = blocks_.size();
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const size_t c = blocks_[i].capacity;
      if (c >= bytes && c - bytes <= c / 4 && (best == blocks_.size() || c < blocks_[best].capacity)) best = i;
    }
    if (best == blocks_.size()) return nullptr;
    void* mem = blocks_[best].mem;
    *capacity = blocks_[best].capacity;
    cached_ -= *capacity;
    blocks_[best] = blocks_.back();
    blocks_.pop_back();
    return mem;
  }

  // Keeps the block if there is room; false: the caller frees it.
  bool Put(void* mem, size_t capacity) {
    std::lock_guard<std::mutex> lock(mu_);
    if (blocks_.size() >= kMaxBlocks || cached_ + capacity > kMaxBytes) return false;
    blocks_.push_back({mem, capacity});
    cached_ += capacity;
    return true;
  }

 private:
  struct Block {
    void* mem;
    size_t capacity;
  };
  std::mutex mu_;
  std::vector<Block> blocks_;
  size_t cached_ = 0;
};

// Blocks this large are checked against the memory the machine has left.
constexpr size_t kCheckedBytes = size_t{64} << 20;

void* AllocateBlock(size_t bytes, size_t* capacity) {
  if (bytes > SIZE_MAX - Allocator::kAlignment) return nullptr;
  // aligned_alloc wants a multiple of the alignment.
  const size_t total = (bytes + Allocator::kAlignment - 1) / Allocator::kAlignment * Allocator::kAlignment;
  *capacity = total;
  if (FLOWVM_TENSOR_BLOCK_CACHE && total >= BlockCache::kMinBytes) {
    if (void* mem = BlockCache::Get().Take(total, capacity)) return mem;
  }
  // Linux grants a large mapping it cannot back and kills the process
  // when its pages are touched: ask first (a tensor shape from a request
  // must not take a server down).
  if (total >= kCheckedBytes && static_cast<int64_t>(total) > AvailableMemoryBytes()) return nullptr;
  return std::aligned_alloc(Allocator::kAlignment, total);
}

void FreeBlock(void* mem, size_t capacity) {
  if (FLOWVM_TENSOR_BLOCK_CACHE && capacity >= BlockCache::kMinBytes && BlockCache::Get().Put(mem, capacity)) return;
  std::free(mem);
}


void UpdateMax(std::atomic<int64_t>* max, int64_t value) {
  int64_t seen = max->load(std::memory_order_relaxed);
  while (value > seen && !max->compare_exchange_weak(seen, value, std::memory_order_relaxed)) {
  }
}

}  // namespace

TrackingAllocator* TrackingAllocator::New(std::string name) { return new TrackingAllocator(std::move(name)); }

void TrackingAllocator::Release() { Unref(); }

void TrackingAllocator::Unref() {
  if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
}

void* TrackingAllocator::AllocateRaw(size_t bytes, size_t* capacity) {
  void* mem = AllocateBlock(bytes, capacity);
  if (mem == nullptr) return nullptr;
  refs_.fetch_add(1, std::memory_order_relaxed);
  num_allocs_.fetch_add(1, std::memory_order_relaxed);
  const int64_t size = static_cast<int64_t>(*capacity);
  const int64_t in_use = bytes_in_use_.fetch_add(size, std::memory_order_relaxed) + size;
  UpdateMax(&peak_, in_use);
  UpdateMax(&largest_, size);
  return mem;
}

void TrackingAllocator::DeallocateRaw(void* ptr, size_t capacity) {
  FreeBlock(ptr, capacity);
  bytes_in_use_.fetch_sub(static_cast<int64_t>(capacity), std::memory_order_relaxed);
  Unref();
}

AllocatorStats TrackingAllocator::GetStats() const {
  AllocatorStats s;
  s.num_allocs = num_allocs_.load(std::memory_order_relaxed);
  s.bytes_in_use = bytes_in_use_.load(std::memory_order_relaxed);
  s.peak_bytes_in_use = peak_.load(std::memory_order_relaxed);
  s.largest_alloc_size = largest_.load(std::memory_order_relaxed);
  return s;
}

void TrackingAllocator::ResetPeak() { peak_.store(bytes_in_use_.load(std::memory_order_relaxed), std::memory_order_relaxed); }

Allocator* ProcessCpuAllocator() {
  static TrackingAllocator* allocator = TrackingAllocator::New("cpu");  // never released
  return allocator;
}

}  // namespace flowvm
