// BCast: NumPy broadcasting of two shapes, precomputed into the fewest
// dimensions that describe it. Adjacent dimensions that broadcast the same
// way are merged and size-1 output dimensions dropped, so e.g. [2,3,4] +
// [4] becomes one outer dimension of 6 (y stride 0) around an inner one of 4.
// Value type; cheap for small ranks (a few small vectors).
#ifndef FLOWVM_KERNELS_BCAST_H_
#define FLOWVM_KERNELS_BCAST_H_

#include <cstdint>
#include <vector>

#include "flowvm/tensor_shape.h"

namespace flowvm {

class BCast {
 public:
  BCast(const TensorShape& x, const TensorShape& y);

  // False if the shapes cannot be broadcast together.
  bool valid() const { return valid_; }
  const TensorShape& output_shape() const { return output_shape_; }

  // The reduced iteration space, outermost first. Strides are in elements;
  // 0 means the operand is repeated along that dimension. rank() may be 0
  // (a single element).
  int rank() const { return static_cast<int>(dims_.size()); }
  const std::vector<int64_t>& dims() const { return dims_; }
  const std::vector<int64_t>& x_strides() const { return x_strides_; }
  const std::vector<int64_t>& y_strides() const { return y_strides_; }

 private:
  bool valid_ = true;
  TensorShape output_shape_;
  std::vector<int64_t> dims_, x_strides_, y_strides_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_BCAST_H_
