// SyncReplicasOptimizer: accumulators on the variables' devices, a token
// queue on the global step's, each worker's train op and the chief's sync
// op (see the header for the protocol).
#include "flowvm/cc/sync_replicas.h"

#include "cc/scope_impl.h"
#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"

namespace flowvm {
namespace {

const std::string& DeviceOf(const Output& o) { return o.node()->requested_device(); }

Scope OnDevice(const Scope& scope, const std::string& device) {
  return device.empty() ? scope : scope.WithDevice(device);
}

// The value of an integer variable as int64 (the accumulators' steps).
Output AsInt64(const Scope& scope, const Output& ref) {
  if (BaseType(ref.type()) == DT_INT64) return ops::Identity(scope, ref);
  return ops::Cast(scope, ref, DT_INT64);
}

// Enqueues copies of the global step until the queue holds `total` tokens.
// Only the chief enqueues, so the queue cannot grow between the size read
// and the enqueue.
Operation TopUpTokens(const Scope& scope, const Output& queue, const Variable& global_step, int total) {
  auto size = ops::QueueSizeV2(scope, queue);
  auto missing = ops::Maximum(scope, ops::Sub(scope, ops::Const(scope, total), size), ops::Const(scope, 0));
  auto dims = ops::Reshape(scope, missing, ops::Const(scope, Tensor::FromVector<int32_t>({1})));
  auto tokens = ops::Fill(scope, dims, AsInt64(scope, global_step.ref()));
  return ops::QueueEnqueueManyV2(scope.WithOpName("enqueue_tokens"), queue, {Output(tokens)}).operation;
}

bool Retriable(const Status& s) {
  return s.code() == Code::kDeadlineExceeded || s.code() == Code::kCancelled || s.code() == Code::kAborted;
}

}  // namespace

SyncReplicasOptimizer::SyncReplicasOptimizer(Optimizer* optimizer, int replicas_to_aggregate, int total_num_replicas)
    : optimizer_(optimizer), replicas_to_aggregate_(replicas_to_aggregate), total_num_replicas_(total_num_replicas) {}

Operation SyncReplicasOptimizer::Minimize(const Scope& scope, const Output& loss, const Variable& global_step,
                                          const std::vector<Variable>& var_list) {
  auto pairs = Optimizer::ComputeGradients(scope, loss, var_list, "SyncReplicasOptimizer");
  if (pairs.empty()) return Operation();
  return ApplyGradients(scope, pairs, global_step);
}

Operation SyncReplicasOptimizer::ApplyGradients(const Scope& scope,
                                                const std::vector<std::pair<Output, Variable>>& grads_and_vars,
                                                const Variable& global_step) {
  if (!scope.ok()) return Operation();
  if (optimizer_ == nullptr) {
    scope.UpdateStatus(errors::InvalidArgument("SyncReplicasOptimizer: no optimizer to apply the gradients with"));
    return Operation();
  }
  if (replicas_to_aggregate_ < 1 || replicas_to_aggregate_ > total_num_replicas_) {
    scope.UpdateStatus(errors::InvalidArgument("SyncReplicasOptimizer: replicas_to_aggregate (", replicas_to_aggregate_,
                                               ") must be in [1, total_num_replicas (", total_num_replicas_, ")]"));
    return Operation();
  }
  if (!global_step.valid() || (global_step.dtype() != DT_INT64 && global_step.dtype() != DT_INT32) ||
      global_step.shape().dims() != 0) {
    scope.UpdateStatus(errors::InvalidArgument("SyncReplicasOptimizer: the global step must be an int32 or int64 "
                                               "scalar variable"));
    return Operation();
  }
  std::vector<std::pair<Output, Variable>> pairs;
  for (const auto& gv : grads_and_vars)
    if (gv.first.valid()) pairs.push_back(gv);  // a variable the loss does not depend on: nothing to apply
  if (pairs.empty()) {
    scope.UpdateStatus(errors::InvalidArgument("SyncReplicasOptimizer: no variable has a gradient"));
    return Operation();
  }

  Scope s = scope.NewSubScope("sync_replicas");
  const std::string gs_device = DeviceOf(global_step.ref());

  // The worker's local step lives on its own task and outside the root's
  // collection (GlobalVariablesInitializer, savers and the other workers
  // never see it).
  auto local = ops::VariableV2(s.WithOpName("local_step"), PartialTensorShape(std::initializer_list<int64_t>{}),
                               DT_INT64);
  Scope gs_scope = OnDevice(s, gs_device);
  local_step_init_op_ = ops::Assign(s.WithOpName("local_step_init"), local,
                                    AsInt64(gs_scope.WithNoControlDependencies(), global_step.ref()))
                            .operation;
  local_step_value_ = ops::Identity(s.WithOpName("local_step_value"), local);

  // One accumulator per variable, on its device, shared by every worker.
  std::vector<Output> accumulators;
  std::vector<Operation> applies;
  Scope plain = s.WithNoControlDependencies();
  for (const auto& [grad, var] : pairs) {
    const std::string& device = DeviceOf(var.ref());
    const std::string shared = var.name() + "/grad_accum";
    Output acc = ops::ConditionalAccumulator(OnDevice(plain, device).WithOpName(shared), var.dtype(),
                                             PartialTensorShape(var.shape()),
                                             ops::ConditionalAccumulator::SharedName(shared));
    accumulators.push_back(acc);
    applies.push_back(ops::AccumulatorApplyGradient(OnDevice(s, device).WithOpName(var.name() + "/apply_grad"), acc,
                                                    local_step_value_, grad)
                          .operation);
  }

  // The token queue: each worker takes one after its gradients are in.
  Scope queue_scope = OnDevice(plain, gs_device);
  Output queue = ops::FIFOQueueV2(queue_scope.WithOpName("sync_token_q"), {DT_INT64},
                                  ops::FIFOQueueV2::Shapes({PartialTensorShape(std::initializer_list<int64_t>{})})
                                      .SharedName("sync_token_q"));
  auto token = ops::QueueDequeueV2(queue_scope.WithControlDependencies(applies).WithOpName("take_token"), queue,
                                   {DT_INT64});
  // The token wakes the worker; its next local step is the global step now
  // (a token left over from an earlier step never sends it back there).
  next_local_step_ = AsInt64(gs_scope.WithNoControlDependencies()
                                 .WithControlDependencies({token.operation})
                                 .WithOpName("next_local_step"),
                             global_step.ref());
  auto set_local = ops::Assign(s.WithOpName("set_local_step"), local, next_local_step_);
  Operation train = ops::NoOp(s.WithControlDependencies({set_local.operation}).WithOpName("train")).operation;

  // The chief: N averaged gradients per variable, applied with the wrapped
  // optimizer (which increments the global step after its updates), then
  // the tokens for the next step. It runs on the ps: the chief's own task
  // only drives it.
  Scope chief = OnDevice(plain.NewSubScope("chief"), gs_device);
  std::vector<std::pair<Output, Variable>> averaged;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const Variable& var = pairs[i].second;
    Scope on = OnDevice(chief, DeviceOf(var.ref()));
    averaged.emplace_back(ops::AccumulatorTakeGradient(on.WithOpName(var.name() + "/take_grad"), accumulators[i],
                                                       ops::Const(on, replicas_to_aggregate_), var.dtype()),
                          var);
  }
  Operation update = optimizer_->ApplyGradients(chief, averaged, &global_step);
  if (!update.valid()) return Operation();
  Operation tokens = TopUpTokens(chief.WithControlDependencies({update}), queue, global_step, total_num_replicas_);
  sync_op_ = ops::NoOp(chief.WithControlDependencies({tokens}).WithOpName("sync_op")).operation;

  // Chief init: the accumulators' steps follow the global step. Recovery
  // also tops the tokens up, so that workers waiting for a step that
  // failed compute it again.
  Scope init = OnDevice(plain.NewSubScope("chief_init"), gs_device);
  Output step = AsInt64(init, global_step.ref());
  std::vector<Operation> sets;
  for (size_t i = 0; i < pairs.size(); ++i)
    sets.push_back(ops::AccumulatorSetGlobalStep(OnDevice(init, DeviceOf(pairs[i].second.ref())), accumulators[i], step)
                       .operation);
  chief_init_op_ = ops::NoOp(init.WithControlDependencies(sets).WithOpName("chief_init")).operation;
  Scope recover = OnDevice(plain.NewSubScope("recover"), gs_device);
  Operation retokens = TopUpTokens(recover.WithControlDependencies({chief_init_op_}), queue, global_step,
                                   total_num_replicas_);
  recover_op_ = ops::NoOp(recover.WithControlDependencies({retokens}).WithOpName("recover")).operation;
  return train;
}

Status SyncReplicasOptimizer::RunSyncLoop(Session* session, const std::function<bool()>& stop, int64_t poll_ms,
                                          int64_t* steps) const {
  if (!sync_op_.valid()) return errors::FailedPrecondition("RunSyncLoop: build the graph with Minimize first");
  const std::vector<std::string> sync = {sync_op_.name()}, recover = {recover_op_.name()};
  while (!stop()) {
    RunOptions options;
    if (poll_ms > 0) options.set_timeout_in_ms(poll_ms);
    Status s = session->Run(options, {}, {}, sync, nullptr, nullptr);
    if (s.ok()) {
      if (steps != nullptr) ++*steps;
      continue;
    }
    if (!Retriable(s)) return s;
    if (stop()) break;
    // Gradients did not come in time, or the step failed midway: a take
    // that completed in it advanced its accumulator and went with the step.
    Status r = session->Run({}, {}, recover, nullptr);
    if (!r.ok() && !Retriable(r)) return r;
  }
  return Status::OK();
}

}  // namespace flowvm
