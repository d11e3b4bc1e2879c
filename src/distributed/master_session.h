// MasterSession: one client session on a cluster (paper 3.2). It keeps the
// session's graph, learns the devices of the tasks that take part, and per
// Run signature prunes, places over every device of those tasks,
// partitions, and registers one graph per task with its worker, once
// (cached). A step is then one RunGraph per task with a cluster-unique
// random step id; the first error aborts the step on every task and the
// client gets that error, not the cancellations it caused.
//
// A task that became unreachable or restarted (new incarnation) fails the
// step that meets it; the next Run looks at the cluster again, reports a
// restart once, and registers its partitions anew.
//
// Thread-safe: concurrent Runs share the cache; Close cancels running
// steps and waits for them.
#ifndef FLOWVM_DISTRIBUTED_MASTER_SESSION_H_
#define FLOWVM_DISTRIBUTED_MASTER_SESSION_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "distributed/graph_limits.h"
#include "distributed/worker_cache.h"
#include "flowvm/master.pb.h"
#include "flowvm/session.h"
#include "runtime/cost_model.h"

namespace flowvm {

class MasterSession : public std::enable_shared_from_this<MasterSession> {
 public:
  MasterSession(WorkerCache* workers, std::string handle, const MasterSessionOptions& options, GraphDef graph);
  ~MasterSession();

  // Waits (up to the connect timeout) until every task taking part answers,
  // learns their devices and checks the graph against them. Unavailable
  // listing the tasks that did not answer.
  Status Connect();
  // ResourceExhausted if the extended graph exceeds `limits`.
  Status Extend(const GraphDef& graph, const GraphLimits& limits);
  using Offload = std::function<void(std::function<void()>)>;
  using RunDone = std::function<void(const Status&)>;
  // Runs a step: feeds[i] goes with request.feed(i); fetches get one
  // tensor per fetch. `done` is called once, on any thread, possibly before
  // RunAsync returns; the arguments must outlive it. A step whose signature
  // is prepared never blocks the caller (an RPC transport's thread); work
  // that may block (registering a new signature's graphs, looking at the
  // cluster after a failure) is handed to `offload`, which must run it on a
  // thread that may block.
  void RunAsync(const RunStepRequest& request, const std::vector<Tensor>& feeds, RunStepResponse* response,
                std::vector<Tensor>* fetches, Offload offload, RunDone done);
  // RunAsync that blocks; its blocking work runs on the calling thread.
  Status Run(const RunStepRequest& request, const std::vector<Tensor>& feeds, RunStepResponse* response,
             std::vector<Tensor>* fetches);
  void ListDevices(ListDevicesResponse* response) const;
  Status Reset(const std::vector<std::string>& containers);
  // Aborts running steps, waits for them, deregisters the graphs. The
  // steps fail with Cancelled (the client closed the session), or with
  // `reason` when one is given (the master's server is stopping: the
  // client may retry elsewhere, so not Cancelled).
  Status Close(const Status& reason = Status::OK());

  const std::string& handle() const { return handle_; }

 private:
  struct TaskPart;
  struct Prepared;
  struct StepState;

  // Finds (or, if may_block, makes) the step's prepared graphs. Returns
  // false, having done nothing, if that needs RPCs and !may_block.
  bool PrepareStep(StepState* step, bool may_block, Status* status);
  Status PrepareStepBlocking(StepState* step, bool suspect, const std::string& key);
  // Starts the RunGraph calls; the last to end calls Finish.
  void Launch(const std::shared_ptr<StepState>& step);
  void Finish(const std::shared_ptr<StepState>& step);
  void Complete(const std::shared_ptr<StepState>& step, Status status);
  StatusOr<std::shared_ptr<Prepared>> Prepare(const std::vector<std::string>& feeds,
                                              const std::vector<std::string>& fetches,
                                              const std::vector<std::string>& targets);
  Status RefreshAfterFailure();
  Status FetchStatuses(std::chrono::milliseconds timeout, std::map<std::string, GetStatusResponse>* out,
                       std::map<std::string, Status>* failed);
  // CleanupGraph for the step on the tasks that keep it (all if it failed).
  void Cleanup(const Prepared& prepared, int64_t step_id, bool succeeded);
  void Deregister(const Prepared& prepared);
  // REQUIRES: mu_ held.
  void ScheduleHealthCheck();
  void HealthCheck();

  WorkerCache* const workers_;
  const std::string handle_;
  const MasterSessionOptions options_;
  SessionOptions session_options_;
  std::chrono::milliseconds health_check_interval_;
  std::chrono::milliseconds health_check_timeout_;
  CostModel cost_model_;

  mutable std::mutex mu_;
  GraphDef graph_;
  std::vector<std::string> tasks_;                       // taking part
  std::map<std::string, DeviceAttributes> devices_;      // full name ->
  std::map<std::string, uint64_t> task_incarnations_;
  std::map<std::string, std::shared_ptr<Prepared>> cache_;  // by signature
  std::map<std::string, std::string> pinned_;
  bool suspect_ = false;  // a step failed in a way that may mean a lost task
  bool health_check_scheduled_ = false;
  bool closed_ = false;
  std::set<std::shared_ptr<StepState>> live_;
  std::condition_variable live_cv_;
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_MASTER_SESSION_H_
