#include "kernels/data_flow/queue_element.h"

#include <cstring>

#include "flowvm/resource_handle.h"
#include "flowvm/variant.h"

namespace flowvm {

QueueElement QueueElement::Whole(Tuple element) {
  QueueElement e;
  e.whole_ = std::move(element);
  return e;
}

QueueElement QueueElement::Row(std::shared_ptr<const Tuple> batch, int64_t row) {
  QueueElement e;
  e.batch_ = std::move(batch);
  e.row_ = row;
  return e;
}

bool QueueElement::ShapeEquals(size_t c, const TensorShape& shape) const {
  if (dims(c) != shape.dims()) return false;
  for (int d = 0; d < shape.dims(); ++d)
    if (dim_size(c, d) != shape.dim_size(d)) return false;
  return true;
}

TensorShape QueueElement::shape(size_t c) const {
  TensorShape s = source()[c].shape();
  if (row_ >= 0) s.RemoveDim(0);
  return s;
}

QueueElement::Tuple QueueElement::ToTuple() const {
  if (row_ < 0) return whole_;
  Tuple t;
  t.reserve(batch_->size());
  for (const Tensor& component : *batch_) t.push_back(component.SubSlice(row_));
  return t;
}

QueueElement::Tuple QueueElement::TakeTuple() && {
  if (row_ < 0) return std::move(whole_);
  return ToTuple();
}

namespace {

template <typename T>
void CopyObject(const Tensor& src, int64_t i, Tensor* dst, int64_t j) {
  dst->flat<T>()[j] = src.flat<T>()[i];
}

// Flat element i of `src` into flat element j of `dst` (same dtype).
void CopyScalar(const Tensor& src, int64_t i, Tensor* dst, int64_t j) {
  switch (src.dtype()) {
    case DT_STRING: CopyObject<std::string>(src, i, dst, j); break;
    case DT_RESOURCE: CopyObject<ResourceHandle>(src, i, dst, j); break;
    case DT_VARIANT: CopyObject<Variant>(src, i, dst, j); break;
    default: {
      const size_t bytes = DataTypeSize(src.dtype());
      std::memcpy(static_cast<char*>(dst->raw_data()) + j * bytes,
                  static_cast<const char*>(src.raw_data()) + i * bytes, bytes);
    }
  }
}

}  // namespace

void QueueElement::CopyInto(size_t c, int64_t row, Tensor* batch) const {
  const Tensor& src = source()[c];
  const int64_t src_rows = row_ < 0 ? 1 : src.dim_size(0);
  const int64_t count = src_rows == 0 ? 0 : src.NumElements() / src_rows;  // this element's values
  const int64_t first = row_ < 0 ? 0 : row_ * count;                       // in src, flat
  const int64_t row_elems = batch->dim_size(0) == 0 ? 0 : batch->NumElements() / batch->dim_size(0);
  if (count == 0) return;
  if (count == row_elems) {
    if (DataTypeSize(src.dtype()) > 0) {
      const size_t bytes = DataTypeSize(src.dtype()) * static_cast<size_t>(count);
      std::memcpy(static_cast<char*>(batch->raw_data()) + row * bytes,
                  static_cast<const char*>(src.raw_data()) + first * DataTypeSize(src.dtype()), bytes);
    } else {
      for (int64_t i = 0; i < count; ++i) CopyScalar(src, first + i, batch, row * row_elems + i);
    }
    return;
  }
  // A smaller element in a padded batch: walk its index space.
  const int rank = dims(c);
  std::vector<int64_t> index(rank, 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t dst = row;
    for (int d = 0; d < rank; ++d) dst = dst * batch->dim_size(d + 1) + index[d];
    CopyScalar(src, first + i, batch, dst);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < dim_size(c, d)) break;
      index[d] = 0;
    }
  }
}

}  // namespace flowvm
