// Gradient checks for ops/math_more_grad.cc and ops/array_more_grad.cc: the
// element-wise, activation, padding, scatter/gather, top-k and depth/space
// ops added for the TensorFlow 1.x front-end; and Print (ops/logging_ops.cc).
#include "gradients/gradient_cases.h"

namespace flowvm::testing {
namespace {

using Xs = std::vector<NodeOut>;

Tensor R(std::initializer_list<int64_t> dims, uint64_t seed, double lo = -1, double hi = 1) {
  return RandomDoubles(TensorShape(dims), lo, hi, seed);
}
NodeOut I32s(const GraphScope& s, const std::vector<int32_t>& v, const TensorShape& shape) {
  return ConstOp(s, Tensor::FromVector<int32_t>(v, shape));
}
NodeOut I64s(const GraphScope& s, const std::vector<int64_t>& v, const TensorShape& shape) {
  return ConstOp(s, Tensor::FromVector<int64_t>(v, shape));
}
AttrValue Str(const char* v) { return MakeAttrValue(std::string(v)); }

GradientBuildFn Unary(const char* op, AttrMap attrs = {}) {
  return [op, attrs](const GraphScope& s, const Xs& x) { return Ys(s.Op(op, {x[0]}, attrs)); };
}
GradientBuildFn Binary(const char* op, AttrMap attrs = {}) {
  return [op, attrs](const GraphScope& s, const Xs& x) { return Ys(s.Op(op, {x[0], x[1]}, attrs)); };
}

std::vector<GradCase> ElementwiseCases() {
  std::vector<GradCase> c;
  uint64_t seed = 100;
  for (const char* op : {"Sin", "Cos", "Tan", "Erf", "Expm1", "Softsign"})
    c.push_back({op, op, {R({2, 3}, seed++)}, Unary(op)});
  for (const char* op : {"Atan2", "SquaredDifference"}) {
    const std::string name(op);
    c.push_back({name + "_same_shape", op, {R({2, 3}, seed++, 0.5, 2), R({2, 3}, seed++, -2, 2)}, Binary(op)});
    c.push_back({name + "_broadcast", op, {R({2, 1}, seed++, 0.5, 2), R({1, 3}, seed++, -2, 2)}, Binary(op)});
  }
  c.push_back({"LeakyRelu_default_alpha", "LeakyRelu", {R({3, 4}, seed++)}, Unary("LeakyRelu")});
  c.push_back({"LeakyRelu_alpha", "LeakyRelu", {R({3, 4}, seed++)},
               Unary("LeakyRelu", {{"alpha", MakeAttrValue(0.3f)}})});
  c.push_back({"LeakyReluGrad", "LeakyReluGrad", {R({3, 4}, seed++), R({3, 4}, seed++)},
               Binary("LeakyReluGrad", {{"alpha", MakeAttrValue(0.1f)}})});
  c.push_back({"SoftsignGrad", "SoftsignGrad", {R({3, 4}, seed++), R({3, 4}, seed++, -2, 2)}, Binary("SoftsignGrad")});
  // Bounds as inputs too: scalars, then of t's shape.
  c.push_back({"ClipByValue_scalar_bounds", "ClipByValue",
               {R({3, 4}, seed++), R({}, seed++, -0.6, -0.4), R({}, seed++, 0.4, 0.6)},
               [](const GraphScope& s, const Xs& x) { return Ys(s.Op("ClipByValue", {x[0], x[1], x[2]})); }});
  c.push_back({"ClipByValue_tensor_bounds", "ClipByValue",
               {R({2, 3}, seed++), R({2, 3}, seed++, -0.7, -0.2), R({2, 3}, seed++, 0.2, 0.7)},
               [](const GraphScope& s, const Xs& x) { return Ys(s.Op("ClipByValue", {x[0], x[1], x[2]})); }});
  return c;
}

std::vector<GradCase> PadReverseCases() {
  std::vector<GradCase> c;
  c.push_back({"PadV2", "PadV2", {R({2, 3}, 1)}, [](const GraphScope& s, const Xs& x) {
                 NodeOut value = ConstOp(s, Tensor::Scalar<double>(0.5));
                 return Ys(s.Op("PadV2", {x[0], I32s(s, {1, 0, 2, 1}, TensorShape({2, 2})), value}));
               }});
  for (const char* mode : {"REFLECT", "SYMMETRIC"}) {
    c.push_back({std::string("MirrorPad_") + mode, "MirrorPad", {R({3, 4}, 2)},
                 [mode](const GraphScope& s, const Xs& x) {
                   return Ys(s.Op("MirrorPad", {x[0], I64s(s, {2, 1, 0, 3}, TensorShape({2, 2}))},
                                  {{"mode", Str(mode)}}));
                 }});
    c.push_back({std::string("MirrorPadGrad_") + mode, "MirrorPadGrad", {R({6, 7}, 3)},
                 [mode](const GraphScope& s, const Xs& x) {
                   return Ys(s.Op("MirrorPadGrad", {x[0], I32s(s, {2, 1, 0, 3}, TensorShape({2, 2}))},
                                  {{"mode", Str(mode)}}));
                 }});
  }
  c.push_back({"ReverseV2", "ReverseV2", {R({2, 3, 4}, 4)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("ReverseV2", {x[0], I32(s, {0, -1})}));
               }});
  c.push_back({"ReverseSequence", "ReverseSequence", {R({3, 4, 2}, 7)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("ReverseSequence", {x[0], I64s(s, {4, 0, 2}, TensorShape({3}))},
                                {{"seq_dim", MakeAttrValue(int64_t{1})}, {"batch_dim", MakeAttrValue(int64_t{0})}}));
               }});
  c.push_back({"DepthToSpace", "DepthToSpace", {R({2, 2, 3, 8}, 5)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("DepthToSpace", {x[0]}, {{"block_size", MakeAttrValue(int64_t{2})}}));
               }});
  c.push_back({"SpaceToDepth", "SpaceToDepth", {R({2, 4, 6, 2}, 6)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("SpaceToDepth", {x[0]}, {{"block_size", MakeAttrValue(int64_t{2})}}));
               }});
  return c;
}

std::vector<GradCase> ScatterGatherCases() {
  std::vector<GradCase> c;
  // Full-depth indices (scalars out), with a duplicate.
  c.push_back({"GatherNd_elements", "GatherNd", {R({3, 4}, 1)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("GatherNd", {x[0], I32s(s, {0, 1, 2, 3, 0, 1}, TensorShape({3, 2}))}));
               }});
  // Depth 1 (rows out), int64 indices.
  c.push_back({"GatherNd_rows_int64", "GatherNd", {R({3, 4}, 2)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("GatherNd", {x[0], I64s(s, {2, 0, 2}, TensorShape({3, 1}))}));
               }});
  c.push_back({"ScatterNd", "ScatterNd", {R({3, 4}, 3)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("ScatterNd", {I32s(s, {1, 3, 1}, TensorShape({3, 1})), x[0], I32(s, {5, 4})}));
               }});
  c.push_back({"TensorScatterUpdate", "TensorScatterUpdate", {R({4, 3}, 4), R({2, 3}, 5)},
               [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("TensorScatterUpdate", {x[0], I32s(s, {0, 2}, TensorShape({2, 1})), x[1]}));
               }});
  c.push_back({"TensorScatterAdd", "TensorScatterAdd", {R({4, 3}, 6), R({3, 3}, 7)},
               [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("TensorScatterAdd", {x[0], I64s(s, {3, 0, 3}, TensorShape({3, 1})), x[1]}));
               }});
  // Values only: the indices output has no gradient.
  c.push_back({"TopKV2", "TopKV2", {R({3, 5}, 8)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("TopKV2", {x[0], I32Scalar(s, 2)}));
               }});
  c.push_back({"TopKV2_rank3_unsorted", "TopKV2", {R({2, 2, 4}, 9)}, [](const GraphScope& s, const Xs& x) {
                 return Ys(s.Op("TopKV2", {x[0], I32Scalar(s, 3)}, {{"sorted", MakeAttrValue(false)}}));
               }});
  return c;
}

// Print passes its gradient to input 0 only: x also feeds the printed data,
// and a gradient through there would double dy/dx.
std::vector<GradCase> PrintCases() {
  std::vector<GradCase> c;
  c.push_back({"Print", "Print", {R({2, 3}, 10)}, [](const GraphScope& s, const Xs& x) {
                 NodeOut printed = s.Op("Print", {x[0], OpInput::List({x[0]})},
                                        {{"message", Str("grad case: ")}, {"first_n", MakeAttrValue(int64_t{1})}});
                 return Ys(s.Op("Mul", {printed, printed}));
               }});
  return c;
}

std::vector<GradCase> MoreCases() {
  std::vector<GradCase> cases;
  for (auto* make : {ElementwiseCases, PadReverseCases, ScatterGatherCases, PrintCases})
    for (auto& c : make()) cases.push_back(std::move(c));
  return cases;
}

GradCaseRegistrar registrar(MoreCases());

}  // namespace
}  // namespace flowvm::testing
