#include "distributed/master.h"

#include <cstdio>
#include <random>

namespace flowvm {

namespace {

std::string NewHandle() {
  static std::mt19937_64 rng{std::random_device{}()};
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(rng()));
  return buf;
}

}  // namespace

Master::Master(WorkerCache* workers, GraphLimits limits) : workers_(workers), limits_(limits) {}

Master::~Master() { CloseAll(); }

StatusOr<std::shared_ptr<MasterSession>> Master::Find(const std::string& handle) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = sessions_.find(handle);
  // Aborted, not NotFound: the usual cause is a master that restarted and
  // lost its sessions, which a client recovers from by creating a new one.
  if (it == sessions_.end())
    return errors::Aborted("session '", handle, "' is unknown to the master at ", workers_->local_task(),
                           " (closed, or the master restarted)");
  return it->second;
}

Status Master::CreateSession(const CreateSessionRequest& request, CreateSessionResponse* response) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stopped_) return errors::Unavailable("the master at ", workers_->local_task(), " is shutting down");
  }
  const MasterSessionOptions& o = request.options();
  if (o.connect_timeout_ms() < 0 || o.health_check_interval_ms() < 0 || o.health_check_timeout_ms() < 0)
    return errors::InvalidArgument("session options: connect_timeout_ms (", o.connect_timeout_ms(),
                                   "), health_check_interval_ms (", o.health_check_interval_ms(),
                                   ") and health_check_timeout_ms (", o.health_check_timeout_ms(),
                                   ") must be >= 0");
  FLOWVM_RETURN_IF_ERROR(limits_.Check(request.graph_def(), "the graph of a new session", workers_->local_task()));
  const std::string handle = NewHandle();
  auto session = std::make_shared<MasterSession>(workers_, handle, request.options(), request.graph_def());
  FLOWVM_RETURN_IF_ERROR(session->Connect());
  std::lock_guard<std::mutex> lock(mu_);
  if (stopped_) return errors::Unavailable("the master at ", workers_->local_task(), " is shutting down");
  sessions_[handle] = std::move(session);
  response->set_session_handle(handle);
  return Status::OK();
}

Status Master::ExtendSession(const ExtendSessionRequest& request) {
  FLOWVM_ASSIGN_OR_RETURN(auto session, Find(request.session_handle()));
  return session->Extend(request.graph_def(), limits_);
}

void Master::RunStepAsync(const RunStepRequest& request, const std::vector<Tensor>& feeds,
                          RunStepResponse* response, std::vector<Tensor>* fetches, MasterSession::Offload offload,
                          MasterSession::RunDone done) {
  auto session = Find(request.session_handle());
  if (!session.ok()) return done(session.status());
  (*session)->RunAsync(request, feeds, response, fetches, std::move(offload), std::move(done));
}

Status Master::CloseSession(const CloseSessionRequest& request) {
  std::shared_ptr<MasterSession> session;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = sessions_.find(request.session_handle());
    if (it == sessions_.end())
      return errors::NotFound("session '", request.session_handle(), "' is unknown to the master at ",
                              workers_->local_task());
    session = std::move(it->second);
    sessions_.erase(it);
  }
  return session->Close();
}

Status Master::ListDevices(const ListDevicesRequest& request, ListDevicesResponse* response) {
  if (!request.session_handle().empty()) {
    FLOWVM_ASSIGN_OR_RETURN(auto session, Find(request.session_handle()));
    session->ListDevices(response);
    return Status::OK();
  }
  // The whole cluster: a session that only connects.
  MasterSessionOptions options;
  options.set_connect_timeout_ms(5000);
  MasterSession probe(workers_, "list-devices", options, GraphDef());
  FLOWVM_RETURN_IF_ERROR(probe.Connect());
  probe.ListDevices(response);
  return Status::OK();
}

Status Master::Reset(const ResetRequest& request) {
  std::vector<std::string> containers(request.container().begin(), request.container().end());
  if (!request.session_handle().empty()) {
    FLOWVM_ASSIGN_OR_RETURN(auto session, Find(request.session_handle()));
    return session->Reset(containers);
  }
  MasterSessionOptions options;
  options.set_connect_timeout_ms(5000);
  MasterSession probe(workers_, "reset", options, GraphDef());
  FLOWVM_RETURN_IF_ERROR(probe.Connect());
  return probe.Reset(containers);
}

Status Master::ShutdownCluster(ShutdownClusterResponse* response) {
  struct Call {
    std::string task;
    CallOptions opts{std::chrono::seconds(5)};
    ShutdownRequest request;
    ShutdownResponse response;
    CallWaiter waiter;
  };
  std::vector<std::unique_ptr<Call>> calls;
  for (const TaskId& t : workers_->cluster().Tasks()) {
    const std::string task = t.Name();
    if (task == workers_->local_task()) continue;
    auto call = std::make_unique<Call>();
    call->task = task;
    call->request.set_reason("the cluster was shut down from the master at " + workers_->local_task());
    Call* c = call.get();
    workers_->Get(task)->ShutdownAsync(&c->opts, &c->request, &c->response, c->waiter.Callback());
    calls.push_back(std::move(call));
  }
  for (auto& c : calls) {
    if (c->waiter.Wait().ok()) {
      response->add_stopped_task(c->task);
    } else {
      response->add_unreachable_task(c->task);
    }
  }
  response->add_stopped_task(workers_->local_task());
  return Status::OK();
}

void Master::CloseAll() {
  std::map<std::string, std::shared_ptr<MasterSession>> sessions;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopped_ = true;
    sessions.swap(sessions_);
  }
  // Unavailable, not Cancelled: the client did not close its session, its
  // master went away (a restarted task), which a client may recover from.
  const Status reason = errors::Unavailable("the master at ", workers_->local_task(), " is shutting down");
  for (auto& [handle, s] : sessions) s->Close(reason).IgnoreError();
}

}  // namespace flowvm
