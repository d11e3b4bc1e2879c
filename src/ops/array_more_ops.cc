// More array ops, as TensorFlow defines them: PadV2, MirrorPad and
// MirrorPadGrad, ReverseV2, ReverseSequence, Where, DepthToSpace and
// SpaceToDepth. Gradients are in array_more_grad.cc.
#include "graph/op_registry.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

// The value of int input i if it is a constant, else *known = false.
Status ConstInts(InferenceContext* c, int i, std::vector<int64_t>* v, bool* known) {
  *known = false;
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || (t->dtype() != DT_INT32 && t->dtype() != DT_INT64)) return Status::OK();
  FLOWVM_ASSIGN_OR_RETURN(*v, TensorToInt64s(*t));
  *known = true;
  return Status::OK();
}

// Pad-like ops: input 1 is a [rank, 2] paddings matrix. Each known output
// dim is the input dim plus (sign = 1: PadV2, MirrorPad) or minus (sign =
// -1: MirrorPadGrad) its paddings. `mirror` limits each padding to the dim
// (SYMMETRIC) or the dim - 1 (REFLECT).
Status PaddedShape(InferenceContext* c, int sign, bool mirror) {
  const PartialTensorShape& in = c->input(0);
  const PartialTensorShape& ps = c->input(1);
  if (!ps.unknown_rank() && (ps.dims() != 2 || (ps.dim_size(1) >= 0 && ps.dim_size(1) != 2)))
    return errors::InvalidArgument("paddings must be a matrix with 2 columns, but has shape ", ps.DebugString());
  const int64_t n = ps.unknown_rank() ? -1 : ps.dim_size(0);
  if (!in.unknown_rank() && n >= 0 && n != in.dims())
    return errors::InvalidArgument("The first dimension of paddings must be the rank of inputs (", in.dims(),
                                   "), but is ", n);
  const int rank = in.unknown_rank() ? static_cast<int>(n) : in.dims();
  if (rank < 0) {
    c->set_output(0, PartialTensorShape::Unknown());
    return Status::OK();
  }
  std::vector<int64_t> p;
  bool known = false;
  FLOWVM_RETURN_IF_ERROR(ConstInts(c, 1, &p, &known));
  int64_t offset = 0;
  if (mirror) {
    std::string mode;
    FLOWVM_RETURN_IF_ERROR(c->GetAttr("mode", &mode));
    offset = mode == "REFLECT" ? 1 : 0;
  }
  std::vector<int64_t> dims(rank, -1);
  for (int i = 0; known && i < rank; ++i) {
    const int64_t lo = p[2 * i], hi = p[2 * i + 1];
    if (lo < 0 || hi < 0)
      return errors::InvalidArgument("Paddings must be non-negative: ", lo, " ", hi);
    const int64_t d = in.unknown_rank() ? -1 : in.dim_size(i);
    if (d < 0) continue;
    if (sign > 0) {
      if (mirror && (lo > d - offset || hi > d - offset))
        return errors::InvalidArgument("paddings must be no greater than the dimension size: ", lo, ", ", hi,
                                       " greater than ", d - offset);
      if (lo > TensorShape::kMaxElements - d || hi > TensorShape::kMaxElements - d - lo)
        return errors::InvalidArgument("Pad output is too large");
      dims[i] = d + lo + hi;
    } else {
      if (lo > d || hi > d - lo)
        return errors::InvalidArgument("paddings ", lo, ", ", hi, " are larger than the gradient's dimension ", i,
                                       " (", d, ")");
      dims[i] = d - lo - hi;
    }
  }
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape out, PartialTensorShape::FromDims(dims));
  c->set_output(0, out);
  return Status::OK();
}

Status PadV2Shape(InferenceContext* c) {
  const PartialTensorShape& v = c->input(2);
  if (!v.unknown_rank() && v.dims() != 0)
    return errors::InvalidArgument("constant_values must be a scalar, but has shape ", v.DebugString());
  return PaddedShape(c, 1, false);
}
Status MirrorPadShape(InferenceContext* c) { return PaddedShape(c, 1, true); }
Status MirrorPadGradShape(InferenceContext* c) { return PaddedShape(c, -1, false); }

// ReverseV2: the input's shape; a constant axis list must name distinct
// dims of the input.
Status ReverseV2Shape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  const PartialTensorShape& axis = c->input(1);
  if (!axis.unknown_rank() && axis.dims() != 1)
    return errors::InvalidArgument("axis must be a vector, but has shape ", axis.DebugString());
  std::vector<int64_t> a;
  bool known = false;
  FLOWVM_RETURN_IF_ERROR(ConstInts(c, 1, &a, &known));
  if (known && !in.unknown_rank()) {
    std::vector<bool> seen(in.dims(), false);
    for (int64_t v : a) {
      int canonical = 0;
      FLOWVM_RETURN_IF_ERROR(CanonicalizeAxis(v, in.dims(), "axis", &canonical));
      if (seen[canonical]) return errors::InvalidArgument("axis ", canonical, " specified more than once.");
      seen[canonical] = true;
    }
  }
  c->set_output(0, in);
  return Status::OK();
}

// ReverseSequence: the input's shape, its batch dim merged with the length
// of seq_lengths (a vector); both dims must lie inside the input's rank.
Status ReverseSequenceShape(InferenceContext* c) {
  PartialTensorShape lengths;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(1, 1, &lengths));
  const PartialTensorShape& in = c->input(0);
  int64_t seq_dim = 0, batch_dim = 0;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("seq_dim", &seq_dim));
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("batch_dim", &batch_dim));
  if (in.unknown_rank()) {
    c->set_output(0, in);
    return Status::OK();
  }
  if (batch_dim < 0 || batch_dim >= in.dims())
    return errors::InvalidArgument("batch_dim must be < input rank: ", batch_dim, " vs. ", in.dims());
  if (seq_dim < 0 || seq_dim >= in.dims())
    return errors::InvalidArgument("seq_dim must be < input rank: ", seq_dim, " vs. ", in.dims());
  std::vector<int64_t> dims = in.dim_sizes();
  FLOWVM_RETURN_IF_ERROR(c->MergeDim(dims[batch_dim], lengths.dim_size(0), &dims[batch_dim],
                                     "the batch dimension of input and the length of seq_lengths"));
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape out, PartialTensorShape::FromDims(dims));
  c->set_output(0, out);
  return Status::OK();
}

// Where: one row of coordinates per true element.
Status WhereShape(InferenceContext* c) {
  const PartialTensorShape& in = c->input(0);
  c->set_output(0, PartialTensorShape({-1, in.unknown_rank() ? -1 : in.dims()}));
  return Status::OK();
}

// DepthToSpace (to_space) and SpaceToDepth: a 4-D NHWC input; the
// channels are divided by (multiplied by) block_size^2 and height and width
// multiplied by (divided by) block_size.
Status DepthSpaceShape(InferenceContext* c, bool to_space) {
  PartialTensorShape in;
  FLOWVM_RETURN_IF_ERROR(c->WithRank(0, 4, &in));
  int64_t bs = 0;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("block_size", &bs));
  if (bs < 2) return errors::InvalidArgument("block_size must be at least 2, but is ", bs);
  std::string format;
  FLOWVM_RETURN_IF_ERROR(c->GetAttr("data_format", &format));
  if (format != "NHWC")
    return errors::InvalidArgument("Only NHWC data_format is supported on CPU, got ", format);
  std::vector<int64_t> dims = in.dim_sizes();
  const int64_t b2 = bs * bs;
  if (to_space) {
    if (dims[3] >= 0 && dims[3] % b2 != 0)
      return errors::InvalidArgument("Dimension size must be evenly divisible by ", b2, " but is ", dims[3]);
    if (dims[1] >= 0) dims[1] *= bs;
    if (dims[2] >= 0) dims[2] *= bs;
    if (dims[3] >= 0) dims[3] /= b2;
  } else {
    for (int i : {1, 2})
      if (dims[i] >= 0 && dims[i] % bs != 0)
        return errors::InvalidArgument("Dimension size must be evenly divisible by ", bs, " but is ", dims[i]);
    if (dims[1] >= 0) dims[1] /= bs;
    if (dims[2] >= 0) dims[2] /= bs;
    if (dims[3] >= 0) dims[3] *= b2;
  }
  FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape out, PartialTensorShape::FromDims(dims));
  c->set_output(0, out);
  return Status::OK();
}
Status DepthToSpaceShape(InferenceContext* c) { return DepthSpaceShape(c, true); }
Status SpaceToDepthShape(InferenceContext* c) { return DepthSpaceShape(c, false); }

}  // namespace

REGISTER_OP("PadV2")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Input("constant_values: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .SetShapeFn(PadV2Shape)
    .Doc("Pads a tensor with the scalar constant_values.");

REGISTER_OP("MirrorPad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadShape)
    .Doc("Pads a tensor with mirrored copies of itself: REFLECT leaves out the border element, SYMMETRIC "
         "repeats it.");

REGISTER_OP("MirrorPadGrad")
    .Input("input: T")
    .Input("paddings: Tpaddings")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tpaddings: {int32, int64} = DT_INT32")
    .Attr("mode: {'REFLECT', 'SYMMETRIC'}")
    .SetShapeFn(MirrorPadGradShape)
    .Doc("The gradient of MirrorPad: folds the padded regions of input back onto the elements they mirror.");

REGISTER_OP("ReverseV2")
    .Input("tensor: T")
    .Input("axis: Tidx")
    .Output("output: T")
    .Attr("Tidx: {int32, int64} = DT_INT32")
    .Attr("T: {uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, double, "
          "complex64, complex128, string}")
    .SetShapeFn(ReverseV2Shape)
    .Doc("Reverses the dimensions of tensor listed in axis (negative axes count from the end).");

REGISTER_OP("ReverseSequence")
    .Input("input: T")
    .Input("seq_lengths: Tlen")
    .Output("output: T")
    .Attr("seq_dim: int")
    .Attr("batch_dim: int = 0")
    .Attr("T: type")
    .Attr("Tlen: {int32, int64} = DT_INT64")
    .SetShapeFn(ReverseSequenceShape)
    .Doc("Reverses the first seq_lengths[b] entries along seq_dim of each slice b along batch_dim; the rest "
         "stays in place.");

REGISTER_OP("Where")
    .Input("input: T")
    .Attr("T: {numbertype, bool} = DT_BOOL")
    .Output("index: int64")
    .SetShapeFn(WhereShape)
    .Doc("The coordinates of the true (non-zero) elements of input, in row-major order, as [n, rank(input)].");

REGISTER_OP("DepthToSpace")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(DepthToSpaceShape)
    .Doc("Moves blocks of block_size * block_size channels into block_size x block_size spatial blocks.");

REGISTER_OP("SpaceToDepth")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("block_size: int >= 2")
    .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'")
    .SetShapeFn(SpaceToDepthShape)
    .Doc("Moves block_size x block_size spatial blocks into the channel dimension.");

}  // namespace flowvm
