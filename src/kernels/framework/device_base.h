// DeviceBase: what a kernel sees of the device it runs on (paper 3.2): its
// name, its type, the allocator its outputs come from, the resource manager
// holding its long-lived state (variables, later queues), and the thread
// pool its kernels may split work onto.
//
// The runtime's Device (runtime/device.h) derives from it and adds what the
// placer and the session need. A DeviceBase owns its resource manager and
// its allocator's owner reference; the thread pool is shared with the other
// devices of the process and is not owned. Thread-safe: all accessors are
// const and the objects they return are thread-safe; set_path_policy must
// come before the device runs kernels.
#ifndef FLOWVM_KERNELS_FRAMEWORK_DEVICE_BASE_H_
#define FLOWVM_KERNELS_FRAMEWORK_DEVICE_BASE_H_

#include <cstdint>
#include <memory>
#include <string>

#include "core/path_policy.h"
#include "core/thread_pool.h"
#include "flowvm/allocator.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {

// Kernels are registered per device type. GPU is reserved: it has no
// kernels yet, but the registry, placer and partitioner treat it like any
// other type, so a CUDA device plugs in without touching them.
inline constexpr const char* DEVICE_CPU = "CPU";
inline constexpr const char* DEVICE_GPU = "GPU";

class DeviceBase {
 public:
  // `name` is the full name (/job:J/replica:R/task:T/device:TYPE:N).
  // `incarnation` is a random 64-bit number: it tells a device apart from an
  // earlier one of the same name (a restarted process).
  DeviceBase(std::string name, std::string type, uint64_t incarnation, ThreadPool* pool);
  virtual ~DeviceBase();
  DeviceBase(const DeviceBase&) = delete;
  DeviceBase& operator=(const DeviceBase&) = delete;

  const std::string& name() const { return name_; }
  const std::string& device_type() const { return type_; }
  uint64_t incarnation() const { return incarnation_; }
  Allocator* allocator() const { return allocator_; }
  ResourceMgr* resource_manager() const { return resource_mgr_.get(); }
  // Null: kernels run single-threaded.
  ThreadPool* thread_pool() const { return pool_; }
  // The directories kernels on this device may read and write files in
  // (core/path_policy.h); null: unrestricted (a local session). A server
  // sets it when it makes its devices. Kernels check through
  // CheckFileAccess (kernels/framework/file_access.h).
  const std::shared_ptr<const PathPolicy>& path_policy() const { return path_policy_; }
  void set_path_policy(std::shared_ptr<const PathPolicy> policy) { path_policy_ = std::move(policy); }

 private:
  const std::string name_;
  const std::string type_;
  const uint64_t incarnation_;
  ThreadPool* const pool_;
  TrackingAllocator* const allocator_;  // owner reference; Release()d on destruction
  const std::unique_ptr<ResourceMgr> resource_mgr_;
  std::shared_ptr<const PathPolicy> path_policy_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_DEVICE_BASE_H_
