// The timeline_label of a NodeExecStats (step_stats.proto): one line that
// says what a node ran and on what, written by the executor and read back by
// the trace converter (chrome_trace.cc), so both sides share this file.
//
//   <node> = <Op>(<input>, <input>, ...)
//   <node> = _Send(<input>) <tensor> from <send_device> to <recv_device>
//   <node> = _Recv() <tensor> from <send_device> to <recv_device>
//
// Inputs are tensor names as in a NodeDef ("a", "a:1", "^ctrl"), joined by
// ", ". The transfer suffix follows ops that move a tensor between devices
// (_Send, _Recv, _HostSend, _HostRecv). TensorFlow's executor writes labels of
// the same "<node> = <Op>(<inputs>)" shape, which its timeline.py parses.
#ifndef FLOWVM_RUNTIME_TIMELINE_LABEL_H_
#define FLOWVM_RUNTIME_TIMELINE_LABEL_H_

#include <string>
#include <string_view>
#include <vector>

namespace flowvm {

struct TimelineLabel {
  std::string node;
  std::string op = "unknown";  // "unknown" when the label does not parse
  std::vector<std::string> inputs;
  // Set only when the label has a well-formed transfer suffix.
  bool has_transfer = false;
  std::string tensor_name;
  std::string send_device;
  std::string recv_device;
};

// Never fails: a label that does not have the shape above gives op
// "unknown" (and node/inputs left empty); a malformed transfer suffix is
// ignored (has_transfer false) while node, op and inputs are kept.
TimelineLabel ParseTimelineLabel(std::string_view label);

// The label of a node that moves no tensor between devices.
std::string FormatTimelineLabel(std::string_view node, std::string_view op,
                                const std::vector<std::string>& inputs);
// The label of a _Send/_Recv (or _HostSend/_HostRecv) node.
std::string FormatTransferLabel(std::string_view node, std::string_view op,
                                const std::vector<std::string>& inputs, std::string_view tensor_name,
                                std::string_view send_device, std::string_view recv_device);

// _Send and _HostSend; _Recv and _HostRecv.
bool IsSendOp(std::string_view op);
bool IsRecvOp(std::string_view op);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_TIMELINE_LABEL_H_
