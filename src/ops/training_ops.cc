// Training ops on reference-typed variables: ApplyGradientDescent,
// ApplyMomentum, ApplyAdam, ApplyAdagrad, ApplyRMSProp, ApplyCenteredRMSProp.
// Names, inputs, attrs, defaults and type lists follow TensorFlow's
// training_ops.cc.
#include <string>

#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// Hyperparameter input i (lr, momentum, ...) must be a scalar.
Status CheckScalar(InferenceContext* c, int i, const char* name) {
  const PartialTensorShape& s = c->input(i);
  if (!s.unknown_rank() && s.dims() != 0)
    return errors::InvalidArgument(name, " must be a scalar but has shape ", s.DebugString());
  return Status::OK();
}

// var, its slots and grad all have one shape. `tensors` lists (input index,
// name), var first; a conflict names the inputs merged so far and the one
// that disagrees. The merged shape is the output's.
Status MergeTensorInputs(InferenceContext* c, std::initializer_list<std::pair<int, const char*>> tensors) {
  PartialTensorShape merged;
  std::string so_far;
  for (const auto& [i, name] : tensors) {
    if (so_far.empty()) {
      merged = c->input(i);
      so_far = name;
      continue;
    }
    auto m = merged.MergeWith(c->input(i));
    if (!m.ok())
      return errors::InvalidArgument(so_far, " and ", name, " do not have the same shape: ", merged.DebugString(),
                                     " vs ", c->input(i).DebugString());
    merged = *m;
    so_far += std::string("/") + name;
  }
  c->set_output(0, merged);
  return Status::OK();
}

Status ApplyGradientDescentShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(CheckScalar(c, 1, "alpha"));
  return MergeTensorInputs(c, {{0, "var"}, {2, "delta"}});
}

Status ApplyMomentumShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(CheckScalar(c, 2, "lr"));
  FLOWVM_RETURN_IF_ERROR(CheckScalar(c, 4, "momentum"));
  return MergeTensorInputs(c, {{0, "var"}, {1, "accum"}, {3, "grad"}});
}

Status ApplyAdamShape(InferenceContext* c) {
  static const char* const kScalars[] = {"beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"};
  for (int i = 0; i < 6; ++i) FLOWVM_RETURN_IF_ERROR(CheckScalar(c, 3 + i, kScalars[i]));
  return MergeTensorInputs(c, {{0, "var"}, {1, "m"}, {2, "v"}, {9, "grad"}});
}

Status ApplyAdagradShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(CheckScalar(c, 2, "lr"));
  return MergeTensorInputs(c, {{0, "var"}, {1, "accum"}, {3, "grad"}});
}

Status ApplyRMSPropShape(InferenceContext* c) {
  static const char* const kScalars[] = {"lr", "rho", "momentum", "epsilon"};
  for (int i = 0; i < 4; ++i) FLOWVM_RETURN_IF_ERROR(CheckScalar(c, 3 + i, kScalars[i]));
  return MergeTensorInputs(c, {{0, "var"}, {1, "ms"}, {2, "mom"}, {7, "grad"}});
}

Status ApplyCenteredRMSPropShape(InferenceContext* c) {
  static const char* const kScalars[] = {"lr", "rho", "momentum", "epsilon"};
  for (int i = 0; i < 4; ++i) FLOWVM_RETURN_IF_ERROR(CheckScalar(c, 4 + i, kScalars[i]));
  return MergeTensorInputs(c, {{0, "var"}, {1, "mg"}, {2, "ms"}, {3, "mom"}, {8, "grad"}});
}

}  // namespace

REGISTER_OP("ApplyGradientDescent")
    .Input("var: Ref(T)")
    .Input("alpha: T")
    .Input("delta: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyGradientDescentShape)
    .Doc("Update 'var' by subtracting 'alpha' * 'delta' from it.");

REGISTER_OP("ApplyMomentum")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Input("momentum: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(ApplyMomentumShape)
    .Doc(
        "Update 'var' with momentum: accum = accum * momentum + grad; var -= lr * accum "
        "(use_nesterov: var -= grad * lr + accum * momentum * lr).");

REGISTER_OP("ApplyAdam")
    .Input("var: Ref(T)")
    .Input("m: Ref(T)")
    .Input("v: Ref(T)")
    .Input("beta1_power: T")
    .Input("beta2_power: T")
    .Input("lr: T")
    .Input("beta1: T")
    .Input("beta2: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("use_nesterov: bool = false")
    .SetShapeFn(ApplyAdamShape)
    .Doc(
        "Update 'var' by Adam: lr_t = lr * sqrt(1 - beta2_power) / (1 - beta1_power); "
        "m += (grad - m) * (1 - beta1); v += (grad^2 - v) * (1 - beta2); "
        "var -= lr_t * m / (sqrt(v) + epsilon) "
        "(use_nesterov: lr_t * (m * beta1 + (1 - beta1) * grad) / (sqrt(v) + epsilon)).");

REGISTER_OP("ApplyAdagrad")
    .Input("var: Ref(T)")
    .Input("accum: Ref(T)")
    .Input("lr: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .Attr("update_slots: bool = true")
    .SetShapeFn(ApplyAdagradShape)
    .Doc("Update 'var' by Adagrad: accum += grad^2 (if update_slots); var -= lr * grad / sqrt(accum).");

REGISTER_OP("ApplyRMSProp")
    .Input("var: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyRMSPropShape)
    .Doc(
        "Update 'var' by RMSProp: ms += (grad^2 - ms) * (1 - rho); "
        "mom = mom * momentum + lr * grad / sqrt(ms + epsilon); var -= mom.");

REGISTER_OP("ApplyCenteredRMSProp")
    .Input("var: Ref(T)")
    .Input("mg: Ref(T)")
    .Input("ms: Ref(T)")
    .Input("mom: Ref(T)")
    .Input("lr: T")
    .Input("rho: T")
    .Input("momentum: T")
    .Input("epsilon: T")
    .Input("grad: T")
    .Output("out: Ref(T)")
    .Attr("T: numbertype")
    .Attr("use_locking: bool = false")
    .SetShapeFn(ApplyCenteredRMSPropShape)
    .Doc(
        "Update 'var' by centered RMSProp: mg += (grad - mg) * (1 - rho); ms += (grad^2 - ms) * (1 - rho); "
        "mom = mom * momentum + lr * grad / sqrt(ms - mg^2 + epsilon); var -= mom.");

}  // namespace flowvm
