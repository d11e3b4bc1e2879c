// The n-dimensional gather and scatter ops, as TensorFlow defines them:
// GatherNd, ScatterNd, TensorScatterUpdate and TensorScatterAdd. The last
// dimension of `indices` (of length K) indexes the first K dims of params /
// the output; the leading dims of `indices` enumerate the slices. Gradients
// are in array_more_grad.cc.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// Dims [from, end) of a known-rank shape.
std::vector<int64_t> Dims(const PartialTensorShape& s, int from, int end) {
  std::vector<int64_t> d;
  for (int i = from; i < end; ++i) d.push_back(s.dim_size(i));
  return d;
}

// GatherNd: indices.shape[:-1] + params.shape[K:].
Status GatherNdShape(InferenceContext* c) {
  const PartialTensorShape& params = c->input(0);
  const PartialTensorShape& indices = c->input(1);
  if (!params.unknown_rank() && params.dims() < 1)
    return errors::InvalidArgument("params must be at least a vector, but has shape ", params.DebugString());
  if (!indices.unknown_rank() && indices.dims() < 1)
    return errors::InvalidArgument("indices must be at least a vector, but has shape ", indices.DebugString());
  if (indices.unknown_rank() || params.unknown_rank() || indices.dim_size(indices.dims() - 1) < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  const int64_t k = indices.dim_size(indices.dims() - 1);
  if (k > params.dims())
    return errors::InvalidArgument("indices.shape[-1] must be <= params.rank, but saw indices shape: ",
                                   indices.DebugString(), " and params shape: ", params.DebugString());
  std::vector<int64_t> out = Dims(indices, 0, indices.dims() - 1);
  for (int64_t d : Dims(params, static_cast<int>(k), params.dims())) out.push_back(d);
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape s, PartialTensorShape::FromDims(out));
  c->set_output(0, s);
  return Status::OK();
}

// The scatter ops: updates must be indices.shape[:-1] + shape[K:].
Status CheckScatterUpdates(const PartialTensorShape& indices, const PartialTensorShape& updates,
                           const PartialTensorShape& shape) {
  if (!indices.unknown_rank() && indices.dims() < 1)
    return errors::InvalidArgument("indices must be at least a vector, but has shape ", indices.DebugString());
  if (indices.unknown_rank() || updates.unknown_rank() || shape.unknown_rank()) return Status::OK();
  const int64_t k = indices.dim_size(indices.dims() - 1);
  if (k < 0) return Status::OK();
  if (k > shape.dims())
    return errors::InvalidArgument("indices.shape[-1] must be <= the output rank, but saw indices shape: ",
                                   indices.DebugString(), " and output shape: ", shape.DebugString());
  std::vector<int64_t> want = Dims(indices, 0, indices.dims() - 1);
  for (int64_t d : Dims(shape, static_cast<int>(k), shape.dims())) want.push_back(d);
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape expected, PartialTensorShape::FromDims(want));
  if (!expected.MergeWith(updates).ok())
    return errors::InvalidArgument("updates must have shape indices.shape[:-1] + shape[indices.shape[-1]:] = ",
                                   expected.DebugString(), ", got ", updates.DebugString());
  return Status::OK();
}

Status ScatterNdShape(InferenceContext* c) {
  PartialTensorShape shape;
  FLOWVM_RETURN_IF_ERROR(MakeShapeFromShapeInput(c, 2, &shape));
  FLOWVM_RETURN_IF_ERROR(CheckScatterUpdates(c->input(0), c->input(1), shape));
  c->set_output(0, shape);
  return Status::OK();
}

Status TensorScatterShape(InferenceContext* c) {
  FLOWVM_RETURN_IF_ERROR(CheckScatterUpdates(c->input(1), c->input(2), c->input(0)));
  c->set_output(0, c->input(0));
  return Status::OK();
}

}  // namespace

REGISTER_OP("GatherNd")
    .Input("params: Tparams")
    .Input("indices: Tindices")
    .Output("output: Tparams")
    .Attr("Tparams: type")
    .Attr("Tindices: {int16, int32, int64}")
    .SetShapeFn(GatherNdShape)
    .Doc("Gathers the slices params[indices[..., :]] into a tensor of shape indices.shape[:-1] + "
         "params.shape[indices.shape[-1]:].");

REGISTER_OP("ScatterNd")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Input("shape: Tindices")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .SetShapeFn(ScatterNdShape)
    .Doc("A zero tensor of `shape` with the slices of updates added at indices (duplicates sum).");

REGISTER_OP("TensorScatterUpdate")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .SetShapeFn(TensorScatterShape)
    .Doc("A copy of tensor with the slices at indices replaced by updates.");

REGISTER_OP("TensorScatterAdd")
    .Input("tensor: T")
    .Input("indices: Tindices")
    .Input("updates: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tindices: {int16, int32, int64}")
    .SetShapeFn(TensorScatterShape)
    .Doc("A copy of tensor with updates added to the slices at indices (duplicates sum).");

}  // namespace flowvm
