#include "graph/shape_inference.h"

#include <algorithm>

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

StatusOr<std::vector<int64_t>> TensorToInt64s(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.NumElements()));
  if (t.dtype() == DT_INT32) {
    const int32_t* p = t.data<int32_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  } else if (t.dtype() == DT_INT64) {
    const int64_t* p = t.data<int64_t>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = p[i];
  } else {
    return errors::InvalidArgument("expected an int32 or int64 tensor, got ", DataTypeName(t.dtype()));
  }
  return v;
}

Status GetScalarInput(InferenceContext* c, int i, int64_t* value, bool* known) {
  *known = false;
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)) return Status::OK();
  if (t->dims() != 0)
    return errors::InvalidArgument("input ", i, " must be a scalar, but has shape ", t->shape().DebugString());
  *value = t->dtype() == DT_INT32 ? int64_t{t->scalar<int32_t>()} : t->scalar<int64_t>();
  *known = true;
  return Status::OK();
}

PartialTensorShape UnknownShapeOfRank(int rank) {
  return rank < 0 ? PartialTensorShape::Unknown() : PartialTensorShape::UnknownOfRank(rank);
}

Status MakeShapeFromShapeInput(InferenceContext* c, int i, PartialTensorShape* out) {
  const PartialTensorShape& in = c->input(i);
  if (!in.unknown_rank() && in.dims() != 1)
    return errors::InvalidArgument("shape input ", i, " must be a vector, but has shape ", in.DebugString());
  const Tensor* t = c->input_tensor(i);
  if (t != nullptr && (t->dtype() == DT_INT32 || t->dtype() == DT_INT64)) {
    FLOWVM_ASSIGN_OR_RETURN(std::vector<int64_t> dims, TensorToInt64s(*t));
    for (int64_t d : dims)
      if (d < -1) return errors::InvalidArgument("shape input ", i, " has a negative dimension ", d);
    auto s = PartialTensorShape::FromDims(dims);
    if (!s.ok()) return errors::InvalidArgument("shape input ", i, ": ", s.status().message());
    *out = *s;
    return Status::OK();
  }
  *out = in.unknown_rank() || in.dim_size(0) < 0 ? PartialTensorShape::Unknown()
                                                  : PartialTensorShape::UnknownOfRank(static_cast<int>(in.dim_size(0)));
  return Status::OK();
}

Status CanonicalizeAxis(int64_t axis, int rank, const char* what, int* out) {
  if (axis < -rank || axis >= rank)
    return errors::InvalidArgument(what, " ", axis, " is out of range: must be in [", -rank, ", ", rank, ")");
  *out = static_cast<int>(axis < 0 ? axis + rank : axis);
  return Status::OK();
}

namespace {
bool Bit(int64_t mask, int i) { return i < 64 && ((static_cast<uint64_t>(mask) >> i) & 1) != 0; }
constexpr int kNewAxis = -1, kShrinkAxis = -2;
}  // namespace

Status ValidateStridedSlice(const PartialTensorShape& input, const std::vector<int64_t>* begin,
                            const std::vector<int64_t>* end, const std::vector<int64_t>& strides,
                            int64_t begin_mask, int64_t end_mask, int64_t ellipsis_mask, int64_t new_axis_mask,
                            int64_t shrink_axis_mask, StridedSliceSpec* spec) {
  const int sparse_dims = static_cast<int>(strides.size());
  if ((begin != nullptr && static_cast<int>(begin->size()) != sparse_dims) ||
      (end != nullptr && static_cast<int>(end->size()) != sparse_dims))
    return errors::InvalidArgument("Expected begin, end, and strides to be 1D equal size tensors, but got sizes ",
                                   begin ? static_cast<int64_t>(begin->size()) : -1, ", ",
                                   end ? static_cast<int64_t>(end->size()) : -1, " and ", sparse_dims);
  if (sparse_dims > 64) return errors::InvalidArgument("StridedSlice supports at most 64 slice dims, got ", sparse_dims);
  if (ellipsis_mask != 0 && (ellipsis_mask & (ellipsis_mask - 1)) != 0)
    return errors::InvalidArgument("Multiple ellipses in slice spec not allowed");
  if (input.unknown_rank()) return errors::Unimplemented("unknown rank");  // callers check first
  const int dims = input.dims();
  // Sparse spec, with an implicit trailing ellipsis when none is given.
  int n = sparse_dims;
  int64_t ell = ellipsis_mask;
  if (ell == 0) {
    if (n < 64) ell = int64_t{1} << n;
    ++n;
  }
  int add_after_ellipsis = 0;
  bool seen = false;
  for (int i = 0; i < n; ++i) {
    if (seen && Bit(new_axis_mask, i)) ++add_after_ellipsis;
    if (Bit(ell, i) || (i == sparse_dims && ellipsis_mask == 0)) seen = true;
  }
  std::vector<int64_t> db(dims, 0), de(dims, 0), ds(dims, 1);
  std::vector<bool> dbm(dims, false), dem(dims, false), dshrink(dims, false);
  std::vector<int> gather;
  int full = 0;
  for (int i = 0; i < n; ++i) {
    bool is_ellipsis = Bit(ell, i) || (i == sparse_dims && ellipsis_mask == 0);
    if (is_ellipsis) {
      int next = std::min(dims - (n - i) + 1 + add_after_ellipsis, dims);
      for (; full < next; ++full) {
        dbm[full] = dem[full] = true;
        gather.push_back(full);
      }
    } else if (Bit(new_axis_mask, i)) {
      gather.push_back(kNewAxis);
    } else {
      if (full == dims)
        return errors::InvalidArgument("Index out of range using input dim ", full, "; input has only ", dims,
                                       " dims");
      if (begin) db[full] = (*begin)[i];
      if (end) de[full] = (*end)[i];
      ds[full] = strides[i];
      dbm[full] = Bit(begin_mask, i);
      dem[full] = Bit(end_mask, i);
      if (Bit(shrink_axis_mask, i)) {
        gather.push_back(kShrinkAxis);
        dshrink[full] = true;
      } else {
        gather.push_back(full);
      }
      ++full;
    }
  }
  spec->processing_dims.assign(dims, -1);
  spec->is_identity = true;
  spec->slice_dim0 = true;
  const bool known = begin != nullptr && end != nullptr;
  for (int i = 0; i < dims; ++i) {
    int64_t b = db[i], e = de[i], s = ds[i], dim = input.dim_size(i);
    if (s == 0) return errors::InvalidArgument("strides[", i, "] must be non-zero");
    const bool shrink = dshrink[i];
    if (shrink && s <= 0) return errors::InvalidArgument("only stride 1 allowed on non-range indexing.");
    if (dim < 0) {
      spec->processing_dims[i] = shrink ? 1 : -1;
      spec->is_identity = spec->slice_dim0 = false;
      continue;
    }
    const int64_t lo = s > 0 ? 0 : -1, hi = s > 0 ? dim : dim - 1;
    auto canonical = [&](int64_t x, bool masked, int c) {
      if (masked) return (s > 0) == (c == 0) ? lo : hi;
      int64_t fwd = x < 0 ? dim + x : x;
      return fwd < lo ? lo : (fwd > hi ? hi : fwd);
    };
    if (known) {
      if (shrink) {
        int64_t fwd = b < 0 ? dim + b : b;
        if (fwd < 0 || fwd >= dim)
          return errors::InvalidArgument("slice index ", b, " of dimension ", i, " out of bounds.");
        b = fwd;
        e = fwd + 1;
      } else {
        b = canonical(b, dbm[i], 0);
        e = canonical(e, dem[i], 1);
      }
      db[i] = b;
      de[i] = e;
      const bool whole = s == 1 && b == 0 && e == dim;
      if (!whole) spec->is_identity = false;
      if (i > 0 && !whole) spec->slice_dim0 = false;
      if (i == 0 && s != 1) spec->slice_dim0 = false;
    } else {
      spec->is_identity = spec->slice_dim0 = false;
    }
    int64_t interval = 0;
    bool known_interval = false;
    if (known) {
      interval = e - b;
      known_interval = true;
    } else if (shrink) {
      interval = 1;
      known_interval = true;
    } else if (dbm[i] && dem[i]) {
      interval = s < 0 ? -dim : dim;
      known_interval = true;
    }
    if (known_interval) {
      int64_t size = 0;
      if (interval != 0 && ((interval < 0) == (s < 0))) {
        // |interval| <= dim + 1, so this cannot overflow.
        size = interval / s + (interval % s != 0 ? 1 : 0);
      }
      spec->processing_dims[i] = size;
    }
  }
  spec->begin = std::move(db);
  spec->end = std::move(de);
  spec->strides = std::move(ds);
  spec->final_dims.clear();
  for (int g : gather) {
    if (g >= 0) spec->final_dims.push_back(spec->processing_dims[g]);
    else if (g == kNewAxis) spec->final_dims.push_back(1);
  }
  return Status::OK();
}

Status ShapeRefiner::InferAll(const Graph& graph) {
  std::vector<Node*> order;
  FLOWVM_RETURN_IF_ERROR(graph.TopologicalOrder(&order));
  library_ = &graph.library();
  shapes_.assign(graph.num_node_ids(), {});
  const_values_.assign(graph.num_node_ids(), Tensor());
  for (Node* n : order) FLOWVM_RETURN_IF_ERROR(InferNode(n));
  return Status::OK();
}

Status ShapeRefiner::InferNode(const Node* n) {
  if (n->id() >= static_cast<int>(shapes_.size())) {
    shapes_.resize(n->id() + 1);
    const_values_.resize(n->id() + 1);
  }
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
    if (e->IsControlEdge() || e->src()->id() >= static_cast<int>(shapes_.size())) continue;
    const auto& src_shapes = shapes_[e->src()->id()];
    if (e->src_output() < static_cast<int>(src_shapes.size())) inputs[e->dst_input()] = src_shapes[e->src_output()];
    const Tensor& v = const_values_[e->src()->id()];
    if (v.IsInitialized()) values[e->dst_input()] = &v;
  }
  InferenceContext ctx(n, std::move(inputs), std::move(values));
  ctx.set_function_library(library_);
  const ShapeFn& fn = n->op_reg().shape_fn;
  Status s = fn ? fn(&ctx) : UnknownShape(&ctx);
  if (!s.ok()) return errors::InvalidArgument(n->label(), ": ", s.message());
  auto& out = shapes_[n->id()];
  out.resize(n->num_outputs());
  for (int i = 0; i < n->num_outputs(); ++i) out[i] = ctx.output(i);
  if (n->op() == "_Arg" && !arg_shapes_.empty()) {
    int64_t index = -1;
    if (GetNodeAttr(n->def(), "index", &index).ok() && index >= 0 && index < static_cast<int64_t>(arg_shapes_.size())) {
      out[0] = arg_shapes_[index];
      if (arg_values_[index] != nullptr) const_values_[n->id()] = *arg_values_[index];
    }
  }
  // Shape of a fully known shape is a constant for the shape functions
  // downstream (Shape -> Reshape / Fill), as TensorFlow's refiner does.
  if (n->op() == "Shape" && n->num_outputs() == 1 && n->num_inputs() == 1 && ctx.input(0).IsFullyDefined() &&
      ctx.input(0).dims() <= kMaxConstElements) {
    const auto& dims = ctx.input(0).dim_sizes();
    DataType t = n->output_type(0);
    Tensor v;
    if (t == DT_INT32) {
      bool fits = true;
      std::vector<int32_t> d32;
      for (int64_t d : dims) {
        if (d > INT32_MAX) fits = false;
        d32.push_back(static_cast<int32_t>(d));
      }
      if (fits) v = Tensor::FromVector<int32_t>(d32);
    } else if (t == DT_INT64) {
      v = Tensor::FromVector<int64_t>(dims);
    }
    if (v.IsInitialized()) const_values_[n->id()] = v;
  }
  return Status::OK();
}

Status ShapeRefiner::MergeOutputShape(const Node* n, int index, const PartialTensorShape& shape) {
  if (n->id() >= static_cast<int>(shapes_.size())) {
    shapes_.resize(n->id() + 1);
    const_values_.resize(n->id() + 1);
  }
  auto& out = shapes_[n->id()];
  if (index < 0 || index >= n->num_outputs())
    return errors::InvalidArgument(n->label(), " has no output ", index);
  out.resize(n->num_outputs());
  auto merged = out[index].MergeWith(shape);
  if (!merged.ok())
    return errors::InvalidArgument("shape ", shape.DebugString(), " is not compatible with ", out[index].DebugString(),
                                   ", the shape of '", n->name(), ":", index, "'");
  out[index] = *merged;
  return Status::OK();
}

void ShapeRefiner::SetArgShapes(std::vector<PartialTensorShape> shapes, std::vector<const Tensor*> values) {
  values.resize(shapes.size(), nullptr);
  arg_shapes_ = std::move(shapes);
  arg_values_ = std::move(values);
}

const std::vector<PartialTensorShape>& ShapeRefiner::OutputShapes(int id) const {
  static const std::vector<PartialTensorShape>* const kEmpty = new std::vector<PartialTensorShape>();
  return id >= 0 && id < static_cast<int>(shapes_.size()) ? shapes_[id] : *kEmpty;
}

}  // namespace flowvm
