// FIFOQueue and PaddingFIFOQueue (paper 4.6): elements come out in the
// order they went in. A PaddingFIFOQueue's components may have unknown
// dimensions; a dequeue_many pads each batch to its largest element with
// zeros (empty strings). Thread-safe (see QueueBase).
#ifndef FLOWVM_KERNELS_DATA_FLOW_FIFO_QUEUE_H_
#define FLOWVM_KERNELS_DATA_FLOW_FIFO_QUEUE_H_

#include <deque>

#include "kernels/data_flow/queue_base.h"

namespace flowvm {

class FIFOQueue : public QueueBase {
 public:
  FIFOQueue(std::string name, int64_t capacity, DataTypeVector dtypes, std::vector<PartialTensorShape> shapes,
            std::string type_name = "FIFOQueue");

 protected:
  size_t StoredLocked() const override { return elements_.size(); }
  void PushLocked(QueueElement element) override { elements_.push_back(std::move(element)); }
  QueueElement PopLocked() override;
  void PushBackFrontLocked(std::vector<QueueElement> elements) override;

 private:
  std::deque<QueueElement> elements_;
};

class PaddingFIFOQueue : public FIFOQueue {
 public:
  PaddingFIFOQueue(std::string name, int64_t capacity, DataTypeVector dtypes, std::vector<PartialTensorShape> shapes);

 protected:
  StatusOr<Tuple> BatchElements(const std::vector<QueueElement>& elements) const override;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_FIFO_QUEUE_H_
