// Step traces for people: StepStats (what a traced Run() recorded, see
// flowvm/step_stats.pb.h) as Chrome trace-event JSON, which ui.perfetto.dev
// and chrome://tracing open.
//
// What the trace shows:
// - one process per DeviceStepStats, named after the device and sorted in
//   the order of StepStats.dev_stats; pid = 1 + its index (Perfetto treats
//   pid 0 as the kernel's idle task);
// - one thread per NodeExecStats.thread_id, named from
//   DeviceStepStats.thread_names, else "thread N"; tid = 1 + thread_id (for
//   the same reason);
// - one slice per NodeExecStats from op start to op end: name the node, cat
//   and args.op its op type, args.inputs, args.timeline_label, and
//   args.outputs (slot, dtype, shape, requested_bytes) from its outputs'
//   TensorDescriptions. The op type and inputs are parsed from
//   timeline_label, "<node> = <Op>(<input>, ...)" (op "unknown" otherwise);
// - an arrow (flow events, cat "transfer") from each _Send to the _Recv that
//   received its tensor: the one whose label names the same tensor, sending
//   device and receiving device ("<node> = _Recv() <tensor> from <device> to
//   <device>"); the k-th such Send pairs with the k-th such Recv in time;
// - per device, a counter track per allocator (bytes_in_use, peak_bytes) at
//   the end of each node that reported AllocatorMemoryUsed.
//
// Times are in microseconds, fractional where the *_nanos fields were
// recorded, and relative to the earliest op start in the step (so that
// nanoseconds survive JSON's doubles); otherData.start_unix_nanos holds that
// origin.
#ifndef FLOWVM_TRACE_H_
#define FLOWVM_TRACE_H_

#include <string>

#include "flowvm/status.h"
#include "flowvm/step_stats.pb.h"

namespace flowvm {

// {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}, the
// events sorted by ts. Strings from the stats (node and device names,
// labels) are escaped; bytes that are not UTF-8 become U+FFFD.
// InvalidArgument (naming the device and node) if a time does not fit in
// int64 nanoseconds.
StatusOr<std::string> StepStatsToChromeTrace(const StepStats& stats);

// Writes StepStatsToChromeTrace(stats) to `path` atomically (a temporary
// file beside it, then a rename). Errors name the path.
Status WriteChromeTraceFile(const std::string& path, const StepStats& stats);

}  // namespace flowvm

#endif  // FLOWVM_TRACE_H_
