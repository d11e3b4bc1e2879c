// Tensor plumbing the dataset kernels share: slicing an element out of a
// batch, stacking elements into one, padding. Any storable dtype (numbers,
// strings, variants, resource handles). Pure functions; thread-safe.
#ifndef FLOWVM_KERNELS_DATA_TENSOR_UTIL_H_
#define FLOWVM_KERNELS_DATA_TENSOR_UTIL_H_

#include <vector>

#include "flowvm/status.h"
#include "flowvm/tensor.h"

namespace flowvm::data {

// Row `index` of `t` (dims >= 1) without dimension 0, sharing t's buffer
// (no kernel writes into a buffer another tensor holds).
StatusOr<Tensor> SliceElement(const Tensor& t, int64_t index);

// Copies `element` into row `index` of `batch` (whose shape is
// [n] + element's shape, same dtype).
void CopyElementToRow(const Tensor& element, Tensor* batch, int64_t index);

// Copies `element` into the leading corner of row `index` of `batch`:
// element.dim(d) <= batch.dim(d + 1) for every d; the rest of the row is
// left as it was (the caller filled it with padding).
void CopyElementToPaddedRow(const Tensor& element, Tensor* batch, int64_t index);

// Sets every element of `t` to the scalar `value` (same dtype).
void FillWith(const Tensor& value, Tensor* t);

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_TENSOR_UTIL_H_
