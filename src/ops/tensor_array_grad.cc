// Gradients of the TensorArray ops (ops/tensor_array_ops.cc), as
// TensorFlow's python/ops/tensor_array_grad.py defines them.
//
// The gradient of a forward array lives in its gradient array
// (TensorArrayGradV3), one per forward array and gradient computation: the
// `source` is the name scope of the gradients call (the part of the
// gradient scope's name up to its last component that starts with
// "gradients", as TensorFlow's _GetGradSource), so every gradient function
// of one AddSymbolicGradients call, inside loops or not, finds the same
// array. Reading element i has the gradient "write dy at i" into it (writes
// to one index add up); writing element i has the gradient "read i" from
// it; gather/scatter and concat/split likewise. The flow carries the order:
// the gradient of a read's flow_in is the flow after its gradient write,
// and the gradient of a write's flow_out is what a gradient read waits for
// (after the forward write, the "write_barrier"), so every gradient written
// into an element is there before the element's gradient is read.
#include "graph/gradients.h"
#include "graph/node_def_util.h"
#include "ops/gradient_helpers.h"

namespace flowvm {
namespace {

using grad::OpInputTensor;

NodeOut Output(const Node& op, int k) { return NodeOut(const_cast<Node*>(&op), k); }

// TensorFlow's _GetGradSource, from the gradient function's scope: the name
// scope up to and including its last component starting with "gradients"
// ("gradients", "gradients_1", "tower/gradients"). A gradients call opened
// under no such scope: the scope above its first "..._grad" component.
std::string GradientSource(const GraphScope& s) {
  std::vector<std::string> parts;
  const std::string& prefix = s.name_prefix();
  size_t start = 0;
  while (start <= prefix.size()) {
    size_t slash = prefix.find('/', start);
    if (slash == std::string::npos) slash = prefix.size();
    parts.push_back(prefix.substr(start, slash - start));
    start = slash + 1;
  }
  int last = -1;
  for (int i = 0; i < static_cast<int>(parts.size()); ++i)
    if (parts[i].rfind("gradients", 0) == 0) last = i;
  int end = last + 1;
  if (last < 0) {
    end = static_cast<int>(parts.size());
    for (int i = 0; i < static_cast<int>(parts.size()); ++i)
      if (parts[i].size() > 5 && parts[i].compare(parts[i].size() - 5, 5, "_grad") == 0) {
        end = i;
        break;
      }
  }
  std::string source;
  for (int i = 0; i < end; ++i) source += (i ? "/" : "") + parts[i];
  return source.empty() ? "gradients" : source;
}

struct GradArray {
  NodeOut handle;
  NodeOut flow;  // flow_in, once the gradient array exists
};

// TensorArray(handle, flow).grad(source, flow): the gradient array of the
// forward array `handle`, made after `flow`.
GradArray GradientArray(const GraphScope& s, NodeOut handle, NodeOut flow) {
  const GraphScope g = s.NewSubScope("TensorArrayGrad");
  Node* made = g.AddNode("TensorArrayGradV3", {handle, flow}, {{"source", MakeAttrValue(GradientSource(s))}});
  if (made == nullptr) return {};
  NodeOut gflow = g.WithControlDependencies({made}).WithOpName("gradient_flow").Op("Identity", {flow});
  return {NodeOut(made, 0), gflow};
}

// The gradient of a forward op's flow_out, held back until that op has run
// (it may run late: nothing else needs its output).
NodeOut WriteBarrier(const GraphScope& s, const Node& op, NodeOut dflow) {
  NodeOut flow_out = s.WithOpName("flow_out").Op("Identity", {Output(op, 0)});
  if (!flow_out.valid()) return NodeOut();
  return s.WithControlDependencies({flow_out.node}).WithOpName("write_barrier").Op("Identity", {dflow});
}

DataType AttrType(const Node& op, const char* name) {
  DataType t = DT_INVALID;
  (void)GetNodeAttr(op.def(), name, &t);
  return t;
}

// read(handle, index, flow): dy written at index of the gradient array.
Status ReadGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  dx->assign(op.num_inputs(), NodeOut());
  if (!dy[0].valid()) return Status::OK();
  GradArray g = GradientArray(s, OpInputTensor(op, 0), OpInputTensor(op, 2));
  (*dx)[2] = s.Op("TensorArrayWriteV3", {g.handle, OpInputTensor(op, 1), dy[0], g.flow});
  return s.status();
}

// write(handle, index, value, flow_in) -> flow_out: the value's gradient is
// element index of the gradient array; flow_in's is flow_out's.
Status WriteGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  dx->assign(op.num_inputs(), NodeOut());
  NodeOut flow = WriteBarrier(s, op, dy[0]);
  const DataType t = AttrType(op, "T");
  if (IsDifferentiableType(t)) {
    GradArray g = GradientArray(s, OpInputTensor(op, 0), flow);
    (*dx)[2] = s.Op("TensorArrayReadV3", {g.handle, OpInputTensor(op, 1), g.flow}, {{"dtype", MakeAttrValue(t)}});
  }
  (*dx)[3] = flow;
  return s.status();
}

// gather(handle, indices, flow): dy scattered to indices of the gradient array.
Status GatherGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  dx->assign(op.num_inputs(), NodeOut());
  if (!dy[0].valid()) return Status::OK();
  GradArray g = GradientArray(s, OpInputTensor(op, 0), OpInputTensor(op, 2));
  (*dx)[2] = s.Op("TensorArrayScatterV3", {g.handle, OpInputTensor(op, 1), dy[0], g.flow});
  return s.status();
}

// scatter(handle, indices, value, flow_in): the value's gradient is the
// gradient array gathered at indices.
Status ScatterGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  dx->assign(op.num_inputs(), NodeOut());
  NodeOut flow = WriteBarrier(s, op, dy[0]);
  const DataType t = AttrType(op, "T");
  if (IsDifferentiableType(t)) {
    GradArray g = GradientArray(s, OpInputTensor(op, 0), flow);
    (*dx)[2] = s.Op("TensorArrayGatherV3", {g.handle, OpInputTensor(op, 1), g.flow}, {{"dtype", MakeAttrValue(t)}});
  }
  (*dx)[3] = flow;
  return s.status();
}

// concat(handle, flow) -> (value, lengths): dy split by the same lengths
// into the gradient array.
Status ConcatGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  dx->assign(op.num_inputs(), NodeOut());
  if (!dy[0].valid()) return Status::OK();
  GradArray g = GradientArray(s, OpInputTensor(op, 0), OpInputTensor(op, 1));
  (*dx)[1] = s.Op("TensorArraySplitV3", {g.handle, dy[0], Output(op, 1), g.flow});
  return s.status();
}

// split(handle, value, lengths, flow_in): the value's gradient is the
// gradient array concatenated.
Status SplitGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  dx->assign(op.num_inputs(), NodeOut());
  NodeOut flow = WriteBarrier(s, op, dy[0]);
  const DataType t = AttrType(op, "T");
  if (IsDifferentiableType(t)) {
    GradArray g = GradientArray(s, OpInputTensor(op, 0), flow);
    (*dx)[1] = s.Op("TensorArrayConcatV3", {g.handle, g.flow}, {{"dtype", MakeAttrValue(t)}});
  }
  (*dx)[3] = flow;
  return s.status();
}

}  // namespace

REGISTER_GRADIENT("TensorArrayReadV3", ReadGrad);
REGISTER_GRADIENT("TensorArrayWriteV3", WriteGrad);
REGISTER_GRADIENT("TensorArrayGatherV3", GatherGrad);
REGISTER_GRADIENT("TensorArrayScatterV3", ScatterGrad);
REGISTER_GRADIENT("TensorArrayConcatV3", ConcatGrad);
REGISTER_GRADIENT("TensorArraySplitV3", SplitGrad);
// Making an array, its gradient array, its size and closing it carry no
// gradient (TensorFlow: NotDifferentiable).
REGISTER_NO_GRADIENT("TensorArrayV3");
REGISTER_NO_GRADIENT("TensorArrayGradV3");
REGISTER_NO_GRADIENT("TensorArrayGradWithShape");
REGISTER_NO_GRADIENT("TensorArraySizeV3");
REGISTER_NO_GRADIENT("TensorArrayCloseV3");

}  // namespace flowvm
