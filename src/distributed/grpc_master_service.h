// The master service over gRPC: registers a Master's methods with a
// server's dispatcher. Each call runs on a thread of its own (CallThreads),
// because master calls wait: for tasks to come up, for a step to finish.
#ifndef FLOWVM_DISTRIBUTED_GRPC_MASTER_SERVICE_H_
#define FLOWVM_DISTRIBUTED_GRPC_MASTER_SERVICE_H_

#include <functional>

#include "distributed/call_threads.h"
#include "distributed/grpc_service.h"
#include "distributed/master.h"

namespace flowvm {

// `on_shutdown_cluster` runs after ShutdownCluster has answered (it stops
// this server). `master` and `threads` must outlive the serving.
void RegisterMasterMethods(Master* master, CallThreads* threads, std::function<void()> on_shutdown_cluster,
                           GrpcDispatcher* dispatcher);

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_GRPC_MASTER_SERVICE_H_
