// How a step of an Executor passes values from a node to its consumers and
// decides which become ready (internal to executor*.cc). The scheduling of
// ready nodes (executor_step.cc) is the same for both:
//
//   SimplePropagator  graphs without loops or Merge: one flat array of
//                     input slots and atomic pending counts per step; dead
//                     values (a Switch's untaken branch, a dead Recv) mark
//                     their consumers dead.
//   FramePropagator   everything else: input slots and pending counts per
//                     frame and iteration, Merge readiness, loop
//                     invariants, parallel_iterations, frame completion.
//
// Interface (both): Tagged is a ready node; Roots, Id, IsDead, FrameIter,
// Inputs (its input slots), ClearInputs, and Propagate(tagged, dead,
// outputs, ready), which appends the consumers that became ready and fails
// (Internal) if the kernel left an output unset that it must set.
// Propagate and ClearInputs may be called from many threads at once.
#ifndef FLOWVM_RUNTIME_EXECUTOR_PROPAGATORS_H_
#define FLOWVM_RUNTIME_EXECUTOR_PROPAGATORS_H_

#include <atomic>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "runtime/executor.h"
#include "runtime/executor_item.h"

namespace flowvm {

class SimplePropagator {
 public:
  using Tagged = int;  // the item index
  static constexpr int kDone = -1;

  explicit SimplePropagator(const Executor& exec)
      : exec_(exec),
        slots_(new OutputSlot[exec.total_input_slots_]),
        pending_(new std::atomic<int>[exec.items_.size()]),
        dead_(exec.may_be_dead_ ? new std::atomic<bool>[exec.items_.size()]() : nullptr) {
    for (size_t i = 0; i < exec.items_.size(); ++i)
      pending_[i].store(exec.items_[i].initial_pending, std::memory_order_relaxed);
  }

  void Roots(std::vector<Tagged>* ready) const { *ready = exec_.roots_; }
  static int Id(Tagged t) { return t; }
  bool IsDead(Tagged t) const { return dead_ != nullptr && dead_[t].load(std::memory_order_relaxed); }
  static FrameAndIter FrameIter(Tagged) { return FrameAndIter(); }
  OutputSlot* Inputs(Tagged t) { return &slots_[exec_.items_[t].input_start]; }
  void ClearInputs(Tagged t) {
    const Executor::NodeItem& item = exec_.items_[t];
    for (int i = 0; i < item.num_inputs; ++i) slots_[item.input_start + i] = OutputSlot();
  }

  Status Propagate(Tagged t, bool dead, OutputSlot* outputs, std::vector<Tagged>* ready) {
    const Executor::NodeItem& item = exec_.items_[t];
    pending_[t].store(kDone, std::memory_order_relaxed);
    for (const auto& oe : item.out_edges) {
      if (oe.dst_slot >= 0 && !dead) {
        OutputSlot& out = outputs[oe.src_output];
        if (out.has_value) {
          if (oe.last_use) slots_[oe.dst_slot] = std::move(out);
          else slots_[oe.dst_slot] = out;
          continue;
        }
        if (!item.may_output_dead)
          return errors::Internal(item.node->label(), ": kernel did not set output ", oe.src_output);
        dead_[oe.dst].store(true, std::memory_order_relaxed);
      } else if (dead) {
        dead_[oe.dst].store(true, std::memory_order_relaxed);
      }
    }
    // The decrements publish the slots and dead marks to whoever runs the
    // consumer.
    for (const auto& oe : item.out_edges) {
      if (pending_[oe.dst].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        if (dead_ != nullptr && exec_.items_[oe.dst].is_control_trigger)
          dead_[oe.dst].store(false, std::memory_order_relaxed);
        ready->push_back(oe.dst);
      }
    }
    return Status::OK();
  }

  void Describe(const std::string& device, std::vector<std::string>* out) const {
    for (size_t i = 0; i < exec_.items_.size(); ++i)
      if (pending_[i].load(std::memory_order_relaxed) == 0)
        out->push_back(exec_.items_[i].node->label() + " on " + device);
  }

 private:
  const Executor& exec_;
  std::unique_ptr<OutputSlot[]> slots_;
  std::unique_ptr<std::atomic<int>[]> pending_;
  std::unique_ptr<std::atomic<bool>[]> dead_;  // only if the graph can make dead values
};

class FramePropagator {
 public:
  struct Frame;
  struct Tagged {
    int id = 0;
    Frame* frame = nullptr;
    int64_t iter = 0;
    bool dead = false;
  };

  explicit FramePropagator(const Executor& exec);
  ~FramePropagator();

  void Roots(std::vector<Tagged>* ready);
  static int Id(const Tagged& t) { return t.id; }
  static bool IsDead(const Tagged& t) { return t.dead; }
  static FrameAndIter FrameIter(const Tagged& t);
  OutputSlot* Inputs(const Tagged& t);
  void ClearInputs(const Tagged& t);
  Status Propagate(const Tagged& t, bool dead, OutputSlot* outputs, std::vector<Tagged>* ready);
  void Describe(const std::string& device, std::vector<std::string>* out) const;

 private:
  struct Iteration;
  Frame* NewFrame(const Executor::FrameInfo* info, int index, std::string name, Frame* parent, int64_t parent_iter);
  Frame* FindOrCreateChild(Frame* parent, int64_t iter, const Executor::NodeItem& enter);
  void StartIteration(Frame* frame, std::vector<Tagged>* ready);
  Status Activate(const Executor::NodeItem& item, bool dead, OutputSlot* outputs, bool may_move, Frame* frame,
                  int64_t iter, std::vector<Tagged>* ready);
  void CleanupIterations(Frame* frame, int64_t iter, std::vector<Tagged>* ready);
  void DeleteFrame(Frame* frame, std::vector<Tagged>* ready);

  const Executor& exec_;
  mutable std::mutex mu_;  // guards every frame and iteration
  Frame* root_ = nullptr;
  std::unordered_map<std::string, Frame*> frames_;  // live frames by full name; owned
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_EXECUTOR_PROPAGATORS_H_
