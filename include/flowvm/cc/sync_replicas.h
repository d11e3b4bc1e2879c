// Synchronous training with backup workers (OSDI'16 section 4.4; the idea
// of TensorFlow's SyncReplicasOptimizer). N + b workers compute gradients;
// for each step the parameter servers average the first N that arrive and
// drop the stale ones (computed at an older step), so a slow or stopped
// worker does not stall the step.
//
// Between-graph replication: every worker process builds the same model
// (variables and the global step on the ps, the rest on its own task) and
// wraps its optimizer:
//
//   SyncReplicasOptimizer sync(&sgd, /*replicas_to_aggregate=*/N, /*total_num_replicas=*/N + b);
//   Operation train = sync.Minimize(root.WithDevice(my_task), loss, global_step);
//   Session (target grpc://<my task>, device_filters {"/job:ps", my_task})
//   chief:  run the variables' initializers (GlobalVariablesInitializer),
//           then sync.chief_init_op(), then start RunSyncLoop in a thread
//   others: wait until the variables are initialized (IsVariableInitialized)
//   every worker: run sync.local_step_init_op() once, then run `train` in
//           its loop, feeding its batches, until the global step is far
//           enough; the chief then stops its sync loop.
//
// What the graph does:
// - one ConditionalAccumulator per variable, on the variable's device,
//   shared by all workers (shared_name "<var>/grad_accum");
// - each worker's local step: a variable on its own task (not in the
//   root's collection: no initializer, checkpoint or other worker touches
//   it), set from the global step by local_step_init_op;
// - a worker's train op applies its gradients to the accumulators with its
//   local step, then takes a token from the token queue (on the global
//   step's device, shared_name "sync_token_q"), then sets its local step to
//   the global step it reads then;
// - the chief's sync op takes N averaged gradients from every accumulator,
//   applies them with the wrapped optimizer, increments the global step and
//   tops the token queue up to N + b tokens.
//
// Our way, compared with TensorFlow's: a token only wakes a worker; the
// worker takes the current global step as its local step, so a token left
// over from a step where some worker was stopped never makes another one
// compute for a step that is gone. The queue is topped up to N + b, not
// filled with N + b more each step, so while a worker is stopped the tokens
// it does not take do not pile up; the others use them and contribute a
// second gradient to the step instead of waiting (a take averages every
// fresh gradient in, at least N). So N counts gradients, not workers: even
// with N = N + b, a stopped worker does not stall the steps. The chief's loop also recovers from a sync
// step that failed midway (a take that completed goes with the failed
// step): recover_op sets every accumulator's global step back to the global
// step and tops the tokens up, so the waiting workers compute the step again.
//
// Call Minimize or ApplyGradients once per object (a worker process has
// one). Build with one thread; the operations returned are valid for the
// scope's graph. Errors are recorded in the scope.
#ifndef FLOWVM_CC_SYNC_REPLICAS_H_
#define FLOWVM_CC_SYNC_REPLICAS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "flowvm/cc/training.h"
#include "flowvm/session.h"

namespace flowvm {

class SyncReplicasOptimizer {
 public:
  // `optimizer` applies the averaged gradients; it is used while building
  // only. 1 <= replicas_to_aggregate <= total_num_replicas.
  SyncReplicasOptimizer(Optimizer* optimizer, int replicas_to_aggregate, int total_num_replicas);

  // The gradients of `loss` with respect to `var_list` (default: every
  // trainable variable), then ApplyGradients. `global_step` is an integer
  // scalar variable (on the ps). Returns the worker's train op.
  Operation Minimize(const Scope& scope, const Output& loss, const Variable& global_step,
                     const std::vector<Variable>& var_list = {});
  Operation ApplyGradients(const Scope& scope, const std::vector<std::pair<Output, Variable>>& grads_and_vars,
                           const Variable& global_step);

  // After Minimize or ApplyGradients:
  // The chief's step: take, apply, advance, tokens. Blocks until every
  // accumulator has replicas_to_aggregate fresh gradients.
  Operation sync_op() const { return sync_op_; }
  // The chief, once after the variables are initialized or restored: the
  // accumulators' global steps become the global step.
  Operation chief_init_op() const { return chief_init_op_; }
  // The chief, after a sync step failed: chief_init_op, then the token
  // queue is topped up, so that the workers waiting for the failed step's
  // tokens compute it again (RunSyncLoop does this itself).
  Operation recover_op() const { return recover_op_; }
  // Every worker, once before its first train step (and again after its
  // session is re-created): local step := global step.
  Operation local_step_init_op() const { return local_step_init_op_; }
  // The worker's local step as the train op used it (fetch it with the
  // train op: the step its gradients were applied at).
  Output local_step() const { return local_step_value_; }
  // The global step as the train op read it after its token (the worker's
  // next local step).
  Output next_local_step() const { return next_local_step_; }

  // Runs sync_op on `session` (made from this scope's graph) until `stop`
  // returns true. Each run waits at most poll_ms for gradients, so that a
  // stop request is seen; a run that timed out, was cancelled or aborted is
  // followed by recover_op (a take that completed in it went with it).
  // A sync step cancelled after its updates began may leave them half
  // applied, as any step cancelled midway would: poll_ms should be well
  // above a step's time. Other errors end the loop and are returned.
  // `steps` (may be null) counts the sync steps done. Blocking; call it
  // from a thread of its own.
  Status RunSyncLoop(Session* session, const std::function<bool()>& stop, int64_t poll_ms = 1000,
                     int64_t* steps = nullptr) const;

  int replicas_to_aggregate() const { return replicas_to_aggregate_; }
  int total_num_replicas() const { return total_num_replicas_; }

 private:
  Optimizer* optimizer_;
  const int replicas_to_aggregate_, total_num_replicas_;
  Operation sync_op_, chief_init_op_, recover_op_, local_step_init_op_;
  Output local_step_value_, next_local_step_;
};

}  // namespace flowvm

#endif  // FLOWVM_CC_SYNC_REPLICAS_H_
