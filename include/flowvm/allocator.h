// Allocator: where tensor memory comes from. Every device owns one, and
// kernels allocate their outputs through their device's allocator, which
// counts the bytes in use and the peak (for step statistics and memory
// tests).
//
// Lifetime: a tensor may outlive the device that allocated it (a fetched
// output, a variable's value). An allocator made by NewTrackingAllocator is
// therefore reference-counted by its owner plus one count per live
// allocation: Release() gives up the owner's count, and the allocator is
// deleted once its last allocation is freed. The process allocator
// (ProcessCpuAllocator) is never deleted.
//
// Thread safety: every method may be called from any thread.
#ifndef FLOWVM_ALLOCATOR_H_
#define FLOWVM_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace flowvm {

struct AllocatorStats {
  int64_t num_allocs = 0;          // allocations made so far
  int64_t bytes_in_use = 0;        // bytes of live allocations
  int64_t peak_bytes_in_use = 0;   // highest bytes_in_use since creation or ResetPeak
  int64_t largest_alloc_size = 0;  // largest single allocation
};

class Allocator {
 public:
  static constexpr size_t kAlignment = 64;

  virtual ~Allocator() = default;
  virtual const std::string& Name() const = 0;

  // Returns kAlignment-aligned memory of at least `bytes`, or null when out of
  // memory. `*capacity` receives the usable size, which DeallocateRaw needs.
  virtual void* AllocateRaw(size_t bytes, size_t* capacity) = 0;
  virtual void DeallocateRaw(void* ptr, size_t capacity) = 0;

  virtual AllocatorStats GetStats() const = 0;
  // Starts a new peak measurement at the current bytes in use.
  virtual void ResetPeak() = 0;
  // Why an allocation of `bytes` was refused, for the error ("" : the
  // machine is out of memory).
  virtual std::string DescribeRefusal(size_t bytes) const {
    (void)bytes;
    return "";
  }
};

// The process-wide CPU allocator, used by tensors created outside a device
// (Tensor(dtype, shape), tests, the client). Never deleted.
Allocator* ProcessCpuAllocator();

// An allocator of its own name and statistics, drawing memory the way the
// process allocator does (so a device's tensors cost no more than others).
// The caller owns one reference: call Release() instead of deleting it.
class TrackingAllocator final : public Allocator {
 public:
  static TrackingAllocator* New(std::string name);
  // Gives up the owner's reference; the allocator goes away once every
  // allocation it made has been freed.
  void Release();

  const std::string& Name() const override { return name_; }
  void* AllocateRaw(size_t bytes, size_t* capacity) override;
  void DeallocateRaw(void* ptr, size_t capacity) override;
  AllocatorStats GetStats() const override;
  void ResetPeak() override;

 private:
  explicit TrackingAllocator(std::string name) : name_(std::move(name)) {}
  ~TrackingAllocator() override = default;
  void Unref();

  const std::string name_;
  std::atomic<int64_t> refs_{1};  // the owner + one per live allocation
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> bytes_in_use_{0};
  std::atomic<int64_t> peak_{0};
  std::atomic<int64_t> largest_{0};
};

}  // namespace flowvm

#endif  // FLOWVM_ALLOCATOR_H_
