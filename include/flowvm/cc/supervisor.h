// TrainingSupervisor: a training loop that survives the loss of cluster
// tasks (paper section 3.3; TensorFlow's MonitoredTrainingSession).
//
//   SupervisorOptions o;
//   o.session.target = "grpc://127.0.0.1:2222";
//   o.checkpoint_dir = "/abs/ckpt";
//   o.save_every_steps = 50;
//   TrainingSupervisor sv(root, o);           // after the model is built
//   Status s = sv.Train(1000, [&](ClientSession& session, int64_t step) {
//     return session.Run(FeedsOfStep(step), {}, {train}, nullptr);
//   });
//
// Train creates the session (waiting for the cluster to be whole), restores
// the newest checkpoint of checkpoint_dir or runs the initializer, then
// calls the step function for steps restored+1 ... last_step (steps count
// from 1; checkpoint ckpt-N holds the state after step N), saving every N
// steps or S seconds and after the last step. The step function must make
// step N's work a function of N alone (the batch of step N, not of how many
// steps ran): after a fault, steps since the newest checkpoint run again,
// and the result is then the same as without the fault.
//
// Faults recovered (IsRecoverable): a step, save or restore that fails with
//   Unavailable       a task died, is unreachable, failed a health check
//                     (hung or cut off), or the cluster is not whole;
//   Aborted           a task restarted (new incarnation: its variables and
//                     queues are gone), or the master restarted and lost the
//                     session;
//   DeadlineExceeded  a step or call that did not finish in time (a hung
//                     task the health checks had not named yet), unless
//                     recover_deadline_exceeded is false.
// Any other error (InvalidArgument from a bad graph, NotFound, DataLoss of a
// corrupt checkpoint, PermissionDenied, ...) ends Train at once.
// After a fault the supervisor logs it, drops the session, waits until a new
// one can be created (every task answers; up to cluster_wait_ms, logging the
// missing tasks at each try), restores the newest checkpoint (or
// initializes, if there is none yet) and continues. At most one checkpoint
// interval of steps is redone per fault.
//
// Checkpoints are written by SaveV2 and read by RestoreV2 on chief_device
// (the chief is the only writer). The Saver lists checkpoints in
// <dir>/checkpoint and removes old ones from this process, so the client
// and the chief must see checkpoint_dir at the same absolute path (same
// host, or a shared file system); a save is atomic (saver.h), so a chief
// killed mid-save leaves the previous checkpoint listed and whole.
//
// Not thread-safe: one thread calls Train/Run. Both block for as long as
// training and recovery take. Build the supervisor after the model's
// variables: its Saver saves those that exist then (optimizer slots and the
// global step included). A checkpoint is also written right after the
// initializer runs (ckpt-0), so recovery never depends on initializers
// drawing the same values twice.
#ifndef FLOWVM_CC_SUPERVISOR_H_
#define FLOWVM_CC_SUPERVISOR_H_

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/saver.h"
#include "flowvm/cc/scope.h"
#include "flowvm/cc/training.h"
#include "flowvm/session.h"

namespace flowvm {

struct SupervisorOptions {
  // The session to (re-)create: target, health-check bounds, ... Its
  // connect_timeout_ms is not used: see cluster_wait_ms and cluster_poll_ms.
  SessionOptions session;
  // Absolute directory of the checkpoints. "": none are written, and a
  // fault restarts training from the initializer.
  std::string checkpoint_dir;
  int64_t save_every_steps = 0;  // save after every step N with N % this == 0 (0: not by steps)
  double save_every_secs = 0;    // save after a step when this long since the last save (0: not by time)
  int keep_checkpoints = 3;      // older ones are deleted; 0 keeps all
  // Where SaveV2 and RestoreV2 run. Empty: /job:worker/task:0 for a
  // grpc:// target, no constraint for a local one.
  std::string chief_device;
  // How long to wait for the cluster to be whole when creating a session
  // (at the start and after each fault) before Train gives up.
  int64_t cluster_wait_ms = 60000;
  // How long one try to create the session waits for every task; the
  // missing tasks are logged after each try.
  int64_t cluster_poll_ms = 2000;
  // Faults in a row with no new step done in between (one beyond every
  // step done before) before Train gives up: a fault that recurs each time
  // the same step runs is not a passing failure.
  int max_consecutive_faults = 10;
  // The first fault is recovered from at once; the n-th in a row after a
  // pause of retry_backoff_ms * 2^(n-2), at most 5 s: connections between
  // tasks that failed while a task was down take a moment to come back.
  int64_t retry_backoff_ms = 250;
  bool recover_deadline_exceeded = true;
  // Run when there is no checkpoint to restore. Default (not valid()):
  // GlobalVariablesInitializer of the scope, taken at construction.
  Operation init_op;
  // The variables saved and restored; empty: every variable of the scope.
  std::vector<Variable> variables;
  // Faults, waits, recoveries, and where training starts. Default: stderr.
  std::function<void(const std::string&)> log;
  bool log_saves = false;  // also log each checkpoint written
};

// What the supervisor went through; read it after Train or Run returns.
struct SupervisorStats {
  int faults = 0;                // recoverable faults seen (survived, unless Train failed after)
  int recoveries = 0;            // times training resumed after faults
  int64_t steps_redone = 0;      // completed steps thrown away by faults (run again)
  double seconds_lost = 0;       // work thrown away + time from each fault until resumed
  double seconds_waiting = 0;    // of which: waiting for the cluster to be whole
  int checkpoints_saved = 0;
  int64_t start_step = 0;        // steps done when Train first began (from a checkpoint, or 0)
  std::string last_fault;        // the last fault's error
};

class TrainingSupervisor {
 public:
  // Runs step `step` (1-based) on `session`.
  using StepFn = std::function<Status(ClientSession& session, int64_t step)>;

  TrainingSupervisor(const Scope& scope, SupervisorOptions options);
  // Waits for the sessions dropped after faults to finish closing.
  ~TrainingSupervisor();

  TrainingSupervisor(const TrainingSupervisor&) = delete;
  TrainingSupervisor& operator=(const TrainingSupervisor&) = delete;

  // Runs steps until `last_step` are done (see the top of the file). An
  // unrecoverable error, too many faults in a row, or a cluster not whole
  // within cluster_wait_ms ends it with that error, naming the step.
  Status Train(int64_t last_step, const StepFn& step_fn);

  // Runs `fn` once on the session (an evaluation after Train), recovering
  // from faults like Train when the newest checkpoint holds the current
  // state (checkpoint_dir set, saved since the last step); otherwise a
  // fault is returned as is.
  Status Run(const std::function<Status(ClientSession& session)>& fn);

  // Steps done so far (the state the variables hold, when connected).
  int64_t steps_done() const { return step_; }
  const SupervisorStats& stats() const { return stats_; }

  // Whether the supervisor retries after `s` (see the top of the file).
  static bool IsRecoverable(const Status& s, bool deadline_exceeded_too = true);

 private:
  using Clock = std::chrono::steady_clock;

  // Creates the session and restores or initializes, unless that is done.
  // *fatal: the error must end Train (cluster not whole in time, bad graph).
  Status EnsureSession(bool* fatal);
  // EnsureSession until it works, recovering from each fault on the way;
  // an error only when recovery gives up or the error is not recoverable.
  Status EnsureSessionRecovering();
  Status RestoreOrInitialize();
  Status Save();
  bool SaveDue() const;
  // Counts and logs a fault; an error if training must stop.
  Status OnFault(const Status& s, const std::string& where);
  void DropSession();
  void Log(const std::string& line) const;

  Scope scope_;
  SupervisorOptions options_;
  Operation init_;
  std::unique_ptr<Saver> saver_;
  std::unique_ptr<ClientSession> session_;
  bool ready_ = false;                 // session_ holds the restored/initialized state
  int64_t step_ = 0;                   // steps done in the current state
  int64_t checkpoint_step_ = -1;       // step of the newest checkpoint (-1: none)
  Clock::time_point checkpoint_time_;  // when the state last matched a checkpoint (or the start)
  Clock::time_point last_save_;
  bool recovering_ = false;
  Clock::time_point fault_time_;       // first fault of the current recovery
  int consecutive_faults_ = 0;
  int64_t furthest_step_ = 0;          // the most steps ever done
  SupervisorStats stats_;
  // Dropped sessions close on threads of their own: closing one whose
  // master is hung would otherwise hold up the recovery.
  struct Closer {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> done;
  };
  std::vector<Closer> closers_;
};

}  // namespace flowvm

#endif  // FLOWVM_CC_SUPERVISOR_H_
