// How much memory this process can still take from the machine: the
// kernel's MemAvailable estimate, lowered to the room left under the
// process's cgroup memory limit (v2 or v1) where there is one. The
// allocator asks before it maps a large block, so that a request for more
// than there is fails with an error instead of faulting its pages in until
// the kernel's OOM killer ends the process. Thread-safe; reads a few small
// /proc and /sys files per call (tens of microseconds).
#ifndef FLOWVM_CORE_MEMORY_INFO_H_
#define FLOWVM_CORE_MEMORY_INFO_H_

#include <cstdint>

namespace flowvm {

// Bytes; INT64_MAX if the machine does not say.
int64_t AvailableMemoryBytes();

}  // namespace flowvm

#endif  // FLOWVM_CORE_MEMORY_INFO_H_
