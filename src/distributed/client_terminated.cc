#include "distributed/client_terminated.h"

#include "graph/device_name.h"
#include "kernels/framework/rendezvous.h"

namespace flowvm {

namespace {

Status IndexOf(const NodeDef& node, size_t count, int* index) {
  auto it = node.attr().find("index");
  if (it == node.attr().end() || it->second.value_case() != AttrValue::kI || it->second.i() < 0 ||
      static_cast<size_t>(it->second.i()) >= count)
    return errors::InvalidArgument("node '", node.name(), "' (", node.op(), ") has no valid index attr");
  *index = static_cast<int>(it->second.i());
  return Status::OK();
}

}  // namespace

Status MakeClientTerminated(const std::string& device, uint64_t incarnation, const std::vector<std::string>& feeds,
                            const std::vector<std::string>& fetches, GraphDef* partition, ClientKeys* keys) {
  for (NodeDef& node : *partition->mutable_node()) {
    const bool is_feed = node.op() == "_Arg";
    if (!is_feed && node.op() != "_Retval") continue;
    int index = 0;
    FLOWVM_RETURN_IF_ERROR(IndexOf(node, is_feed ? feeds.size() : fetches.size(), &index));
    const std::string tensor_name =
        std::string(is_feed ? "_feed:" : "_fetch:") + std::to_string(index) + ":" + (is_feed ? feeds : fetches)[index];
    AttrValue dtype = node.attr().at("T");
    auto* attr = node.mutable_attr();
    attr->clear();
    (*attr)[is_feed ? "tensor_type" : "T"] = dtype;
    (*attr)["tensor_name"].set_s(tensor_name);
    (*attr)["send_device"].set_s(device);
    (*attr)["send_device_incarnation"].set_i(static_cast<int64_t>(incarnation));
    (*attr)["recv_device"].set_s(device);
    (*attr)["client_terminated"].set_b(true);
    node.set_op(is_feed ? "_Recv" : "_Send");
    const std::string key = Rendezvous::Key(Rendezvous::KeyPrefix(device, incarnation, device, tensor_name), 0, 0);
    (is_feed ? keys->feeds : keys->fetches).emplace_back(index, key);
  }
  return Status::OK();
}

bool SendsToOtherTasks(const GraphDef& graph, const std::string& task) {
  for (const NodeDef& n : graph.node()) {
    if (n.op() != "_Send" && n.op() != "_HostSend") continue;
    auto it = n.attr().find("recv_device");
    if (it == n.attr().end()) return true;  // cannot tell: keep the step
    auto parsed = ParseDeviceName(it->second.s());
    if (!parsed.ok() || DeviceTaskName(*parsed) != task) return true;
  }
  return false;
}

}  // namespace flowvm
