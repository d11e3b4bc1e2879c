// Einsum: TensorFlow's op (inputs: N * T, attr equation), its shape
// function and its gradient. The equation grammar is in
// kernels/linalg/einsum_spec.h, shared with the kernel.
//
// Gradient, as TensorFlow's: the gradient of operand A is an Einsum of the
// output gradient (and the other operand) into A's subscripts. Labels only
// A has and the output lacks were summed in the forward pass, so their
// gradient is broadcast back; "..." dims that A broadcast are summed back
// to A's shape. Not implemented (an error naming the node): operands with a
// repeated label (diagonals), and summed labels together with "...".
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "graph/node_def_util.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "kernels/linalg/einsum_spec.h"
#include "ops/gradient_helpers.h"

namespace flowvm {
namespace {

using linalg::EinsumSpec;
using linalg::kEllipsis;

Status EinsumShape(InferenceContext* c) {
  std::string equation;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("equation", &equation));
  EinsumSpec spec;
  FLOWVM_RETURN_IF_ERROR(linalg::ParseEinsumEquation(equation, c->num_inputs(), &spec));
  std::map<int, int64_t> size;
  PartialTensorShape ellipsis = PartialTensorShape({});  // broadcast of the operands' "..." dims
  bool ellipsis_known = true;
  for (int i = 0; i < c->num_inputs(); ++i) {
    const PartialTensorShape& s = c->input(i);
    const int explicit_labels = static_cast<int>(spec.inputs[i].size()) - (spec.has_ellipsis(i) ? 1 : 0);
    if (s.unknown_rank()) {
      if (spec.has_ellipsis(i)) ellipsis_known = false;
      continue;
    }
    if (spec.has_ellipsis(i) ? s.dims() < explicit_labels : s.dims() != explicit_labels)
      return errors::InvalidArgument("Einsum '", equation, "': input ", i, " has rank ", s.dims(),
                                     " but its subscripts name ", explicit_labels, " dims");
    const int r = s.dims() - explicit_labels;
    int a = 0;
    for (int l : spec.inputs[i]) {
      if (l == kEllipsis) {
        std::vector<int64_t> dims(s.dim_sizes().begin() + a, s.dim_sizes().begin() + a + r);
        auto b = BroadcastShapes(ellipsis, PartialTensorShape::FromDims(dims).value());
        if (!b.ok())
          return errors::InvalidArgument("Einsum '", equation,
                                         "': the '...' dims do not broadcast: ", b.status().message());
        ellipsis = *b;
        a += r;
        continue;
      }
      const int64_t d = s.dim_size(a++);
      auto it = size.find(l);
      if (it == size.end() || it->second < 0) {
        size[l] = d;
      } else if (d >= 0 && d != it->second) {
        return errors::InvalidArgument("Einsum '", equation, "': label '", std::string(1, char(l)), "' has size ",
                                       it->second, " and ", d, " in the inputs");
      }
    }
  }
  if (spec.has_ellipsis(-1) && !ellipsis_known) {
    c->set_output(0, PartialTensorShape());
    return Status::OK();
  }
  std::vector<int64_t> out;
  for (int l : spec.output) {
    if (l == kEllipsis) {
      out.insert(out.end(), ellipsis.dim_sizes().begin(), ellipsis.dim_sizes().end());
    } else {
      auto it = size.find(l);
      out.push_back(it == size.end() ? -1 : it->second);
    }
  }
  c->set_output(0, PartialTensorShape::FromDims(out).value());
  return Status::OK();
}

bool HasRepeated(const std::vector<int>& labels) {
  std::set<int> seen;
  for (int l : labels)
    if (l != kEllipsis && !seen.insert(l).second) return true;
  return false;
}

std::string Str(const std::vector<int>& labels) {
  std::string s;
  for (int l : labels) s += l == kEllipsis ? std::string("...") : std::string(1, static_cast<char>(l));
  return s;
}

// The gradient of operand `i` of op, from dy (and the other operand).
Status OperandGrad(const GraphScope& s, const Node& op, const EinsumSpec& spec, int i, NodeOut dy, NodeOut* dx) {
  const std::vector<int>& mine = spec.inputs[i];
  const std::vector<int>* other = spec.inputs.size() == 2 ? &spec.inputs[1 - i] : nullptr;
  auto has = [](const std::vector<int>* v, int l) {
    return v != nullptr && std::find(v->begin(), v->end(), l) != v->end();
  };
  // A's subscripts without the labels summed in the forward pass, and the
  // positions of those in A.
  std::vector<int> kept;
  std::vector<int32_t> summed_axes;
  for (size_t a = 0; a < mine.size(); ++a) {
    const int l = mine[a];
    if (l == kEllipsis || has(&spec.output, l) || has(other, l))
      kept.push_back(l);
    else
      summed_axes.push_back(static_cast<int32_t>(a));
  }
  const bool ellipsis = spec.has_ellipsis(i);
  if (!summed_axes.empty() && ellipsis)
    return errors::Unimplemented(op.label(),
                                 ": the gradient of Einsum with both '...' and labels summed out of "
                                 "one operand is not implemented");
  if (ellipsis && !spec.has_ellipsis(-1))
    return errors::Unimplemented(op.label(),
                                 ": the gradient of Einsum whose output sums the '...' dims is not "
                                 "implemented");
  std::string equation = Str(spec.output);
  std::vector<NodeOut> inputs = {dy};
  if (other != nullptr) {
    equation += "," + Str(*other);
    inputs.push_back(grad::OpInputTensor(op, 1 - i));
  }
  equation += "->" + Str(kept);
  NodeOut x = grad::OpInputTensor(op, i);
  NodeOut g = s.Op("Einsum", {OpInput::List(inputs)}, {{"equation", MakeAttrValue(equation)}});
  if (!summed_axes.empty()) {
    // Broadcast back over the summed labels: reshape to A's shape with 1s
    // there, then multiply by ones of A's shape.
    NodeOut shape = grad::ReducedShape(s, grad::Shape(s, x), grad::Int32s(s, summed_axes));
    g = grad::Mul(s, grad::Reshape(s, g, shape), s.Op("OnesLike", {x}));
  }
  if (ellipsis) {
    // A's "..." dims may be broadcast against the other operand's.
    NodeOut reduced, unused;
    grad::ReduceBroadcastGradients(s, x, g, g, NodeOut(), &reduced, &unused);
    g = reduced;
  }
  *dx = g;
  return s.status();
}

Status EinsumGrad(const GraphScope& s, const Node& op, const std::vector<NodeOut>& dy, std::vector<NodeOut>* dx) {
  std::string equation;
  FLOWVM_RETURN_IF_ERROR(GetNodeAttr(op.def(), "equation", &equation));
  EinsumSpec spec;
  FLOWVM_RETURN_IF_ERROR(linalg::ParseEinsumEquation(equation, op.num_inputs(), &spec));
  for (const auto& in : spec.inputs)
    if (HasRepeated(in))
      return errors::Unimplemented(op.label(), ": the gradient of Einsum '", equation,
                                   "' (an operand with a repeated label) is not implemented");
  dx->assign(spec.inputs.size(), NodeOut());
  for (size_t i = 0; i < spec.inputs.size(); ++i)
    FLOWVM_RETURN_IF_ERROR(OperandGrad(s, op, spec, static_cast<int>(i), dy[0], &(*dx)[i]));
  return s.status();
}

}  // namespace

REGISTER_OP("Einsum")
    .Input("inputs: N * T")
    .Output("output: T")
    .Attr("equation: string")
    .Attr("N: int >= 1")
    .Attr("T: type")
    .SetShapeFn(EinsumShape)
    .Doc("Tensor contraction over the subscripts of an Einstein-summation equation, e.g. 'ij,jk->ik'.");

REGISTER_GRADIENT("Einsum", EinsumGrad);

}  // namespace flowvm
