#include "distributed/worker_cache.h"

#include "distributed/grpc_remote_worker.h"
#include "distributed/grpc_util.h"

namespace flowvm {

WorkerCache::WorkerCache(ClusterSpec cluster, std::string local_task, WorkerInterface* local,
                         std::shared_ptr<const TransportSecurity> security, uint64_t max_message_bytes)
    : cluster_(std::move(cluster)),
      local_task_(std::move(local_task)),
      local_(local),
      security_(std::move(security)),
      max_message_bytes_(max_message_bytes) {}

WorkerCache::~WorkerCache() = default;

WorkerInterface* WorkerCache::Get(const std::string& task) {
  if (task == local_task_ && local_ != nullptr) return local_;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = remote_.find(task);
  if (it != remote_.end()) return it->second.get();
  auto id = cluster_.TaskByName(task);
  if (!id.ok()) return nullptr;
  auto address = cluster_.Address(*id);
  if (!address.ok()) return nullptr;
  auto worker = std::make_unique<GrpcRemoteWorker>(NewChannel(*address, *security_), Describe(task), security_,
                                                   max_message_bytes_);
  WorkerInterface* out = worker.get();
  remote_[task] = std::move(worker);
  return out;
}

std::string WorkerCache::Describe(const std::string& task) const {
  auto id = cluster_.TaskByName(task);
  if (id.ok()) {
    auto address = cluster_.Address(*id);
    if (address.ok()) return "task " + task + " (" + *address + ")";
  }
  return "task " + task;
}

}  // namespace flowvm
