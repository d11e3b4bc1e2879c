// The gRPC server of one task (flowvm/server.h).
#include "flowvm/server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <climits>
#include <condition_variable>
#include <iostream>
#include <mutex>

#include "core/path_policy.h"
#include "core/thread_pool.h"
#include "distributed/call_threads.h"
#include "distributed/grpc_master_service.h"
#include "distributed/grpc_service.h"
#include "distributed/grpc_util.h"
#include "distributed/grpc_worker_service.h"
#include "distributed/graph_limits.h"
#include "distributed/transport_security.h"
#include "distributed/master.h"
#include "distributed/worker.h"
#include "distributed/worker_cache.h"
#include "runtime/device.h"

namespace flowvm {

namespace {

// How long in-flight calls get to finish when the server stops.
constexpr auto kShutdownGrace = std::chrono::seconds(5);
// Room in a message for what travels around a chunk of tensor bytes.
constexpr int64_t kMessageOverhead = int64_t{1} << 20;

// 127.0.0.0/8, ::1 and localhost: reachable from this host only.
bool IsLoopback(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

class GrpcServer : public Server {
 public:
  explicit GrpcServer(const ServerOptions& options) : options_(options) {}
  ~GrpcServer() override { Stop(); }

  Status Init() {
    const ServerDef& def = options_.def;
    if (!def.cluster.HasTask(def.task))
      return errors::InvalidArgument("task ", def.task.Name(), " is not in the cluster: ", def.cluster.Describe());
    FLOWVM_ASSIGN_OR_RETURN(address_, def.cluster.Address(def.task));
    FLOWVM_ASSIGN_OR_RETURN(security_, TransportSecurity::Create(options_.credentials));
    FLOWVM_ASSIGN_OR_RETURN(server_credentials_, security_->ServerCredentials());
    if (!IsLoopback(address_) && !security_->tls() && !options_.insecure)
      return errors::FailedPrecondition(
          "task ", def.task.Name(), " would listen on ", address_,
          ", which is not a loopback address, without TLS: anyone who reaches it could run any graph there, "
          "reading and writing files. Give it a certificate (--tls-cert, --tls-key, and --tls-ca to require "
          "callers' certificates), or on a network you trust pass --insecure");
    const ServerLimits& limits = options_.limits;
    if (limits.max_message_bytes < 0 || limits.max_graph_bytes < 0 || limits.max_graph_nodes < 0 ||
        limits.max_step_memory_bytes < 0)
      return errors::InvalidArgument("server limits must be >= 0 (0: the default)");
    max_message_bytes_ = limits.max_message_bytes == 0 ? INT_MAX : std::min<int64_t>(limits.max_message_bytes, INT_MAX);
    if (max_message_bytes_ < 2 * kMessageOverhead)
      return errors::InvalidArgument("max_message_bytes (", max_message_bytes_, ") must be at least ",
                                     2 * kMessageOverhead);
    GraphLimits graph_limits;
    if (limits.max_graph_bytes > 0) graph_limits.max_bytes = limits.max_graph_bytes;
    if (limits.max_graph_nodes > 0) graph_limits.max_nodes = limits.max_graph_nodes;
    if (options_.cpu_devices < 1)
      return errors::InvalidArgument("a server needs at least one CPU device, got ", options_.cpu_devices);
    const int threads = options_.num_threads > 0 ? options_.num_threads : ThreadPool::HardwareConcurrency();
    pool_ = std::make_unique<ThreadPool>("flowvm-" + def.task.job, std::max(1, threads));
    // The directories its graphs may touch files in; the devices check.
    auto policy = PathPolicy::Create(options_.allowed_dirs.empty() ? std::vector<std::string>{"."}
                                                                   : options_.allowed_dirs);
    if (!policy.ok()) return policy.status().WithContext("task " + def.task.Name());
    allowed_dirs_ = (*policy)->dirs();
    FLOWVM_ASSIGN_OR_RETURN(devices_, DeviceMgr::NewCpuDevices(options_.cpu_devices, pool_.get(), def.task.job,
                                                               def.task.index, *policy));
    WorkerEnv env;
    env.task = def.task.Name();
    env.devices = devices_.get();
    env.pool = pool_.get();
    env.worker_for = [this](const std::string& task) { return cache_->Get(task); };
    env.on_shutdown = [this](const std::string& reason) { RequestStop(reason); };
    env.graph_limits = graph_limits;
    env.max_step_memory_bytes = limits.max_step_memory_bytes;
    worker_ = std::make_unique<Worker>(std::move(env));
    // A chunk of tensor bytes and its envelope fit in one message.
    const uint64_t max_chunk =
        std::min<uint64_t>(kDefaultChunkBytes, static_cast<uint64_t>(max_message_bytes_ - kMessageOverhead));
    const uint64_t chunk = options_.recv_chunk_bytes == 0
                               ? max_chunk
                               : std::clamp<uint64_t>(options_.recv_chunk_bytes, 2, max_chunk);
    cache_ = std::make_unique<WorkerCache>(def.cluster, def.task.Name(), worker_.get(), security_, chunk);
    master_ = std::make_unique<Master>(cache_.get(), graph_limits);
    RegisterWorkerMethods(worker_.get(), chunk, &dispatcher_);
    RegisterMasterMethods(master_.get(), worker_.get(), chunk, &threads_,
                          [this] { RequestStop("the cluster was shut down by a client"); }, &dispatcher_);
    if (security_->has_token()) {
      const std::string task = def.task.Name();
      dispatcher_.SetAuthorizer([security = security_, task](grpc::GenericCallbackServerContext* context) {
        return security->CheckCall(context, task);
      });
    }
    return Status::OK();
  }

  Status Start() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ != State::kNew) return errors::FailedPrecondition("server ", options_.def.task.Name(), " was started already");
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(address_, server_credentials_, &port);
    ConfigureServerBuilder(&builder);
    builder.SetMaxReceiveMessageSize(static_cast<int>(max_message_bytes_));
    builder.RegisterCallbackGenericService(&dispatcher_);
    server_ = builder.BuildAndStart();
    if (server_ == nullptr || port == 0) {
      server_.reset();
      return errors::Unavailable("task ", options_.def.task.Name(), " cannot listen on ", address_,
                                 ": the address is in use or not one of this host's");
    }
    state_ = State::kServing;
    return Status::OK();
  }

  void Join() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return stop_requested_ || state_ == State::kStopped || state_ == State::kNew; });
    if (state_ == State::kStopped || state_ == State::kNew) return;
    lock.unlock();
    Stop();
  }

  void Stop() override {
    std::unique_lock<std::mutex> lock(mu_);
    if (state_ == State::kStopping) {
      cv_.wait(lock, [this] { return state_ == State::kStopped; });
      return;
    }
    if (state_ == State::kStopped) return;
    state_ = State::kStopping;
    const std::string reason = stop_reason_.empty() ? "it was stopped" : stop_reason_;
    lock.unlock();

    const Status why = errors::Unavailable("task ", options_.def.task.Name(), " is shutting down (", reason, ")");
    if (master_ != nullptr) master_->CloseAll();
    if (worker_ != nullptr) worker_->AbortAll(why);
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
      server_->Wait();
    }
    if (worker_ != nullptr) worker_->StopAndWait(why);

    lock.lock();
    state_ = State::kStopped;
    cv_.notify_all();
  }

  void RequestStop(const std::string& reason) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stop_requested_) stop_reason_ = reason;
    stop_requested_ = true;
    cv_.notify_all();
  }

  std::string target() const override { return "grpc://" + address_; }
  std::string security_summary() const override {
    std::string s = security_->Describe();
    if (!IsLoopback(address_) && !security_->tls())
      s += ". WARNING: INSECURE: anyone who can reach " + address_ +
           " can run any graph on this task, reading and writing its files" +
           (security_->has_token() ? " (the token travels in the clear)" : "");
    else if (!security_->tls() && !security_->has_token())
      s += " (loopback only: any process of this host can run graphs here)";
    return s;
  }
  const ServerDef& def() const override { return options_.def; }
  const std::vector<std::string>& allowed_dirs() const override { return allowed_dirs_; }

 private:
  enum class State { kNew, kServing, kStopping, kStopped };

  const ServerOptions options_;
  std::string address_;
  std::shared_ptr<const TransportSecurity> security_;
  std::shared_ptr<grpc::ServerCredentials> server_credentials_;
  int64_t max_message_bytes_ = INT_MAX;
  std::vector<std::string> allowed_dirs_;
  // Destroyed in reverse: the gRPC server before what it calls into.
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<WorkerCache> cache_;
  std::unique_ptr<Master> master_;
  CallThreads threads_;
  GrpcDispatcher dispatcher_;
  std::unique_ptr<grpc::Server> server_;

  std::mutex mu_;
  std::condition_variable cv_;
  State state_ = State::kNew;
  bool stop_requested_ = false;
  std::string stop_reason_;
};

}  // namespace

StatusOr<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  auto server = std::make_unique<GrpcServer>(options);
  FLOWVM_RETURN_IF_ERROR(server->Init());
  return std::unique_ptr<Server>(std::move(server));
}

}  // namespace flowvm
