// The executor's precomputed view of one node (internal to executor*.cc).
#ifndef FLOWVM_RUNTIME_EXECUTOR_ITEM_H_
#define FLOWVM_RUNTIME_EXECUTOR_ITEM_H_

#include <string>
#include <vector>

#include "runtime/executor.h"

namespace flowvm {

struct Executor::NodeItem {
  const Node* node = nullptr;
  OpKernel* kernel = nullptr;
  AsyncOpKernel* async = nullptr;
  bool expensive = true;
  uint64_t outputs_required = ~uint64_t{0};  // bit k: output k has a consumer (k < 64)
  // Control flow.
  bool is_merge = false;
  bool is_enter = false;
  bool is_constant_enter = false;
  bool is_exit = false;
  bool is_next_iteration = false;
  bool is_control_trigger = false;  // runs (alive) even when its inputs are dead
  bool runs_when_dead = false;      // _Send and _Recv pass deadness on
  bool may_output_dead = false;     // Switch, _Recv: an unset output is dead
  bool is_recv = false;             // a _Recv that received a dead value is dead itself
  int frame = 0;                    // index in frames_ of the frame it runs in
  int local_id = 0;                 // index among its frame's nodes (= item index without frames)
  int child_frame = -1;             // Enter: the frame its output enters
  int exit_index = -1;              // Exit: index in its frame's exits
  // First input slot; with frames, among the slots of the node's frame.
  int input_start = 0;
  int num_inputs = 0;
  int num_outputs = 0;
  int initial_pending = 0;
  struct OutEdge {
    int dst = 0;            // item index
    int src_output = 0;     // -1 for control edges
    int dst_slot = -1;      // global input slot; -1 for control edges
    bool last_use = false;  // the last edge reading src_output: may move it
  };
  std::vector<OutEdge> out_edges;
  std::vector<bool> input_is_ref;  // the kernel takes input i by reference
};

// One loop body (graph/control_flow.h) as the frame propagator sees it.
struct Executor::FrameInfo {
  std::string name;  // the Enter nodes' frame_name; "" for the root
  int parent = -1;
  int parallel_iterations = 1;
  int num_enters = 0;
  int num_slots = 0;
  std::vector<int> nodes;             // item indices, by local id
  std::vector<int> exits;             // item indices of its Exit nodes, by exit_index
  std::vector<int> initial_pending;   // by local id
  // Dead inputs a node starts an iteration with (Merge only): in the first
  // iteration its back edges, in later ones its inputs from Enter nodes.
  std::vector<int> initial_dead_first;
  std::vector<int> initial_dead_later;
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_EXECUTOR_ITEM_H_
