#include "runtime/timeline_label.h"

namespace flowvm {

namespace {

constexpr std::string_view kAssign = " = ";
constexpr std::string_view kFrom = " from ";
constexpr std::string_view kTo = " to ";

// Op names are identifiers (TensorFlow: [A-Za-z_][A-Za-z0-9_>]*); anything
// else means the text is not a label of ours.
bool IsOpName(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '>';
    if (!ok) return false;
  }
  return true;
}

void ParseTransfer(std::string_view suffix, TimelineLabel* out) {
  // Device names never contain spaces, so the first " from " and the last
  // " to " are the separators even when the tensor name is odd.
  size_t from = suffix.find(kFrom);
  if (from == std::string_view::npos || from == 0) return;
  size_t to = suffix.rfind(kTo);
  if (to == std::string_view::npos || to < from + kFrom.size()) return;
  std::string_view tensor = suffix.substr(0, from);
  std::string_view send = suffix.substr(from + kFrom.size(), to - from - kFrom.size());
  std::string_view recv = suffix.substr(to + kTo.size());
  if (send.empty() || recv.empty()) return;
  out->has_transfer = true;
  out->tensor_name = tensor;
  out->send_device = send;
  out->recv_device = recv;
}

void AppendCall(std::string* s, std::string_view node, std::string_view op, const std::vector<std::string>& inputs) {
  s->append(node).append(kAssign).append(op).push_back('(');
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (i > 0) s->append(", ");
    s->append(inputs[i]);
  }
  s->push_back(')');
}

}  // namespace

TimelineLabel ParseTimelineLabel(std::string_view label) {
  TimelineLabel out;
  size_t assign = label.find(kAssign);
  if (assign == std::string_view::npos || assign == 0) return out;
  std::string_view rest = label.substr(assign + kAssign.size());
  size_t open = rest.find('(');
  // Inputs are node names ([A-Za-z0-9_./-]) with a port, never holding a
  // ')', so the first one after '(' closes the call.
  size_t close = rest.find(')', open == std::string_view::npos ? 0 : open);
  if (open == std::string_view::npos || close == std::string_view::npos) return out;
  std::string_view op = rest.substr(0, open);
  if (!IsOpName(op)) return out;
  std::string_view suffix = rest.substr(close + 1);
  if (!suffix.empty() && suffix.front() != ' ') return out;

  out.node = label.substr(0, assign);
  out.op = op;
  std::string_view args = rest.substr(open + 1, close - open - 1);
  while (!args.empty()) {
    size_t comma = args.find(',');
    std::string_view arg = args.substr(0, comma);
    while (!arg.empty() && arg.front() == ' ') arg.remove_prefix(1);
    while (!arg.empty() && arg.back() == ' ') arg.remove_suffix(1);
    if (!arg.empty()) out.inputs.emplace_back(arg);
    if (comma == std::string_view::npos) break;
    args.remove_prefix(comma + 1);
  }
  if (!suffix.empty()) ParseTransfer(suffix.substr(1), &out);
  return out;
}

std::string FormatTimelineLabel(std::string_view node, std::string_view op, const std::vector<std::string>& inputs) {
  std::string s;
  AppendCall(&s, node, op, inputs);
  return s;
}

std::string FormatTransferLabel(std::string_view node, std::string_view op, const std::vector<std::string>& inputs,
                                std::string_view tensor_name, std::string_view send_device,
                                std::string_view recv_device) {
  std::string s;
  AppendCall(&s, node, op, inputs);
  s.append(" ").append(tensor_name).append(kFrom).append(send_device).append(kTo).append(recv_device);
  return s;
}

bool IsSendOp(std::string_view op) { return op == "_Send" || op == "_HostSend"; }
bool IsRecvOp(std::string_view op) { return op == "_Recv" || op == "_HostRecv"; }

}  // namespace flowvm
