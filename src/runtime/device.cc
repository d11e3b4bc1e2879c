#include "runtime/device.h"

#include <mutex>
#include <random>

namespace flowvm {

Device::Device(DeviceNameParts parsed, uint64_t incarnation, ThreadPool* pool)
    : DeviceBase(DeviceNameToString(parsed), parsed.type, incarnation, pool), parsed_(std::move(parsed)) {}

uint64_t NewIncarnation() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  uint64_t v = 0;
  while (v == 0) v = rng();
  return v;
}

DeviceMgr::DeviceMgr(std::vector<std::unique_ptr<Device>> devices) : owned_(std::move(devices)) {
  for (auto& d : owned_) list_.push_back(d.get());
}

DeviceMgr::~DeviceMgr() = default;

StatusOr<std::unique_ptr<DeviceMgr>> DeviceMgr::NewCpuDevices(int cpu_devices, ThreadPool* pool,
                                                              const std::string& job, int task,
                                                              std::shared_ptr<const PathPolicy> path_policy) {
  if (cpu_devices < 1) return errors::InvalidArgument("a process needs at least 1 CPU device, got ", cpu_devices);
  std::vector<std::unique_ptr<Device>> devices;
  for (int i = 0; i < cpu_devices; ++i) {
    FLOWVM_ASSIGN_OR_RETURN(DeviceNameParts parts, ParseDeviceName(FullDeviceName(job, 0, task, DEVICE_CPU, i)));
    devices.push_back(std::make_unique<Device>(std::move(parts), NewIncarnation(), pool));
    devices.back()->set_path_policy(path_policy);
  }
  return std::make_unique<DeviceMgr>(std::move(devices));
}

StatusOr<Device*> DeviceMgr::Lookup(const std::string& name) const {
  for (Device* d : list_)
    if (d->name() == name) return d;
  auto spec = ParseDeviceName(name);
  if (!spec.ok()) return spec.status();
  std::vector<Device*> found = Matching(*spec);
  if (found.size() == 1 && spec->has_type && spec->has_id) return found[0];
  return errors::NotFound("device '", name, "' ", found.empty() ? "does not exist" : "is ambiguous",
                          " (devices: ", ListNames(), ")");
}

std::vector<Device*> DeviceMgr::Matching(const DeviceNameParts& spec) const {
  std::vector<Device*> out;
  for (Device* d : list_)
    if (DeviceSpecMatches(spec, d->parsed_name())) out.push_back(d);
  return out;
}

std::string DeviceMgr::ListNames() const {
  std::string out;
  for (Device* d : list_) out += (out.empty() ? "" : ", ") + d->name();
  return out;
}

}  // namespace flowvm
