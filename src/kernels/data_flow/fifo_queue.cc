#include "kernels/data_flow/fifo_queue.h"

#include <algorithm>
#include <cstring>

namespace flowvm {

FIFOQueue::FIFOQueue(std::string name, int64_t capacity, DataTypeVector dtypes,
                     std::vector<PartialTensorShape> shapes, std::string type_name)
    : QueueBase(std::move(type_name), std::move(name), capacity, std::move(dtypes), std::move(shapes)) {}

QueueElement FIFOQueue::PopLocked() {
  QueueElement t = std::move(elements_.front());
  elements_.pop_front();
  return t;
}

void FIFOQueue::PushBackFrontLocked(std::vector<QueueElement> elements) {
  for (auto it = elements.rbegin(); it != elements.rend(); ++it) elements_.push_front(std::move(*it));
}

PaddingFIFOQueue::PaddingFIFOQueue(std::string name, int64_t capacity, DataTypeVector dtypes,
                                   std::vector<PartialTensorShape> shapes)
    : FIFOQueue(std::move(name), capacity, std::move(dtypes), std::move(shapes), "PaddingFIFOQueue") {}

StatusOr<QueueBase::Tuple> PaddingFIFOQueue::BatchElements(const std::vector<QueueElement>& elements) const {
  Tuple batch;
  const DataTypeVector& dtypes = component_dtypes();
  for (size_t c = 0; c < dtypes.size(); ++c) {
    // The batch's row shape: the largest size of each dimension.
    std::vector<int64_t> dims;
    if (!elements.empty()) {
      dims = elements[0].shape(c).dim_sizes();
      for (const QueueElement& e : elements) {
        if (e.dims(c) != static_cast<int>(dims.size()))
          return errors::InvalidArgument("a dequeue_many from ", DebugString(), ": component ", c,
                                         " has elements of ranks ", dims.size(), " and ", e.dims(c));
        for (int d = 0; d < e.dims(c); ++d) dims[d] = std::max(dims[d], e.dim_size(c, d));
      }
    } else {
      // An empty batch: unknown dimensions become 0.
      const PartialTensorShape& declared = component_shapes()[c];
      for (int d = 0; d < declared.dims(); ++d) dims.push_back(std::max<int64_t>(declared.dim_size(d), 0));
    }
    dims.insert(dims.begin(), static_cast<int64_t>(elements.size()));
    FLOWVM_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
    FLOWVM_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtypes[c], shape));
    if (DataTypeSize(dtypes[c]) > 0) std::memset(t.raw_data(), 0, t.TotalBytes());  // objects start empty
    for (size_t r = 0; r < elements.size(); ++r) elements[r].CopyInto(c, static_cast<int64_t>(r), &t);
    batch.push_back(std::move(t));
  }
  return batch;
}

}  // namespace flowvm
