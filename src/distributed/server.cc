// The gRPC server of one task (flowvm/server.h).
#include "flowvm/server.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
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
#include "distributed/master.h"
#include "distributed/worker.h"
#include "distributed/worker_cache.h"
#include "runtime/device.h"

namespace flowvm {

namespace {

// How long in-flight calls get to finish when the server stops.
constexpr auto kShutdownGrace = std::chrono::seconds(5);

class GrpcServer : public Server {
 public:
  explicit GrpcServer(const ServerOptions& options) : options_(options) {}
  ~GrpcServer() override { Stop(); }

  Status Init() {
    const ServerDef& def = options_.def;
    if (!def.cluster.HasTask(def.task))
      return errors::InvalidArgument("task ", def.task.Name(), " is not in the cluster: ", def.cluster.Describe());
    FLOWVM_ASSIGN_OR_RETURN(address_, def.cluster.Address(def.task));
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
    worker_ = std::make_unique<Worker>(std::move(env));
    const uint64_t chunk = options_.recv_chunk_bytes == 0
                               ? kDefaultChunkBytes
                               : std::clamp<uint64_t>(options_.recv_chunk_bytes, 2, kDefaultChunkBytes);
    cache_ = std::make_unique<WorkerCache>(def.cluster, def.task.Name(), worker_.get(), chunk);
    master_ = std::make_unique<Master>(cache_.get());
    RegisterWorkerMethods(worker_.get(), chunk, &dispatcher_);
    RegisterMasterMethods(master_.get(), worker_.get(), chunk, &threads_,
                          [this] { RequestStop("the cluster was shut down by a client"); }, &dispatcher_);
    return Status::OK();
  }

  Status Start() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (state_ != State::kNew) return errors::FailedPrecondition("server ", options_.def.task.Name(), " was started already");
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort(address_, grpc::InsecureServerCredentials(), &port);
    ConfigureServerBuilder(&builder);
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
  const ServerDef& def() const override { return options_.def; }
  const std::vector<std::string>& allowed_dirs() const override { return allowed_dirs_; }

 private:
  enum class State { kNew, kServing, kStopping, kStopped };

  const ServerOptions options_;
  std::string address_;
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
