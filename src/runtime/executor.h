// Executor: runs one prepared graph (paper section 3.1) once per step.
//
// Creation instantiates a kernel per node and precomputes, per node, where
// its inputs live in a flat slot array, its out-edges and its initial pending
// count, so a step allocates only two arrays. A step keeps an atomic pending
// count per node and a ready queue: ready cheap nodes run inline on the
// thread that made them ready; when several become ready at once, expensive
// ones go to the thread pool. Asynchronous kernels get a `done` callback and
// hold no thread while they wait. The first error cancels the step (no new
// node starts, the cancellation manager and rendezvous are told) and is
// returned with the failing node's name.
//
// Thread safety: Run may be called from many threads at once (concurrent
// steps); each step has its own state. The executor must outlive its steps.
#ifndef FLOWVM_RUNTIME_EXECUTOR_H_
#define FLOWVM_RUNTIME_EXECUTOR_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/thread_pool.h"
#include "flowvm/status.h"
#include "graph/graph.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {

struct ExecutorOptions {
  std::string device_type = DEVICE_CPU;
  ResourceMgr* resource_mgr = nullptr;  // not owned
  ThreadPool* pool = nullptr;           // not owned; null: run every node on the caller's thread
};

class Executor {
 public:
  struct RunArgs {
    int64_t step_id = 0;
    CancellationManager* cancellation = nullptr;  // not owned; may be null
    Rendezvous* rendezvous = nullptr;             // not owned; may be null
    CallFrame* call_frame = nullptr;              // not owned; may be null
  };
  using DoneCallback = std::function<void(const Status&)>;

  // Takes ownership of the graph. Fails (naming the node) if a kernel is
  // missing or rejects its attrs, or the graph has a cycle.
  static StatusOr<std::unique_ptr<Executor>> Create(std::unique_ptr<Graph> graph, const ExecutorOptions& options);
  ~Executor();

  // Runs one step; blocks until every node is done or the step failed.
  Status Run(const RunArgs& args);
  // Runs one step; `done` is called once, possibly on another thread.
  void RunAsync(const RunArgs& args, DoneCallback done);

  const Graph& graph() const { return *graph_; }
  int num_nodes() const;

 private:
  class StepRun;
  struct NodeItem;
  Executor() = default;

  std::unique_ptr<Graph> graph_;
  ExecutorOptions options_;
  std::vector<NodeItem> items_;        // one per node, dense ids
  std::vector<int> roots_;             // items with no inputs
  int total_input_slots_ = 0;
  std::vector<std::unique_ptr<OpKernel>> kernels_;
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_EXECUTOR_H_
