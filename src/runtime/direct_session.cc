// The in-process Session: its own devices (SessionOptions::cpu_devices CPU
// devices sharing one thread pool), a cache of prepared steps keyed by Run
// signature, and the state of the steps in flight (for Close and deadlines).
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "core/timer.h"
#include "flowvm/session.h"
#include "kernels/framework/call_frame.h"
#include "kernels/framework/cancellation.h"
#include "runtime/device.h"
#include "graph/function_library.h"
#include "runtime/graph_validation.h"
#include "runtime/local_rendezvous.h"
#include "runtime/prepared_step.h"
#include "runtime/session_factory.h"
#include "runtime/step_stats_collector.h"
#include "runtime/waiting_caller.h"

namespace flowvm {

namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// What one running step shares between its partitions and with the session.
struct StepContext {
  int64_t step_id = 0;
  CancellationManager cancellation;
  StepResources resources;
  std::unique_ptr<LocalRendezvous> rendezvous;  // only when the step has several partitions
  StepInFlight in_flight;

  // Stops every partition: later nodes do not start and a Recv waiting for
  // a tensor fails with `reason`.
  void Cancel(const Status& reason) {
    cancellation.StartCancel(reason);
    if (rendezvous) rendezvous->StartAbort(reason);
  }
};

class DirectSession : public Session {
 public:
  DirectSession(const SessionOptions& options, GraphDef graph, std::unique_ptr<ThreadPool> pool, int threads,
                std::unique_ptr<DeviceMgr> devices)
      : options_(options),
        threads_(threads),
        pool_(std::move(pool)),
        devices_(std::move(devices)),
        graph_def_(std::move(graph)) {}

  ~DirectSession() override {
    Close().IgnoreError();
    // Executors (and their kernels) go before the devices they run on.
    cache_.clear();
    devices_.reset();
  }

  using Session::Run;

  Status Extend(const GraphDef& graph) override {
    {
      std::lock_guard<std::mutex> run_lock(run_mu_);
      if (closed_) return errors::FailedPrecondition("Extend on a closed session");
    }
    std::unique_lock<std::shared_mutex> lock(graph_mu_);
    GraphDef merged = graph_def_;
    FLOWVM_RETURN_IF_ERROR(ExtendGraphDef(graph, &merged).WithContext("Extend"));
    Status s = ValidateGraphForDevices(merged, DescribeDevices(*devices_), options_.allow_soft_placement);
    if (!s.ok()) return s.WithContext("Extend");
    graph_def_ = std::move(merged);
    return Status::OK();
  }

  Status Run(const RunOptions& run_options, const std::vector<std::pair<std::string, Tensor>>& feeds,
             const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
             std::vector<Tensor>* outputs, RunMetadata* metadata, RunStats* stats) override {
    StepContext ctx;
    ctx.step_id = next_step_id_.fetch_add(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(run_mu_);
      if (closed_) return errors::FailedPrecondition("Run on a closed session");
      live_.insert(&ctx);
    }
    Status s = DoRun(&ctx, run_options, feeds, fetches, targets, outputs, metadata, stats);
    {
      std::lock_guard<std::mutex> lock(run_mu_);
      live_.erase(&ctx);
      if (live_.empty()) run_cv_.notify_all();
    }
    return s;
  }

  Status ListDevices(std::vector<DeviceInfo>* devices) override {
    devices->clear();
    for (const Device* d : devices_->devices())
      devices->push_back({d->name(), d->device_type(), d->incarnation(), d->allocator()->GetStats()});
    return Status::OK();
  }

  Status ResetContainers(const std::vector<std::string>& containers) override {
    for (const Device* d : devices_->devices())
      for (const std::string& c : containers) d->resource_manager()->Cleanup(c);
    return Status::OK();
  }

  Status Close() override {
    std::unique_lock<std::mutex> lock(run_mu_);
    if (!closed_) {
      closed_ = true;
      for (StepContext* ctx : live_)
        ctx->Cancel(errors::Cancelled("the session was closed while step ", ctx->step_id, " was running"));
    }
    run_cv_.wait(lock, [this] { return live_.empty(); });
    std::unique_lock<std::shared_mutex> cache_lock(cache_mu_);
    cache_.clear();
    return Status::OK();
  }

  GraphDef graph_def() const override {
    std::shared_lock<std::shared_mutex> lock(graph_mu_);
    return graph_def_;
  }

 private:
  static std::string SignatureKey(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                  const std::vector<std::string>& fetches, const std::vector<std::string>& targets) {
    std::string key;
    for (const auto& f : feeds) key.append(f.first).push_back('\x01');
    key.push_back('\x02');
    for (const auto& f : fetches) key.append(f).push_back('\x01');
    key.push_back('\x02');
    for (const auto& t : targets) key.append(t).push_back('\x01');
    return key;
  }

  StatusOr<std::shared_ptr<PreparedStep>> Prepare(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                                  const std::vector<std::string>& fetches,
                                                  const std::vector<std::string>& targets) {
    std::vector<std::string> feed_names;
    for (const auto& f : feeds) feed_names.push_back(f.first);
    std::map<std::string, std::string> pinned;
    {
      std::lock_guard<std::mutex> lock(pinned_mu_);
      pinned = pinned_;
    }
    std::unique_ptr<PreparedStep> step;
    {
      std::shared_lock<std::shared_mutex> lock(graph_mu_);
      PrepareInputs in;
      in.graph = &graph_def_;
      in.devices = devices_.get();
      in.options = &options_;
      in.cost_model = &cost_model_;
      in.pinned = &pinned;
      FLOWVM_ASSIGN_OR_RETURN(step, PrepareStep(in, feed_names, fetches, targets));
    }
    {
      // A stateful node keeps the device it first got for the session's
      // life, whatever signature runs it later.
      std::lock_guard<std::mutex> lock(pinned_mu_);
      for (const auto& [node, device] : step->stateful_placements) pinned_.try_emplace(node, device);
    }
    return std::shared_ptr<PreparedStep>(std::move(step));
  }

  // Runs every partition of the step and waits for all of them. A step of
  // one partition runs it directly, with no rendezvous.
  Status RunPartitions(const PreparedStep& step, Executor::RunArgs args,
                       StepStatsCollector* collector) {
    if (step.partitions.size() == 1) {
      const auto& p = step.partitions[0];
      if (collector != nullptr) args.stats = collector->ForDevice(p.device);
      return p.executor->Run(args);
    }
    // This thread waits for the partitions and meanwhile continues any of
    // them whose async kernel completed elsewhere (runtime/waiting_caller.h).
    // A partition touches `remaining` and `caller` only until the last one
    // has called Finish, after which Wait returns.
    WaitingCaller caller;
    args.caller = &caller;
    std::atomic<int> remaining{static_cast<int>(step.partitions.size())};
    auto on_done = [&remaining, &caller](const Status&) {
      // The first error is in the step's cancellation reason; see DoRun.
      if (remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) caller.Finish();
    };
    auto start = [args, collector, on_done](const PreparedStep::Partition* p) {
      Executor::RunArgs a = args;
      if (collector != nullptr) a.stats = collector->ForDevice(p->device);
      p->executor->RunAsync(a, on_done);
    };
    // With a pool, the other partitions start there and this thread runs
    // the first; without one, all run here in turn: a partition waiting in a
    // Recv returns, and the Send that completes it later resumes it.
    if (pool_ != nullptr) {
      for (size_t i = 1; i < step.partitions.size(); ++i) {
        const PreparedStep::Partition* p = &step.partitions[i];
        pool_->Schedule([start, p] { start(p); });
      }
      start(&step.partitions[0]);
    } else {
      for (const PreparedStep::Partition& p : step.partitions) start(&p);
    }
    caller.Wait();
    return Status::OK();
  }

  Status DoRun(StepContext* ctx, const RunOptions& run_options, const std::vector<std::pair<std::string, Tensor>>& feeds,
               const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
               std::vector<Tensor>* outputs, RunMetadata* metadata, RunStats* stats) {
    if (run_options.timeout_in_ms() < 0)
      return errors::InvalidArgument("RunOptions.timeout_in_ms must be >= 0, got ", run_options.timeout_in_ms());
    // One pool per session: 0 (and TensorFlow's -1, "the caller's") name it.
    if (run_options.inter_op_thread_pool() != 0 && run_options.inter_op_thread_pool() != -1)
      return errors::InvalidArgument("RunOptions.inter_op_thread_pool ", run_options.inter_op_thread_pool(),
                                     " does not exist: the session has one thread pool (0)");
    // Callers that fetch nothing may pass no output vector.
    std::vector<Tensor> unused_outputs;
    if (outputs == nullptr) {
      if (!fetches.empty()) return errors::InvalidArgument("Run: ", fetches.size(), " fetches but no output vector");
      outputs = &unused_outputs;
    }
    std::string key = SignatureKey(feeds, fetches, targets);
    std::shared_ptr<PreparedStep> step;
    {
      std::shared_lock<std::shared_mutex> lock(cache_mu_);
      auto it = cache_.find(key);
      if (it != cache_.end()) step = it->second;
    }
    const bool hit = step != nullptr;
    if (!hit) {
      FLOWVM_ASSIGN_OR_RETURN(step, Prepare(feeds, fetches, targets));
      std::unique_lock<std::shared_mutex> lock(cache_mu_);
      auto [it, inserted] = cache_.emplace(key, step);
      if (!inserted) step = it->second;  // another thread prepared it first
    }
    FLOWVM_RETURN_IF_ERROR(CheckFeedValues(step->feeds, feeds));

    std::vector<Tensor> args;
    args.reserve(feeds.size());
    for (const auto& f : feeds) args.push_back(f.second);
    outputs->assign(step->num_fetches, Tensor());
    CallFrame frame(args.data(), static_cast<int>(args.size()), outputs->data(), step->num_fetches);
    if (step->partitions.size() > 1) ctx->rendezvous = std::make_unique<LocalRendezvous>();
    std::unique_ptr<StepStatsCollector> collector;
    if (run_options.trace_level() != RunOptions::NO_TRACE) collector = std::make_unique<StepStatsCollector>();

    Executor::RunArgs run_args;
    run_args.step_id = ctx->step_id;
    run_args.cancellation = &ctx->cancellation;
    run_args.rendezvous = ctx->rendezvous.get();
    run_args.resources = &ctx->resources;
    run_args.call_frame = &frame;
    if (options_.max_step_memory_bytes > 0)
      run_args.memory_budget =
          std::make_shared<StepMemoryBudget>(options_.max_step_memory_bytes, "the session's max_step_memory_bytes");
    Timer::Token deadline = 0;
    const int64_t timeout_ms = ClampTimeoutMs(run_options.timeout_in_ms());
    if (timeout_ms > 0) {
      run_args.in_flight = &ctx->in_flight;
      deadline = Timer::Global()->Schedule(
          std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms), [ctx, timeout_ms] {
            ctx->Cancel(errors::DeadlineExceeded("step ", ctx->step_id, " exceeded its deadline of ", timeout_ms,
                                                 " ms", StepInFlight::StillRunning(ctx->in_flight.Describe())));
          });
    }
    auto run_start = std::chrono::steady_clock::now();
    Status s = RunPartitions(*step, run_args, collector.get());
    if (deadline != 0) Timer::Global()->Cancel(deadline);
    // The step's first error (or the deadline, or Close) is the reason it
    // was cancelled: the partitions it stopped report only consequences.
    if (ctx->cancellation.IsCancelled()) s = ctx->cancellation.reason();
    if (stats != nullptr) {
      stats->step_id = ctx->step_id;
      stats->cache_hit = hit;
      stats->graph_nodes = step->graph_nodes;
      stats->executed_nodes = step->executed_nodes;
      stats->pruned = step->pruned;
      stats->num_threads = threads_;
      stats->partitions = static_cast<int>(step->partitions.size());
      stats->prepare_ms = hit ? 0 : step->prepare_ms;
      stats->run_ms = MsSince(run_start);
      stats->optimizations = hit ? std::vector<std::string>() : step->optimizations;
      stats->placement = hit ? std::vector<std::string>() : step->placement;
      stats->transfers = hit ? std::vector<std::string>() : step->transfers;
      stats->scheduled_recvs = hit ? std::vector<std::string>() : step->scheduled_recvs;
    }
    if (collector != nullptr) {
      for (const auto& m : collector->Measurements()) cost_model_.RecordMeasurement(m.node, m.device_type, m.nanos);
      if (metadata != nullptr) collector->Finalize(metadata->mutable_step_stats());
    }
    if (metadata != nullptr && run_options.output_partition_graphs())
      for (const GraphDef& g : step->partition_graphs) *metadata->add_partition_graphs() = g;
    if (!s.ok()) {
      outputs->clear();
      return s;
    }
    for (int i = 0; i < step->num_fetches; ++i)
      if (!(*outputs)[i].IsInitialized()) return errors::Internal("fetch '", fetches[i], "' produced no value");
    return Status::OK();
  }

  const SessionOptions options_;
  const int threads_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<DeviceMgr> devices_;
  CostModel cost_model_;

  mutable std::shared_mutex graph_mu_;
  GraphDef graph_def_;

  std::shared_mutex cache_mu_;
  std::unordered_map<std::string, std::shared_ptr<PreparedStep>> cache_;

  std::mutex pinned_mu_;
  std::map<std::string, std::string> pinned_;  // stateful node -> device

  std::mutex run_mu_;
  std::condition_variable run_cv_;
  std::set<StepContext*> live_;
  bool closed_ = false;

  std::atomic<int64_t> next_step_id_{1};
};

class DirectSessionFactory : public SessionFactory {
 public:
  bool AcceptsTarget(const std::string& target) const override { return target.empty() || target == "local"; }

  StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options, const GraphDef& graph) override {
    int threads = options.num_threads > 0 ? options.num_threads : ThreadPool::HardwareConcurrency();
    // The calling thread runs nodes too, so N threads need N-1 workers.
    std::unique_ptr<ThreadPool> pool;
    if (threads > 1) pool = std::make_unique<ThreadPool>("flowvm", threads - 1);
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<DeviceMgr> devices,
                            DeviceMgr::NewCpuDevices(options.cpu_devices, pool.get()));
    FLOWVM_RETURN_IF_ERROR(ValidateGraphForDevices(graph, DescribeDevices(*devices), options.allow_soft_placement));
    return std::unique_ptr<Session>(
        new DirectSession(options, graph, std::move(pool), threads, std::move(devices)));
  }
};

struct RegisterDirectSession {
  RegisterDirectSession() { SessionFactory::Register("local (\"\")", std::make_unique<DirectSessionFactory>()); }
} register_direct_session;

}  // namespace
}  // namespace flowvm
