// Device: one place nodes run (paper 3.2) -- a CPU of this process today,
// a GPU or another task's CPU later. It adds to DeviceBase (what kernels
// see) the parsed name the placer matches requests against.
//
// DeviceMgr: the devices of one process (a local session's, or a server's),
// owned together with the thread pool they share. Thread-safe after
// construction (the set of devices never changes).
#ifndef FLOWVM_RUNTIME_DEVICE_H_
#define FLOWVM_RUNTIME_DEVICE_H_

#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "graph/device_name.h"
#include "kernels/framework/device_base.h"

namespace flowvm {

class Device : public DeviceBase {
 public:
  Device(DeviceNameParts parsed, uint64_t incarnation, ThreadPool* pool);
  const DeviceNameParts& parsed_name() const { return parsed_; }

 private:
  const DeviceNameParts parsed_;
};

// A random non-zero 64-bit number for a new device.
uint64_t NewIncarnation();

class DeviceMgr {
 public:
  // `devices` in the order they were made (CPU:0 first).
  explicit DeviceMgr(std::vector<std::unique_ptr<Device>> devices);
  ~DeviceMgr();

  // `cpu_devices` CPU devices /job:J/replica:0/task:T/device:CPU:i, sharing
  // `pool` (not owned; may be null) and `path_policy`, the directories their
  // kernels may touch files in (null: unrestricted). InvalidArgument if
  // cpu_devices < 1.
  static StatusOr<std::unique_ptr<DeviceMgr>> NewCpuDevices(int cpu_devices, ThreadPool* pool,
                                                            const std::string& job = "localhost", int task = 0,
                                                            std::shared_ptr<const PathPolicy> path_policy = nullptr);

  const std::vector<Device*>& devices() const { return list_; }
  int size() const { return static_cast<int>(list_.size()); }
  // By full name, or by any spec that names exactly one device ("/cpu:1",
  // "/device:CPU:1", "CPU:1"). NotFound listing the devices otherwise.
  StatusOr<Device*> Lookup(const std::string& name) const;
  // The devices a (possibly partial) spec matches.
  std::vector<Device*> Matching(const DeviceNameParts& spec) const;
  // "/job:localhost/replica:0/task:0/device:CPU:0, ..." for error messages.
  std::string ListNames() const;

 private:
  std::vector<std::unique_ptr<Device>> owned_;
  std::vector<Device*> list_;
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_DEVICE_H_
