// One step of an Executor: the ready queue, async kernels, the trampoline
// for their completions, tracing and abort. How values reach consumers and
// which become ready is the propagator's (executor_propagators.h).
#include <atomic>
#include <deque>

#include "kernels/framework/cancellation.h"
#include "kernels/framework/rendezvous.h"
#include "runtime/executor.h"
#include "runtime/executor_item.h"
#include "runtime/executor_propagators.h"
#include "runtime/node_stats.h"
#include "runtime/waiting_caller.h"

namespace flowvm {

namespace {

// Work this thread deferred because it arrived (from an async kernel's
// completion) while the thread was inside an executor loop. The outermost
// loop runs it when it unwinds, so completions never nest stacks.
struct Deferred {
  void (*resume)(void* run, void* ready);  // owns and deletes `ready`
  void* run;
  void* ready;
};
struct InlineState {
  int depth = 0;
  bool draining = false;
  std::deque<Deferred> deferred;
};
thread_local InlineState t_inline;
// Set while a step started with RunArgs::caller_runs_only_cheap runs nodes
// on its caller's thread.
thread_local bool t_cheap_only = false;

class InlineScope {
 public:
  InlineScope() { ++t_inline.depth; }
  ~InlineScope() {
    if (--t_inline.depth != 0 || t_inline.draining) return;
    t_inline.draining = true;
    while (!t_inline.deferred.empty()) {
      Deferred d = std::move(t_inline.deferred.front());
      t_inline.deferred.pop_front();
      d.resume(d.run, d.ready);  // opens its own scope; anything it defers lands in this loop
    }
    t_inline.draining = false;
  }
  InlineScope(const InlineScope&) = delete;
  InlineScope& operator=(const InlineScope&) = delete;
};

}  // namespace

std::atomic<uint32_t> g_next_thread_number{1};

uint32_t CurrentThreadNumber() {
  thread_local uint32_t number = g_next_thread_number.fetch_add(1, std::memory_order_relaxed);
  return number;
}

// The state of one step of one executor; see StepInFlight.
class Executor::StepRun {
 public:
  virtual ~StepRun() = default;
  // Labels of the nodes that are ready or running.
  virtual void Describe(std::vector<std::string>* out) const = 0;
};

// One step with propagator P. Deletes itself after calling `done`.
template <class P>
class Executor::StepRunWith : public Executor::StepRun {
 public:
  using Tagged = typename P::Tagged;

  StepRunWith(const Executor* exec, const RunArgs& args, DoneCallback done)
      : exec_(exec), args_(args), done_(std::move(done)), prop_(*exec) {
    step_.step_id = args.step_id;
    step_.device = exec->options_.device;
    step_.cancellation = args.cancellation;
    step_.rendezvous = args.rendezvous;
    step_.resources = args.resources;
    step_.call_frame = args.call_frame;
    step_.function_library = exec->options_.function_library;
    step_.call_depth = args.call_depth;
    step_.pool = exec->options_.pool;
    if (args.memory_budget != nullptr) {
      Allocator* base = step_.device != nullptr ? step_.device->allocator() : ProcessCpuAllocator();
      budget_allocator_ = BudgetAllocator::New(base, args.memory_budget);
      step_.allocator = budget_allocator_;
    }
    if (args.stats != nullptr) ready_ns_.reset(new int64_t[exec->items_.size()]());
  }
  ~StepRunWith() override {
    if (budget_allocator_ != nullptr) budget_allocator_->Release();
  }

  void Start() {
    if (args_.in_flight != nullptr) {
      std::lock_guard<std::mutex> lock(args_.in_flight->mu_);
      args_.in_flight->runs_.push_back(this);
    }
    std::vector<Tagged> roots;
    prop_.Roots(&roots);
    if (roots.empty()) {
      Finish();
      return;
    }
    if (ready_ns_) {
      const int64_t now = NowNanos();
      for (const Tagged& t : roots) ready_ns_[P::Id(t)] = now;
    }
    outstanding_.store(static_cast<int>(roots.size()), std::memory_order_relaxed);
    std::vector<Tagged> inline_ready;
    // Everything this thread runs before Start returns is on the caller's
    // thread, also nodes that the inline ones make ready.
    const bool was_cheap_only = t_cheap_only;
    if (args_.caller_runs_only_cheap) t_cheap_only = true;
    Schedule(roots, &inline_ready);
    RunInline(&inline_ready);
    t_cheap_only = was_cheap_only;
  }

  void Describe(std::vector<std::string>* out) const override {
    const std::string& device = exec_->options_.device ? exec_->options_.device->name() : std::string("(no device)");
    prop_.Describe(device, out);
  }

 private:
  // Output buffers of one node run, kept alive across an async kernel: one
  // allocation for a node of up to two outputs (a Recv has one).
  struct AsyncCall {
    AsyncCall(StepRunWith* run, const Tagged& tagged, const NodeItem& item, std::vector<TensorValue> in)
        : run(run),
          tagged(tagged),
          inputs(std::move(in)),
          heap_outputs(item.num_outputs > 2 ? new OutputSlot[item.num_outputs] : nullptr),
          ctx(&run->step_, item.kernel, inputs.data(), heap_outputs ? heap_outputs.get() : inline_outputs) {}
    OutputSlot* outputs() { return heap_outputs ? heap_outputs.get() : inline_outputs; }
    StepRunWith* const run;
    const Tagged tagged;
    std::vector<TensorValue> inputs;
    OutputSlot inline_outputs[2];
    std::unique_ptr<OutputSlot[]> heap_outputs;
    OpKernelContext ctx;
    NodeTiming timing;
    // Whichever of `done` and ComputeAsync's return comes second finishes
    // the node (and deletes the call).
    enum Phase { kRunning, kDoneEarly, kReturned };
    std::atomic<int> phase{kRunning};
    std::vector<Tagged> ready;  // set by `done` before it leaves kRunning
  };

  // Runs ready nodes on this thread until none is left for it.
  void RunInline(std::vector<Tagged>* inline_ready) {
    InlineScope scope;
    std::vector<TensorValue> inputs;
    std::vector<OutputSlot> outputs;
    std::vector<Tagged> ready;
    while (!inline_ready->empty()) {
      const Tagged t = inline_ready->back();
      inline_ready->pop_back();
      const int id = P::Id(t);
      const NodeItem& item = exec_->items_[id];
      ready.clear();
      if (!IsAborted()) {
        const bool dead = prop_.IsDead(t);
        outputs.clear();
        outputs.resize(item.num_outputs);
        Status s;
        if (dead && !item.runs_when_dead) {
          // A node with a dead input does not run; its outputs are dead.
        } else {
          s = PrepareInputs(item, prop_.Inputs(t), &inputs);
          if (s.ok() && item.async != nullptr) {
            if (StartAsync(t, dead, std::move(inputs), inline_ready)) return;  // the step is over
            inputs.clear();
            continue;  // the kernel's done callback finishes this node
          }
          if (s.ok()) {
            NodeTiming timing;
            if (ready_ns_) timing.start_ns = NowNanos();
            // Only kernels that say they are expensive are timed: whether
            // they really are decides where they run next time.
            const int64_t measure_from = item.expensive ? NowNanos() : 0;
            OpKernelContext ctx(&step_, item.kernel, inputs.data(), outputs.data());
            ctx.set_frame_iter(P::FrameIter(t));
            ctx.set_input_dead(dead);
            ctx.set_outputs_required(item.outputs_required);
            item.kernel->Compute(&ctx);
            if (item.expensive) exec_->RecordCost(id, NowNanos() - measure_from);
            s = ctx.status();
            if (ready_ns_) RecordStats(id, &timing, outputs.data());
          }
        }
        prop_.ClearInputs(t);
        Finished(t, s, dead && !item.runs_when_dead, outputs.data(), &ready);
      } else {
        prop_.ClearInputs(t);
      }
      if (NodeDone(ready, inline_ready)) return;
    }
  }

  // Starts an async kernel. If it calls `done` before ComputeAsync returns
  // (e.g. a Recv whose tensor is already there), the nodes it made ready go
  // to `inline_ready`. Returns true if the step is over (this object is gone).
  bool StartAsync(const Tagged& t, bool dead, std::vector<TensorValue> inputs, std::vector<Tagged>* inline_ready) {
    const NodeItem& item = exec_->items_[P::Id(t)];
    auto* call = new AsyncCall(this, t, item, std::move(inputs));
    call->ctx.set_frame_iter(P::FrameIter(t));
    call->ctx.set_input_dead(dead);
    call->ctx.set_outputs_required(item.outputs_required);
    if (ready_ns_) call->timing.start_ns = NowNanos();
    // One pointer captured: the callback fits std::function's inline buffer.
    item.async->ComputeAsync(&call->ctx, [call] { call->run->AsyncDone(call); });
    int running = AsyncCall::kRunning;
    if (call->phase.compare_exchange_strong(running, AsyncCall::kReturned)) return false;  // done comes later
    std::vector<Tagged> ready = std::move(call->ready);
    delete call;
    return NodeDone(ready, inline_ready);
  }

  // The `done` of an async kernel, on whatever thread completed it.
  void AsyncDone(AsyncCall* call) {
    const int id = P::Id(call->tagged);
    if (ready_ns_) RecordStats(id, &call->timing, call->outputs());
    std::vector<Tagged> ready;
    prop_.ClearInputs(call->tagged);
    Finished(call->tagged, call->ctx.status(), false, call->outputs(), &ready);
    call->ready = std::move(ready);
    int running = AsyncCall::kRunning;
    if (call->phase.compare_exchange_strong(running, AsyncCall::kDoneEarly)) return;  // StartAsync continues
    ready = std::move(call->ready);
    delete call;
    ContinueElsewhere(std::move(ready));
  }

  // Continues the step after an async kernel completed on some other
  // thread's stack: on a pool worker that is polling for work (which costs
  // the completing thread nothing), else on the step's waiting caller if it
  // is idle (one thread woken instead of a worker and then the caller),
  // else on the pool, else after that thread's executor loop.
  void ContinueElsewhere(std::vector<Tagged> ready) {
    ThreadPool* pool = exec_->options_.pool;
    if (pool != nullptr || args_.caller != nullptr) {
      std::function<void()> fn = [this, ready = std::move(ready)]() mutable { Resume(this, &ready); };
      const bool worker_polling = pool != nullptr && pool->HasSpinningWorker();
      if (!worker_polling && args_.caller != nullptr && args_.caller->TrySchedule(&fn)) return;
      if (pool != nullptr) {
        pool->Schedule(std::move(fn));
      } else if (t_inline.depth > 0) {  // no pool, and the caller is busy
        t_inline.deferred.push_back(Deferred{&RunClosure, nullptr, new std::function<void()>(std::move(fn))});
      } else {
        fn();
      }
      return;
    }
    if (t_inline.depth > 0) {
      t_inline.deferred.push_back(Deferred{&StepRunWith::ResumeDeferred, this, new std::vector<Tagged>(std::move(ready))});
    } else {
      Resume(this, &ready);
    }
  }

  static void RunClosure(void*, void* fn) {
    std::unique_ptr<std::function<void()>> f(static_cast<std::function<void()>*>(fn));
    (*f)();
  }

  static void ResumeDeferred(void* run, void* ready) {
    std::unique_ptr<std::vector<Tagged>> list(static_cast<std::vector<Tagged>*>(ready));
    Resume(static_cast<StepRunWith*>(run), list.get());
  }

  static void Resume(StepRunWith* self, std::vector<Tagged>* ready) {
    std::vector<Tagged> inline_ready;
    if (self->NodeDone(*ready, &inline_ready)) return;
    self->RunInline(&inline_ready);
  }

  void RecordStats(int id, NodeTiming* timing, const OutputSlot* outputs) {
    timing->end_ns = NowNanos();
    timing->scheduled_ns = ready_ns_[id];
    timing->thread_id = CurrentThreadNumber();
    args_.stats->Record(*exec_->items_[id].node, *timing, outputs);
  }

  // A Merge sees only its live input; the others stay null. A dead _Send
  // has no input value.
  Status PrepareInputs(const NodeItem& item, OutputSlot* slots, std::vector<TensorValue>* inputs) {
    inputs->assign(item.num_inputs, TensorValue());
    for (int i = 0; i < item.num_inputs; ++i) {
      OutputSlot& e = slots[i];
      if (!e.has_value) {
        if (item.is_merge || item.runs_when_dead) continue;
        return errors::Internal(item.node->label(), ": input ", i, " was never produced");
      }
      if (e.ref != nullptr) {
        if (item.input_is_ref[i]) {
          (*inputs)[i] = TensorValue{e.ref, e.ref_mu, e.ref_declared_shape};
          continue;
        }
        // The op takes the variable's value: read it under its lock.
        {
          std::lock_guard<std::mutex> lock(*e.ref_mu);
          e.value = *e.ref;
        }
        if (!e.value.IsInitialized()) {
          const Edge* edge = item.node->input_edge(i);
          return errors::FailedPrecondition(item.node->label(), ": Attempting to use uninitialized value ",
                                            edge ? edge->src()->name() : "(unknown)");
        }
      }
      (*inputs)[i] = TensorValue{&e.value, nullptr};
    }
    return Status::OK();
  }

  // The node is done: pass its outputs (or its error, or its deadness) on.
  void Finished(const Tagged& t, const Status& s, bool dead, OutputSlot* outputs, std::vector<Tagged>* ready) {
    const NodeItem& item = exec_->items_[P::Id(t)];
    if (!s.ok()) {
      Abort(AttachNode(s, item.node->def()));
      return;
    }
    if (IsAborted()) return;
    // A Recv of a dead value is a dead node: its control edges carry the
    // deadness too (a Switch is not: one of its outputs is alive).
    if (item.is_recv && item.num_outputs > 0 && !outputs[0].has_value) dead = true;
    Status p = prop_.Propagate(t, dead, outputs, ready);
    if (!p.ok()) {
      ready->clear();
      Abort(p);
      return;
    }
    if (ready_ns_ && !ready->empty()) {
      const int64_t now = NowNanos();
      for (const Tagged& r : *ready) ready_ns_[P::Id(r)] = now;
    }
  }

  // Puts newly ready nodes on this thread's list or the pool. Returns true if
  // the step is over (this object is gone).
  bool NodeDone(const std::vector<Tagged>& ready, std::vector<Tagged>* inline_ready) {
    int n = static_cast<int>(ready.size());
    if (n == 0) {
      if (outstanding_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        Finish();
        return true;
      }
      return false;
    }
    if (n > 1) outstanding_.fetch_add(n - 1, std::memory_order_relaxed);
    Schedule(ready, inline_ready);
    return false;
  }

  void Schedule(const std::vector<Tagged>& ready, std::vector<Tagged>* inline_ready) {
    ThreadPool* pool = exec_->options_.pool;
    bool kept_one = false;
    for (const Tagged& t : ready) {
      const NodeItem& item = exec_->items_[P::Id(t)];
      // Keep cheap nodes, and the first expensive one, on this thread; hand
      // other expensive ones to the pool so they run in parallel (all of
      // them on a thread that runs only cheap nodes). A dead node does
      // not run its kernel: it is cheap.
      const bool expensive = !exec_->RunsInline(P::Id(t), item);
      if (pool != nullptr && expensive && !prop_.IsDead(t) && (kept_one || t_cheap_only)) {
        pool->Schedule([this, t] {
          std::vector<Tagged> list{t};
          RunInline(&list);
        });
      } else {
        if (expensive) kept_one = true;
        inline_ready->push_back(t);
      }
    }
  }

  bool IsAborted() {
    if (aborted_.load(std::memory_order_acquire)) return true;
    if (args_.cancellation != nullptr && args_.cancellation->IsCancelled()) {
      Abort(args_.cancellation->reason());
      return true;
    }
    return false;
  }

  void Abort(const Status& s) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!status_.ok()) return;
      status_ = s;
      aborted_.store(true, std::memory_order_release);
    }
    // The first error of the step stops its other partitions: they see the
    // cancellation before their next node, and a Recv waiting for a tensor
    // that will never come fails with the same status.
    if (args_.cancellation != nullptr) args_.cancellation->StartCancel(s);
    if (args_.rendezvous != nullptr) args_.rendezvous->StartAbort(s);
  }

  void Finish() {
    if (args_.in_flight != nullptr) {
      std::lock_guard<std::mutex> lock(args_.in_flight->mu_);
      auto& runs = args_.in_flight->runs_;
      for (size_t i = 0; i < runs.size(); ++i) {
        if (runs[i] == this) {
          runs[i] = runs.back();
          runs.pop_back();
          break;
        }
      }
    }
    Status s;
    {
      std::lock_guard<std::mutex> lock(mu_);
      s = status_;
    }
    DoneCallback done = std::move(done_);
    delete this;
    done(s);
  }

  const Executor* exec_;
  RunArgs args_;
  DoneCallback done_;
  StepState step_;
  BudgetAllocator* budget_allocator_ = nullptr;  // owner reference, if the step has a budget
  P prop_;
  std::unique_ptr<int64_t[]> ready_ns_;  // traced steps only: when each node became ready
  std::atomic<int> outstanding_{0};
  std::atomic<bool> aborted_{false};
  std::mutex mu_;
  Status status_;
};

void Executor::RunAsync(const RunArgs& args, DoneCallback done) {
  if (needs_frames_) (new StepRunWith<FramePropagator>(this, args, std::move(done)))->Start();
  else (new StepRunWith<SimplePropagator>(this, args, std::move(done)))->Start();
}

std::string StepInFlight::StillRunning(const std::vector<std::string>& running) {
  if (running.empty()) return "";
  std::string list = "; still running: ";
  for (size_t i = 0; i < running.size() && i < 10; ++i) list += (i ? "; " : "") + running[i];
  if (running.size() > 10) list += "; ... (" + std::to_string(running.size()) + " in all)";
  return list;
}

std::vector<std::string> StepInFlight::Describe() const {
  std::vector<std::string> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const Executor::StepRun* run : runs_) run->Describe(&out);
  return out;
}

}  // namespace flowvm
