#include "distributed/master_session.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <random>
#include <thread>

#include "core/timer.h"
#include "distributed/client_terminated.h"
#include "graph/device_name.h"
#include "graph/function_library.h"
#include "runtime/executor.h"
#include "runtime/feed_fetch_rewrite.h"
#include "runtime/graph_validation.h"
#include "runtime/prepared_step.h"

namespace flowvm {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kControlRpcTimeout = std::chrono::seconds(30);
// After an abort, how long tasks get to report before their calls are cut.
constexpr auto kAbortGrace = std::chrono::seconds(10);
// A step with no deadline still has one on its RPCs (no call waits
// forever); dead peers are found much sooner by keepalive pings.
constexpr auto kStepRpcTimeout = std::chrono::hours(24 * 7);
// While steps run, every task is asked for its status this often, and must
// answer within the timeout (MasterSessionOptions).
constexpr int64_t kDefaultHealthCheckIntervalMs = 2000;
constexpr int64_t kDefaultHealthCheckTimeoutMs = 4000;

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%llx", static_cast<unsigned long long>(v));
  return buf;
}

int64_t NewStepId() {
  thread_local std::mt19937_64 rng([] {
    std::random_device rd;
    return (static_cast<uint64_t>(rd()) << 32) ^ rd() ^
           static_cast<uint64_t>(Clock::now().time_since_epoch().count());
  }());
  int64_t id = 0;
  while (id == 0) id = static_cast<int64_t>(rng() >> 1);  // positive, non-zero
  return id;
}

std::string SignatureKey(const RunStepRequest& r) {
  std::string key;
  for (const auto& f : r.feed()) key.append(f.name()).push_back('\x01');
  key.push_back('\x02');
  for (const auto& f : r.fetch()) key.append(f).push_back('\x01');
  key.push_back('\x02');
  for (const auto& t : r.target()) key.append(t).push_back('\x01');
  return key;
}

}  // namespace

struct MasterSession::TaskPart {
  std::string task;
  WorkerInterface* worker = nullptr;
  std::string graph_handle;
  ClientKeys keys;
  // Peers may fetch tensors of a step from this task, so it keeps the step
  // until CleanupGraph; otherwise the step ends with its RunGraph there.
  bool sends_to_peers = true;
};

struct MasterSession::Prepared {
  std::vector<FeedSpec> feeds;
  StepPlan plan;  // partitions moved out into `parts`
  std::vector<TaskPart> parts;
  std::vector<GraphDef> partition_graphs;
  double prepare_ms = 0;
};

MasterSession::MasterSession(WorkerCache* workers, std::string handle, const MasterSessionOptions& options,
                             GraphDef graph)
    : workers_(workers), handle_(std::move(handle)), options_(options), graph_(std::move(graph)) {
  auto ms_or = [](int64_t ms, int64_t def) { return std::chrono::milliseconds(ms > 0 ? ClampTimeoutMs(ms) : def); };
  health_check_interval_ = ms_or(options.health_check_interval_ms(), kDefaultHealthCheckIntervalMs);
  health_check_timeout_ = ms_or(options.health_check_timeout_ms(), kDefaultHealthCheckTimeoutMs);
  session_options_.allow_soft_placement = options.allow_soft_placement();
  session_options_.schedule_recvs = options.schedule_recvs();
  session_options_.optimizer.common_subexpression_elimination = !options.disable_common_subexpression_elimination();
  session_options_.optimizer.constant_folding = !options.disable_constant_folding();
  session_options_.optimizer.remove_identity_chains = !options.disable_identity_removal();
  session_options_.compress_float_transfers = options.compress_float_transfers();
  for (const TaskId& t : workers_->cluster().Tasks()) {
    const std::string name = t.Name();
    bool keep = options.device_filters().empty();
    for (const std::string& f : options.device_filters()) {
      auto spec = ParseDeviceName(f);
      auto task = ParseDeviceName(name);
      // A filter with a device part ("/job:ps/device:CPU:0") selects tasks
      // by its task part.
      if (spec.ok() && task.ok()) {
        DeviceNameParts task_part = *spec;
        task_part.has_type = task_part.has_id = false;
        if (DeviceSpecMatches(task_part, *task)) keep = true;
      }
    }
    if (keep) tasks_.push_back(name);
  }
}

MasterSession::~MasterSession() { Close().IgnoreError(); }

Status MasterSession::FetchStatuses(std::chrono::milliseconds timeout,
                                    std::map<std::string, GetStatusResponse>* out,
                                    std::map<std::string, Status>* failed) {
  struct Call {
    std::string task;
    CallOptions opts;
    GetStatusRequest request;
    GetStatusResponse response;
    CallWaiter waiter;
    explicit Call(std::chrono::milliseconds t) : opts(t) {}
  };
  std::vector<std::unique_ptr<Call>> calls;
  for (const std::string& task : tasks_) {
    if (out->count(task)) continue;
    auto call = std::make_unique<Call>(timeout);
    call->task = task;
    WorkerInterface* w = workers_->Get(task);
    if (w == nullptr) {
      (*failed)[task] = errors::NotFound("task ", task, " is not in the cluster");
      continue;
    }
    w->GetStatusAsync(&call->opts, &call->request, &call->response, call->waiter.Callback());
    calls.push_back(std::move(call));
  }
  for (auto& call : calls) {
    Status s = call->waiter.Wait();
    if (s.ok()) {
      (*out)[call->task] = std::move(call->response);
      failed->erase(call->task);
    } else {
      (*failed)[call->task] = s;
    }
  }
  return Status::OK();
}

Status MasterSession::Connect() {
  if (tasks_.empty())
    return errors::InvalidArgument("the session's device filters match no task of the cluster: ",
                                   workers_->cluster().Describe());
  const auto timeout = std::chrono::milliseconds(
      options_.connect_timeout_ms() > 0 ? ClampTimeoutMs(options_.connect_timeout_ms()) : 30000);
  const auto deadline = Clock::now() + timeout;
  std::map<std::string, GetStatusResponse> statuses;
  std::map<std::string, Status> failed;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    FLOWVM_RETURN_IF_ERROR(
        FetchStatuses(std::min<std::chrono::milliseconds>(std::max(left, std::chrono::milliseconds(1)),
                                                          std::chrono::milliseconds(2000)),
                      &statuses, &failed));
    if (failed.empty()) break;
    if (Clock::now() >= deadline) {
      std::string list;
      for (const auto& [task, s] : failed) list += "\n  " + workers_->Describe(task) + ": " + s.message();
      return errors::Unavailable("creating the session: ", failed.size(), " of ", tasks_.size(),
                                 " tasks did not answer within ", timeout.count(), " ms:", list);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [task, status] : statuses) {
    if (status.task() != task)
      return errors::FailedPrecondition(workers_->Describe(task), " answers as task '", status.task(),
                                        "': its cluster file disagrees with the master's");
    task_incarnations_[task] = status.incarnation();
    for (const DeviceAttributes& d : status.device()) devices_[d.name()] = d;
  }
  std::vector<PlacementDevice> described;
  for (const auto& [name, d] : devices_) {
    auto parsed = ParseDeviceName(name);
    if (!parsed.ok()) return parsed.status();
    described.push_back({name, *parsed, d.device_type()});
  }
  return ValidateGraphForDevices(graph_, described, options_.allow_soft_placement());
}

Status MasterSession::Extend(const GraphDef& graph, const GraphLimits& limits) {
  std::lock_guard<std::mutex> lock(mu_);
  if (closed_) return errors::FailedPrecondition("Extend on a closed session");
  FLOWVM_RETURN_IF_ERROR(limits.Check(graph_.node_size() + graph.node_size(),
                                      static_cast<int64_t>(graph_.ByteSizeLong() + graph.ByteSizeLong()),
                                      "the graph of session " + handle_ + " after Extend", workers_->local_task()));
  GraphDef merged = graph_;
  FLOWVM_RETURN_IF_ERROR(ExtendGraphDef(graph, &merged).WithContext("Extend"));
  std::vector<PlacementDevice> described;
  for (const auto& [name, d] : devices_) described.push_back({name, *ParseDeviceName(name), d.device_type()});
  Status s = ValidateGraphForDevices(merged, described, options_.allow_soft_placement());
  if (!s.ok()) return s.WithContext("Extend");
  graph_ = std::move(merged);
  return Status::OK();
}

StatusOr<std::shared_ptr<MasterSession::Prepared>> MasterSession::Prepare(const std::vector<std::string>& feeds,
                                                                          const std::vector<std::string>& fetches,
                                                                          const std::vector<std::string>& targets) {
  const auto start = Clock::now();
  auto prepared = std::make_shared<Prepared>();
  GraphDef graph;
  std::map<std::string, std::string> pinned;
  PlanInputs in;
  std::map<std::string, uint64_t> incarnations;
  {
    std::lock_guard<std::mutex> lock(mu_);
    graph = graph_;
    pinned = pinned_;
    for (const auto& [name, d] : devices_) {
      in.devices.push_back({name, *ParseDeviceName(name), d.device_type()});
      incarnations[name] = d.incarnation();
    }
  }
  in.graph = &graph;
  in.incarnation = [&incarnations](const std::string& name) -> uint64_t {
    auto it = incarnations.find(name);
    return it == incarnations.end() ? 0 : it->second;
  };
  in.options = &session_options_;
  in.cost_model = &cost_model_;
  in.pinned = &pinned;
  FLOWVM_ASSIGN_OR_RETURN(prepared->plan, PlanStep(in, feeds, fetches, targets));
  prepared->feeds = prepared->plan.feeds;

  // One graph per task: the partitions of its devices, with the feeds and
  // fetches made client-terminated.
  std::map<std::string, GraphDef> by_task;
  std::map<std::string, ClientKeys> keys;
  for (auto& [device, def] : prepared->plan.partitions) {
    auto parsed = ParseDeviceName(device);
    if (!parsed.ok()) return parsed.status();
    const std::string task = DeviceTaskName(*parsed);
    FLOWVM_RETURN_IF_ERROR(MakeClientTerminated(device, incarnations[device], feeds, fetches, &def, &keys[task]));
    GraphDef& g = by_task[task];
    for (NodeDef& n : *def.mutable_node()) *g.add_node() = std::move(n);
    if (def.has_versions()) *g.mutable_versions() = def.versions();
    if (def.has_library()) *g.mutable_library() = def.library();
  }
  prepared->plan.partitions.clear();

  struct Registration {
    TaskPart part;
    CallOptions opts{kControlRpcTimeout};
    RegisterGraphRequest request;
    RegisterGraphResponse response;
    CallWaiter waiter;
  };
  std::vector<std::unique_ptr<Registration>> regs;
  for (auto& [task, def] : by_task) {
    auto r = std::make_unique<Registration>();
    r->part.task = task;
    r->part.worker = workers_->Get(task);
    r->part.keys = std::move(keys[task]);
    if (r->part.worker == nullptr) return errors::NotFound("task ", task, " is not in the cluster");
    r->request.set_session_handle(handle_);
    for (const std::string& t : options_.compressed_tensors()) r->request.add_compressed_tensor(t);
    r->request.set_max_step_memory_bytes(options_.max_step_memory_bytes());
    for (const NodeDef& n : def.node())
      if (!n.device().empty() && incarnations.count(n.device())) {
        bool listed = false;
        for (const auto& e : r->request.expected_device()) listed = listed || e.name() == n.device();
        if (!listed) {
          DeviceAttributes* e = r->request.add_expected_device();
          e->set_name(n.device());
          e->set_incarnation(incarnations[n.device()]);
        }
      }
    r->part.sends_to_peers = SendsToOtherTasks(def, task);
    prepared->partition_graphs.push_back(def);
    *r->request.mutable_graph_def() = std::move(def);
    // One protobuf message (the client's graph was under the limit, but a
    // task's part grows by its Send and Recv nodes).
    if (r->request.ByteSizeLong() >= (size_t{1} << 31) - (size_t{1} << 20))
      return errors::InvalidArgument("the graph of ", task, " is ", r->request.ByteSizeLong(),
                                     " bytes, more than a protobuf can hold (2 GiB): keep large constants in "
                                     "variables and feed or restore their values");
    regs.push_back(std::move(r));
  }
  for (auto& r : regs) r->part.worker->RegisterGraphAsync(&r->opts, &r->request, &r->response, r->waiter.Callback());
  Status status;
  for (auto& r : regs) {
    Status s = r->waiter.Wait();
    if (!s.ok() && status.ok()) status = s.WithContext("registering the step's graph with " +
                                                        workers_->Describe(r->part.task));
    r->part.graph_handle = r->response.graph_handle();
    prepared->parts.push_back(std::move(r->part));
  }
  if (!status.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    suspect_ = true;
    return status;
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [node, device] : prepared->plan.stateful_placements) pinned_.try_emplace(node, device);
  }
  prepared->prepare_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return prepared;
}

Status MasterSession::RefreshAfterFailure() {
  std::map<std::string, GetStatusResponse> statuses;
  std::map<std::string, Status> failed;
  // No longer than a health check may take: a step failed by a hung task
  // is reported within the health-check bound, not after another 2 s.
  const auto timeout = std::min<std::chrono::milliseconds>(
      std::chrono::milliseconds(2000), std::chrono::duration_cast<std::chrono::milliseconds>(health_check_timeout_));
  FLOWVM_RETURN_IF_ERROR(FetchStatuses(timeout, &statuses, &failed));
  if (!failed.empty()) {
    std::string list;
    for (const auto& [task, s] : failed) list += (list.empty() ? "" : "; ") + workers_->Describe(task) + ": " + s.message();
    return errors::Unavailable("the cluster is not whole: ", list);
  }
  std::string restarted;
  std::map<std::string, std::shared_ptr<Prepared>> stale;
  std::unique_lock<std::mutex> lock(mu_);
  for (auto& [task, status] : statuses) {
    const uint64_t before = task_incarnations_[task];
    if (before != status.incarnation())
      restarted += (restarted.empty() ? "" : ", ") + task + " (incarnation " + Hex(before) + " -> " +
                   Hex(status.incarnation()) + ")";
    task_incarnations_[task] = status.incarnation();
    for (const DeviceAttributes& d : status.device()) devices_[d.name()] = d;
  }
  // Registrations may be gone with a restarted task; register anew (and
  // free what the tasks that stayed up still hold).
  stale.swap(cache_);
  suspect_ = false;
  lock.unlock();
  for (const auto& [key, prepared] : stale) Deregister(*prepared);
  if (!restarted.empty())
    return errors::Aborted("since the last step, task ", restarted,
                           " restarted: the state it held (variables, queues) is gone; the next step registers "
                           "its graphs again");
  return Status::OK();
}

void MasterSession::Cleanup(const Prepared& prepared, int64_t step_id, bool succeeded) {
  for (const TaskPart& part : prepared.parts) {
    // Its step ended with its RunGraph (worker.h). A failed step may have
    // left state anywhere (an AbortStep that came late): clean up all.
    if (succeeded && !part.sends_to_peers) continue;
    struct Call {
      CallOptions opts{std::chrono::seconds(10)};
      CleanupGraphRequest request;
      CleanupGraphResponse response;
    };
    auto* call = new Call;
    call->request.add_step_id(step_id);
    part.worker->CleanupGraphAsync(&call->opts, &call->request, &call->response,
                                   [call](const Status&) { delete call; });
  }
}

// One running step: its RunGraph calls and what they said. Shared by the
// calls' callbacks, the deadline and abort-grace timers, and Close and the
// health checks (through live_).
struct MasterSession::StepState : std::enable_shared_from_this<MasterSession::StepState> {
  struct Outcome {
    Status status;
    bool derived = false;
    std::string task;
  };

  std::shared_ptr<MasterSession> keep_alive;  // null for a session not owned by a shared_ptr
  const RunStepRequest* request = nullptr;
  const std::vector<Tensor>* feed_values = nullptr;
  RunStepResponse* response = nullptr;
  std::vector<Tensor>* fetches = nullptr;
  Offload offload;
  RunDone done;
  Clock::time_point start;
  bool hit = false;
  std::shared_ptr<Prepared> prepared;
  int64_t id = 0;
  int64_t timeout_ms = 0;
  std::vector<RunGraphCall> calls;
  std::vector<std::shared_ptr<CallOptions>> call_options;

  std::mutex mu;
  int remaining = 0;
  bool aborted = false;
  // A health check found a task that does not answer: the step's failure
  // is known, and is reported without first asking every task again.
  std::atomic<bool> task_hung{false};
  std::vector<Outcome> errors;
  Timer::Token deadline = 0;
  Timer::Token grace = 0;

  // Tells every task but `except` (the one that failed) to abort the step.
  void AbortTasks(const Status& reason, const std::string& except) {
    for (const TaskPart& part : prepared->parts) {
      if (part.task == except) continue;
      struct Call {
        CallOptions opts{std::chrono::seconds(5)};
        AbortStepRequest request;
        AbortStepResponse response;
      };
      auto* call = new Call;
      call->request.set_step_id(id);
      call->request.set_status_code(static_cast<int>(reason.code()));
      call->request.set_status_message(reason.message());
      part.worker->AbortStepAsync(&call->opts, &call->request, &call->response,
                                  [call](const Status&) { delete call; });
    }
  }

  // REQUIRES: mu held, the step just aborted. Tasks get kAbortGrace to
  // answer; the calls of those that do not are cut.
  void StartGraceLocked() {
    std::weak_ptr<StepState> weak = weak_from_this();
    grace = Timer::Global()->Schedule(Clock::now() + kAbortGrace, [weak] {
      if (auto step = weak.lock())
        for (auto& c : step->call_options) c->StartCancel();
    });
  }

  // An abort from outside the calls: Close, a health check, the deadline.
  // A `culprit` task (hung, cut off) will not answer: its call is cut at
  // once, so the client hears now, not when a keepalive gives up.
  void Abort(const Status& reason, const std::string& culprit = "") {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (aborted || remaining == 0) return;
      aborted = true;
      errors.push_back({reason, false, culprit});
      StartGraceLocked();
    }
    AbortTasks(reason, culprit);
    for (size_t i = 0; i < prepared->parts.size(); ++i)
      if (!culprit.empty() && prepared->parts[i].task == culprit) call_options[i]->StartCancel();
  }

  // One task's RunGraph ended. Returns true if it was the last.
  bool CallDone(size_t i, const Status& transport) {
    const RunGraphCall& call = calls[i];
    const std::string& task = prepared->parts[i].task;
    Status s = transport;
    bool derived = false;
    if (s.ok() && call.response.status_code() != 0) {
      s = Status(static_cast<Code>(call.response.status_code()), call.response.status_message());
      derived = call.response.derived_error();
    }
    bool first = false, last;
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!s.ok()) {
        errors.push_back({s, derived, task});
        if (!aborted) {
          first = aborted = true;
          if (remaining > 1) StartGraceLocked();
        }
      }
      last = --remaining == 0;
    }
    if (first && !last) AbortTasks(s, task);
    return last;
  }

  // The error to report: the first that is a cause, not a consequence.
  Status PickError() {
    std::lock_guard<std::mutex> lock(mu);
    const Outcome* pick = nullptr;
    for (const Outcome& o : errors)
      if (!o.derived && pick == nullptr) pick = &o;
    if (pick == nullptr && !errors.empty()) pick = &errors.front();
    if (pick == nullptr) return Status::OK();
    Status status = pick->status;
    if (!pick->task.empty() && status.message().find(pick->task) == std::string::npos)
      status = status.WithContext("on task " + pick->task);
    if (status.code() == Code::kDeadlineExceeded) {
      // Say what every task was still running.
      std::vector<std::string> running;
      for (const RunGraphCall& call : calls)
        for (const std::string& r : call.response.still_running()) running.push_back(r);
      if (!running.empty() && status.message().find("still running") == std::string::npos)
        status = Status(status.code(), status.message() + StepInFlight::StillRunning(running));
    }
    return status;
  }
};

Status MasterSession::Run(const RunStepRequest& request, const std::vector<Tensor>& feeds, RunStepResponse* response,
                          std::vector<Tensor>* fetches) {
  // The step's blocking work runs on this thread, which waits anyway.
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::function<void()>> work;
  bool finished = false;
  Status result;
  RunAsync(
      request, feeds, response, fetches,
      [&](std::function<void()> fn) {
        std::lock_guard<std::mutex> lock(mu);
        work.push_back(std::move(fn));
        cv.notify_all();
      },
      [&](const Status& s) {
        std::lock_guard<std::mutex> lock(mu);
        result = s;
        finished = true;
        cv.notify_all();
      });
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    cv.wait(lock, [&] { return finished || !work.empty(); });
    if (finished) return result;
    std::function<void()> fn = std::move(work.front());
    work.pop_front();
    lock.unlock();
    fn();
    lock.lock();
  }
}

void MasterSession::RunAsync(const RunStepRequest& request, const std::vector<Tensor>& feeds,
                             RunStepResponse* response, std::vector<Tensor>* fetches, Offload offload, RunDone done) {
  auto step = std::make_shared<StepState>();
  step->keep_alive = weak_from_this().lock();
  step->request = &request;
  step->feed_values = &feeds;
  step->response = response;
  step->fetches = fetches;
  step->offload = std::move(offload);
  step->done = std::move(done);
  step->start = Clock::now();
  Status s;
  if (!PrepareStep(step.get(), /*may_block=*/false, &s)) {
    step->offload([this, step] {
      Status s;
      PrepareStep(step.get(), /*may_block=*/true, &s);
      if (!s.ok()) return step->done(s);
      Launch(step);
    });
    return;
  }
  if (!s.ok()) return step->done(s);
  Launch(step);
}

bool MasterSession::PrepareStep(StepState* step, bool may_block, Status* status) {
  const RunStepRequest& request = *step->request;
  const std::string key = SignatureKey(request);
  bool suspect;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) {
      *status = errors::FailedPrecondition("Run on a closed session");
      return true;
    }
    suspect = suspect_;
    auto it = cache_.find(key);
    if (it != cache_.end()) step->prepared = it->second;
  }
  // A look at the cluster and a new signature's registration are RPCs.
  if (!may_block && (suspect || step->prepared == nullptr)) return false;
  *status = PrepareStepBlocking(step, suspect, key);
  return true;
}

Status MasterSession::PrepareStepBlocking(StepState* step, bool suspect, const std::string& key) {
  const RunStepRequest& request = *step->request;
  if (suspect) {
    FLOWVM_RETURN_IF_ERROR(RefreshAfterFailure());
    step->prepared = nullptr;  // the cache may have been cleared
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(key);
    if (it != cache_.end()) step->prepared = it->second;
  }
  if (request.options().timeout_in_ms() < 0)
    return errors::InvalidArgument("RunOptions.timeout_in_ms must be >= 0, got ", request.options().timeout_in_ms());
  step->hit = step->prepared != nullptr;
  if (!step->hit) {
    std::vector<std::string> feeds, fetch, targets;
    for (const auto& f : request.feed()) feeds.push_back(f.name());
    fetch.assign(request.fetch().begin(), request.fetch().end());
    targets.assign(request.target().begin(), request.target().end());
    std::shared_ptr<Prepared> prepared;
    FLOWVM_ASSIGN_OR_RETURN(prepared, Prepare(feeds, fetch, targets));
    std::shared_ptr<Prepared> loser;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto [it, inserted] = cache_.emplace(key, prepared);
      if (!inserted) {
        // Another Run prepared the same signature first: use its graphs.
        loser = std::move(prepared);
        prepared = it->second;
      }
    }
    if (loser != nullptr) Deregister(*loser);
    step->prepared = std::move(prepared);
  }
  std::vector<std::pair<std::string, Tensor>> named;
  for (int i = 0; i < request.feed_size(); ++i) named.emplace_back(request.feed(i).name(), (*step->feed_values)[i]);
  return CheckFeedValues(step->prepared->feeds, named);
}

void MasterSession::Launch(const std::shared_ptr<StepState>& step) {
  const RunStepRequest& request = *step->request;
  const RunOptions& run_options = request.options();
  const Prepared& prepared = *step->prepared;
  step->id = NewStepId();
  step->timeout_ms = ClampTimeoutMs(run_options.timeout_in_ms());
  const size_t n = prepared.parts.size();
  step->remaining = static_cast<int>(n);
  step->calls.resize(n);
  const auto rpc_timeout = step->timeout_ms > 0
                               ? std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::milliseconds(step->timeout_ms) + kAbortGrace)
                               : std::chrono::duration_cast<Clock::duration>(kStepRpcTimeout);
  for (size_t i = 0; i < n; ++i) {
    step->call_options.push_back(std::make_shared<CallOptions>(rpc_timeout));
    const TaskPart& part = prepared.parts[i];
    RunGraphCall& call = step->calls[i];
    call.request.set_session_handle(handle_);
    call.request.set_graph_handle(part.graph_handle);
    call.request.set_step_id(step->id);
    call.request.set_trace_level(run_options.trace_level());
    // The master enforces the deadline; the workers' own, a little later,
    // is for a master that went away.
    if (step->timeout_ms > 0) call.request.set_timeout_in_ms(step->timeout_ms + 2000);
    call.request.set_compress_float_transfers(options_.compress_float_transfers());
    for (const auto& [index, k] : part.keys.feeds) {
      NamedTensorMeta* m = call.request.add_send();
      m->set_name(k);
      call.send_tensors.push_back((*step->feed_values)[index]);
    }
    for (const auto& [index, k] : part.keys.fetches) call.request.add_recv_key(k);
  }
  {
    // Visible to Close and the health checks from here on.
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return step->done(errors::FailedPrecondition("Run on a closed session"));
    live_.insert(step);
    if (!health_check_scheduled_) {
      health_check_scheduled_ = true;
      ScheduleHealthCheck();
    }
  }
  if (step->timeout_ms > 0) {
    const int64_t ms = step->timeout_ms;
    std::weak_ptr<StepState> weak = step;
    std::lock_guard<std::mutex> lock(step->mu);
    step->deadline = Timer::Global()->Schedule(Clock::now() + std::chrono::milliseconds(ms), [weak, ms] {
      if (auto s = weak.lock()) s->Abort(errors::DeadlineExceeded("step ", s->id, " exceeded its deadline of ", ms, " ms"));
    });
  }
  if (n == 0) return Finish(step);
  for (size_t i = 0; i < n; ++i) {
    prepared.parts[i].worker->RunGraphAsync(step->call_options[i].get(), &step->calls[i],
                                            [this, step, i](const Status& s) {
                                              if (step->CallDone(i, s)) Finish(step);
                                            });
  }
}

void MasterSession::Finish(const std::shared_ptr<StepState>& step) {
  Timer::Token deadline, grace;
  {
    std::lock_guard<std::mutex> lock(step->mu);
    deadline = step->deadline;
    grace = step->grace;
  }
  if (deadline != 0) Timer::Global()->Cancel(deadline);
  if (grace != 0) Timer::Global()->Cancel(grace);
  Status status = step->PickError();
  if (status.code() == Code::kUnavailable || status.code() == Code::kAborted) {
    // A lost or restarted task: look now (RPCs), so that a restart is
    // reported by this step (once) and the next one registers anew.
    {
      std::lock_guard<std::mutex> lock(mu_);
      suspect_ = true;
    }
    // A hung task would hold the look up for a whole timeout, beyond the
    // health-check bound; the next step looks (suspect_) instead.
    if (step->task_hung && status.code() == Code::kUnavailable) {
      Complete(step, status);
      return;
    }
    step->offload([this, step, status]() mutable {
      Status refreshed = RefreshAfterFailure();
      if (refreshed.code() == Code::kAborted) status = refreshed;
      Complete(step, status);
    });
    return;
  }
  Complete(step, status);
}

void MasterSession::Complete(const std::shared_ptr<StepState>& step, Status status) {
  const Prepared& prepared = *step->prepared;
  const RunStepRequest& request = *step->request;
  const RunOptions& run_options = request.options();
  const size_t n = prepared.parts.size();
  Cleanup(prepared, step->id, status.ok());

  RunStepStats* stats = step->response->mutable_stats();
  stats->set_step_id(step->id);
  stats->set_cache_hit(step->hit);
  stats->set_graph_nodes(prepared.plan.graph_nodes);
  stats->set_executed_nodes(prepared.plan.executed_nodes);
  stats->set_partitions(static_cast<int>(n));
  stats->set_prepare_ms(step->hit ? 0 : prepared.prepare_ms);
  stats->set_run_ms(std::chrono::duration<double, std::milli>(Clock::now() - step->start).count());
  int64_t out_of_band = 0;
  for (const RunGraphCall& call : step->calls) out_of_band += static_cast<int64_t>(call.out_of_band_bytes);
  stats->set_out_of_band_bytes(out_of_band);
  for (const auto& p : prepared.plan.pruned) stats->add_pruned(p);
  if (!step->hit) {
    for (const auto& l : prepared.plan.optimizations) stats->add_optimizations(l);
    for (const auto& l : prepared.plan.placement) stats->add_placement(l);
    for (const auto& l : prepared.plan.transfers) stats->add_transfers(l);
    for (const auto& l : prepared.plan.scheduled_recvs) stats->add_scheduled_recvs(l);
  }
  if (run_options.trace_level() != RunOptions::NO_TRACE)
    for (const RunGraphCall& call : step->calls)
      for (const DeviceStepStats& d : call.response.step_stats().dev_stats())
        *step->response->mutable_metadata()->mutable_step_stats()->add_dev_stats() = d;
  if (run_options.output_partition_graphs())
    for (const GraphDef& g : prepared.partition_graphs)
      *step->response->mutable_metadata()->add_partition_graphs() = g;

  std::vector<Tensor>* fetches = step->fetches;
  if (status.ok()) {
    fetches->assign(request.fetch_size(), Tensor());
    for (size_t i = 0; i < n && status.ok(); ++i) {
      const TaskPart& part = prepared.parts[i];
      const RunGraphCall& call = step->calls[i];
      if (call.recv_tensors.size() != part.keys.fetches.size()) {
        status = errors::Internal(workers_->Describe(part.task), " returned ", call.recv_tensors.size(),
                                  " fetches, not ", part.keys.fetches.size());
        break;
      }
      for (size_t j = 0; j < part.keys.fetches.size(); ++j)
        (*fetches)[part.keys.fetches[j].first] = call.recv_tensors[j];
    }
    for (int i = 0; status.ok() && i < request.fetch_size(); ++i)
      if (!(*fetches)[i].IsInitialized()) status = errors::Internal("fetch '", request.fetch(i), "' produced no value");
  }
  RunDone done = std::move(step->done);
  {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(step);
    if (live_.empty()) live_cv_.notify_all();
  }
  done(status);
}

void MasterSession::ScheduleHealthCheck() {
  std::weak_ptr<MasterSession> weak = weak_from_this();
  if (weak.expired()) {  // not owned by a shared_ptr: a probe, which runs no steps
    health_check_scheduled_ = false;
    return;
  }
  Timer::Global()->Schedule(Clock::now() + health_check_interval_, [weak] {
    if (auto self = weak.lock()) self->HealthCheck();
  });
}

// Asks every task for its status; one that does not answer in time, or
// answers with a new incarnation, fails the steps in flight at once (a
// step may otherwise wait on a hung task until its RPCs notice).
void MasterSession::HealthCheck() {
  struct Probe {
    std::string task;
    CallOptions opts;
    GetStatusRequest request;
    GetStatusResponse response;
    explicit Probe(std::chrono::milliseconds timeout) : opts(timeout) {}
  };
  struct Round {
    std::weak_ptr<MasterSession> session;
    std::atomic<int> remaining{0};
  };
  std::vector<std::string> tasks;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (live_.empty() || closed_) {
      health_check_scheduled_ = false;
      return;
    }
    tasks = tasks_;
  }
  auto round = std::make_shared<Round>();
  round->session = weak_from_this();
  round->remaining = static_cast<int>(tasks.size());
  for (const std::string& task : tasks) {
    WorkerInterface* w = workers_->Get(task);
    auto* probe = new Probe(health_check_timeout_);
    probe->task = task;
    auto done = [probe, round](const Status& s) {
      std::unique_ptr<Probe> owned(probe);
      auto self = round->session.lock();
      if (self == nullptr) return;
      Status failure;
      if (!s.ok()) {
        const auto ms = self->health_check_timeout_.count();
        failure = s.code() == Code::kDeadlineExceeded
                      ? errors::Unavailable(self->workers_->Describe(owned->task), " failed a health check: no answer ",
                                            "within ", ms, " ms (hung, or cut off from the master)")
                      : errors::Unavailable("health check: ", s.message());
      } else {
        std::lock_guard<std::mutex> lock(self->mu_);
        auto it = self->task_incarnations_.find(owned->task);
        if (it != self->task_incarnations_.end() && it->second != owned->response.incarnation()) {
          failure = errors::Aborted(owned->task, " restarted during the step (incarnation ", Hex(it->second), " -> ",
                                    Hex(owned->response.incarnation()), "): the state it held is gone");
          self->suspect_ = true;
        }
      }
      std::vector<std::shared_ptr<StepState>> to_abort;
      std::unique_lock<std::mutex> lock(self->mu_);
      if (!failure.ok()) {
        self->suspect_ = true;
        to_abort.assign(self->live_.begin(), self->live_.end());
        // Not under mu_: an abort may end a step at once, and its end
        // takes mu_.
        lock.unlock();
        const bool hung = !s.ok() && s.code() == Code::kDeadlineExceeded;
        for (const auto& step : to_abort) {
          if (hung) step->task_hung = true;
          step->Abort(failure, owned->task);
        }
        lock.lock();
      }
      if (--round->remaining == 0) {
        if (!self->live_.empty() && !self->closed_) {
          self->ScheduleHealthCheck();
        } else {
          self->health_check_scheduled_ = false;
        }
      }
    };
    if (w == nullptr) {
      done(errors::NotFound("not in the cluster"));
      continue;
    }
    w->GetStatusAsync(&probe->opts, &probe->request, &probe->response, done);
  }
}

void MasterSession::ListDevices(ListDevicesResponse* response) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, d] : devices_) *response->add_device() = d;
}

Status MasterSession::Reset(const std::vector<std::string>& containers) {
  struct Call {
    CallOptions opts{kControlRpcTimeout};
    ResetContainersRequest request;
    ResetContainersResponse response;
    CallWaiter waiter;
    std::string task;
  };
  std::vector<std::unique_ptr<Call>> calls;
  for (const std::string& task : tasks_) {
    auto call = std::make_unique<Call>();
    call->task = task;
    for (const std::string& c : containers) call->request.add_container(c);
    WorkerInterface* w = workers_->Get(task);
    if (w == nullptr) continue;
    w->ResetContainersAsync(&call->opts, &call->request, &call->response, call->waiter.Callback());
    calls.push_back(std::move(call));
  }
  Status status;
  for (auto& c : calls) {
    Status s = c->waiter.Wait();
    if (!s.ok()) status.Update(s.WithContext("resetting containers on " + workers_->Describe(c->task)));
  }
  return status;
}

Status MasterSession::Close(const Status& reason) {
  std::map<std::string, std::shared_ptr<Prepared>> cache;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (!closed_) {
      closed_ = true;
      std::vector<std::shared_ptr<StepState>> running(live_.begin(), live_.end());
      lock.unlock();  // an abort may end a step at once, and its end takes mu_
      for (const auto& s : running)
        s->Abort(reason.ok() ? errors::Cancelled("the session was closed while step ", s->id, " was running")
                             : Status(reason.code(), reason.message() + " while step " + std::to_string(s->id) +
                                                         " was running"));
      lock.lock();
    }
    live_cv_.wait(lock, [this] { return live_.empty(); });
    cache.swap(cache_);
  }
  for (const auto& [key, prepared] : cache) Deregister(*prepared);
  return Status::OK();
}

// Best effort: a task that is gone has nothing left to free.
void MasterSession::Deregister(const Prepared& prepared) {
  for (const TaskPart& part : prepared.parts) {
    if (part.graph_handle.empty()) continue;
    struct Call {
      CallOptions opts{std::chrono::seconds(5)};
      DeregisterGraphRequest request;
      DeregisterGraphResponse response;
    };
    auto* call = new Call;
    call->request.set_session_handle(handle_);
    call->request.set_graph_handle(part.graph_handle);
    part.worker->DeregisterGraphAsync(&call->opts, &call->request, &call->response,
                                      [call](const Status&) { delete call; });
  }
}

}  // namespace flowvm
