#include "kernels/framework/resource_mgr.h"

namespace flowvm {

Status ResourceMgr::DoLookupOrCreate(const std::string& container, std::type_index type, const std::string& name,
                                     std::shared_ptr<ResourceBase>* out,
                                     const std::function<StatusOr<std::shared_ptr<ResourceBase>>()>& create) {
  // Creation happens under the lock so two steps racing to create the same
  // variable get the same object; creators are cheap (no tensor work).
  std::lock_guard<std::mutex> lock(mu_);
  auto& c = containers_[container];
  auto it = c.find(Key(type, name));
  if (it != c.end()) {
    *out = it->second;
    return Status::OK();
  }
  auto made = create();
  if (!made.ok()) return made.status();
  c.emplace(Key(type, name), *made);
  *out = std::move(made).value();
  return Status::OK();
}

Status ResourceMgr::DoLookup(const std::string& container, std::type_index type, const std::string& name,
                             std::shared_ptr<ResourceBase>* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto c = containers_.find(container);
  if (c != containers_.end()) {
    auto it = c->second.find(Key(type, name));
    if (it != c->second.end()) {
      *out = it->second;
      return Status::OK();
    }
  }
  return errors::NotFound("resource '", name, "' does not exist in container '", container, "'");
}

void ResourceMgr::Cleanup(const std::string& container) {
  std::map<Key, std::shared_ptr<ResourceBase>> doomed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = containers_.find(container);
    if (it == containers_.end()) return;
    doomed = std::move(it->second);
    containers_.erase(it);
  }
  // Resources are told, and die, here, outside the lock.
  for (auto& [key, resource] : doomed) resource->OnContainerCleanup();
}

void ResourceMgr::CleanupAll() {
  std::map<std::string, std::map<Key, std::shared_ptr<ResourceBase>>> doomed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    doomed.swap(containers_);
  }
  for (auto& [container, resources] : doomed)
    for (auto& [key, resource] : resources) resource->OnContainerCleanup();
}

std::vector<std::string> ResourceMgr::Containers() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, _] : containers_) names.push_back(name);
  return names;
}

}  // namespace flowvm
