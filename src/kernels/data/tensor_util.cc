#include "kernels/data/tensor_util.h"

#include <algorithm>
#include <cstring>

#include "flowvm/resource_handle.h"
#include "flowvm/variant.h"

namespace flowvm::data {

namespace {

// Copies n elements from src[from...] to dst[to...]; object types by
// assignment, the rest as bytes.
void CopyElements(const Tensor& src, int64_t from, Tensor* dst, int64_t to, int64_t n) {
  if (n <= 0) return;
  switch (src.dtype()) {
    case DT_STRING:
      std::copy(src.data<std::string>() + from, src.data<std::string>() + from + n, dst->data<std::string>() + to);
      return;
    case DT_VARIANT:
      std::copy(src.data<Variant>() + from, src.data<Variant>() + from + n, dst->data<Variant>() + to);
      return;
    case DT_RESOURCE:
      std::copy(src.data<ResourceHandle>() + from, src.data<ResourceHandle>() + from + n,
                dst->data<ResourceHandle>() + to);
      return;
    default: {
      const size_t size = DataTypeSize(src.dtype());
      std::memcpy(static_cast<char*>(dst->raw_data()) + to * size, static_cast<const char*>(src.raw_data()) + from * size,
                  static_cast<size_t>(n) * size);
    }
  }
}

}  // namespace

StatusOr<Tensor> SliceElement(const Tensor& t, int64_t index) {
  // Kernels take unaligned inputs (a queue's dequeued rows are slices
  // too), so even a small row shares the buffer instead of being copied.
  return t.SubSlice(index);
}

void CopyElementToRow(const Tensor& element, Tensor* batch, int64_t index) {
  const int64_t n = element.NumElements();
  CopyElements(element, 0, batch, index * n, n);
}

void CopyElementToPaddedRow(const Tensor& element, Tensor* batch, int64_t index) {
  const int rank = element.dims();
  const int64_t row_elems = batch->NumElements() / std::max<int64_t>(batch->dim_size(0), 1);
  if (element.NumElements() == 0) return;
  if (rank == 0) {
    CopyElements(element, 0, batch, index * row_elems, 1);
    return;
  }
  // Runs of the last dimension: one per index of the leading rank-1 dims.
  std::vector<int64_t> src_strides(rank, 1), dst_strides(rank, 1);
  for (int d = rank - 2; d >= 0; --d) {
    src_strides[d] = src_strides[d + 1] * element.dim_size(d + 1);
    dst_strides[d] = dst_strides[d + 1] * batch->dim_size(d + 2);
  }
  const int64_t run = element.dim_size(rank - 1);
  const int64_t runs = element.NumElements() / run;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t r = 0; r < runs; ++r) {
    int64_t src = 0, dst = index * row_elems;
    for (int d = 0; d < rank - 1; ++d) {
      src += idx[d] * src_strides[d];
      dst += idx[d] * dst_strides[d];
    }
    CopyElements(element, src, batch, dst, run);
    for (int d = rank - 2; d >= 0; --d) {
      if (++idx[d] < element.dim_size(d)) break;
      idx[d] = 0;
    }
  }
}

void FillWith(const Tensor& value, Tensor* t) {
  const int64_t n = t->NumElements();
  switch (t->dtype()) {
    case DT_STRING: std::fill_n(t->data<std::string>(), n, value.scalar<std::string>()); return;
    case DT_VARIANT: std::fill_n(t->data<Variant>(), n, value.scalar<Variant>()); return;
    case DT_RESOURCE: std::fill_n(t->data<ResourceHandle>(), n, value.scalar<ResourceHandle>()); return;
    default: {
      const size_t size = DataTypeSize(t->dtype());
      char* out = static_cast<char*>(t->raw_data());
      for (int64_t i = 0; i < n; ++i) std::memcpy(out + i * size, value.raw_data(), size);
    }
  }
}

}  // namespace flowvm::data
