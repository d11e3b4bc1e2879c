// Executor: runs one partition of a prepared graph (paper section 3.1) on
// one device, once per step.
//
// Creation instantiates a kernel per node on the device and precomputes, per
// node, where its inputs live in a flat slot array, its out-edges and its
// initial pending count, so a step allocates only two arrays. A step keeps an
// atomic pending count per node and a ready queue: ready cheap nodes run
// inline on the thread that made them ready; when several become ready at
// once, expensive ones go to the thread pool. "Expensive" is what a kernel
// says of itself, corrected by measurement: one that runs shorter than a
// hand-over costs (ExecutorOptions::inline_below_ns) stays inline.
//
// Asynchronous kernels (Recv, queue ops) get a `done` callback and hold no
// thread while they wait. Their completion never runs this partition's
// nodes on the completing thread's stack (that thread may be deep inside
// another partition's Send, or be a producer that filled a queue): a pool
// worker polling for work continues it, else the step's caller if it is
// idle, waiting in Run (runtime/waiting_caller.h), else the pool; without
// a pool it is deferred until the completing thread's own executor loop
// unwinds (a trampoline), so an alternating Send/Recv chain between
// partitions runs in constant stack depth.
//
// Control flow (paper 4.4): a node whose input is dead (a Switch's untaken
// branch) does not run and passes the deadness on; Send and Recv carry it
// across devices. A graph with loops or Merge nodes runs with per-frame,
// per-iteration state (executor_propagators.h): Merge fires on its first
// live input, Enter/Exit/NextIteration move values between frames and
// iterations, up to parallel_iterations iterations of a loop run at once,
// and loops nest. A graph without them keeps the flat per-step arrays.
//
// The first error cancels the step (no new node starts; the cancellation
// manager and rendezvous are told, which stops the step's other partitions)
// and is returned with the failing node's name.
//
// Thread safety: Run may be called from many threads at once (concurrent
// steps); each step has its own state. The executor must outlive its steps.
#ifndef FLOWVM_RUNTIME_EXECUTOR_H_
#define FLOWVM_RUNTIME_EXECUTOR_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/step_memory.h"
#include "core/thread_pool.h"
#include "flowvm/status.h"
#include "graph/graph.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {

class NodeStatsRecorder;
class StepInFlight;

struct ExecutorOptions {
  // The device the partition runs on (not owned). Null only in tests: the
  // kernels then allocate from the process allocator and have no resources.
  DeviceBase* device = nullptr;
  // Not owned; null: run every node on the caller's thread.
  ThreadPool* pool = nullptr;
  // A kernel that says it is expensive but measures shorter than this (a
  // moving average of its runs) runs on the thread that made it ready:
  // handing it to another thread would cost more (waking a spinning worker
  // takes about a microsecond, a sleeping one far more).
  int64_t inline_below_ns = 5000;
  // The functions the partition's kernels may instantiate and call (not
  // owned); null when its graph has no function library.
  FunctionLibraryRuntime* function_library = nullptr;
};

class WaitingCaller;

class Executor {
 public:
  struct RunArgs {
    int64_t step_id = 0;
    CancellationManager* cancellation = nullptr;  // not owned; may be null
    Rendezvous* rendezvous = nullptr;             // not owned; may be null
    StepResources* resources = nullptr;           // not owned; may be null
    CallFrame* call_frame = nullptr;              // not owned; may be null
    int call_depth = 0;                           // > 0: the body of a function called from a kernel
    NodeStatsRecorder* stats = nullptr;           // not owned; non-null: trace every node
    StepInFlight* in_flight = nullptr;            // not owned; may be null
    // The caller's thread (an RPC transport's) must not be held by long
    // kernels: it runs only nodes whose kernels say they are cheap
    // (OpKernel::IsExpensive: Const, Identity, Send, Recv, variable reads,
    // element-wise ops, which split large inputs over the pool themselves)
    // and hands every expensive one (MatMul, Conv2D, reductions, ...) to
    // the pool, so a partition of cheap nodes costs no thread switch.
    // Only with a pool.
    bool caller_runs_only_cheap = false;
    // The thread waiting for the step, if one does: it continues the step
    // after an async kernel completes elsewhere, while it is idle.
    WaitingCaller* caller = nullptr;  // not owned; may be null
    // The step's tensor memory on this process, shared by its partitions;
    // null: unlimited.
    std::shared_ptr<StepMemoryBudget> memory_budget;
  };
  using DoneCallback = std::function<void(const Status&)>;

  // Takes ownership of the graph. Fails (naming the node) if a kernel is
  // missing or rejects its attrs, the graph has a cycle that is not a loop,
  // or its loops are malformed (graph/control_flow.h).
  static StatusOr<std::unique_ptr<Executor>> Create(std::unique_ptr<Graph> graph, const ExecutorOptions& options);
  ~Executor();

  // Runs one step; blocks until every node is done or the step failed.
  Status Run(const RunArgs& args);
  // Runs one step; `done` is called once, possibly on another thread (and
  // possibly before RunAsync returns).
  void RunAsync(const RunArgs& args, DoneCallback done);

  const Graph& graph() const { return *graph_; }
  DeviceBase* device() const { return options_.device; }
  int num_nodes() const;

 private:
  class StepRun;
  template <class Propagator>
  class StepRunWith;
  struct NodeItem;
  struct FrameInfo;
  friend class StepInFlight;
  friend class SimplePropagator;
  friend class FramePropagator;
  Executor() = default;
  Status BuildFrames();

  std::unique_ptr<Graph> graph_;
  ExecutorOptions options_;
  std::string device_type_;
  std::vector<NodeItem> items_;        // one per node, dense ids
  std::vector<int> roots_;             // items with no inputs
  int total_input_slots_ = 0;          // without frames: all input slots
  std::vector<std::unique_ptr<OpKernel>> kernels_;
  // Loops or Merge nodes: steps run with FramePropagator.
  bool needs_frames_ = false;
  // Some node can output a dead value (Switch, Recv, ...).
  bool may_be_dead_ = false;
  std::vector<FrameInfo> frames_;      // with frames only; [0] is the root
  // Measured run time of each expensive synchronous kernel (a moving
  // average, in ns; kUnmeasured until it first ran); see
  // ExecutorOptions::inline_below_ns.
  static constexpr int64_t kUnmeasured = -1;
  std::unique_ptr<std::atomic<int64_t>[]> cost_ns_;
  bool RunsInline(int id, const NodeItem& item) const;
  void RecordCost(int id, int64_t ns) const;
};

// The partitions of one step register here while they run, so the step's
// owner can say what was still running when a deadline passed. Thread-safe;
// must outlive the steps that use it.
class StepInFlight {
 public:
  // "node 'x' (_Recv) on /job:localhost/replica:0/task:0/device:CPU:1", for
  // every node that is ready, computing or waiting in an async kernel.
  std::vector<std::string> Describe() const;
  // "; still running: a; b; ... (N in all)" for a deadline's message: at
  // most 10 of `running`; "" if it is empty.
  static std::string StillRunning(const std::vector<std::string>& running);

 private:
  friend class Executor;
  mutable std::mutex mu_;
  std::vector<const Executor::StepRun*> runs_;
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_EXECUTOR_H_
