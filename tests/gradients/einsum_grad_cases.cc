// Gradient checks for Einsum (ops/einsum_ops.cc): contractions, batch
// matmul, transposes, summed labels, outer products and broadcast "...".
#include "gradients/gradient_cases.h"

namespace flowvm::testing {
namespace {

Tensor R(std::initializer_list<int64_t> dims, uint64_t seed) { return RandomDoubles(TensorShape(dims), -1, 1, seed); }

GradientBuildFn Einsum(const std::string& equation) {
  return [equation](const GraphScope& s, const std::vector<NodeOut>& x) {
    std::vector<NodeOut> in(x.begin(), x.end());
    return Ys(s.Op("Einsum", {OpInput::List(in)}, {{"equation", MakeAttrValue(equation)}}));
  };
}

std::vector<GradCase> EinsumCases() {
  return {
      {"Einsum_matmul", "Einsum", {R({2, 3}, 61), R({3, 4}, 62)}, Einsum("ij,jk->ik")},
      {"Einsum_batch_matmul", "Einsum", {R({2, 2, 3}, 63), R({2, 3, 2}, 64)}, Einsum("bij,bjk->bik")},
      {"Einsum_transpose", "Einsum", {R({2, 3, 4}, 65)}, Einsum("ijk->kij")},
      {"Einsum_reduce", "Einsum", {R({3, 4}, 66)}, Einsum("ij->j")},
      {"Einsum_outer", "Einsum", {R({3}, 67), R({2}, 68)}, Einsum("i,j->ij")},
      {"Einsum_summed_label", "Einsum", {R({2, 3}, 69), R({4}, 70)}, Einsum("ij,k->i")},
      {"Einsum_broadcast_ellipsis", "Einsum", {R({2, 1, 2, 3}, 71), R({3, 3, 2}, 72)},
       Einsum("...ij,...jk->...ik")},
  };
}

GradCaseRegistrar registrar(EinsumCases());

}  // namespace
}  // namespace flowvm::testing
