#include "distributed/remote_rendezvous.h"

#include "graph/device_name.h"
#include "runtime/device.h"

namespace flowvm {

RemoteRendezvous::~RemoteRendezvous() = default;

Status RemoteRendezvous::Send(const std::string& key, const Tensor& value, bool is_dead) {
  return local_.Send(key, value, is_dead);
}

void RemoteRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  ParsedKey parsed;
  Status s = ParseKey(key, &parsed);
  if (!s.ok()) {
    done(s, Tensor(), false);
    return;
  }
  auto src = ParseDeviceName(parsed.src_device);
  if (!src.ok()) {
    done(src.status(), Tensor(), false);
    return;
  }
  const std::string src_task = DeviceTaskName(*src);
  if (src_task == env_->task) {
    local_.RecvAsync(key, std::move(done));
    return;
  }
  const bool compress = compress_all_ || (compressed_tensors_ != nullptr &&
                                          compressed_tensors_->count(std::string(parsed.tensor_name)) > 0);
  RecvRemote(key, src_task, compress, std::move(done));
}

void RemoteRendezvous::RecvRemote(const std::string& key, const std::string& src_task, bool compress,
                                  DoneCallback done) {
  WorkerInterface* peer = env_->worker_for ? env_->worker_for(src_task) : nullptr;
  if (peer == nullptr) {
    done(errors::NotFound("a Recv of step ", step_id_, " needs task ", src_task, ", which is not in the cluster"),
         Tensor(), false);
    return;
  }
  struct State {
    std::shared_ptr<CallOptions> opts;
    RecvTensorCall call;
    explicit State(std::chrono::milliseconds timeout) : opts(std::make_shared<CallOptions>(timeout)) {}
  };
  auto state = std::make_shared<State>(recv_timeout_);
  state->call.request.set_step_id(step_id_);
  state->call.request.set_rendezvous_key(key);
  state->call.request.set_accept_bfloat16(compress);
  state->call.request.set_requester(env_->task);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.ok()) {
      Status s = aborted_;
      done(s, Tensor(), false);
      return;
    }
    calls_.insert(state->opts);
  }
  peer->RecvTensorAsync(state->opts.get(), &state->call, [this, state, src_task, done = std::move(done)](const Status& s) {
    Status result = s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      calls_.erase(state->opts);
      if (!s.ok()) {
        if (state->call.peer_aborted) {
          peer_errors_.push_back(s.message());
        } else if (!aborted_.ok()) {
          // Cancelled because this step was aborted: report why.
          result = aborted_;
        }
      }
    }
    if (!result.ok() && !state->call.peer_aborted && result.code() != Code::kDeadlineExceeded &&
        result.message().find(src_task) == std::string::npos)
      result = result.WithContext("receiving a tensor from " + src_task);
    done(result, state->call.tensor, state->call.is_dead);
  });
}

void RemoteRendezvous::StartAbort(const Status& status) {
  std::vector<std::shared_ptr<CallOptions>> calls;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (aborted_.ok()) aborted_ = status.ok() ? errors::Cancelled("the step's rendezvous was aborted") : status;
    calls.assign(calls_.begin(), calls_.end());
  }
  local_.StartAbort(status);
  // The references keep each call's options alive; cancelling a call that
  // has completed meanwhile does nothing.
  for (const auto& c : calls) c->StartCancel();
}

bool RemoteRendezvous::IsPeerError(const Status& s) const {
  if (s.ok()) return false;
  std::lock_guard<std::mutex> lock(mu_);
  for (const std::string& m : peer_errors_)
    if (s.message().find(m) != std::string::npos) return true;
  return false;
}

}  // namespace flowvm
