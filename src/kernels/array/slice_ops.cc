// Slice, StridedSlice, Transpose, Tile, Pad and BroadcastTo: every one is a
// strided copy (array::StridedCopy, one instantiation per element width).
// Slices of a contiguous leading-dimension range, identity permutations and
// broadcasts to the input's own shape share the input's buffer.
#include <cstring>
#include <string>
#include <vector>

#include "graph/shape_inference.h"
#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {
namespace {

using array::AllTypes;
using array::IndexVector;
using array::RowMajorStrides;
using array::StridedCopy;
using array::StridedCopyPlan;

// Outputs `in` rows [start, limit) of dim 0 reshaped to `shape`, sharing the
// buffer.
void OutputView(OpKernelContext* ctx, const Tensor& in, int64_t start, int64_t limit, const TensorShape& shape) {
  Tensor view = in;
  if (in.dims() > 0 && (start != 0 || limit != in.dim_size(0))) {
    auto s = in.Slice(start, limit);
    OP_REQUIRES_OK(ctx, s.status());
    view = *s;
  }
  auto r = view.Reshape(shape);
  OP_REQUIRES_OK(ctx, r.status());
  ctx->set_output(0, *r);
}

bool IsIntVector(const Tensor& t) { return t.dims() == 1 && (t.dtype() == DT_INT32 || t.dtype() == DT_INT64); }

class SliceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& bt = ctx->input(1);
    const Tensor& st = ctx->input(2);
    const int rank = in.dims();
    OP_REQUIRES(ctx, IsIntVector(bt) && IsIntVector(st) && bt.NumElements() == rank && st.NumElements() == rank,
                errors::InvalidArgument("Expected begin and size arguments to be 1-D tensors of size ", rank,
                                        ", but got shapes ", bt.shape().DebugString(), " and ",
                                        st.shape().DebugString(), " instead."));
    std::vector<int64_t> begin = IndexVector(bt), size = IndexVector(st);
    TensorShape out_shape;
    bool leading_only = true;  // only dim 0 is cut
    for (int i = 0; i < rank; ++i) {
      const int64_t d = in.dim_size(i), b = begin[i];
      OP_REQUIRES(ctx, b >= 0 && b <= d,
                  errors::InvalidArgument("Expected begin[", i, "] in [0, ", d, "], but got ", b));
      if (size[i] == -1) size[i] = d - b;
      OP_REQUIRES(ctx, size[i] >= 0 && size[i] <= d - b,
                  errors::InvalidArgument("Expected size[", i, "] in [0, ", d - b, "], but got ", size[i]));
      out_shape.AddDim(size[i]);
      if (i > 0 && size[i] != d) leading_only = false;
    }
    if (leading_only && out_shape.num_elements() > 0) {
      OutputView(ctx, in, rank > 0 ? begin[0] : 0, rank > 0 ? begin[0] + size[0] : 0, out_shape);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    StridedCopyPlan p;
    p.dims = size;
    p.in_strides = RowMajorStrides(in.shape());
    p.out_strides = RowMajorStrides(out_shape);
    for (int i = 0; i < rank; ++i) p.in_base += begin[i] * p.in_strides[i];
    StridedCopy(ctx, in.dtype(), p, in, out);
  }
};

class StridedSliceOp : public OpKernel {
 public:
  explicit StridedSliceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("begin_mask", &begin_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("end_mask", &end_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ellipsis_mask", &ellipsis_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("new_axis_mask", &new_axis_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shrink_axis_mask", &shrink_axis_mask_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& bt = ctx->input(1);
    const Tensor& et = ctx->input(2);
    const Tensor& st = ctx->input(3);
    OP_REQUIRES(ctx,
                IsIntVector(bt) && IsIntVector(et) && IsIntVector(st) && bt.NumElements() == st.NumElements() &&
                    et.NumElements() == st.NumElements(),
                errors::InvalidArgument("Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
                                        bt.shape().DebugString(), ", ", et.shape().DebugString(), ", and ",
                                        st.shape().DebugString(), " instead."));
    std::vector<int64_t> begin = IndexVector(bt), end = IndexVector(et), strides = IndexVector(st);
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, ValidateStridedSlice(in.shape(), &begin, &end, strides, begin_mask_, end_mask_,
                                             ellipsis_mask_, new_axis_mask_, shrink_axis_mask_, &spec));
    auto final_shape = TensorShape::FromDims(spec.final_dims);
    OP_REQUIRES_OK(ctx, final_shape.status());
    const int rank = in.dims();
    if (spec.is_identity) {
      OutputView(ctx, in, 0, rank > 0 ? in.dim_size(0) : 0, *final_shape);
      return;
    }
    if (spec.slice_dim0 && rank > 0 && final_shape->num_elements() > 0) {
      OutputView(ctx, in, spec.begin[0], spec.begin[0] + spec.processing_dims[0], *final_shape);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *final_shape, &out));
    if (final_shape->num_elements() == 0) return;
    StridedCopyPlan p;
    const std::vector<int64_t> in_strides = RowMajorStrides(in.shape());
    p.dims = spec.processing_dims;
    p.in_strides.assign(rank, 0);
    for (int i = 0; i < rank; ++i) {
      p.in_base += spec.begin[i] * in_strides[i];
      // A stride is only ever applied within the dim (size > 1 means
      // |stride| < dim), so the product stays in range.
      if (p.dims[i] > 1) p.in_strides[i] = spec.strides[i] * in_strides[i];
    }
    auto ps = TensorShape::FromDims(p.dims);
    OP_REQUIRES_OK(ctx, ps.status());
    p.out_strides = RowMajorStrides(*ps);
    StridedCopy(ctx, in.dtype(), p, in, out);
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0, shrink_axis_mask_ = 0;
};

class TransposeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& pt = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, pt.dims() == 1, errors::InvalidArgument("perm must be a vector, not ", pt.shape().DebugString()));
    OP_REQUIRES(ctx, pt.NumElements() == rank,
                errors::InvalidArgument("transpose expects a vector of size ", rank,
                                        ". But input(1) is a vector of size ", pt.NumElements()));
    std::vector<int64_t> perm = IndexVector(pt);
    std::vector<bool> seen(rank, false);
    TensorShape out_shape;
    bool identity = true;
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, perm[i] >= 0 && perm[i] < rank,
                  errors::InvalidArgument(perm[i], " is out of range [0 .. ", rank, ")"));
      OP_REQUIRES(ctx, !seen[perm[i]], errors::InvalidArgument(perm[i], " is duplicated in perm"));
      seen[perm[i]] = true;
      out_shape.AddDim(in.dim_size(static_cast<int>(perm[i])));
      if (perm[i] != i) identity = false;
    }
    if (identity) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out_shape.num_elements() == 0) return;
    const std::vector<int64_t> is = RowMajorStrides(in.shape());
    StridedCopyPlan p;
    p.dims = out_shape.dim_sizes();
    for (int i = 0; i < rank; ++i) p.in_strides.push_back(is[perm[i]]);
    p.out_strides = RowMajorStrides(out_shape);
    StridedCopy(ctx, in.dtype(), p, in, out);
  }
};

class TileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& mt = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, mt.dims() == 1 && mt.NumElements() == rank,
                errors::InvalidArgument("Expected multiples argument to be a vector of length ", rank,
                                        " but got length ", mt.dims() == 1 ? mt.dim_size(0) : mt.NumElements()));
    std::vector<int64_t> m = IndexVector(mt);
    std::vector<int64_t> out_dims(rank);
    bool any_zero = false;
    for (int i = 0; i < rank; ++i) {
      OP_REQUIRES(ctx, m[i] >= 0, errors::InvalidArgument("Expected multiples[", i, "] >= 0, but got ", m[i]));
      const int64_t d = in.dim_size(i);
      if (d == 0 || m[i] == 0) {
        out_dims[i] = 0;
        any_zero = true;
        continue;
      }
      OP_REQUIRES(ctx, d <= TensorShape::kMaxElements / m[i],
                  errors::InvalidArgument("Tile output dimension ", i, " (", d, " * ", m[i], ") is too large"));
      out_dims[i] = d * m[i];
    }
    if (!any_zero) {
      // Bound the element count before building the shape.
      double total = 1;
      for (int64_t d : out_dims) total *= static_cast<double>(d);
      OP_REQUIRES(ctx, total <= static_cast<double>(TensorShape::kMaxElements),
                  errors::InvalidArgument("Tile output of ", total, " elements is too large"));
    }
    auto out_shape = TensorShape::FromDims(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    bool identity = true;
    for (int64_t x : m) identity = identity && x == 1;
    if (identity) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    // Output dim k of size m_k * d_k is [m_k, d_k]: the copy runs repeat
    // dims with input stride 0.
    const std::vector<int64_t> is = RowMajorStrides(in.shape());
    const std::vector<int64_t> os = RowMajorStrides(*out_shape);
    StridedCopyPlan p;
    for (int i = 0; i < rank; ++i) {
      p.dims.push_back(m[i]);
      p.in_strides.push_back(0);
      p.out_strides.push_back(in.dim_size(i) * os[i]);
      p.dims.push_back(in.dim_size(i));
      p.in_strides.push_back(is[i]);
      p.out_strides.push_back(os[i]);
    }
    StridedCopy(ctx, in.dtype(), p, in, out);
  }
};

// Output dims are matched with input dims from the right; an input dim of 1
// (or a missing leading one) is read with stride 0.
class BroadcastToOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& st = ctx->input(1);
    OP_REQUIRES(ctx, IsIntVector(st),
                errors::InvalidArgument("shape must be a vector of int32 or int64, got shape ",
                                        st.shape().DebugString()));
    std::vector<int64_t> dims = IndexVector(st);
    for (size_t i = 0; i < dims.size(); ++i)
      OP_REQUIRES(ctx, dims[i] >= 0, errors::InvalidArgument("Dimension ", dims[i], " must be >= 0 (shape[", i, "])"));
    auto shape = TensorShape::FromDims(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    const TensorShape& out_shape = *shape;
    if (out_shape == in.shape()) {
      ctx->set_output(0, in);
      return;
    }
    const int rank = out_shape.dims(), in_rank = in.dims();
    OP_REQUIRES(ctx, in_rank <= rank,
                errors::InvalidArgument("Rank of input (", in_rank, ") must be no greater than rank of output shape (",
                                        rank, ")."));
    const int offset = rank - in_rank;
    for (int i = 0; i < in_rank; ++i) {
      const int64_t d = in.dim_size(i), o = out_shape.dim_size(offset + i);
      OP_REQUIRES(ctx, d == o || d == 1 || o == 1,
                  errors::InvalidArgument("Incompatible shapes: ", in.shape().DebugString(), " vs. ",
                                          out_shape.DebugString()));
      OP_REQUIRES(ctx, d == o || d == 1,
                  errors::InvalidArgument("Unable to broadcast tensor of shape ", in.shape().DebugString(),
                                          " to tensor of shape ", out_shape.DebugString()));
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    const std::vector<int64_t> is = RowMajorStrides(in.shape());
    StridedCopyPlan p;
    p.dims = dims;
    p.out_strides = RowMajorStrides(out_shape);
    for (int i = 0; i < rank; ++i)
      p.in_strides.push_back(i < offset || in.dim_size(i - offset) == 1 ? 0 : is[i - offset]);
    StridedCopy(ctx, in.dtype(), p, in, out);
  }
};

class PadOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& pt = ctx->input(1);
    const int rank = in.dims();
    OP_REQUIRES(ctx, pt.dims() == 2 && pt.dim_size(1) == 2,
                errors::InvalidArgument("paddings must be a matrix with 2 columns: ", pt.shape().DebugString()));
    OP_REQUIRES(ctx, pt.dim_size(0) == rank,
                errors::InvalidArgument("The first dimension of paddings must be the rank of inputs",
                                        pt.shape().DebugString(), " ", in.shape().DebugString()));
    std::vector<int64_t> pads = IndexVector(pt);
    std::vector<int64_t> out_dims(rank);
    bool none = true;
    for (int i = 0; i < rank; ++i) {
      const int64_t lo = pads[2 * i], hi = pads[2 * i + 1], d = in.dim_size(i);
      OP_REQUIRES(ctx, lo >= 0 && hi >= 0, errors::InvalidArgument("Paddings must be non-negative: ", lo, " ", hi));
      OP_REQUIRES(ctx, lo <= TensorShape::kMaxElements - d && hi <= TensorShape::kMaxElements - d - lo,
                  errors::InvalidArgument("Pad output dimension ", i, " is too large"));
      out_dims[i] = d + lo + hi;
      if (lo != 0 || hi != 0) none = false;
    }
    if (none) {
      ctx->set_output(0, in);
      return;
    }
    double total = 1;
    for (int64_t d : out_dims) total *= static_cast<double>(d);
    OP_REQUIRES(ctx, total <= static_cast<double>(TensorShape::kMaxElements),
                errors::InvalidArgument("Pad output of ", total, " elements is too large"));
    auto out_shape = TensorShape::FromDims(out_dims);
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    if (in.dtype() != DT_STRING) {
      Tensor zero;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(in.dtype(), TensorShape(), &zero));
      std::memset(zero.raw_data(), 0, DataTypeSize(in.dtype()));
      array::FillWith(ctx, zero, out);
    }
    if (in.NumElements() == 0) return;
    StridedCopyPlan p;
    p.dims = in.shape().dim_sizes();
    p.in_strides = RowMajorStrides(in.shape());
    p.out_strides = RowMajorStrides(*out_shape);
    for (int i = 0; i < rank; ++i) p.out_base += pads[2 * i] * p.out_strides[i];
    StridedCopy(ctx, in.dtype(), p, in, out);
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Slice").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), SliceOp);
REGISTER_KERNEL_BUILDER(Name("StridedSlice").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), StridedSliceOp);
REGISTER_KERNEL_BUILDER(Name("Transpose").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), TransposeOp);
REGISTER_KERNEL_BUILDER(Name("Tile").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), TileOp);
REGISTER_KERNEL_BUILDER(Name("BroadcastTo")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", AllTypes())
                            .TypeConstraint("Tidx", {DT_INT32, DT_INT64}),
                        BroadcastToOp);
REGISTER_KERNEL_BUILDER(Name("Pad").Device(DEVICE_CPU).TypeConstraint("T", AllTypes()), PadOp);

}  // namespace flowvm
