#include "kernels/data_flow/random_shuffle_queue.h"

#include <algorithm>

namespace flowvm {

RandomShuffleQueue::RandomShuffleQueue(std::string name, int64_t capacity, int64_t min_after_dequeue, int64_t seed,
                                       int64_t seed2, DataTypeVector dtypes, std::vector<PartialTensorShape> shapes)
    : QueueBase("RandomShuffleQueue", std::move(name), capacity, std::move(dtypes), std::move(shapes)),
      min_after_dequeue_(static_cast<size_t>(std::max<int64_t>(min_after_dequeue, 0))) {
  if (seed == 0 && seed2 == 0) {
    rng_.seed(std::random_device()());
  } else {
    std::seed_seq seq{static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2)};
    rng_.seed(seq);
  }
}

QueueElement RandomShuffleQueue::PopLocked() {
  std::uniform_int_distribution<size_t> pick(0, elements_.size() - 1);
  const size_t i = pick(rng_);
  std::swap(elements_[i], elements_.back());
  QueueElement t = std::move(elements_.back());
  elements_.pop_back();
  return t;
}

// The order is random anyway: they simply go back in.
void RandomShuffleQueue::PushBackFrontLocked(std::vector<QueueElement> elements) {
  for (auto& e : elements) elements_.push_back(std::move(e));
}

}  // namespace flowvm
