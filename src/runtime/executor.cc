#include "runtime/executor.h"

#include <condition_variable>

#include "kernels/framework/kernel_registry.h"
#include "runtime/executor_item.h"

namespace flowvm {

StatusOr<std::unique_ptr<Executor>> Executor::Create(std::unique_ptr<Graph> graph, const ExecutorOptions& options) {
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(graph->TopologicalOrder(&order));
  std::unique_ptr<Executor> exec(new Executor());
  exec->options_ = options;
  exec->device_type_ = options.device == nullptr ? DEVICE_CPU : options.device->device_type();
  std::vector<int> item_of(graph->num_node_ids(), -1);
  std::vector<Node*> nodes = graph->nodes();
  exec->items_.resize(nodes.size());
  exec->kernels_.reserve(nodes.size());
  int slot = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node* n = nodes[i];
    item_of[n->id()] = static_cast<int>(i);
    // Kernels see their inputs by name (for messages such as which variable
    // is uninitialized), as the edges of this graph wire them.
    NodeDef def = n->def();
    for (int k = 0; k < n->num_inputs(); ++k) {
      const Edge* e = n->input_edge(k);
      if (e == nullptr) return errors::InvalidArgument(n->label(), ": input ", k, " is not connected");
      def.add_input(InputName(e));
    }
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<OpKernel> kernel,
                            CreateOpKernel(exec->device_type_, def, n->op_def(), n->input_types(),
                                           n->output_types(), options.device));
    NodeItem& item = exec->items_[i];
    item.node = n;
    item.kernel = kernel.get();
    item.async = kernel->AsAsync();
    item.expensive = kernel->IsExpensive();
    item.input_start = slot;
    item.num_inputs = n->num_inputs();
    item.num_outputs = n->num_outputs();
    item.initial_pending = static_cast<int>(n->in_edges().size());
    for (int k = 0; k < n->num_inputs(); ++k) item.input_is_ref.push_back(IsRefType(n->input_type(k)));
    slot += n->num_inputs();
    exec->kernels_.push_back(std::move(kernel));
  }
  exec->total_input_slots_ = slot;
  for (size_t i = 0; i < nodes.size(); ++i) {
    Node* n = nodes[i];
    NodeItem& item = exec->items_[i];
    std::vector<int> last_edge_of_output(n->num_outputs(), -1);
    for (const Edge* e : n->out_edges()) {
      NodeItem::OutEdge oe;
      oe.dst = item_of[e->dst()->id()];
      if (!e->IsControlEdge()) {
        oe.src_output = e->src_output();
        oe.dst_slot = exec->items_[oe.dst].input_start + e->dst_input();
        last_edge_of_output[e->src_output()] = static_cast<int>(item.out_edges.size());
      } else {
        oe.src_output = -1;
      }
      item.out_edges.push_back(oe);
    }
    for (int idx : last_edge_of_output)
      if (idx >= 0) item.out_edges[idx].last_use = true;
    if (item.initial_pending == 0) exec->roots_.push_back(static_cast<int>(i));
  }
  exec->graph_ = std::move(graph);
  return exec;
}

Executor::~Executor() = default;

int Executor::num_nodes() const { return static_cast<int>(items_.size()); }

Status Executor::Run(const RunArgs& args) {
  struct Waiter {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    Status status;
  } w;
  RunAsync(args, [&w](const Status& s) {
    std::lock_guard<std::mutex> lock(w.mu);
    w.status = s;
    w.done = true;
    w.cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(w.mu);
  w.cv.wait(lock, [&w] { return w.done; });
  return w.status;
}

}  // namespace flowvm
