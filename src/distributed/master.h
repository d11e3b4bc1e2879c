// Master: the master service of one task (paper 3.2): the client sessions
// it holds, by handle. Independent of the transport (grpc_master_service.h
// puts it on the wire). Methods block, but for RunStepAsync, which blocks
// only in the work it hands to its `offload`; the gRPC service runs those
// on threads of their own. Thread-safe.
#ifndef FLOWVM_DISTRIBUTED_MASTER_H_
#define FLOWVM_DISTRIBUTED_MASTER_H_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/master_session.h"
#include "distributed/worker_cache.h"
#include "flowvm/master.pb.h"

namespace flowvm {

class Master {
 public:
  // `workers` (not owned) reaches every task of the cluster. A session's
  // graph must stay within `limits`.
  Master(WorkerCache* workers, GraphLimits limits);
  ~Master();

  Status CreateSession(const CreateSessionRequest& request, CreateSessionResponse* response);
  Status ExtendSession(const ExtendSessionRequest& request);
  // MasterSession::RunAsync on the request's session.
  void RunStepAsync(const RunStepRequest& request, const std::vector<Tensor>& feeds, RunStepResponse* response,
                    std::vector<Tensor>* fetches, MasterSession::Offload offload, MasterSession::RunDone done);
  Status CloseSession(const CloseSessionRequest& request);
  Status ListDevices(const ListDevicesRequest& request, ListDevicesResponse* response);
  Status Reset(const ResetRequest& request);
  // Asks every other task to shut down, then returns; the caller stops
  // this one.
  Status ShutdownCluster(ShutdownClusterResponse* response);

  // Closes every session (the server is stopping).
  void CloseAll();

 private:
  StatusOr<std::shared_ptr<MasterSession>> Find(const std::string& handle);

  WorkerCache* const workers_;
  const GraphLimits limits_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<MasterSession>> sessions_;
  bool stopped_ = false;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_MASTER_H_
