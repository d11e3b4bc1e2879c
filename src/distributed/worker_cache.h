// WorkerCache: the WorkerInterface of every task of the cluster, by task
// name. This task's is the in-process Worker (no RPC); the others are
// GrpcRemoteWorkers over one channel each, made on first use. Thread-safe;
// the interfaces live as long as the cache.
#ifndef FLOWVM_DISTRIBUTED_WORKER_CACHE_H_
#define FLOWVM_DISTRIBUTED_WORKER_CACHE_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "distributed/transport_security.h"
#include "distributed/worker_interface.h"
#include "flowvm/cluster.h"

namespace flowvm {

class WorkerCache {
 public:
  // `local` (not owned, may be null) serves `local_task`. Messages to the
  // others carry at most `max_message_bytes` of tensor bytes.
  // Channels to the others use `security` (TLS credentials, token).
  WorkerCache(ClusterSpec cluster, std::string local_task, WorkerInterface* local,
              std::shared_ptr<const TransportSecurity> security, uint64_t max_message_bytes = uint64_t{1} << 30);
  ~WorkerCache();

  // Null if the task is not in the cluster.
  WorkerInterface* Get(const std::string& task);
  // "task /job:ps/replica:0/task:0 (localhost:2222)", for messages.
  std::string Describe(const std::string& task) const;
  const ClusterSpec& cluster() const { return cluster_; }
  const std::string& local_task() const { return local_task_; }

 private:
  const ClusterSpec cluster_;
  const std::string local_task_;
  WorkerInterface* const local_;
  const std::shared_ptr<const TransportSecurity> security_;
  const uint64_t max_message_bytes_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<WorkerInterface>> remote_;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_WORKER_CACHE_H_
