// The worker service over gRPC: registers a Worker's methods with a
// server's dispatcher, turning envelopes (distributed/wire.h) into calls and
// back. RecvTensor sends a tensor larger than `chunk_bytes` in several
// responses: the first says the whole size and the receiver asks for the
// rest by offset (GrpcRemoteWorker does this), so no message comes near
// protobuf's or gRPC's size limits.
#ifndef FLOWVM_DISTRIBUTED_GRPC_WORKER_SERVICE_H_
#define FLOWVM_DISTRIBUTED_GRPC_WORKER_SERVICE_H_

#include <cstdint>

#include "distributed/grpc_service.h"
#include "distributed/wire.h"
#include "distributed/worker.h"

namespace flowvm {

// `worker` must outlive the dispatcher's serving.
void RegisterWorkerMethods(Worker* worker, uint64_t chunk_bytes, GrpcDispatcher* dispatcher);

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_GRPC_WORKER_SERVICE_H_
