// Einsum equations ("ij,jk->ik", "...ij,...jk->...ik", "ii->i", "ij->"),
// parsed once for the op's shape function, its kernel and its gradient.
// Labels are the letters a-z and A-Z; "..." stands for the broadcast
// (NumPy) dims, at most once per operand. Without "->" the output is every
// label used exactly once, in alphabetical order, after "..." if any
// operand has it (NumPy's implicit mode). As TensorFlow's Einsum op, one or
// two operands.
#ifndef FLOWVM_KERNELS_LINALG_EINSUM_SPEC_H_
#define FLOWVM_KERNELS_LINALG_EINSUM_SPEC_H_

#include <string>
#include <vector>

#include "flowvm/status.h"

namespace flowvm::linalg {

inline constexpr int kEllipsis = -1;

struct EinsumSpec {
  // Per operand, then the output: label codes (the letter's char value) in
  // order, with kEllipsis where "..." stands.
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  bool has_ellipsis(int i) const;  // operand i; -1: the output
};

// InvalidArgument naming the equation for bad syntax, a wrong operand
// count, an output label no operand has, or a repeated output label.
Status ParseEinsumEquation(const std::string& equation, int num_inputs, EinsumSpec* spec);

// The spec written back as an equation (always explicit, with "->").
std::string EinsumEquation(const EinsumSpec& spec);

}  // namespace flowvm::linalg

#endif  // FLOWVM_KERNELS_LINALG_EINSUM_SPEC_H_
