#include "distributed/worker.h"

#include <chrono>
#include <cstdio>
#include <set>

#include "core/timer.h"
#include "distributed/client_terminated.h"
#include "distributed/wire.h"
#include "graph/device_name.h"
#include "graph/graph.h"
#include "runtime/function_runtime.h"
#include "runtime/step_stats_collector.h"

namespace flowvm {

namespace {

using Clock = std::chrono::steady_clock;

// A step no master ran here (only peers' RecvTensors or an AbortStep named
// it), or one whose master never cleaned it up, is dropped after this long.
constexpr auto kIdleStepLifetime = std::chrono::minutes(10);
constexpr auto kIdleScanInterval = std::chrono::seconds(30);

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

}  // namespace

struct Worker::Graph {
  std::string session;
  std::set<std::string> compressed_tensors;
  // No peer ever asks this task for a tensor of this graph's steps: a step
  // ends with its RunGraph (no CleanupGraph comes for it).
  bool ends_with_run = false;
  // A step's tensor bytes on this task: the session's limit or the
  // server's, whichever is lower (0: none).
  int64_t step_memory_limit = 0;
  std::string step_memory_what;
  struct Part {
    Device* device = nullptr;
    std::shared_ptr<FunctionLibraryRuntime> functions;  // outlives the executor's kernels
    std::unique_ptr<Executor> executor;
  };
  std::vector<Part> parts;
};

struct Worker::Step {
  explicit Step(const RendezvousEnv* env, int64_t id)
      : id(id), rendezvous(std::make_shared<RemoteRendezvous>(env, id)), touched(Clock::now()) {}
  ~Step() {
    if (deadline != 0) Timer::Global()->Cancel(deadline);
  }
  void Abort(const Status& s) {
    if (s.code() == Code::kDeadlineExceeded) {
      // What the deadline interrupted, for the client's error.
      std::vector<std::string> running = in_flight.Describe();
      std::lock_guard<std::mutex> lock(mu);
      if (running_at_deadline.empty()) running_at_deadline = std::move(running);
    }
    cancellation.StartCancel(s);
    rendezvous->StartAbort(s);
  }

  const int64_t id;
  CancellationManager cancellation;
  StepResources resources;
  std::shared_ptr<RemoteRendezvous> rendezvous;
  StepInFlight in_flight;

  std::mutex mu;
  bool ran = false;
  bool aborted_from_outside = false;  // by the master, or this task stopping
  std::map<std::string, Tensor> parked;
  std::map<std::string, std::unique_ptr<ChunkedTensor>> uploads;  // PutTensor chunks so far
  bool holding_only = false;  // made by ParkTensor or PutTensorChunk, not used by a step's calls
  std::vector<std::string> running_at_deadline;
  Clock::time_point touched;
  Timer::Token deadline = 0;
};

Worker::Worker(WorkerEnv env) : env_(std::move(env)), incarnation_(NewIncarnation()) {
  rendezvous_env_.devices = env_.devices;
  rendezvous_env_.task = env_.task;
  rendezvous_env_.worker_for = env_.worker_for;
}

Worker::~Worker() { StopAndWait(errors::Cancelled("task ", env_.task, " is shutting down")); }

void Worker::StopAndWait(const Status& reason) {
  AbortAll(reason);
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock, [this] { return running_ == 0; });
}

std::shared_ptr<Worker::Step> Worker::FindOrCreateStep(int64_t step_id, bool holding) {
  RemoveIdleSteps();
  std::lock_guard<std::mutex> lock(mu_);
  auto& slot = steps_[step_id];
  bool created = false;
  if (slot == nullptr) {
    created = true;
    slot = std::make_shared<Step>(&rendezvous_env_, step_id);
    if (!stopped_.ok()) {
      slot->aborted_from_outside = true;
      slot->Abort(stopped_);
    }
  }
  std::lock_guard<std::mutex> step_lock(slot->mu);
  slot->touched = Clock::now();
  if (created) slot->holding_only = holding;
  if (!holding) slot->holding_only = false;
  return slot;
}

void Worker::RemoveIdleSteps() {
  const int64_t now_ns = Clock::now().time_since_epoch().count();
  int64_t last = last_scan_ns_.load(std::memory_order_relaxed);
  if (now_ns - last < std::chrono::nanoseconds(kIdleScanInterval).count()) return;
  if (!last_scan_ns_.compare_exchange_strong(last, now_ns)) return;
  std::vector<std::shared_ptr<Step>> idle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto it = steps_.begin(); it != steps_.end();) {
      std::lock_guard<std::mutex> step_lock(it->second->mu);
      if (Clock::now() - it->second->touched > kIdleStepLifetime) {
        idle.push_back(it->second);
        it = steps_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (auto& s : idle)
    s->Abort(errors::Aborted("step ", s->id, " on ", env_.task, " was idle for ",
                             std::chrono::duration_cast<std::chrono::minutes>(kIdleStepLifetime).count(),
                             " minutes and was dropped"));
}

size_t Worker::live_steps() const {
  std::lock_guard<std::mutex> lock(mu_);
  return steps_.size();
}

void Worker::GetStatusAsync(CallOptions*, const GetStatusRequest*, GetStatusResponse* response, Done done) {
  for (const Device* d : env_.devices->devices()) {
    DeviceAttributes* a = response->add_device();
    a->set_name(d->name());
    a->set_device_type(d->device_type());
    a->set_incarnation(d->incarnation());
    const AllocatorStats stats = d->allocator()->GetStats();
    a->set_bytes_in_use(stats.bytes_in_use);
    a->set_peak_bytes_in_use(stats.peak_bytes_in_use);
  }
  response->set_task(env_.task);
  response->set_incarnation(incarnation_);
  done(Status::OK());
}

void Worker::RegisterGraphAsync(CallOptions*, const RegisterGraphRequest* request, RegisterGraphResponse* response,
                                Done done) {
  Status fits = env_.graph_limits.Check(request->graph_def(), "a partition of session " + request->session_handle(),
                                        env_.task);
  if (!fits.ok()) return done(fits);
  for (const DeviceAttributes& expected : request->expected_device()) {
    auto d = env_.devices->Lookup(expected.name());
    if (!d.ok()) return done(d.status().WithContext("RegisterGraph on " + env_.task));
    if ((*d)->incarnation() != expected.incarnation())
      return done(errors::Aborted("task ", env_.task, " restarted: device ", expected.name(), " has incarnation ",
                                  Hex((*d)->incarnation()), ", the master expected ", Hex(expected.incarnation())));
  }
  // One GraphDef per device of this task.
  std::map<std::string, GraphDef> by_device;
  for (const NodeDef& n : request->graph_def().node()) {
    auto d = env_.devices->Lookup(n.device());
    if (!d.ok())
      return done(errors::InvalidArgument("node '", n.name(), "' is placed on '", n.device(), "', not a device of ",
                                          env_.task, " (", env_.devices->ListNames(), ")"));
    GraphDef& g = by_device[(*d)->name()];
    *g.add_node() = n;
  }
  auto graph = std::make_shared<Graph>();
  graph->session = request->session_handle();
  graph->compressed_tensors.insert(request->compressed_tensor().begin(), request->compressed_tensor().end());
  graph->ends_with_run = !SendsToOtherTasks(request->graph_def(), env_.task);
  const int64_t session_limit = request->max_step_memory_bytes();
  if (session_limit > 0 && (env_.max_step_memory_bytes <= 0 || session_limit < env_.max_step_memory_bytes)) {
    graph->step_memory_limit = session_limit;
    graph->step_memory_what = "the session's max_step_memory_bytes";
  } else if (env_.max_step_memory_bytes > 0) {
    graph->step_memory_limit = env_.max_step_memory_bytes;
    graph->step_memory_what = "max_step_memory_bytes of task " + env_.task;
  }
  for (auto& [device_name, def] : by_device) {
    if (request->graph_def().has_versions()) *def.mutable_versions() = request->graph_def().versions();
    if (request->graph_def().has_library()) *def.mutable_library() = request->graph_def().library();
    Device* device = *env_.devices->Lookup(device_name);
    auto g = std::make_unique<flowvm::Graph>();
    g->set_allow_internal_names(true);
    Status s = ConvertGraphDefToGraph(def, g.get());
    if (!s.ok()) return done(s.WithContext("RegisterGraph on " + device_name));
    ExecutorOptions options;
    options.device = device;
    options.pool = env_.pool;
    std::shared_ptr<FunctionLibraryRuntime> functions;
    if (!g->library().empty()) {
      functions = DeviceFunctionRuntime::Create(device, g->shared_library());
      options.function_library = functions.get();
    }
    auto executor = Executor::Create(std::move(g), options);
    if (!executor.ok()) return done(executor.status().WithContext("RegisterGraph on " + device_name));
    graph->parts.push_back({device, std::move(functions), std::move(*executor)});
  }
  std::string handle;
  {
    std::lock_guard<std::mutex> lock(mu_);
    handle = Hex(incarnation_) + "/" + std::to_string(next_graph_++);
    graphs_[handle] = std::move(graph);
  }
  response->set_graph_handle(handle);
  done(Status::OK());
}

void Worker::DeregisterGraphAsync(CallOptions*, const DeregisterGraphRequest* request, DeregisterGraphResponse*,
                                  Done done) {
  std::shared_ptr<Graph> graph;  // destroyed outside the lock
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(request->graph_handle());
    if (it == graphs_.end())
      return done(errors::NotFound("graph handle '", request->graph_handle(), "' is not registered on ", env_.task));
    graph = std::move(it->second);
    graphs_.erase(it);
  }
  done(Status::OK());
}

void Worker::RunGraphAsync(CallOptions*, RunGraphCall* call, Done done) {
  RunGraphResponse* response = &call->response;
  response->set_task(env_.task);
  auto fail = [&](const Status& s, bool derived) {
    response->set_status_code(static_cast<int>(s.code()));
    response->set_status_message(s.message());
    response->set_derived_error(derived);
    done(Status::OK());
  };
  const RunGraphRequest& request = call->request;
  std::shared_ptr<Graph> graph;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = graphs_.find(request.graph_handle());
    if (it != graphs_.end()) graph = it->second;
  }
  if (graph == nullptr)
    return fail(errors::Aborted("graph handle '", request.graph_handle(), "' is not registered on ", env_.task,
                                " (the task may have restarted)"),
                false);
  if (call->send_tensors.size() != static_cast<size_t>(request.send_size()))
    return fail(errors::InvalidArgument("RunGraph: ", request.send_size(), " sends but ", call->send_tensors.size(),
                                        " tensors"),
                false);
  std::shared_ptr<Step> step = FindOrCreateStep(request.step_id());
  {
    std::lock_guard<std::mutex> lock(step->mu);
    if (step->ran)
      return fail(errors::InvalidArgument("step ", request.step_id(), " already ran on ", env_.task), false);
    step->ran = true;
  }
  if (step->cancellation.IsCancelled()) return fail(step->cancellation.reason(), step->aborted_from_outside);
  step->rendezvous->set_compress_float(request.compress_float_transfers(), &graph->compressed_tensors);
  if (request.timeout_in_ms() > 0) {
    const int64_t ms = ClampTimeoutMs(request.timeout_in_ms());
    step->rendezvous->set_recv_timeout(std::chrono::milliseconds(ms));
    std::weak_ptr<Step> weak = step;
    std::string task = env_.task;
    std::lock_guard<std::mutex> lock(step->mu);
    step->deadline = Timer::Global()->Schedule(Clock::now() + std::chrono::milliseconds(ms), [weak, ms, task] {
      auto s = weak.lock();
      if (s == nullptr) return;
      s->Abort(errors::DeadlineExceeded("step ", s->id, " exceeded its deadline of ", ms, " ms on ", task,
                                        StepInFlight::StillRunning(s->in_flight.Describe())));
    });
  }
  for (int i = 0; i < request.send_size(); ++i) {
    Status s = step->rendezvous->Send(request.send(i).name(), call->send_tensors[i], request.send(i).meta().is_dead());
    if (!s.ok()) {
      step->Abort(s);
      return fail(s, false);
    }
  }

  struct Join {
    std::mutex mu;
    int remaining = 0;
  };
  auto join = std::make_shared<Join>();
  join->remaining = static_cast<int>(graph->parts.size());
  std::shared_ptr<StepStatsCollector> collector;
  if (request.trace_level() != RunOptions::NO_TRACE) collector = std::make_shared<StepStatsCollector>();

  {
    std::lock_guard<std::mutex> lock(mu_);
    ++running_;
  }
  auto finish = [this, call, step, graph, collector, done]() {
    RunGraphResponse* response = &call->response;
    Status s = step->cancellation.IsCancelled() ? step->cancellation.reason() : Status::OK();
    if (s.ok()) {
      call->recv_tensors.resize(call->request.recv_key_size());
      for (int i = 0; i < call->request.recv_key_size() && s.ok(); ++i) {
        bool got = false;
        const std::string& key = call->request.recv_key(i);
        step->rendezvous->RecvLocalAsync(key, [&](const Status& rs, const Tensor& t, bool dead) {
          got = true;
          s.Update(rs);
          call->recv_tensors[i] = t;
          NamedTensorMeta* m = response->add_recv();
          m->set_name(key);
          m->mutable_meta()->set_is_dead(dead);
        });
        if (!got) {
          s = errors::Internal("fetch '", key, "' produced no value on ", env_.task);
          step->Abort(s);
        }
      }
    }
    if (!s.ok()) {
      call->recv_tensors.clear();
      response->clear_recv();
      response->set_status_code(static_cast<int>(s.code()));
      response->set_status_message(s.message());
      bool derived;
      {
        std::lock_guard<std::mutex> lock(step->mu);
        derived = step->aborted_from_outside;
      }
      response->set_derived_error(derived || step->rendezvous->IsPeerError(s));
      std::lock_guard<std::mutex> lock(step->mu);
      for (const std::string& r : step->running_at_deadline) response->add_still_running(r);
    }
    if (collector != nullptr) collector->Finalize(response->mutable_step_stats());
    if (graph->ends_with_run) {
      // Nobody can ask for its tensors: drop the step now.
      {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = steps_.find(step->id);
        if (it != steps_.end() && it->second == step) steps_.erase(it);
      }
      step->Abort(errors::Cancelled("step ", step->id, " ended on ", env_.task));
    }
    done(Status::OK());
    std::lock_guard<std::mutex> lock(mu_);
    if (--running_ == 0) idle_cv_.notify_all();
  };

  Executor::RunArgs args;
  args.step_id = request.step_id();
  args.cancellation = &step->cancellation;
  args.rendezvous = step->rendezvous.get();
  args.resources = &step->resources;
  args.in_flight = &step->in_flight;
  if (graph->step_memory_limit > 0)
    args.memory_budget = std::make_shared<StepMemoryBudget>(graph->step_memory_limit, graph->step_memory_what);
  auto on_done = [join, finish](const Status&) {
    {
      std::lock_guard<std::mutex> lock(join->mu);
      if (--join->remaining > 0) return;
    }
    finish();
  };
  if (graph->parts.empty()) {
    finish();
    return;
  }
  for (const Graph::Part& part : graph->parts) {
    Executor::RunArgs a = args;
    if (collector != nullptr) a.stats = collector->ForDevice(part.device);
    // The caller is the transport's thread (or the master's): it starts
    // the partition and runs its cheap nodes, which never block (a Recv
    // waits without a thread); expensive kernels go to the pool, so the
    // transport keeps serving while they run, and a step of cheap nodes
    // (a parameter read, a Send) costs no thread switch.
    a.caller_runs_only_cheap = env_.pool != nullptr;
    part.executor->RunAsync(a, on_done);
  }
}

void Worker::RecvTensorAsync(CallOptions*, RecvTensorCall* call, Done done) {
  const std::string& key = call->request.rendezvous_key();
  Rendezvous::ParsedKey parsed;
  Status s = Rendezvous::ParseKey(key, &parsed);
  if (!s.ok()) return done(s);
  auto device = env_.devices->Lookup(std::string(parsed.src_device));
  if (!device.ok() || (*device)->name() != parsed.src_device)
    return done(errors::InvalidArgument("rendezvous key '", key, "' names sender '", parsed.src_device,
                                        "', which is not a device of ", env_.task));
  if ((*device)->incarnation() != parsed.src_incarnation)
    return done(errors::Aborted("tensor '", parsed.tensor_name, "' of step ", call->request.step_id(),
                                " was asked of incarnation ", Hex(parsed.src_incarnation), " of ",
                                parsed.src_device, ", but the device is now incarnation ",
                                Hex((*device)->incarnation()), ": task ", env_.task,
                                " restarted and the step must be run again"));
  std::shared_ptr<Step> step = FindOrCreateStep(call->request.step_id());
  step->rendezvous->RecvLocalAsync(key, [call, step, done = std::move(done)](const Status& s, const Tensor& t,
                                                                            bool is_dead) {
    if (!s.ok()) {
      call->peer_aborted = true;
      done(s);
      return;
    }
    // A variant (a dataset) cannot leave its process: say so here, where
    // the tensor and both devices are known.
    if (!is_dead) {
      Status travels = CheckTensorCanTravel(t, call->request.rendezvous_key());
      if (!travels.ok()) return done(travels);
    }
    call->tensor = t;
    call->is_dead = is_dead;
    done(Status::OK());
  });
}

void Worker::CleanupGraphAsync(CallOptions*, const CleanupGraphRequest* request, CleanupGraphResponse*, Done done) {
  std::vector<std::shared_ptr<Step>> removed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (int64_t id : request->step_id()) {
      auto it = steps_.find(id);
      if (it == steps_.end()) continue;
      removed.push_back(std::move(it->second));
      steps_.erase(it);
    }
  }
  // Whatever still waits in a cleaned-up step (nothing, normally) fails.
  for (auto& s : removed) s->Abort(errors::Cancelled("step ", s->id, " was cleaned up on ", env_.task));
  done(Status::OK());
}

void Worker::AbortStepAsync(CallOptions*, const AbortStepRequest* request, AbortStepResponse*, Done done) {
  std::shared_ptr<Step> step = FindOrCreateStep(request->step_id());
  Status reason(static_cast<Code>(request->status_code()), request->status_message());
  if (reason.ok()) reason = errors::Cancelled("step ", request->step_id(), " was aborted by its master");
  {
    std::lock_guard<std::mutex> lock(step->mu);
    if (!step->cancellation.IsCancelled()) step->aborted_from_outside = true;
  }
  step->Abort(reason);
  done(Status::OK());
}

void Worker::ShutdownAsync(CallOptions*, const ShutdownRequest* request, ShutdownResponse*, Done done) {
  done(Status::OK());
  if (!shutting_down_.exchange(true) && env_.on_shutdown) env_.on_shutdown(request->reason());
}

void Worker::ResetContainersAsync(CallOptions*, const ResetContainersRequest* request, ResetContainersResponse*,
                                  Done done) {
  for (const Device* d : env_.devices->devices())
    for (const std::string& c : request->container()) d->resource_manager()->Cleanup(c);
  done(Status::OK());
}

void Worker::ParkTensor(int64_t step_id, const std::string& key, const Tensor& t) {
  std::shared_ptr<Step> step = FindOrCreateStep(step_id, /*holding=*/true);
  std::lock_guard<std::mutex> lock(step->mu);
  step->parked[key] = t;
}

Status Worker::PutTensorChunk(int64_t step_id, const std::string& key, const TensorMeta& meta, uint64_t offset,
                              WireReader* reader) {
  const std::string what = "tensor '" + key + "' put for step " + std::to_string(step_id) + " on " + env_.task;
  std::shared_ptr<Step> step = FindOrCreateStep(step_id, /*holding=*/true);
  std::lock_guard<std::mutex> lock(step->mu);
  auto& upload = step->uploads[key];
  if (offset == 0) {
    upload = std::make_unique<ChunkedTensor>();
    Status s = upload->Start(meta, what);
    if (!s.ok()) {
      step->uploads.erase(key);
      return s;
    }
  } else if (upload == nullptr || upload->received() != offset) {
    const uint64_t expected = upload == nullptr ? 0 : upload->received();
    step->uploads.erase(key);
    return errors::InvalidArgument(what, ": a chunk at offset ", offset, " where ", expected, " was expected");
  }
  Status s = upload->Add(meta, offset, reader, what);
  if (s.ok() && upload->complete()) {
    Tensor t;
    s = upload->Finish(&t);
    if (s.ok()) step->parked[key] = std::move(t);
  }
  if (!s.ok() || upload->complete()) step->uploads.erase(key);
  return s;
}

Status Worker::TakeParkedTensor(int64_t step_id, const std::string& key, Tensor* t) {
  FLOWVM_RETURN_IF_ERROR(ParkedTensor(step_id, key, t));
  UnparkTensor(step_id, key);
  return Status::OK();
}

Status Worker::ParkedTensor(int64_t step_id, const std::string& key, Tensor* t) {
  if (FindParkedTensor(step_id, key, t)) return Status::OK();
  return errors::NotFound("no tensor of step ", step_id, " is being sent in chunks under '", key, "' on ",
                          env_.task);
}

bool Worker::FindParkedTensor(int64_t step_id, const std::string& key, Tensor* t) {
  std::shared_ptr<Step> step;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = steps_.find(step_id);
    if (it != steps_.end()) step = it->second;
  }
  if (step != nullptr) {
    std::lock_guard<std::mutex> lock(step->mu);
    auto it = step->parked.find(key);
    if (it != step->parked.end()) {
      *t = it->second;
      step->touched = Clock::now();
      return true;
    }
  }
  return false;
}

void Worker::UnparkTensor(int64_t step_id, const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  UnparkLocked(step_id, key);
}

void Worker::UnparkLocked(int64_t step_id, const std::string& key) {
  auto it = steps_.find(step_id);
  if (it == steps_.end()) return;
  std::shared_ptr<Step> step = it->second;
  std::lock_guard<std::mutex> step_lock(step->mu);
  step->parked.erase(key);
  if (step->holding_only && step->parked.empty() && step->uploads.empty()) steps_.erase(it);
}

void Worker::AbortAll(const Status& reason) {
  std::vector<std::shared_ptr<Step>> steps;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_.ok()) stopped_ = reason;
    for (auto& [id, s] : steps_) steps.push_back(s);
  }
  for (auto& s : steps) {
    {
      std::lock_guard<std::mutex> lock(s->mu);
      if (!s->cancellation.IsCancelled()) s->aborted_from_outside = true;
    }
    s->Abort(reason);
  }
}

}  // namespace flowvm
