// FramePropagator: the per-frame, per-iteration state of a step of a graph
// with loops or Merge nodes (paper 4.4). See executor_propagators.h.
//
// A frame instance is one execution of a loop: the loop's frame template
// (Executor::FrameInfo) entered from one iteration of its parent frame. It
// keeps the iterations that are still running (at most
// parallel_iterations), the values of its constant Enter nodes (loop
// invariants, given to every iteration), the NextIteration values that
// wait for a free iteration, and which of its Exit nodes produced a value.
// An iteration is done when nothing of it is ready or running, no child
// frame it started is running, and the iteration before it is done; a
// frame is done when all its Enter nodes have delivered and all its
// iterations are done. Then Exit nodes that never produced a value pass
// deadness to the parent frame (a loop inside an untaken branch).
//
// One mutex guards all of it: loops are the slow path, and per node it is
// held only while counts and slots are updated, never while a kernel runs.
#include <algorithm>

#include "runtime/executor_propagators.h"

namespace flowvm {

namespace {

constexpr int kDone = -2;  // pending count of a finished node; even, so a Merge ignores late inputs

// FNV-1a: the frame id in rendezvous keys, equal in every partition (and
// process) that runs the same frame instance; positive, as keys spell it.
int64_t HashFrameName(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) {
    h ^= c;
    h *= 1099511628211ull;
  }
  h &= 0x7fffffffffffffffull;
  return static_cast<int64_t>(h == 0 ? 1 : h);
}

}  // namespace

struct FramePropagator::Iteration {
  std::unique_ptr<OutputSlot[]> slots;
  std::unique_ptr<int[]> pending;
  std::unique_ptr<int[]> dead;
  int outstanding_ops = 0;     // ready or running nodes
  int outstanding_frames = 0;  // child frames started in this iteration and not done
};

struct FramePropagator::Frame {
  const Executor::FrameInfo* info = nullptr;
  int index = 0;
  std::string name;  // unique per frame instance: parent's name;parent iteration;frame_name
  int64_t id = 0;
  Frame* parent = nullptr;
  int64_t parent_iter = 0;
  int64_t first_iter = 0;       // the oldest iteration still running
  int64_t iteration_count = 0;  // the newest iteration started
  std::deque<std::unique_ptr<Iteration>> iterations;  // first_iter .. iteration_count
  int num_outstanding_iterations = 0;
  int num_pending_inputs = 0;  // Enter nodes that have not delivered yet
  std::vector<std::pair<int, OutputSlot>> next_iter_roots;  // NextIteration values waiting for a free iteration
  std::vector<std::pair<int, OutputSlot>> loop_invariants;  // constant Enter values (unset: dead)
  std::vector<bool> exit_live;

  Iteration* iteration(int64_t k) { return iterations[k - first_iter].get(); }
};

FramePropagator::FramePropagator(const Executor& exec) : exec_(exec) {
  root_ = NewFrame(&exec.frames_[0], 0, "", nullptr, 0);
}

FramePropagator::~FramePropagator() {
  for (auto& [name, frame] : frames_) delete frame;
}

FramePropagator::Frame* FramePropagator::NewFrame(const Executor::FrameInfo* info, int index, std::string name,
                                                  Frame* parent, int64_t parent_iter) {
  auto* frame = new Frame();
  frame->info = info;
  frame->index = index;
  frame->id = parent == nullptr ? 0 : HashFrameName(name);
  frame->name = std::move(name);
  frame->parent = parent;
  frame->parent_iter = parent_iter;
  frame->num_pending_inputs = info->num_enters;
  frame->exit_live.assign(info->exits.size(), false);
  frame->iteration_count = -1;
  frames_[frame->name] = frame;
  std::vector<Tagged> none;
  StartIteration(frame, &none);  // iteration 0 has no loop invariants yet
  return frame;
}

void FramePropagator::StartIteration(Frame* frame, std::vector<Tagged>* ready) {
  const Executor::FrameInfo& info = *frame->info;
  const int64_t k = ++frame->iteration_count;
  auto it = std::make_unique<Iteration>();
  const size_t n = info.nodes.size();
  it->slots.reset(new OutputSlot[info.num_slots]);
  it->pending.reset(new int[n]);
  it->dead.reset(new int[n]);
  const std::vector<int>& dead = k == 0 ? info.initial_dead_first : info.initial_dead_later;
  std::copy(info.initial_pending.begin(), info.initial_pending.end(), it->pending.get());
  std::copy(dead.begin(), dead.end(), it->dead.get());
  frame->iterations.push_back(std::move(it));
  ++frame->num_outstanding_iterations;
  for (auto& [id, value] : frame->loop_invariants)
    (void)Activate(exec_.items_[id], !value.has_value, &value, /*may_move=*/false, frame, k, ready);
}

FramePropagator::Frame* FramePropagator::FindOrCreateChild(Frame* parent, int64_t iter,
                                                           const Executor::NodeItem& enter) {
  const Executor::FrameInfo& info = exec_.frames_[enter.child_frame];
  std::string name = parent->name + ";" + std::to_string(iter) + ";" + info.name;
  auto found = frames_.find(name);
  if (found != frames_.end()) return found->second;
  parent->iteration(iter)->outstanding_frames++;
  return NewFrame(&info, enter.child_frame, std::move(name), parent, iter);
}

void FramePropagator::Roots(std::vector<Tagged>* ready) {
  std::lock_guard<std::mutex> lock(mu_);
  ready->clear();
  for (int id : exec_.roots_) ready->push_back(Tagged{id, root_, 0, false});
  root_->iteration(0)->outstanding_ops += static_cast<int>(ready->size());
}

FrameAndIter FramePropagator::FrameIter(const Tagged& t) {
  FrameAndIter f;
  f.frame_id = t.frame->id;
  f.iter_id = t.iter;
  return f;
}

// The node is ready or running, so its iteration cannot be deleted under us,
// and nobody else writes its slots.
OutputSlot* FramePropagator::Inputs(const Tagged& t) {
  std::lock_guard<std::mutex> lock(mu_);
  return &t.frame->iteration(t.iter)->slots[exec_.items_[t.id].input_start];
}

void FramePropagator::ClearInputs(const Tagged& t) {
  const Executor::NodeItem& item = exec_.items_[t.id];
  if (item.num_inputs == 0) return;
  OutputSlot* slots;
  {
    std::lock_guard<std::mutex> lock(mu_);
    slots = &t.frame->iteration(t.iter)->slots[item.input_start];
  }
  for (int i = 0; i < item.num_inputs; ++i) slots[i] = OutputSlot();
}

Status FramePropagator::Propagate(const Tagged& t, bool dead, OutputSlot* outputs, std::vector<Tagged>* ready) {
  const Executor::NodeItem& item = exec_.items_[t.id];
  std::lock_guard<std::mutex> lock(mu_);
  Frame* frame = t.frame;
  const int64_t k = t.iter;
  frame->iteration(k)->pending[item.local_id] = kDone;
  Status s;
  if (item.is_enter) {
    Frame* child = FindOrCreateChild(frame, k, item);
    if (item.is_constant_enter) {
      // Every iteration sees the value, also the ones already running.
      OutputSlot value = dead ? OutputSlot() : outputs[0];
      for (int64_t j = child->first_iter; j <= child->iteration_count && s.ok(); ++j)
        s = Activate(item, dead, &value, /*may_move=*/false, child, j, ready);
      child->loop_invariants.emplace_back(t.id, std::move(value));
    } else {
      s = Activate(item, dead, outputs, /*may_move=*/true, child, 0, ready);
    }
    --child->num_pending_inputs;
    if (child->num_pending_inputs == 0) CleanupIterations(child, child->first_iter, ready);
  } else if (item.is_exit) {
    // A dead Exit is an iteration that goes on; only a loop that never
    // produced a value passes deadness out, when it is done.
    if (!dead) {
      frame->exit_live[item.exit_index] = true;
      s = Activate(item, false, outputs, /*may_move=*/true, frame->parent, frame->parent_iter, ready);
    }
  } else if (item.is_next_iteration) {
    if (!dead) {  // a dead value ends the loop
      if (k == frame->iteration_count && frame->num_outstanding_iterations == frame->info->parallel_iterations) {
        frame->next_iter_roots.emplace_back(t.id, std::move(outputs[0]));
      } else {
        if (k == frame->iteration_count) StartIteration(frame, ready);
        s = Activate(item, false, outputs, /*may_move=*/true, frame, k + 1, ready);
      }
    }
  } else {
    s = Activate(item, dead, outputs, /*may_move=*/true, frame, k, ready);
  }
  if (!s.ok()) return s;
  if (--frame->iteration(k)->outstanding_ops == 0) CleanupIterations(frame, k, ready);
  return Status::OK();
}

Status FramePropagator::Activate(const Executor::NodeItem& item, bool dead, OutputSlot* outputs, bool may_move,
                                 Frame* frame, int64_t iter, std::vector<Tagged>* ready) {
  Iteration* it = frame->iteration(iter);
  for (const auto& oe : item.out_edges) {
    const Executor::NodeItem& dst = exec_.items_[oe.dst];
    bool live = !dead;
    if (live && oe.dst_slot >= 0 && !outputs[oe.src_output].has_value) {
      if (!item.may_output_dead && !item.is_merge)
        return errors::Internal(item.node->label(), ": kernel did not set output ", oe.src_output);
      live = false;
    }
    int& pending = it->pending[dst.local_id];
    int& dead_count = it->dead[dst.local_id];
    bool now_ready = false;
    bool dst_dead = false;
    if (dst.is_merge) {
      // pending: 2 per control input still to come, plus 1 until a live
      // data input arrived. A Merge fires once: on its first live input
      // (with every control input in), or when all data inputs are dead.
      if (pending == kDone) continue;
      if (oe.dst_slot < 0) {
        pending -= 2;
        dst_dead = dead_count == dst.num_inputs;
        now_ready = pending == 0 || (pending == 1 && dst_dead);
      } else if (live) {
        if ((pending & 1) == 0) continue;  // a later live input: ignored
        OutputSlot& out = outputs[oe.src_output];
        if (may_move && oe.last_use) it->slots[oe.dst_slot] = std::move(out);
        else it->slots[oe.dst_slot] = out;
        pending -= 1;
        now_ready = pending == 0;
      } else {
        ++dead_count;
        dst_dead = dead_count == dst.num_inputs;
        now_ready = pending == 1 && dst_dead;
      }
    } else {
      if (!live) {
        ++dead_count;
      } else if (oe.dst_slot >= 0) {
        OutputSlot& out = outputs[oe.src_output];
        if (may_move && oe.last_use) it->slots[oe.dst_slot] = std::move(out);
        else it->slots[oe.dst_slot] = out;
      }
      now_ready = --pending == 0;
      dst_dead = dead_count > 0;
    }
    if (!now_ready) continue;
    if (dst.is_merge) pending = 0;
    if (dst.is_control_trigger) dst_dead = false;
    ready->push_back(Tagged{oe.dst, frame, iter, dst_dead});
    ++it->outstanding_ops;
  }
  return Status::OK();
}

void FramePropagator::CleanupIterations(Frame* frame, int64_t iter, std::vector<Tagged>* ready) {
  if (frame->parent == nullptr) return;  // the root frame lives as long as the step
  while (iter == frame->first_iter && iter <= frame->iteration_count) {
    Iteration* it = frame->iteration(iter);
    if (it->outstanding_ops != 0 || it->outstanding_frames != 0) return;
    if (iter == 0 && frame->num_pending_inputs != 0) return;
    frame->iterations.pop_front();
    ++frame->first_iter;
    --frame->num_outstanding_iterations;
    ++iter;
    if (!frame->next_iter_roots.empty()) {
      StartIteration(frame, ready);
      auto roots = std::move(frame->next_iter_roots);
      frame->next_iter_roots.clear();
      for (auto& [id, value] : roots)
        (void)Activate(exec_.items_[id], false, &value, /*may_move=*/true, frame, frame->iteration_count, ready);
    }
  }
  if (frame->num_pending_inputs == 0 && frame->num_outstanding_iterations == 0) DeleteFrame(frame, ready);
}

void FramePropagator::DeleteFrame(Frame* frame, std::vector<Tagged>* ready) {
  Frame* parent = frame->parent;
  const int64_t parent_iter = frame->parent_iter;
  for (size_t e = 0; e < frame->exit_live.size(); ++e)
    if (!frame->exit_live[e])
      (void)Activate(exec_.items_[frame->info->exits[e]], /*dead=*/true, nullptr, false, parent, parent_iter, ready);
  frames_.erase(frame->name);
  delete frame;
  Iteration* it = parent->iteration(parent_iter);
  if (--it->outstanding_frames == 0 && it->outstanding_ops == 0) CleanupIterations(parent, parent_iter, ready);
}

void FramePropagator::Describe(const std::string& device, std::vector<std::string>* out) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [name, frame] : frames_) {
    for (size_t j = 0; j < frame->iterations.size(); ++j) {
      const Iteration& it = *frame->iterations[j];
      for (size_t l = 0; l < frame->info->nodes.size(); ++l) {
        if (it.pending[l] != 0) continue;
        std::string label = exec_.items_[frame->info->nodes[l]].node->label();
        if (frame->parent != nullptr)
          label += " in loop '" + frame->info->name + "' iteration " + std::to_string(frame->first_iter + j);
        out->push_back(label + " on " + device);
      }
    }
  }
}

}  // namespace flowvm
