#include "runtime/partition.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "graph/attr_value_util.h"
#include "graph/control_flow.h"
#include "graph/device_name.h"
#include "runtime/recv_scheduling.h"

namespace flowvm {

namespace {

std::string TensorString(const Node* n, int port) { return n->name() + ":" + std::to_string(port); }

// "a:0 CPU:0 -> CPU:1"; with the tasks when the transfer crosses tasks.
std::string TransferKey(const std::string& tensor, const DeviceNameParts& src, const DeviceNameParts& dst) {
  const bool with_task = DeviceTaskName(src) != DeviceTaskName(dst);
  return tensor + " " + DeviceDisplayName(src, with_task) + " -> " + DeviceDisplayName(dst, with_task);
}

// "CPU_1" for a device of the source's task, "worker_2_CPU_1" otherwise: a
// piece of a node name (no ':' or '/').
std::string ShortName(const DeviceNameParts& src, const DeviceNameParts& dst) {
  std::string local = dst.type + "_" + std::to_string(dst.id);
  const bool same_task = src.job == dst.job && src.replica == dst.replica && src.task == dst.task;
  if (same_task) return local;
  return dst.job + "_" + std::to_string(dst.task) + "_" + local;
}

class Partitioner {
 public:
  Partitioner(const Graph& graph, const PartitionOptions& options, Partitions* out)
      : graph_(graph), options_(options), out_(out) {}

  Status Run() {
    for (Node* n : graph_.nodes()) {
      if (n->assigned_device().empty()) return errors::Internal(n->label(), " has no device; place the graph first");
      FLOWVM_RETURN_IF_ERROR(Parse(n->assigned_device()));
    }
    has_control_flow_ = HasControlFlow(graph_);
    if (has_control_flow_) FLOWVM_RETURN_IF_ERROR(BuildControlFlowInfo(graph_, &cf_));
    for (Node* n : graph_.nodes()) FLOWVM_RETURN_IF_ERROR(AddNode(n));
    if (has_control_flow_) FLOWVM_RETURN_IF_ERROR(AddControlLoops());
    for (const auto& [key, consumers] : consumers_) out_->transfers.push_back(key + " (" + std::to_string(consumers) +
                                                                              (consumers == 1 ? " consumer)" : " consumers)"));
    // A Recv's scheduling edge could join frames that must stay apart; loops
    // keep their Recvs as they are.
    if (options_.schedule_recvs && !recvs_.empty() && !has_control_flow_) {
      FLOWVM_RETURN_IF_ERROR(ScheduleRecvs(graph_, options_.cost_model, parsed_, recvs_, &out_->graphs,
                                           &out_->scheduled));
    }
    return Status::OK();
  }

 private:
  Status Parse(const std::string& device) {
    if (parsed_.count(device)) return Status::OK();
    FLOWVM_ASSIGN_OR_RETURN(DeviceNameParts p, ParseDeviceName(device));
    if (!IsFullySpecified(p)) return errors::Internal("assigned device '", device, "' is not a full device name");
    parsed_.emplace(device, std::move(p));
    GraphDef& g = out_->graphs[device];
    *g.mutable_versions() = graph_.versions();
    return Status::OK();
  }

  NodeDef* NewNode(const std::string& device) { return out_->graphs[device].add_node(); }

  void SetTransferAttrs(NodeDef* nd, const std::string& tensor, const std::string& src, const std::string& dst) {
    auto& attr = *nd->mutable_attr();
    attr["tensor_name"] = MakeAttrValue(tensor);
    attr["send_device"] = MakeAttrValue(src);
    attr["send_device_incarnation"] =
        MakeAttrValue(static_cast<int64_t>(options_.incarnation ? options_.incarnation(src) : 0));
    attr["recv_device"] = MakeAttrValue(dst);
    attr["client_terminated"] = MakeAttrValue(false);
  }

  // A Send on `src_device` of `input` (a tensor there) and its Recv on
  // `dst_device`; returns the Recv's name.
  std::string AddTransfer(const std::string& tensor, const std::string& input, DataType dtype,
                          const std::string& src_device, const std::string& dst_device, const std::string& send_name,
                          const std::string& recv_name) {
    NodeDef* send = NewNode(src_device);
    send->set_name(send_name);
    send->set_op("_Send");
    send->set_device(src_device);
    send->add_input(input);
    (*send->mutable_attr())["T"] = MakeAttrValue(dtype);
    SetTransferAttrs(send, tensor, src_device, dst_device);
    NodeDef* recv = NewNode(dst_device);
    recv->set_name(recv_name);
    recv->set_op("_Recv");
    recv->set_device(dst_device);
    (*recv->mutable_attr())["tensor_type"] = MakeAttrValue(dtype);
    SetTransferAttrs(recv, tensor, src_device, dst_device);
    return recv_name;
  }

  std::string RecvForData(const Node* src, int port, const std::string& dst_device, const Node* consumer) {
    const std::string& src_device = src->assigned_device();
    const std::string tensor = TensorString(src, port);
    const std::string key = TransferKey(tensor, parsed_.at(src_device), parsed_.at(dst_device));
    ++consumers_[key];
    auto [it, inserted] = recv_of_.try_emplace({tensor, dst_device}, static_cast<int>(recvs_.size()));
    if (!inserted) {
      // The Recv exists: one Recv per (tensor, device), however many consumers.
      recvs_[it->second].consumers.push_back(consumer);
      return recvs_[it->second].recv;
    }
    const std::string piece = src->name() + "_" + std::to_string(port);
    std::string recv =
        AddTransfer(tensor, InputName(src, port), BaseType(src->output_type(port)), src_device, dst_device,
                    "_send_" + piece + "_to_" + ShortName(parsed_.at(src_device), parsed_.at(dst_device)),
                    "_recv_" + piece);
    recvs_.push_back({recv, dst_device, src, {consumer}});
    if (has_control_flow_) NoteRecvFrame(src);
    return recv;
  }

  // The frame a new Recv is in, and whether it runs in the frame's first
  // iteration only (it receives what a non-constant Enter let in).
  void NoteRecvFrame(const Node* src) {
    recv_frames_.push_back(OutFrame(src));
    bool constant = true;
    if (src->IsEnter()) (void)GetNodeAttr(src->def(), "is_constant", &constant);
    recv_first_iteration_.push_back(src->IsEnter() && !constant);
  }

  std::string RecvForControl(const Node* src, const std::string& dst_device, const Node* consumer) {
    const std::string& src_device = src->assigned_device();
    const std::string tensor = "^" + src->name();
    ++consumers_[TransferKey(tensor, parsed_.at(src_device), parsed_.at(dst_device))];
    auto [it, inserted] = recv_of_.try_emplace({tensor, dst_device}, static_cast<int>(recvs_.size()));
    if (!inserted) {
      recvs_[it->second].consumers.push_back(consumer);
      return recvs_[it->second].recv;
    }
    const std::string to = ShortName(parsed_.at(src_device), parsed_.at(dst_device));
    NodeDef* dummy = NewNode(src_device);
    dummy->set_name("_ctrl_" + src->name() + "_to_" + to);
    dummy->set_op("Const");
    dummy->set_device(src_device);
    dummy->add_input("^" + src->name());
    (*dummy->mutable_attr())["dtype"] = MakeAttrValue(DT_INT32);
    (*dummy->mutable_attr())["value"] = MakeAttrValue(Tensor::Scalar<int32_t>(0));
    std::string recv = AddTransfer(tensor, dummy->name(), DT_INT32, src_device, dst_device,
                                   "_send_ctrl_" + src->name() + "_to_" + to, "_recv_ctrl_" + src->name());
    recvs_.push_back({recv, dst_device, src, {consumer}});
    if (has_control_flow_) NoteRecvFrame(src);
    return recv;
  }

  // The frame of `n`'s outputs (graph/control_flow.h).
  int OutFrame(const Node* n) const { return cf_.out_frame_of[n->id()]; }

  // A loop whose nodes are on several devices gets, on each of them, a
  // control loop (paper 4.4): Enter -> Merge -> Switch -> Identity ->
  // NextIteration, driven by the loop's LoopCond value (sent to the other
  // devices every iteration). It starts and ends the frame's iterations
  // there in step with the loop, so values sent inside the loop meet in the
  // same frame and iteration everywhere, and each device sees the loop end
  // without a coordinator. Every Recv inside the loop waits for its
  // device's control loop, which puts it in the right frame and iteration.
  Status AddControlLoops() {
    const int num_frames = static_cast<int>(cf_.frames.size());
    std::map<std::string, std::vector<bool>> present;  // device -> frames with nodes there (and their parents)
    auto mark = [&](const std::string& device, int frame) {
      auto& p = present[device];
      p.resize(num_frames, false);
      for (int f = frame; f > 0 && !p[f]; f = cf_.frames[f].parent) p[f] = true;
    };
    for (Node* n : graph_.nodes()) {
      mark(n->assigned_device(), cf_.frame_of[n->id()]);
      mark(n->assigned_device(), OutFrame(n));
    }
    for (size_t i = 0; i < recvs_.size(); ++i) mark(recvs_[i].device, recv_frames_[i]);
    std::vector<int> devices_with(num_frames, 0);
    for (auto& [device, frames] : present)
      for (int f = 1; f < num_frames; ++f) devices_with[f] += frames[f] ? 1 : 0;
    loop_cond_.assign(num_frames, nullptr);
    for (Node* n : graph_.nodes()) {
      if (!n->IsLoopCond()) continue;
      const int f = cf_.frame_of[n->id()];
      if (loop_cond_[f] != nullptr)
        return errors::InvalidArgument(n->label(), ": frame '", cf_.frames[f].name, "' has a second LoopCond, '",
                                       loop_cond_[f]->name(), "'");
      loop_cond_[f] = n;
    }
    // Parents before children: a child's control loop is entered from its
    // parent's.
    for (int f = 1; f < num_frames; ++f) {
      if (devices_with[f] < 2) continue;
      for (auto& [device, frames] : present)
        if (frames[f]) FLOWVM_RETURN_IF_ERROR(ControlLoop(f, device).status());
    }
    std::map<std::pair<std::string, std::string>, NodeDef*> by_name;  // (device, name)
    for (auto& [device, graph] : out_->graphs)
      for (NodeDef& n : *graph.mutable_node()) by_name[{device, n.name()}] = &n;
    for (size_t i = 0; i < recvs_.size(); ++i) {
      const int f = recv_frames_[i];
      if (f == 0) continue;
      auto loop = control_loops_.find({f, recvs_[i].device});
      if (loop == control_loops_.end())
        return errors::Internal("no control loop for frame '", cf_.frames[f].name, "' on ", recvs_[i].device);
      // A value a non-constant Enter let in exists in the first iteration
      // only: its Recv waits for the control loop's Enter, not its Merge.
      by_name.at({recvs_[i].device, recvs_[i].recv})
          ->add_input("^" + (recv_first_iteration_[i] ? loop->second.enter : loop->second.merge));
    }
    return Status::OK();
  }

  struct ControlLoopNames {
    std::string enter;
    std::string merge;
    std::string pivot;
  };

  StatusOr<ControlLoopNames> ControlLoop(int frame, const std::string& device) {
    auto found = control_loops_.find({frame, device});
    if (found != control_loops_.end()) return found->second;
    const ControlFlowInfo::Frame& info = cf_.frames[frame];
    const Node* cond = loop_cond_[frame];
    if (cond == nullptr)
      return errors::InvalidArgument("frame '", info.name, "' spans devices but has no LoopCond to drive it");
    std::string prefix = "_loop" + std::to_string(frame) + "_";
    for (char c : info.name) prefix += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
    prefix += "/";
    std::string start;
    if (info.parent == 0) {
      NodeDef* c = NewNode(device);
      c->set_name(prefix + "start");
      c->set_op("Const");
      c->set_device(device);
      (*c->mutable_attr())["dtype"] = MakeAttrValue(DT_INT32);
      (*c->mutable_attr())["value"] = MakeAttrValue(Tensor::Scalar<int32_t>(0));
      start = c->name();
    } else {
      FLOWVM_ASSIGN_OR_RETURN(ControlLoopNames parent, ControlLoop(info.parent, device));
      start = parent.pivot;
    }
    auto add = [&](const std::string& name, const std::string& op, std::vector<std::string> inputs) {
      NodeDef* n = NewNode(device);
      n->set_name(prefix + name);
      n->set_op(op);
      n->set_device(device);
      for (auto& in : inputs) n->add_input(std::move(in));
      if (op != "LoopCond") (*n->mutable_attr())["T"] = MakeAttrValue(DT_INT32);
      return n;
    };
    NodeDef* enter = add("enter", "Enter", {start});
    (*enter->mutable_attr())["frame_name"] = MakeAttrValue(info.name);
    (*enter->mutable_attr())["is_constant"] = MakeAttrValue(false);
    (*enter->mutable_attr())["parallel_iterations"] = MakeAttrValue(static_cast<int64_t>(info.parallel_iterations));
    NodeDef* merge = add("merge", "Merge", {prefix + "enter", prefix + "next"});
    (*merge->mutable_attr())["N"] = MakeAttrValue(int64_t{2});
    std::string pred = cond->name();
    if (cond->assigned_device() != device) pred = RecvForData(cond, 0, device, nullptr);  // in `frame`
    add("switch", "Switch", {prefix + "merge", pred});
    add("exit", "Exit", {prefix + "switch:0"});
    add("pivot", "Identity", {prefix + "switch:1"});
    add("next", "NextIteration", {prefix + "pivot"});
    ControlLoopNames names{prefix + "enter", prefix + "merge", prefix + "pivot"};
    control_loops_[{frame, device}] = names;
    return names;
  }


  Status AddNode(const Node* n) {
    const std::string& device = n->assigned_device();
    NodeDef nd = n->def();
    nd.set_device(device);
    nd.clear_input();
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      if (e == nullptr) return errors::InvalidArgument(n->label(), ": input ", i, " is not connected");
      const Node* src = e->src();
      if (src->assigned_device() == device) {
        nd.add_input(InputName(src, e->src_output()));
      } else if (e->IsBackEdge()) {
        // Its value belongs to the next iteration, which no transfer could
        // name; the placer keeps a NextIteration beside its Merge.
        return errors::InvalidArgument(n->label(), " on ", device, " takes the back edge of its loop from ",
                                       src->label(), " on ", src->assigned_device(),
                                       "; a NextIteration must be on its Merge's device");
      } else if (IsRefType(n->input_type(i))) {
        return errors::InvalidArgument(n->label(), " on ", device, " takes a reference to ", src->label(), " on ",
                                       src->assigned_device(), "; references cannot cross devices");
      } else {
        nd.add_input(RecvForData(src, e->src_output(), device, n));
      }
    }
    for (const Edge* e : n->in_edges()) {
      if (!e->IsControlEdge()) continue;
      const Node* src = e->src();
      if (src->assigned_device() == device) nd.add_input("^" + src->name());
      else nd.add_input("^" + RecvForControl(src, device, n));
    }
    *NewNode(device) = std::move(nd);
    return Status::OK();
  }

  const Graph& graph_;
  const PartitionOptions& options_;
  Partitions* out_;
  std::map<std::string, DeviceNameParts> parsed_;
  std::map<std::pair<std::string, std::string>, int> recv_of_;  // (tensor, dst device) -> index in recvs_
  std::map<std::string, int> consumers_;                                // transfer line -> consumers
  std::vector<RecvInfo> recvs_;
  // Loops (only if the graph has control flow).
  bool has_control_flow_ = false;
  ControlFlowInfo cf_;
  std::vector<int> recv_frames_;                 // the frame of each of recvs_
  std::vector<bool> recv_first_iteration_;       // ... and whether it runs in its first iteration only
  std::vector<const Node*> loop_cond_;           // by frame
  std::map<std::pair<int, std::string>, ControlLoopNames> control_loops_;  // (frame, device)
};

}  // namespace

StatusOr<int> AddCrossDeviceReads(Graph* graph) {
  struct Read {
    const Edge* edge;
    Node* reader;
  };
  std::vector<Read> reads;
  for (Node* n : graph->nodes()) {
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      if (e == nullptr || IsRefType(n->input_type(i)) || !IsRefType(e->src()->output_type(e->src_output()))) continue;
      if (e->src()->assigned_device() == n->assigned_device()) continue;
      reads.push_back({e, n});
    }
  }
  const bool allowed = graph->allow_internal_names();
  graph->set_allow_internal_names(true);
  int added = 0;
  for (const Read& r : reads) {
    Node* var = r.edge->src();
    const int port = r.edge->src_output();
    const int slot = r.edge->dst_input();
    NodeDef def;
    def.set_name(UniqueNodeName(*graph, "_read_" + var->name() + "_" + std::to_string(port) + "_for_" +
                                              r.reader->name()));
    def.set_op("Identity");
    def.set_device(var->requested_device());
    (*def.mutable_attr())["T"] = MakeAttrValue(BaseType(var->output_type(port)));
    def.add_input(var->name());  // counted by validation; wired below
    FLOWVM_ASSIGN_OR_RETURN(Node * read, graph->AddNode(std::move(def)));
    read->set_assigned_device(var->assigned_device());
    FLOWVM_ASSIGN_OR_RETURN(const Edge* in, graph->AddEdge(var, port, read, 0));
    (void)in;
    // The read waits for everything else the reader waits for.
    std::map<int, Node*> after;  // by id: the same graph always gets the same edges
    for (const Edge* e : r.reader->in_edges())
      if (e->src() != var && e != r.edge) after.emplace(e->src()->id(), e->src());
    for (auto& [id, a] : after) graph->AddControlEdge(a, read);
    graph->RemoveEdge(r.edge);
    FLOWVM_ASSIGN_OR_RETURN(const Edge* out, graph->AddEdge(read, 0, r.reader, slot));
    (void)out;
    ++added;
  }
  graph->set_allow_internal_names(allowed);
  return added;
}

Status PartitionGraph(const Graph& graph, const PartitionOptions& options, Partitions* out) {
  out->graphs.clear();
  out->transfers.clear();
  out->scheduled.clear();
  Partitioner p(graph, options, out);
  return p.Run();
}

}  // namespace flowvm
