#include "graph/shape_inference.h"

namespace flowvm {

namespace {
// The largest Const value shape inference materializes.
constexpr int64_t kMaxConstElements = 1024;
}  // namespace

InferenceContext::InferenceContext(const Node* node, std::vector<PartialTensorShape> inputs,
                                   std::vector<const Tensor*> input_values)
    : node_(node),
      inputs_(std::move(inputs)),
      input_values_(std::move(input_values)),
      outputs_(node->num_outputs()) {}

Status InferenceContext::WithRank(int i, int rank, PartialTensorShape* out) const {
  const PartialTensorShape& s = inputs_[i];
  if (s.unknown_rank()) {
    *out = PartialTensorShape::UnknownOfRank(rank);
    return Status::OK();
  }
  if (s.dims() != rank)
    return errors::InvalidArgument("input ", i, " must have rank ", rank, " but has shape ", s.DebugString());
  *out = s;
  return Status::OK();
}

Status InferenceContext::MergeDim(int64_t a, int64_t b, int64_t* out, const char* what) const {
  if (a >= 0 && b >= 0 && a != b) return errors::InvalidArgument(what, ": ", a, " vs ", b);
  *out = a >= 0 ? a : b;
  return Status::OK();
}

Status UnchangedShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return Status::OK();
}

Status ScalarShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, TensorShape());
  return Status::OK();
}

Status UnknownShape(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, PartialTensorShape::Unknown());
  return Status::OK();
}

StatusOr<PartialTensorShape> BroadcastShapes(const PartialTensorShape& a, const PartialTensorShape& b) {
  if (a.unknown_rank() || b.unknown_rank()) return PartialTensorShape::Unknown();
  int rank = std::max(a.dims(), b.dims());
  std::vector<int64_t> dims(rank);
  for (int i = 0; i < rank; ++i) {
    int ia = a.dims() - rank + i, ib = b.dims() - rank + i;
    int64_t da = ia >= 0 ? a.dim_size(ia) : 1;
    int64_t db = ib >= 0 ? b.dim_size(ib) : 1;
    if (da == 1) dims[i] = db;
    else if (db == 1) dims[i] = da;
    else if (da < 0 || db < 0) dims[i] = da < 0 ? (db < 0 ? -1 : db) : da;
    else if (da == db) dims[i] = da;
    else
      return errors::InvalidArgument("shapes ", a.DebugString(), " and ", b.DebugString(),
                                     " cannot be broadcast together");
  }
  return PartialTensorShape::FromDims(dims);
}

Status BroadcastBinaryOpShape(InferenceContext* c) {
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape out, BroadcastShapes(c->input(0), c->input(1)));
  c->set_output(0, out);
  return Status::OK();
}

Status ShapeRefiner::InferAll(const Graph& graph) {
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(graph.TopologicalOrder(&order));
  shapes_.assign(graph.num_node_ids(), {});
  const_values_.assign(graph.num_node_ids(), Tensor());
  for (Node* n : order) {
    // Only small constants are materialized (shape functions want shape-like
    // values): a Const whose proto describes a huge tensor without carrying
    // its bytes must not make validation allocate it.
    const AttrValue* value = n->op() == "Const" ? FindNodeAttr(n->def(), "value") : nullptr;
    if (value != nullptr && value->value_case() == AttrValue::kTensor && value->tensor().dtype() != DT_STRING) {
      auto shape = TensorShape::FromProto(value->tensor().tensor_shape());
      Tensor t;
      if (shape.ok() && shape->num_elements() <= kMaxConstElements && GetNodeAttr(n->def(), "value", &t).ok())
        const_values_[n->id()] = t;
    }
    std::vector<PartialTensorShape> inputs(n->num_inputs());
    std::vector<const Tensor*> values(n->num_inputs(), nullptr);
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) continue;
      const auto& src_shapes = shapes_[e->src()->id()];
      if (e->src_output() < static_cast<int>(src_shapes.size())) inputs[e->dst_input()] = src_shapes[e->src_output()];
      const Tensor& v = const_values_[e->src()->id()];
      if (v.IsInitialized()) values[e->dst_input()] = &v;
    }
    InferenceContext ctx(n, std::move(inputs), std::move(values));
    const ShapeFn& fn = n->op_reg().shape_fn;
    Status s = fn ? fn(&ctx) : UnknownShape(&ctx);
    if (!s.ok()) return errors::InvalidArgument(n->label(), ": ", s.message());
    auto& out = shapes_[n->id()];
    out.resize(n->num_outputs());
    for (int i = 0; i < n->num_outputs(); ++i) out[i] = ctx.output(i);
  }
  return Status::OK();
}

const std::vector<PartialTensorShape>& ShapeRefiner::OutputShapes(int id) const {
  static const std::vector<PartialTensorShape>* const kEmpty = new std::vector<PartialTensorShape>();
  return id >= 0 && id < static_cast<int>(shapes_.size()) ? shapes_[id] : *kEmpty;
}

}  // namespace flowvm
