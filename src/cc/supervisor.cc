#include "flowvm/cc/supervisor.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <utility>

namespace flowvm {

namespace {

constexpr char kGrpcScheme[] = "grpc://";
constexpr char kDefaultChief[] = "/job:worker/task:0";
// A try to create the session that fails faster than this (a master that
// refuses connections) is followed by a pause, so waiting does not spin.
constexpr auto kMinTry = std::chrono::milliseconds(200);
constexpr int64_t kMaxBackoffMs = 5000;

double Seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string FormatSeconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f s", s);
  return buf;
}

// The step of checkpoint `prefix` (".../ckpt-<step>").
StatusOr<int64_t> CheckpointStep(const std::string& prefix) {
  const size_t at = prefix.rfind("ckpt-");
  if (at == std::string::npos) return errors::DataLoss("checkpoint '", prefix, "' is not named ckpt-<step>");
  const std::string digits = prefix.substr(at + 5);
  char* end = nullptr;
  const long long step = std::strtoll(digits.c_str(), &end, 10);
  if (digits.empty() || *end != '\0' || step < 0)
    return errors::DataLoss("checkpoint '", prefix, "' is not named ckpt-<step>");
  return static_cast<int64_t>(step);
}

}  // namespace

TrainingSupervisor::TrainingSupervisor(const Scope& scope, SupervisorOptions options)
    : scope_(scope), options_(std::move(options)) {
  if (options_.chief_device.empty() && options_.session.target.rfind(kGrpcScheme, 0) == 0)
    options_.chief_device = kDefaultChief;
  init_ = options_.init_op.valid() ? options_.init_op : GlobalVariablesInitializer(scope_);
  if (!options_.checkpoint_dir.empty()) {
    SaverOptions saver_options;
    saver_options.max_to_keep = options_.keep_checkpoints;
    saver_ = std::make_unique<Saver>(scope_.WithDevice(options_.chief_device), saver_options, options_.variables);
  }
  checkpoint_time_ = last_save_ = Clock::now();
}

TrainingSupervisor::~TrainingSupervisor() {
  DropSession();
  for (Closer& c : closers_) c.thread.join();
}

bool TrainingSupervisor::IsRecoverable(const Status& s, bool deadline_exceeded_too) {
  switch (s.code()) {
    case Code::kUnavailable:
    case Code::kAborted:
      return true;
    case Code::kDeadlineExceeded:
      return deadline_exceeded_too;
    default:
      return false;
  }
}

void TrainingSupervisor::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::fprintf(stderr, "flowvm supervisor: %s\n", line.c_str());
    std::fflush(stderr);
  }
}

void TrainingSupervisor::DropSession() {
  ready_ = false;
  // Join the closers that are done, so they do not pile up over a long wait.
  for (auto it = closers_.begin(); it != closers_.end();) {
    if (it->done->load()) {
      it->thread.join();
      it = closers_.erase(it);
    } else {
      ++it;
    }
  }
  if (session_ == nullptr) return;
  auto done = std::make_shared<std::atomic<bool>>(false);
  std::thread t([s = std::move(session_), done]() mutable {
    s.reset();
    done->store(true);
  });
  closers_.push_back({std::move(t), std::move(done)});
}

Status TrainingSupervisor::EnsureSession(bool* fatal) {
  *fatal = false;
  if (ready_) return Status::OK();
  const auto start = Clock::now();
  const auto deadline = start + std::chrono::milliseconds(std::max<int64_t>(options_.cluster_wait_ms, 0));
  for (;;) {
    DropSession();
    const auto try_start = Clock::now();
    SessionOptions session_options = options_.session;
    const int64_t left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - try_start).count();
    session_options.connect_timeout_ms = std::max<int64_t>(1, std::min(options_.cluster_poll_ms, left));
    session_ = std::make_unique<ClientSession>(scope_, session_options);
    Status s = session_->Connect();
    if (s.ok()) break;
    if (!IsRecoverable(s, options_.recover_deadline_exceeded)) {
      *fatal = true;
      DropSession();
      return s.WithContext("creating the session");
    }
    const auto now = Clock::now();
    if (recovering_) stats_.seconds_waiting += Seconds(now - try_start);
    if (now >= deadline) {
      *fatal = true;
      DropSession();
      return errors::Unavailable("the cluster was not whole within ", options_.cluster_wait_ms,
                                 " ms (SupervisorOptions::cluster_wait_ms): ", s.message());
    }
    Log("waiting for the cluster to be whole (" + FormatSeconds(Seconds(now - start)) + " so far): " + s.message());
    if (now - try_start < kMinTry) {
      const auto pause = std::min<Clock::duration>(kMinTry, deadline - now);
      std::this_thread::sleep_for(pause);
      if (recovering_) stats_.seconds_waiting += Seconds(pause);
    }
  }
  Status s = RestoreOrInitialize();
  if (!s.ok()) {
    *fatal = !IsRecoverable(s, options_.recover_deadline_exceeded);
    return s;
  }
  ready_ = true;
  checkpoint_time_ = last_save_ = Clock::now();
  if (recovering_) {
    recovering_ = false;
    ++stats_.recoveries;
    const double took = Seconds(Clock::now() - fault_time_);
    stats_.seconds_lost += took;
    Log("recovered " + FormatSeconds(took) + " after the fault: continuing at step " + std::to_string(step_ + 1));
  }
  return Status::OK();
}

Status TrainingSupervisor::RestoreOrInitialize() {
  if (saver_ != nullptr) {
    // Checked here, so that a directory that cannot be made is not taken
    // for a lost task (the Saver reports it as Unavailable).
    std::error_code ec;
    std::filesystem::create_directories(options_.checkpoint_dir, ec);
    if (ec)
      return errors::FailedPrecondition("cannot create the checkpoint directory '", options_.checkpoint_dir,
                                        "': ", ec.message());
    auto latest = Saver::LatestCheckpoint(options_.checkpoint_dir);
    if (latest.ok()) {
      FLOWVM_ASSIGN_OR_RETURN(const int64_t step, CheckpointStep(*latest));
      Status s = saver_->Restore(*session_, *latest);
      if (!s.ok()) return s.WithContext("restoring checkpoint " + *latest);
      step_ = checkpoint_step_ = step;
      Log("restored checkpoint " + *latest + " (step " + std::to_string(step) + ")");
      return Status::OK();
    }
    if (latest.status().code() != Code::kNotFound) return latest.status();
  }
  Status s = session_->Run({}, {}, {init_}, nullptr);
  if (!s.ok()) return s.WithContext("initializing the variables");
  step_ = 0;
  checkpoint_step_ = -1;
  if (saver_ != nullptr) {
    Log("initialized the variables (no checkpoint in " + options_.checkpoint_dir + ")");
    FLOWVM_RETURN_IF_ERROR(Save());
  } else {
    Log("initialized the variables (no checkpoint directory)");
  }
  return Status::OK();
}

bool TrainingSupervisor::SaveDue() const {
  if (saver_ == nullptr) return false;
  if (options_.save_every_steps > 0 && step_ % options_.save_every_steps == 0) return true;
  return options_.save_every_secs > 0 && Seconds(Clock::now() - last_save_) >= options_.save_every_secs;
}

Status TrainingSupervisor::Save() {
  auto saved = saver_->Save(*session_, options_.checkpoint_dir, step_);
  if (!saved.ok()) return saved.status().WithContext("saving checkpoint ckpt-" + std::to_string(step_));
  checkpoint_step_ = step_;
  checkpoint_time_ = last_save_ = Clock::now();
  ++stats_.checkpoints_saved;
  if (options_.log_saves) Log("saved checkpoint " + *saved);
  return Status::OK();
}

Status TrainingSupervisor::OnFault(const Status& s, const std::string& where) {
  if (!IsRecoverable(s, options_.recover_deadline_exceeded)) return s;
  const auto now = Clock::now();
  ++stats_.faults;
  ++consecutive_faults_;
  stats_.last_fault = s.ToString();
  if (ready_) {
    // The work since the state last matched a checkpoint runs again.
    stats_.steps_redone += step_ - std::max<int64_t>(checkpoint_step_, 0);
    stats_.seconds_lost += Seconds(now - checkpoint_time_);
  }
  if (!recovering_) {
    recovering_ = true;
    fault_time_ = now;
  }
  const std::string back =
      checkpoint_step_ >= 0 ? "checkpoint ckpt-" + std::to_string(checkpoint_step_) : "the initializer";
  DropSession();
  if (consecutive_faults_ > options_.max_consecutive_faults) {
    Log("fault " + std::to_string(stats_.faults) + " (" + where + "): " + s.ToString() + "; giving up");
    return s.WithContext("giving up after " + std::to_string(consecutive_faults_) +
                         " faults in a row with no step done in between (max_consecutive_faults); the last");
  }
  std::chrono::milliseconds pause(0);
  if (consecutive_faults_ >= 2 && options_.retry_backoff_ms > 0) {
    const int shift = std::min(consecutive_faults_ - 2, 16);
    pause = std::chrono::milliseconds(std::min<int64_t>(options_.retry_backoff_ms << shift, kMaxBackoffMs));
  }
  Log("fault " + std::to_string(stats_.faults) + " (" + where + "): " + s.ToString() + "; recovering from " + back +
      (pause.count() > 0 ? " in " + FormatSeconds(Seconds(pause)) + " (" + std::to_string(consecutive_faults_) +
                               " faults in a row)"
                         : ""));
  if (pause.count() > 0) {
    std::this_thread::sleep_for(pause);
    stats_.seconds_waiting += Seconds(pause);
  }
  return Status::OK();
}

Status TrainingSupervisor::EnsureSessionRecovering() {
  for (;;) {
    bool fatal = false;
    Status s = EnsureSession(&fatal);
    if (s.ok() || fatal) return s;
    FLOWVM_RETURN_IF_ERROR(OnFault(s, "while restoring"));
  }
}

Status TrainingSupervisor::Train(int64_t last_step, const StepFn& step_fn) {
  bool started = false;
  for (;;) {
    FLOWVM_RETURN_IF_ERROR(EnsureSessionRecovering());
    Status s;
    if (!started) stats_.start_step = step_;
    started = true;
    while (s.ok() && step_ < last_step) {
      const int64_t step = step_ + 1;
      s = step_fn(*session_, step);
      if (!s.ok()) {
        s = s.WithContext("step " + std::to_string(step));
        break;
      }
      step_ = step;
      if (step > furthest_step_) {
        furthest_step_ = step;
        consecutive_faults_ = 0;
      }
      if (SaveDue()) s = Save();
    }
    if (s.ok() && saver_ != nullptr && checkpoint_step_ != step_) s = Save();
    if (s.ok()) return s;
    FLOWVM_RETURN_IF_ERROR(OnFault(s, "at step " + std::to_string(step_ + 1)));
  }
}

Status TrainingSupervisor::Run(const std::function<Status(ClientSession& session)>& fn) {
  for (;;) {
    FLOWVM_RETURN_IF_ERROR(EnsureSessionRecovering());
    Status s = fn(*session_);
    if (s.ok()) return s;
    // Without a checkpoint of the current state a new session could not
    // give `fn` the state it expects.
    if (saver_ == nullptr || checkpoint_step_ != step_) return s;
    FLOWVM_RETURN_IF_ERROR(OnFault(s, "after step " + std::to_string(step_)));
  }
}

}  // namespace flowvm
