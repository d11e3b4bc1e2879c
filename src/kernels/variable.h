// Var: the state behind a reference-typed variable (VariableV2 / Variable).
// It lives in a ResourceMgr container under (container, name) and outlives
// steps; VariableV2 outputs a reference to `tensor` guarded by `mu`.
//
// `tensor` is uninitialized (Tensor()) until the first Assign. Every reader
// and writer holds `mu` while touching `tensor`; a reader that copies the
// Tensor shares its buffer, so writers copy-on-write when the buffer is
// shared (!tensor.RefCountIsOne()) and update in place otherwise.
#ifndef FLOWVM_KERNELS_VARIABLE_H_
#define FLOWVM_KERNELS_VARIABLE_H_

#include <mutex>
#include <string>

#include "flowvm/dtype.h"
#include "flowvm/tensor.h"
#include "flowvm/tensor_shape.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {

class Var : public ResourceBase {
 public:
  Var(DataType dtype, PartialTensorShape declared_shape)
      : dtype(dtype), declared_shape(std::move(declared_shape)) {}

  // "float/[2,3]" (or "float/<uninitialized>").
  std::string DebugString() const override;

  mutable std::mutex mu;
  Tensor tensor;                          // guarded by mu
  const DataType dtype;                   // the variable's element type
  const PartialTensorShape declared_shape;  // the `shape` attr it was created with
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_VARIABLE_H_
