// Containers of long-lived, mutable state (paper section 4.7): variables,
// and later queues. A ResourceMgr maps (container, type, name) to a shared,
// reference-counted resource. The default container ("") and named
// containers live until they are cleaned up (Session::ResetContainers) or
// the ResourceMgr dies; every device owns one. Thread-safe.
#ifndef FLOWVM_KERNELS_FRAMEWORK_RESOURCE_MGR_H_
#define FLOWVM_KERNELS_FRAMEWORK_RESOURCE_MGR_H_

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <typeindex>
#include <vector>

#include "flowvm/status.h"

namespace flowvm {

class ResourceBase {
 public:
  virtual ~ResourceBase() = default;
  virtual std::string DebugString() const = 0;
  // Called (outside the manager's lock) when the resource's container is
  // cleaned up: steps may still hold it, but no new step will find it. A
  // queue closes here, so that ops waiting on it do not wait for ever.
  virtual void OnContainerCleanup() {}
};

class ResourceMgr {
 public:
  ResourceMgr() = default;
  ResourceMgr(const ResourceMgr&) = delete;
  ResourceMgr& operator=(const ResourceMgr&) = delete;

  // Returns the resource (container, name) of type T, creating it with
  // `create` if it does not exist. `create` runs at most once per resource.
  template <typename T>
  Status LookupOrCreate(const std::string& container, const std::string& name, std::shared_ptr<T>* out,
                        const std::function<StatusOr<std::shared_ptr<T>>()>& create) {
    std::shared_ptr<ResourceBase> base;
    Status s = DoLookupOrCreate(container, std::type_index(typeid(T)), name, &base,
                                [&]() -> StatusOr<std::shared_ptr<ResourceBase>> {
                                  auto made = create();
                                  if (!made.ok()) return made.status();
                                  return std::shared_ptr<ResourceBase>(std::move(made).value());
                                });
    if (s.ok()) *out = std::static_pointer_cast<T>(base);
    return s;
  }

  template <typename T>
  Status Lookup(const std::string& container, const std::string& name, std::shared_ptr<T>* out) const {
    std::shared_ptr<ResourceBase> base;
    FLOWVM_RETURN_IF_ERROR(DoLookup(container, std::type_index(typeid(T)), name, &base));
    *out = std::static_pointer_cast<T>(base);
    return Status::OK();
  }

  // Drops every resource in `container` (telling each, OnContainerCleanup);
  // kernels that hold one keep it alive until they finish. A container that
  // does not exist is not an error.
  void Cleanup(const std::string& container);
  void CleanupAll();
  std::vector<std::string> Containers() const;

 private:
  using Key = std::pair<std::type_index, std::string>;
  Status DoLookupOrCreate(const std::string& container, std::type_index type, const std::string& name,
                          std::shared_ptr<ResourceBase>* out,
                          const std::function<StatusOr<std::shared_ptr<ResourceBase>>()>& create);
  Status DoLookup(const std::string& container, std::type_index type, const std::string& name,
                  std::shared_ptr<ResourceBase>* out) const;

  mutable std::mutex mu_;
  std::map<std::string, std::map<Key, std::shared_ptr<ResourceBase>>> containers_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_RESOURCE_MGR_H_
