// Optimizer::Minimize and the optimizers: gradients come from
// AddSymbolicGradients, updates from the Apply* training ops.
#include "cc/scope_impl.h"
#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/training.h"

namespace flowvm {

std::vector<std::pair<Output, Variable>> Optimizer::ComputeGradients(const Scope& scope, const Output& loss,
                                                                     const std::vector<Variable>& var_list,
                                                                     const std::string& who) {
  std::vector<Variable> vars = var_list.empty() ? TrainableVariables(scope) : var_list;
  if (vars.empty()) {
    scope.UpdateStatus(errors::InvalidArgument(who, ".Minimize: there are no trainable variables"));
    return {};
  }
  std::vector<Output> refs;
  for (const Variable& v : vars) refs.push_back(v.ref());
  std::vector<Output> grads;
  if (!AddSymbolicGradients(scope, {loss}, refs, &grads).ok()) return {};
  std::vector<std::pair<Output, Variable>> pairs;
  for (size_t i = 0; i < vars.size(); ++i) pairs.emplace_back(grads[i], vars[i]);
  return pairs;
}

Operation Optimizer::Minimize(const Scope& scope, const Output& loss, const std::vector<Variable>& var_list,
                              const Variable* global_step) {
  auto pairs = ComputeGradients(scope, loss, var_list, name_);
  if (pairs.empty()) return Operation();
  return ApplyGradients(scope, pairs, global_step);
}

Operation Optimizer::ApplyGradients(const Scope& scope,
                                    const std::vector<std::pair<Output, Variable>>& grads_and_vars,
                                    const Variable* global_step) {
  Scope s = scope.NewSubScope(name_);
  std::vector<Variable> vars;
  std::vector<Operation> grad_ops;
  for (const auto& gv : grads_and_vars) {
    vars.push_back(gv.second);
    if (gv.first.valid()) grad_ops.push_back(gv.first.op());
  }
  // The updates wait until every gradient is computed (TensorFlow's
  // gate_gradients). A gradient may read a variable that another update
  // changes in place: a MatMul's gradient with respect to its input reads
  // the weights, whose own update needs only the other half of that
  // gradient. Started as soon as its own gradient was ready, an update could
  // change the weights before an earlier layer's gradient had read them;
  // across tasks, where a read waits for a message, it often did.
  Operation gate = ops::NoOp(s.WithControlDependencies(grad_ops).WithOpName("gate_gradients")).operation;
  Scope gated = s.WithControlDependencies({gate});
  Prepare(s, vars);
  std::vector<Operation> updates;
  for (const auto& [grad, var] : grads_and_vars) {
    // The update and its slots (made in its scope) go on the variable's
    // device, whatever the scope's (TensorFlow's colocate_with(var)): the
    // update takes them all by reference, so they must share a device. Left
    // to the scope's device, the update could not be placed; left to none,
    // a slot is placed by the initialization step, which has no update to
    // colocate it with its variable, and the first training step fails.
    Scope update_scope = gated.NewSubScope("update_" + var.name());
    const std::string& device = var.ref().node()->requested_device();
    if (!device.empty()) update_scope = update_scope.WithDevice(device);
    updates.push_back(ApplyDense(update_scope, grad, var).op());
  }
  std::vector<Operation> finish = Finish(s, updates);
  updates.insert(updates.end(), finish.begin(), finish.end());
  if (global_step != nullptr && global_step->valid()) {
    Scope after = s.WithControlDependencies(updates);
    auto one = ops::Cast(after, ops::Const(after, 1), BaseType(global_step->dtype()));
    updates.push_back(ops::AssignAdd(after.WithOpName("increment_global_step"), *global_step, one).operation);
  }
  return ops::NoOp(s.WithControlDependencies(updates).WithOpName("train")).operation;
}

Output Optimizer::Hyper(const Scope& scope, const Input& value, DataType dtype) {
  if (value.is_constant()) {
    const Tensor& t = value.tensor();
    if (t.dtype() == dtype) return ops::Const(scope, t);
    return ops::Cast(scope, ops::Const(scope, t), dtype);
  }
  if (BaseType(value.output().type()) == dtype) return value.output();
  return ops::Cast(scope, value.output(), dtype);
}

Variable Optimizer::Slot(const Scope& scope, const Variable& var, const std::string& slot, const Initializer& init) {
  // Named after the variable ("w/Adam"), outside the optimizer's name scope.
  Scope top = MakeScope(scope, GetGraphScope(scope).WithExactNamePrefix("").WithNoControlDependencies());
  return Variable(top.WithOpName(var.name() + "/" + slot), var.shape(), var.dtype(), init, /*trainable=*/false);
}

GradientDescentOptimizer::GradientDescentOptimizer(Input learning_rate)
    : Optimizer("GradientDescent"), lr_(std::move(learning_rate)) {}

Output GradientDescentOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Variable& var) {
  return ops::ApplyGradientDescent(scope, var, Hyper(scope, lr_, var.dtype()), grad);
}

MomentumOptimizer::MomentumOptimizer(Input learning_rate, Input momentum, bool use_nesterov)
    : Optimizer("Momentum"), lr_(std::move(learning_rate)), momentum_(std::move(momentum)), nesterov_(use_nesterov) {}

Output MomentumOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Variable& var) {
  Variable accum = Slot(scope, var, "Momentum");
  return ops::ApplyMomentum(scope, var, accum, Hyper(scope, lr_, var.dtype()), grad,
                            Hyper(scope, momentum_, var.dtype()), ops::ApplyMomentum::UseNesterov(nesterov_));
}

AdagradOptimizer::AdagradOptimizer(Input learning_rate, float initial_accumulator_value)
    : Optimizer("Adagrad"), lr_(std::move(learning_rate)), initial_accumulator_(initial_accumulator_value) {}

Output AdagradOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Variable& var) {
  Variable accum = Slot(scope, var, "Adagrad", init::Constant(initial_accumulator_));
  return ops::ApplyAdagrad(scope, var, accum, Hyper(scope, lr_, var.dtype()), grad);
}

RMSPropOptimizer::RMSPropOptimizer(Input learning_rate, float decay, float momentum, float epsilon)
    : Optimizer("RMSProp"), lr_(std::move(learning_rate)), decay_(decay), momentum_(momentum), epsilon_(epsilon) {}

Output RMSPropOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Variable& var) {
  Variable ms = Slot(scope, var, "RMSProp", init::Ones());
  Variable mom = Slot(scope, var, "RMSProp_1");
  DataType t = var.dtype();
  return ops::ApplyRMSProp(scope, var, ms, mom, Hyper(scope, lr_, t), Hyper(scope, decay_, t),
                           Hyper(scope, momentum_, t), Hyper(scope, epsilon_, t), grad);
}

AdamOptimizer::AdamOptimizer(Input learning_rate, float beta1, float beta2, float epsilon)
    : Optimizer("Adam"), lr_(std::move(learning_rate)), beta1_(beta1), beta2_(beta2), epsilon_(epsilon) {}

void AdamOptimizer::Prepare(const Scope& scope, const std::vector<Variable>& vars) {
  DataType dtype = vars.empty() ? DT_FLOAT : vars[0].dtype();
  Scope plain = scope.WithNoControlDependencies();
  beta1_power_ = Variable(plain.WithOpName("beta1_power"), TensorShape({}), dtype, init::Constant(beta1_), false);
  beta2_power_ = Variable(plain.WithOpName("beta2_power"), TensorShape({}), dtype, init::Constant(beta2_), false);
}

Output AdamOptimizer::ApplyDense(const Scope& scope, const Output& grad, const Variable& var) {
  Variable m = Slot(scope, var, "Adam");
  Variable v = Slot(scope, var, "Adam_1");
  DataType t = var.dtype();
  return ops::ApplyAdam(scope, var, m, v, Hyper(scope, Input(beta1_power_.ref()), t),
                        Hyper(scope, Input(beta2_power_.ref()), t), Hyper(scope, lr_, t), Hyper(scope, beta1_, t),
                        Hyper(scope, beta2_, t), Hyper(scope, epsilon_, t), grad);
}

std::vector<Operation> AdamOptimizer::Finish(const Scope& scope, const std::vector<Operation>& updates) {
  Scope after = scope.WithControlDependencies(updates);
  DataType t = beta1_power_.dtype();
  auto b1 = ops::Assign(after.WithOpName("update_beta1_power"), beta1_power_,
                        ops::Mul(after, beta1_power_, Hyper(after, beta1_, t)));
  auto b2 = ops::Assign(after.WithOpName("update_beta2_power"), beta2_power_,
                        ops::Mul(after, beta2_power_, Hyper(after, beta2_, t)));
  return {b1.operation, b2.operation};
}

}  // namespace flowvm
