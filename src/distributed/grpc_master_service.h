// The master service over gRPC: registers a Master's methods with a
// server's dispatcher. Calls that wait (for tasks to come up, for graphs to
// register) run on threads of their own (CallThreads); a step runs on the
// transport's threads, handing only its blocking work to a call thread.
//
// Feeds and fetches beyond one message's worth (`max_message_bytes` of
// tensor bytes) travel out of band through this server's worker: the
// client puts large feeds there first (PutTensor, under its upload id) and
// pulls large fetches after the answer (RecvTensor, under the step id).
#ifndef FLOWVM_DISTRIBUTED_GRPC_MASTER_SERVICE_H_
#define FLOWVM_DISTRIBUTED_GRPC_MASTER_SERVICE_H_

#include <cstdint>
#include <functional>

#include "distributed/call_threads.h"
#include "distributed/grpc_service.h"
#include "distributed/master.h"
#include "distributed/worker.h"

namespace flowvm {

// `on_shutdown_cluster` runs after ShutdownCluster has answered (it stops
// this server). `master`, `local_worker` (this server's) and `threads` must
// outlive the serving.
void RegisterMasterMethods(Master* master, Worker* local_worker, uint64_t max_message_bytes, CallThreads* threads,
                           std::function<void()> on_shutdown_cluster, GrpcDispatcher* dispatcher);

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_GRPC_MASTER_SERVICE_H_
