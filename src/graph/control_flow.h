// Which frame each node of a graph runs in (paper 4.4). A frame is the
// body of one loop: Enter nodes carry values into it (their outputs are in
// the frame named by their frame_name attr), Exit nodes carry them out
// (their outputs are in the enclosing frame), and every other node's
// outputs are in the node's own frame. Nodes outside any loop are in the
// root frame.
//
// This is also the check that makes a loop's cycle legal: a cycle must
// close through a NextIteration -> Merge back edge, and both ends must be
// in the same, non-root frame.
#ifndef FLOWVM_GRAPH_CONTROL_FLOW_H_
#define FLOWVM_GRAPH_CONTROL_FLOW_H_

#include <string>
#include <vector>

#include "flowvm/status.h"
#include "graph/graph.h"

namespace flowvm {

struct ControlFlowInfo {
  struct Frame {
    std::string name;             // the Enter nodes' frame_name; "" for the root
    int parent = -1;              // index of the enclosing frame; -1 for the root
    int parallel_iterations = 1;  // from the Enter nodes
    int num_enters = 0;           // Enter nodes that lead into the frame
  };
  std::vector<Frame> frames;  // frames[0] is the root frame
  // Per node id: the index of the frame the node runs in (an Enter runs in
  // the enclosing frame, an Exit inside the loop); -1 for free ids.
  std::vector<int> frame_of;
  // Per node id: the frame its outputs are in (an Enter's: the frame it
  // enters; an Exit's: the enclosing one; others: frame_of); -1 for free ids.
  std::vector<int> out_frame_of;
};

// Errors (InvalidArgument, naming the nodes and frames): a node whose
// inputs come from different frames, an Exit or NextIteration outside any
// loop, one frame name entered from two different frames, Enter nodes of
// one frame that disagree on parallel_iterations. Expects a graph whose
// only cycles close through back edges (see Graph::TopologicalOrder).
Status BuildControlFlowInfo(const Graph& graph, ControlFlowInfo* info);

// Whether any node is a control-flow op (Switch, Merge, Enter, ...).
bool HasControlFlow(const Graph& graph);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_CONTROL_FLOW_H_
