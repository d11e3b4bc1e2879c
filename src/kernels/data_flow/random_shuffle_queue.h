// RandomShuffleQueue (paper 4.6): dequeues elements in a random order. While
// it is open, at least min_after_dequeue elements stay in it, so that what
// comes out is well mixed; once closed, it drains. Seeded: the same seed and
// the same enqueues give the same order. Thread-safe (see QueueBase).
#ifndef FLOWVM_KERNELS_DATA_FLOW_RANDOM_SHUFFLE_QUEUE_H_
#define FLOWVM_KERNELS_DATA_FLOW_RANDOM_SHUFFLE_QUEUE_H_

#include <random>

#include "kernels/data_flow/queue_base.h"

namespace flowvm {

class RandomShuffleQueue : public QueueBase {
 public:
  // seed == 0 and seed2 == 0: a random seed (TensorFlow's rule).
  RandomShuffleQueue(std::string name, int64_t capacity, int64_t min_after_dequeue, int64_t seed, int64_t seed2,
                     DataTypeVector dtypes, std::vector<PartialTensorShape> shapes);

 protected:
  size_t StoredLocked() const override { return elements_.size(); }
  void PushLocked(QueueElement element) override { elements_.push_back(std::move(element)); }
  QueueElement PopLocked() override;
  void PushBackFrontLocked(std::vector<QueueElement> elements) override;
  size_t MinAfterDequeueLocked() const override { return min_after_dequeue_; }

 private:
  const size_t min_after_dequeue_;
  std::mt19937_64 rng_;
  std::vector<QueueElement> elements_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_RANDOM_SHUFFLE_QUEUE_H_
