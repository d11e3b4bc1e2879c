// Gradients of the ops in math_more_ops.cc and nn_activation_more_ops.cc,
// built from existing ops as TensorFlow's math_grad / nn_grad do. Real
// types only (as math_grad.cc).
#include <cmath>

#include "graph/node_def_util.h"
#include "ops/gradient_helpers.h"

namespace flowvm {
namespace {

using grad::OpInputTensor;

DataType TypeOf(NodeOut x) { return BaseType(x.dtype()); }

// ---- unary ----

// d sin(x) = cos(x).
Status SinGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {grad::Mul(s, dy[0], s.Op("Cos", {OpInputTensor(op, 0)}))};
  return s.status();
}

// d cos(x) = -sin(x).
Status CosGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {grad::Neg(s, grad::Mul(s, dy[0], s.Op("Sin", {OpInputTensor(op, 0)})))};
  return s.status();
}

// d tan(x) = sec(x)^2 = 1 / cos(x)^2.
Status TanGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut sec = s.Op("Reciprocal", {s.Op("Cos", {OpInputTensor(op, 0)})});
  *dx = {grad::Mul(s, dy[0], s.Op("Square", {sec}))};
  return s.status();
}

// d erf(x) = 2 / sqrt(pi) * exp(-x^2).
Status ErfGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut x = OpInputTensor(op, 0);
  NodeOut e = s.Op("Exp", {grad::Neg(s, s.Op("Square", {x}))});
  *dx = {grad::Mul(s, dy[0], grad::Mul(s, e, grad::Scalar(s, TypeOf(x), 2.0 / std::sqrt(M_PI))))};
  return s.status();
}

// d (exp(x) - 1) = exp(x).
Status Expm1Grad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {grad::Mul(s, dy[0], s.Op("Exp", {OpInputTensor(op, 0)}))};
  return s.status();
}

// ---- binary, undone of broadcasting ----

// z = atan2(y, x): dz/dy = x / (x^2 + y^2), dz/dx = -y / (x^2 + y^2).
Status Atan2Grad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  NodeOut y = OpInputTensor(op, 0), x = OpInputTensor(op, 1);
  NodeOut scale = grad::Div(s, dy[0], s.Op("AddV2", {s.Op("Square", {x}), s.Op("Square", {y})}));
  NodeOut gy, gx;
  grad::ReduceBroadcastGradients(s, y, x, grad::Mul(s, x, scale), grad::Neg(s, grad::Mul(s, y, scale)), &gy, &gx);
  *dx = {gy, gx};
  return s.status();
}

// z = (x - y)^2: dz/dx = 2 (x - y), dz/dy = -2 (x - y).
Status SquaredDifferenceGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                             std::vector<NodeOut>* dx) {
  NodeOut x = OpInputTensor(op, 0), y = OpInputTensor(op, 1);
  NodeOut g = grad::Mul(s, grad::Mul(s, dy[0], s.Op("Sub", {x, y})), grad::Scalar(s, TypeOf(x), 2));
  NodeOut gx, gy;
  grad::ReduceBroadcastGradients(s, x, y, g, grad::Neg(s, g), &gx, &gy);
  *dx = {gx, gy};
  return s.status();
}

// The gradient goes to t where it lies within the bounds, else to the bound
// that clipped it; each is summed back to its input's shape.
Status ClipByValueGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                       std::vector<NodeOut>* dx) {
  NodeOut t = OpInputTensor(op, 0), lo = OpInputTensor(op, 1), hi = OpInputTensor(op, 2);
  NodeOut zeros = s.Op("ZerosLike", {dy[0]});
  NodeOut below = s.Op("Less", {t, lo});
  NodeOut above = s.Op("Greater", {t, hi});
  NodeOut gt = s.Op("SelectV2", {s.Op("LogicalOr", {below, above}), zeros, dy[0]});
  NodeOut glo = s.Op("SelectV2", {below, dy[0], zeros});
  NodeOut ghi = s.Op("SelectV2", {above, dy[0], zeros});
  NodeOut rt, rlo, unused, rhi;
  grad::ReduceBroadcastGradients(s, t, lo, gt, glo, &rt, &rlo);
  grad::ReduceBroadcastGradients(s, t, hi, NodeOut(), ghi, &unused, &rhi);
  *dx = {rt, rlo, rhi};
  return s.status();
}

// ---- activations ----

Status LeakyReluGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {s.Op("LeakyReluGrad", {dy[0], OpInputTensor(op, 0)}, grad::CopyAttrs(op, {"alpha"}))};
  return s.status();
}

// LeakyReluGrad(g, x) is linear in g and piecewise constant in x.
Status LeakyReluGradGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                         std::vector<NodeOut>* dx) {
  NodeOut x = OpInputTensor(op, 1);
  *dx = {s.Op("LeakyReluGrad", {dy[0], x}, grad::CopyAttrs(op, {"alpha"})), s.Op("ZerosLike", {x})};
  return s.status();
}

Status SoftsignGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  *dx = {s.Op("SoftsignGrad", {dy[0], OpInputTensor(op, 0)})};
  return s.status();
}

// SoftsignGrad(g, x) = g / (1 + |x|)^2: d/dg is SoftsignGrad itself and
// d/dx = -2 g sign(x) / (1 + |x|)^3.
Status SoftsignGradGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy,
                        std::vector<NodeOut>* dx) {
  NodeOut g = OpInputTensor(op, 0), x = OpInputTensor(op, 1);
  const DataType t = TypeOf(x);
  NodeOut d = s.Op("AddV2", {s.Op("Abs", {x}), grad::Scalar(s, t, 1)});
  NodeOut d3 = grad::Mul(s, s.Op("Square", {d}), d);
  NodeOut num = grad::Mul(s, grad::Mul(s, dy[0], g), grad::Mul(s, s.Op("Sign", {x}), grad::Scalar(s, t, -2)));
  *dx = {s.Op("SoftsignGrad", {dy[0], x}), grad::Div(s, num, d3)};
  return s.status();
}

}  // namespace

REGISTER_GRADIENT("Sin", SinGrad);
REGISTER_GRADIENT("Cos", CosGrad);
REGISTER_GRADIENT("Tan", TanGrad);
REGISTER_GRADIENT("Erf", ErfGrad);
REGISTER_GRADIENT("Expm1", Expm1Grad);
REGISTER_GRADIENT("Atan2", Atan2Grad);
REGISTER_GRADIENT("SquaredDifference", SquaredDifferenceGrad);
REGISTER_GRADIENT("ClipByValue", ClipByValueGrad);
REGISTER_GRADIENT("LeakyRelu", LeakyReluGrad);
REGISTER_GRADIENT("LeakyReluGrad", LeakyReluGradGrad);
REGISTER_GRADIENT("Softsign", SoftsignGrad);
REGISTER_GRADIENT("SoftsignGrad", SoftsignGradGrad);

// Piecewise constant: TensorFlow defines no gradient for either.
REGISTER_NO_GRADIENT("TruncateDiv");
REGISTER_NO_GRADIENT("TruncateMod");

}  // namespace flowvm
