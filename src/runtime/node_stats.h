// What the executor reports about each node when a step is traced
// (RunOptions.trace_level > NO_TRACE): when it became ready, started and
// ended, on which thread, and what it produced. The recorder turns this into
// TensorFlow's NodeExecStats (runtime/step_stats_collector.h). Recording
// costs two clock reads per node, so untraced steps pass no recorder.
#ifndef FLOWVM_RUNTIME_NODE_STATS_H_
#define FLOWVM_RUNTIME_NODE_STATS_H_

#include <chrono>
#include <cstdint>

#include "graph/graph.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {

struct NodeTiming {
  int64_t scheduled_ns = 0;  // steady-clock nanoseconds: ready to run
  int64_t start_ns = 0;      // Compute / ComputeAsync called
  int64_t end_ns = 0;        // Compute returned / done called
  uint32_t thread_id = 0;    // small per-process number of the thread that started it
};

// One per partition (device) of a traced step. Thread-safe.
class NodeStatsRecorder {
 public:
  virtual ~NodeStatsRecorder() = default;
  // `outputs` holds the node's num_outputs() slots as the kernel left them.
  virtual void Record(const Node& node, const NodeTiming& timing, const OutputSlot* outputs) = 0;
};

inline int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A small number for the calling thread (1, 2, ...), stable for its life.
uint32_t CurrentThreadNumber();

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_NODE_STATS_H_
