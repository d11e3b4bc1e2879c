// Training helpers for the C++ client API: variables with initializers, and
// optimizers whose Minimize(loss) adds the gradient and update nodes
// (paper sections 4.1 and Figure 1).
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
//   Variable w(root.WithOpName("w"), {784, 100}, DT_FLOAT, init::GlorotUniform(1));
//   Variable b(root.WithOpName("b"), {100}, DT_FLOAT, init::Zeros());
//   auto relu = ops::Relu(root, ops::BiasAdd(root, ops::MatMul(root, x, w), b));
//   ...
//   Operation train = GradientDescentOptimizer(0.1f).Minimize(root, loss);
//   ClientSession session(root);
//   session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr);
//
// Every Variable (optimizer slots and the global step included) is recorded
// in the root scope's collection, which GlobalVariablesInitializer,
// GlobalVariables and the Saver read. Errors are recorded in the scope.
#ifndef FLOWVM_CC_TRAINING_H_
#define FLOWVM_CC_TRAINING_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flowvm/cc/scope.h"
#include "flowvm/tensor_shape.h"

namespace flowvm {

// Builds a variable's initial value.
using Initializer = std::function<Output(const Scope& scope, const TensorShape& shape, DataType dtype)>;

namespace init {
Initializer Zeros();
Initializer Ones();
Initializer Constant(double value);
Initializer Value(const Tensor& value);  // must match the variable's shape and dtype
// Uniform in [min, max), from a Philox stream fixed by `seed`.
Initializer RandomUniform(double min, double max, int64_t seed);
// Normal(mean, stddev) redrawn beyond two standard deviations.
Initializer TruncatedNormal(double mean, double stddev, int64_t seed);
// Glorot/Xavier uniform: limit sqrt(6 / (fan_in + fan_out)); for a conv
// filter [h, w, in, out] the fans are h*w*in and h*w*out.
Initializer GlorotUniform(int64_t seed);
}  // namespace init

struct VariableRecord;

// A VariableV2 node, its initial value and its initializer (an Assign
// named "<name>/Assign"). Converts to its Output, a reference that ops read.
class Variable {
 public:
  Variable() = default;
  Variable(const Scope& scope, const TensorShape& shape, DataType dtype, const Initializer& initializer,
           bool trainable = true);

  Output ref() const;
  operator Output() const { return ref(); }  // NOLINT: implicit, to use as an op input
  operator Input() const { return ref(); }   // NOLINT
  Operation initializer() const;
  const std::string& name() const;
  DataType dtype() const;
  const TensorShape& shape() const;
  bool trainable() const;
  bool valid() const { return record_ != nullptr; }

 private:
  friend std::vector<Variable> GlobalVariables(const Scope& scope);
  explicit Variable(std::shared_ptr<VariableRecord> r) : record_(std::move(r)) {}
  std::shared_ptr<VariableRecord> record_;
};

// Every variable created through scopes of this root so far, in creation order.
std::vector<Variable> GlobalVariables(const Scope& scope);
std::vector<Variable> TrainableVariables(const Scope& scope);
// A NoOp that runs every initializer of the variables created so far.
Operation GlobalVariablesInitializer(const Scope& scope);

class Optimizer {
 public:
  virtual ~Optimizer() = default;

  // Adds d(loss)/d(var) for each variable of `var_list` (default: every
  // trainable variable) and one update node per variable, under a name
  // scope named after the optimizer. The returned op runs all updates, then
  // increments `global_step` (an integer scalar Variable) if given.
  Operation Minimize(const Scope& scope, const Output& loss, const std::vector<Variable>& var_list = {},
                     const Variable* global_step = nullptr);
  Operation ApplyGradients(const Scope& scope, const std::vector<std::pair<Output, Variable>>& grads_and_vars,
                           const Variable* global_step = nullptr);
  // The first half of Minimize: (d(loss)/d(var), var) for each variable of
  // `var_list` (default: every trainable one). On an error (none, or no
  // gradient) the scope records it and the result is empty. `who` names the
  // caller in the error.
  static std::vector<std::pair<Output, Variable>> ComputeGradients(const Scope& scope, const Output& loss,
                                                                   const std::vector<Variable>& var_list,
                                                                   const std::string& who);

 protected:
  explicit Optimizer(std::string name) : name_(std::move(name)) {}
  // The update node for one variable.
  virtual Output ApplyDense(const Scope& scope, const Output& grad, const Variable& var) = 0;
  // Called once per ApplyGradients before the updates, and after them with
  // the update ops (Adam advances its beta powers there).
  virtual void Prepare(const Scope& scope, const std::vector<Variable>& vars) {}
  virtual std::vector<Operation> Finish(const Scope& scope, const std::vector<Operation>& updates) { return {}; }

  // A hyperparameter as a tensor of `dtype` (a constant, or a cast Output).
  static Output Hyper(const Scope& scope, const Input& value, DataType dtype);
  // A non-trainable slot variable "<var>/<slot>" shaped like var (zeros by default).
  static Variable Slot(const Scope& scope, const Variable& var, const std::string& slot,
                       const Initializer& init = init::Zeros());

  const std::string name_;
};

class GradientDescentOptimizer : public Optimizer {
 public:
  explicit GradientDescentOptimizer(Input learning_rate);

 private:
  Output ApplyDense(const Scope& scope, const Output& grad, const Variable& var) override;
  Input lr_;
};

// accum = momentum * accum + grad; var -= lr * accum (or the Nesterov form).
class MomentumOptimizer : public Optimizer {
 public:
  MomentumOptimizer(Input learning_rate, Input momentum, bool use_nesterov = false);

 private:
  Output ApplyDense(const Scope& scope, const Output& grad, const Variable& var) override;
  Input lr_, momentum_;
  bool nesterov_;
};

// accum += grad^2; var -= lr * grad / sqrt(accum), accum starting at
// initial_accumulator_value (TensorFlow's default 0.1).
class AdagradOptimizer : public Optimizer {
 public:
  explicit AdagradOptimizer(Input learning_rate, float initial_accumulator_value = 0.1f);

 private:
  Output ApplyDense(const Scope& scope, const Output& grad, const Variable& var) override;
  Input lr_;
  float initial_accumulator_;
};

// ms = decay * ms + (1 - decay) * grad^2 (starting at ones, as in TensorFlow);
// mom = momentum * mom + lr * grad / sqrt(ms + epsilon); var -= mom.
class RMSPropOptimizer : public Optimizer {
 public:
  explicit RMSPropOptimizer(Input learning_rate, float decay = 0.9f, float momentum = 0.0f, float epsilon = 1e-10f);

 private:
  Output ApplyDense(const Scope& scope, const Output& grad, const Variable& var) override;
  Input lr_;
  float decay_, momentum_, epsilon_;
};

// Kingma and Ba's Adam, with TensorFlow's epsilon placement.
class AdamOptimizer : public Optimizer {
 public:
  explicit AdamOptimizer(Input learning_rate = 0.001f, float beta1 = 0.9f, float beta2 = 0.999f,
                         float epsilon = 1e-8f);

 private:
  Output ApplyDense(const Scope& scope, const Output& grad, const Variable& var) override;
  void Prepare(const Scope& scope, const std::vector<Variable>& vars) override;
  std::vector<Operation> Finish(const Scope& scope, const std::vector<Operation>& updates) override;
  Input lr_;
  float beta1_, beta2_, epsilon_;
  Variable beta1_power_, beta2_power_;
};

}  // namespace flowvm

#endif  // FLOWVM_CC_TRAINING_H_
