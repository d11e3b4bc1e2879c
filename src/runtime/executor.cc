#include "runtime/executor.h"

#include <condition_variable>

#include "graph/control_flow.h"
#include "kernels/framework/kernel_registry.h"
#include "runtime/executor_item.h"
#include "runtime/waiting_caller.h"

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
                                           n->output_types(), options.device, options.function_library));
    NodeItem& item = exec->items_[i];
    item.node = n;
    item.kernel = kernel.get();
    item.async = kernel->AsAsync();
    item.expensive = kernel->IsExpensive();
    item.input_start = slot;
    item.num_inputs = n->num_inputs();
    item.num_outputs = n->num_outputs();
    item.initial_pending = static_cast<int>(n->in_edges().size());
    item.is_merge = n->IsMerge();
    item.is_enter = n->IsEnter();
    item.is_exit = n->IsExit();
    item.is_next_iteration = n->IsNextIteration();
    item.is_control_trigger = n->IsControlTrigger();
    item.runs_when_dead = n->IsSend() || n->IsRecv();
    item.may_output_dead = n->IsSwitch() || n->IsRecv();
    item.is_recv = n->IsRecv();
    item.local_id = static_cast<int>(i);
    if (item.is_enter) FLOWVM_RETURN_IF_ERROR(GetNodeAttr(n->def(), "is_constant", &item.is_constant_enter));
    if (item.is_merge || item.is_enter || item.is_exit || item.is_next_iteration) exec->needs_frames_ = true;
    if (n->IsControlFlow() || n->IsRecv()) exec->may_be_dead_ = true;
    for (int k = 0; k < n->num_inputs(); ++k) item.input_is_ref.push_back(IsRefType(n->input_type(k)));
    slot += n->num_inputs();
    exec->kernels_.push_back(std::move(kernel));
  }
  exec->cost_ns_.reset(new std::atomic<int64_t>[exec->items_.size()]);
  for (size_t i = 0; i < exec->items_.size(); ++i) exec->cost_ns_[i].store(kUnmeasured, std::memory_order_relaxed);
  exec->total_input_slots_ = slot;
  exec->graph_ = std::move(graph);
  if (exec->needs_frames_) FLOWVM_RETURN_IF_ERROR(exec->BuildFrames());
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
    // Outputs nothing reads: a kernel may skip computing them.
    item.outputs_required = 0;
    for (int k = 0; k < n->num_outputs() && k < 64; ++k)
      if (last_edge_of_output[k] >= 0) item.outputs_required |= uint64_t{1} << k;
    if (item.initial_pending == 0) exec->roots_.push_back(static_cast<int>(i));
  }
  return exec;
}

// Assigns every node its frame, its index among the frame's nodes and its
// input slots among the frame's slots, and what each frame starts with.
Status Executor::BuildFrames() {
  ControlFlowInfo info;
  FLOWVM_RETURN_IF_ERROR(BuildControlFlowInfo(*graph_, &info));
  frames_.assign(info.frames.size(), FrameInfo());
  for (size_t f = 0; f < info.frames.size(); ++f) {
    frames_[f].name = info.frames[f].name;
    frames_[f].parent = info.frames[f].parent;
    frames_[f].parallel_iterations = info.frames[f].parallel_iterations;
    frames_[f].num_enters = info.frames[f].num_enters;
  }
  std::vector<int> item_of(graph_->num_node_ids(), -1);
  for (size_t i = 0; i < items_.size(); ++i) item_of[items_[i].node->id()] = static_cast<int>(i);
  for (size_t i = 0; i < items_.size(); ++i) {
    NodeItem& item = items_[i];
    const Node* n = item.node;
    FrameInfo& frame = frames_[info.frame_of[n->id()]];
    item.frame = info.frame_of[n->id()];
    item.local_id = static_cast<int>(frame.nodes.size());
    item.input_start = frame.num_slots;
    frame.num_slots += item.num_inputs;
    frame.nodes.push_back(static_cast<int>(i));
    int pending = static_cast<int>(n->in_edges().size());
    int dead_first = 0, dead_later = 0;
    if (item.is_merge) {
      // Bit 0: still waiting for a live data input; each control input
      // counts 2 (see FramePropagator::Activate).
      int control = 0;
      for (const Edge* e : n->in_edges()) {
        if (e->IsControlEdge()) {
          ++control;
        } else if (e->IsBackEdge()) {
          ++dead_first;
        } else if (e->src()->IsEnter()) {
          bool is_constant = false;
          FLOWVM_RETURN_IF_ERROR(GetNodeAttr(e->src()->def(), "is_constant", &is_constant));
          if (!is_constant) ++dead_later;
        }
      }
      pending = 1 + 2 * control;
    }
    frame.initial_pending.push_back(pending);
    frame.initial_dead_first.push_back(dead_first);
    frame.initial_dead_later.push_back(dead_later);
    if (item.is_enter) item.child_frame = info.out_frame_of[n->id()];
    if (item.is_exit) {
      item.exit_index = static_cast<int>(frame.exits.size());
      frame.exits.push_back(static_cast<int>(i));
    }
  }
  return Status::OK();
}

Executor::~Executor() = default;

bool Executor::RunsInline(int id, const NodeItem& item) const {
  if (!item.expensive) return true;
  const int64_t cost = cost_ns_[id].load(std::memory_order_relaxed);
  return cost != kUnmeasured && cost < options_.inline_below_ns;
}

void Executor::RecordCost(int id, int64_t ns) const {
  // A moving average over about 8 runs; the first run sets it (it includes
  // warm-up, so the estimate errs on the expensive side and then settles).
  const int64_t old = cost_ns_[id].load(std::memory_order_relaxed);
  cost_ns_[id].store(old == kUnmeasured ? ns : old + (ns - old) / 8, std::memory_order_relaxed);
}

int Executor::num_nodes() const { return static_cast<int>(items_.size()); }

Status Executor::Run(const RunArgs& args) {
  WaitingCaller caller;
  RunArgs a = args;
  if (a.caller == nullptr) a.caller = &caller;
  Status status;
  // `status` is written before Finish, which Wait returns after.
  RunAsync(a, [&status, &caller](const Status& s) {
    status = s;
    caller.Finish();
  });
  caller.Wait();
  return status;
}

}  // namespace flowvm
