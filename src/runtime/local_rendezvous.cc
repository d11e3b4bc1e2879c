#include "runtime/local_rendezvous.h"

namespace flowvm {

// A Recv still waiting at destruction belongs to a step that ended without
// it, which only happens after an abort (that already called it).
LocalRendezvous::~LocalRendezvous() = default;

uint64_t LocalRendezvous::Hash(const std::string& key) { return std::hash<std::string>()(key); }

Status LocalRendezvous::Send(const std::string& key, const Tensor& value, bool is_dead) {
  const uint64_t hash = Hash(key);
  DoneCallback waiter;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.ok()) return aborted_;
    auto [it, inserted] = table_.try_emplace(hash);
    Item& item = it->second;
    if (inserted) {
      item.sent = true;
      item.value = value;
      item.is_dead = is_dead;
      return Status::OK();
    }
    if (item.sent) return errors::Internal("rendezvous key '", key, "' was sent twice in one step");
    waiter = std::move(item.waiter);
    table_.erase(it);
  }
  waiter(Status::OK(), value, is_dead);
  return Status::OK();
}

void LocalRendezvous::RecvAsync(const std::string& key, DoneCallback done) {
  const uint64_t hash = Hash(key);
  Status status;
  Tensor value;
  bool is_dead = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.ok()) {
      status = aborted_;
    } else {
      auto [it, inserted] = table_.try_emplace(hash);
      Item& item = it->second;
      if (inserted) {
        item.waiter = std::move(done);
        return;
      }
      if (!item.sent) {
        status = errors::Internal("rendezvous key '", key, "' was received twice in one step");
      } else {
        value = std::move(item.value);
        is_dead = item.is_dead;
        table_.erase(it);
      }
    }
  }
  done(status, value, is_dead);
}

void LocalRendezvous::StartAbort(const Status& status) {
  std::vector<DoneCallback> waiters;
  Status s = status.ok() ? errors::Cancelled("the step's rendezvous was aborted") : status;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!aborted_.ok()) return;
    aborted_ = s;
    for (auto& [key, item] : table_)
      if (!item.sent) waiters.push_back(std::move(item.waiter));
    table_.clear();
  }
  for (auto& w : waiters) w(s, Tensor(), false);
}

Status LocalRendezvous::abort_status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return aborted_;
}

}  // namespace flowvm
