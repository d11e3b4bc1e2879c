// The executor's precomputed view of one node (internal to executor*.cc).
#ifndef FLOWVM_RUNTIME_EXECUTOR_ITEM_H_
#define FLOWVM_RUNTIME_EXECUTOR_ITEM_H_

#include <vector>

#include "runtime/executor.h"

namespace flowvm {

struct Executor::NodeItem {
  const Node* node = nullptr;
  OpKernel* kernel = nullptr;
  AsyncOpKernel* async = nullptr;
  bool expensive = true;
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

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_EXECUTOR_ITEM_H_
