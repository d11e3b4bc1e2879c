#include "graph/control_flow.h"

#include <algorithm>
#include <unordered_map>

namespace flowvm {

namespace {

std::string FrameLabel(const ControlFlowInfo& info, int frame) {
  return frame == 0 ? std::string("the root frame") : "frame '" + info.frames[frame].name + "'";
}

}  // namespace

bool HasControlFlow(const Graph& graph) {
  for (Node* n : graph.nodes())
    if (n->IsControlFlow()) return true;
  return false;
}

Status BuildControlFlowInfo(const Graph& graph, ControlFlowInfo* info) {
  info->frames.assign(1, ControlFlowInfo::Frame());
  info->frame_of.assign(graph.num_node_ids(), -1);
  info->out_frame_of.assign(graph.num_node_ids(), -1);
  std::vector<int>& out_frame = info->out_frame_of;
  std::unordered_map<std::string, int> frame_index;
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(graph.TopologicalOrder(&order));
  // In topological order every input's frame is known when a node is
  // reached, so a node fed from two frames is the one named.
  for (Node* n : order) {
    int frame = -1;
    const Node* frame_source = nullptr;
    for (const Edge* e : n->in_edges()) {
      if (e->IsBackEdge()) continue;
      const int f = out_frame[e->src()->id()];
      if (frame == -1) {
        frame = f;
        frame_source = e->src();
      } else if (f != frame) {
        return errors::InvalidArgument(n->label(), " has inputs from different frames: '", frame_source->name(),
                                       "' is in ", FrameLabel(*info, frame), " and '", e->src()->name(), "' in ",
                                       FrameLabel(*info, f), " (a value enters a loop only through an Enter node)");
      }
    }
    if (frame == -1) frame = 0;
    info->frame_of[n->id()] = frame;
    int out = frame;
    if (n->IsEnter()) {
      std::string name;
      int64_t parallel = 10;
      FLOWVM_RETURN_IF_ERROR(GetNodeAttr(n->def(), "frame_name", &name));
      FLOWVM_RETURN_IF_ERROR(GetNodeAttr(n->def(), "parallel_iterations", &parallel));
      if (name.empty()) return errors::InvalidArgument(n->label(), ": frame_name must not be empty");
      if (parallel <= 0)
        return errors::InvalidArgument(n->label(), ": parallel_iterations must be positive, got ", parallel);
      const int parallel_iterations = static_cast<int>(std::min<int64_t>(parallel, 1 << 20));
      auto [it, added] = frame_index.emplace(name, static_cast<int>(info->frames.size()));
      if (added) {
        ControlFlowInfo::Frame f;
        f.name = name;
        f.parent = frame;
        f.parallel_iterations = parallel_iterations;
        info->frames.push_back(f);
      }
      ControlFlowInfo::Frame& f = info->frames[it->second];
      if (f.parent != frame)
        return errors::InvalidArgument(n->label(), ": frame '", name, "' is entered from ", FrameLabel(*info, frame),
                                       " here and from ", FrameLabel(*info, f.parent), " elsewhere");
      if (f.parallel_iterations != parallel_iterations)
        return errors::InvalidArgument(n->label(), ": parallel_iterations ", parallel,
                                       " differs from the other Enter nodes of frame '", name, "' (",
                                       f.parallel_iterations, ")");
      ++f.num_enters;
      out = it->second;
    } else if (n->IsExit()) {
      if (frame == 0) return errors::InvalidArgument(n->label(), ": an Exit must be inside a loop (after an Enter)");
      out = info->frames[frame].parent;
    } else if (n->IsNextIteration() && frame == 0) {
      return errors::InvalidArgument(n->label(), ": a NextIteration must be inside a loop (after an Enter)");
    }
    out_frame[n->id()] = out;
  }
  for (Node* n : order) {
    for (const Edge* e : n->in_edges()) {
      if (!e->IsBackEdge() || out_frame[e->src()->id()] == info->frame_of[n->id()]) continue;
      return errors::InvalidArgument(n->label(), ": its NextIteration input '", e->src()->name(), "' is in ",
                                     FrameLabel(*info, out_frame[e->src()->id()]), ", not in ",
                                     FrameLabel(*info, info->frame_of[n->id()]));
    }
  }
  return Status::OK();
}

}  // namespace flowvm
