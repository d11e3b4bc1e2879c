#include "flowvm/cc/queue_runner.h"

#include <chrono>

namespace flowvm {

Coordinator::~Coordinator() { (void)Join(); }

void Coordinator::RequestStop() {
  std::vector<QueueRunner*> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    stop_ = true;
    runners = runners_;
  }
  cv_.notify_all();
  for (QueueRunner* r : runners) r->Stop();
}

bool Coordinator::ShouldStop() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stop_;
}

void Coordinator::ReportStatus(const Status& status) {
  if (status.ok()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = status;
  }
  RequestStop();
}

Status Coordinator::status() const {
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

bool Coordinator::WaitForStop(int64_t timeout_ms) const {
  std::unique_lock<std::mutex> lock(mu_);
  if (timeout_ms < 0) {
    cv_.wait(lock, [this] { return stop_; });
    return true;
  }
  return cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] { return stop_; });
}

void Coordinator::Register(QueueRunner* runner) {
  std::lock_guard<std::mutex> lock(mu_);
  runners_.push_back(runner);
}

Status Coordinator::Join() {
  RequestStop();
  std::vector<QueueRunner*> runners;
  {
    std::lock_guard<std::mutex> lock(mu_);
    runners.swap(runners_);
  }
  for (QueueRunner* r : runners) ReportStatus(r->Join());
  return status();
}

QueueRunner::QueueRunner(std::string queue_name, std::vector<Operation> enqueue_ops, Operation close_op,
                         Operation cancel_op)
    : queue_name_(std::move(queue_name)),
      enqueue_ops_(std::move(enqueue_ops)),
      close_op_(close_op),
      cancel_op_(cancel_op.valid() ? cancel_op : close_op) {}

QueueRunner::~QueueRunner() {
  Stop();
  (void)Join();
}

Status QueueRunner::Start(const ClientSession* session, Coordinator* coord) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!threads_.empty()) return errors::FailedPrecondition("the queue runner of '", queue_name_, "' is running");
  if (enqueue_ops_.empty()) return errors::InvalidArgument("the queue runner of '", queue_name_, "' has no enqueue op");
  session_ = session;
  coord_ = coord;
  stop_ = false;
  closed_ = false;
  status_ = Status::OK();
  running_ = static_cast<int>(enqueue_ops_.size());
  if (coord != nullptr) coord->Register(this);
  for (const Operation& op : enqueue_ops_) threads_.emplace_back([this, op] { Loop(op); });
  return Status::OK();
}

void QueueRunner::Loop(Operation enqueue) {
  Status error;
  while (!stop_.load() && (coord_ == nullptr || !coord_->ShouldStop())) {
    Status s = session_->Run({}, {}, {enqueue}, nullptr);
    if (s.ok()) continue;
    // OutOfRange: this thread's input is exhausted. Cancelled: its queue
    // was closed under it (by a stop, or by whoever owns the queue).
    if (s.code() == Code::kOutOfRange || s.code() == Code::kCancelled) break;
    if (stop_.load() || (coord_ != nullptr && coord_->ShouldStop())) break;  // woken by the stop
    error = s;
    break;
  }
  bool last = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!error.ok() && status_.ok()) status_ = error;
    last = --running_ == 0;
  }
  if (!error.ok()) {
    if (coord_ != nullptr) coord_->ReportStatus(error);
    Stop();
  } else if (last && !stop_.load()) {
    RunClose(close_op_);  // input exhausted: consumers drain the queue, then get OutOfRange
  }
}

void QueueRunner::RunClose(const Operation& op) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ && op == close_op_) return;
    closed_ = true;
  }
  Status s = session_->Run({}, {}, {op}, nullptr);
  if (!s.ok()) {
    std::lock_guard<std::mutex> lock(mu_);
    if (status_.ok()) status_ = s;
  }
}

void QueueRunner::Stop() {
  if (stop_.exchange(true)) return;
  if (session_ != nullptr) {
    bool started;
    {
      std::lock_guard<std::mutex> lock(mu_);
      started = !threads_.empty();
    }
    if (started) RunClose(cancel_op_);
  }
}

Status QueueRunner::Join() {
  std::vector<std::thread> threads;
  {
    std::lock_guard<std::mutex> lock(mu_);
    threads.swap(threads_);
  }
  for (auto& t : threads)
    if (t.joinable()) t.join();
  std::lock_guard<std::mutex> lock(mu_);
  return status_;
}

}  // namespace flowvm
