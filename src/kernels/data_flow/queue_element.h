// QueueElement: one element stored in a queue. It is either a tuple of its
// own (an enqueue of one element) or row `row` of every component of a
// batch that an enqueue_many brought, which all its rows share. Rows stay in
// their batch's buffers until a dequeue copies them out, so storing a batch
// makes no tensor (and allocates nothing) per element; the batch's buffers
// are freed when its last row has left the queue.
//
// Value type. The source tuple is immutable and may be shared by threads.
#ifndef FLOWVM_KERNELS_DATA_FLOW_QUEUE_ELEMENT_H_
#define FLOWVM_KERNELS_DATA_FLOW_QUEUE_ELEMENT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "flowvm/tensor.h"

namespace flowvm {

class QueueElement {
 public:
  using Tuple = std::vector<Tensor>;  // one tensor per component

  QueueElement() = default;
  static QueueElement Whole(Tuple element);
  // REQUIRES: every component of *batch has at least row + 1 rows.
  static QueueElement Row(std::shared_ptr<const Tuple> batch, int64_t row);

  size_t num_components() const { return source().size(); }
  DataType dtype(size_t c) const { return source()[c].dtype(); }
  int dims(size_t c) const { return source()[c].dims() - (row_ >= 0 ? 1 : 0); }
  int64_t dim_size(size_t c, int d) const { return source()[c].dim_size(d + (row_ >= 0 ? 1 : 0)); }
  bool ShapeEquals(size_t c, const TensorShape& shape) const;
  TensorShape shape(size_t c) const;

  // The element as tensors of its own shape, sharing the source's buffers.
  Tuple ToTuple() const;
  // The same, moving the tensors of an element of its own out.
  Tuple TakeTuple() &&;
  // Copies component c into row `row` of `batch`, whose rows are at least
  // as large in every dimension (a padding queue fills the rest before).
  void CopyInto(size_t c, int64_t row, Tensor* batch) const;

 private:
  const Tuple& source() const { return row_ < 0 ? whole_ : *batch_; }
  Tuple whole_;                         // row_ < 0: the element itself
  std::shared_ptr<const Tuple> batch_;  // row_ >= 0: the batch it is a row of
  int64_t row_ = -1;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_QUEUE_ELEMENT_H_
