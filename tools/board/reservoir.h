// Reservoir<T>: a bounded, uniform sample of a stream, as TensorBoard keeps
// the values of a tag (its Reservoir / _ReservoirBucket): the first
// `capacity` items are all kept; after that, the n-th item (n counted from 0)
// replaces a uniformly chosen kept one with probability capacity / (n + 1),
// and otherwise replaces the newest kept one, so the newest item is always
// there. The random numbers come from a fixed seed: the same stream gives
// the same sample.
//
// Items are stored unordered (a replacement happens in place, O(1));
// Sorted() hands them out sorted by a key (the step), then by arrival.
// Not thread-safe: the caller locks.
#ifndef FLOWVM_TOOLS_BOARD_RESERVOIR_H_
#define FLOWVM_TOOLS_BOARD_RESERVOIR_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace flowvm::board {

// SplitMix64: 8 bytes of state where std::mt19937_64 has 2.5 KB, and a
// board keeps a reservoir per run and tag (thousands of tags are possible).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t operator()() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

template <typename T>
class Reservoir {
 public:
  // REQUIRES: capacity >= 1.
  explicit Reservoir(size_t capacity, uint64_t seed = 0) : capacity_(capacity), rng_(seed) {}

  struct Slot {
    uint64_t seq;  // arrival number
    T item;
  };

  void Add(T item) {
    Slot slot{next_seq_++, std::move(item)};
    if (slots_.size() < capacity_) {
      newest_ = slots_.size();
      slots_.push_back(std::move(slot));
    } else {
      // TensorBoard's randint(0, seen): inclusive of `seen`.
      const uint64_t r = rng_() % (seen_ + 1);
      if (r < capacity_) {
        newest_ = static_cast<size_t>(r);
      }
      slots_[newest_] = std::move(slot);
    }
    ++seen_;
    sorted_ = false;
  }

  // Drops the items for which keep(item) is false. `seen` shrinks in the
  // same proportion as the kept items (TensorBoard's estimate), so that
  // later items are sampled as if the dropped ones never came.
  template <typename Keep>
  size_t Filter(Keep keep) {
    const size_t before = slots_.size();
    slots_.erase(std::remove_if(slots_.begin(), slots_.end(), [&](const Slot& s) { return !keep(s.item); }),
                 slots_.end());
    const size_t dropped = before - slots_.size();
    if (dropped == 0) return 0;
    seen_ = before == 0 ? 0
                        : static_cast<uint64_t>(static_cast<double>(seen_) * slots_.size() / before + 0.5);
    if (seen_ < slots_.size()) seen_ = slots_.size();
    newest_ = 0;
    for (size_t i = 1; i < slots_.size(); ++i)
      if (slots_[i].seq > slots_[newest_].seq) newest_ = i;
    sorted_ = false;
    return dropped;
  }

  // The kept items sorted by (key, arrival): a copy, rebuilt on the first
  // call after a change. (Sorting the slots themselves would make which
  // item a later Add() replaces depend on when someone read.)
  template <typename KeyFn>
  const std::vector<Slot>& Sorted(KeyFn key) {
    if (!sorted_) {
      sorted_slots_ = slots_;
      std::sort(sorted_slots_.begin(), sorted_slots_.end(), [&](const Slot& a, const Slot& b) {
        const auto ka = key(a.item), kb = key(b.item);
        return ka != kb ? ka < kb : a.seq < b.seq;
      });
      sorted_ = true;
    }
    return sorted_slots_;
  }

  size_t size() const { return slots_.size(); }
  uint64_t seen() const { return seen_; }
  size_t capacity() const { return capacity_; }

 private:
  size_t capacity_;
  SplitMix64 rng_;
  std::vector<Slot> slots_;
  std::vector<Slot> sorted_slots_;  // valid when sorted_
  size_t newest_ = 0;  // index of the newest item in slots_
  uint64_t seen_ = 0;
  uint64_t next_seq_ = 0;
  bool sorted_ = true;
};

}  // namespace flowvm::board

#endif  // FLOWVM_TOOLS_BOARD_RESERVOIR_H_
