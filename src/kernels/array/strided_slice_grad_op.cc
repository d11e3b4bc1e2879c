// StridedSliceGrad: zeros of `shape`, then dy copied to where StridedSlice
// read its elements (the same ValidateStridedSlice spec, the copy direction
// reversed). A strided slice never reads an element twice, so the copy's
// shards write disjoint elements.
#include <cstring>
#include <vector>

#include "graph/shape_inference.h"
#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {
namespace {

using array::IndexVector;
using array::RowMajorStrides;

bool IsIntVector(const Tensor& t) { return t.dims() == 1 && (t.dtype() == DT_INT32 || t.dtype() == DT_INT64); }

class StridedSliceGradOp : public OpKernel {
 public:
  explicit StridedSliceGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("begin_mask", &begin_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("end_mask", &end_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("ellipsis_mask", &ellipsis_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("new_axis_mask", &new_axis_mask_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("shrink_axis_mask", &shrink_axis_mask_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape_t = ctx->input(0);
    const Tensor& bt = ctx->input(1);
    const Tensor& et = ctx->input(2);
    const Tensor& st = ctx->input(3);
    const Tensor& dy = ctx->input(4);
    OP_REQUIRES(ctx, IsIntVector(shape_t),
                errors::InvalidArgument("shape must be 1-D, got shape.shape = ", shape_t.shape().DebugString()));
    OP_REQUIRES(ctx,
                IsIntVector(bt) && IsIntVector(et) && IsIntVector(st) && bt.NumElements() == st.NumElements() &&
                    et.NumElements() == st.NumElements(),
                errors::InvalidArgument("Expected begin, end, and strides to be 1D equal size tensors, but got shapes ",
                                        bt.shape().DebugString(), ", ", et.shape().DebugString(), ", and ",
                                        st.shape().DebugString(), " instead."));
    std::vector<int64_t> dims = IndexVector(shape_t);
    for (size_t i = 0; i < dims.size(); ++i)
      OP_REQUIRES(ctx, dims[i] >= 0, errors::InvalidArgument("shape[", i, "] = ", dims[i], " must be >= 0"));
    auto shape = TensorShape::FromDims(dims);
    OP_REQUIRES_OK(ctx, shape.status());
    std::vector<int64_t> begin = IndexVector(bt), end = IndexVector(et), strides = IndexVector(st);
    StridedSliceSpec spec;
    OP_REQUIRES_OK(ctx, ValidateStridedSlice(*shape, &begin, &end, strides, begin_mask_, end_mask_, ellipsis_mask_,
                                             new_axis_mask_, shrink_axis_mask_, &spec));
    auto final_shape = TensorShape::FromDims(spec.final_dims);
    OP_REQUIRES_OK(ctx, final_shape.status());
    OP_REQUIRES(ctx, dy.shape() == *final_shape,
                errors::InvalidArgument("shape of dy was ", dy.shape().DebugString(), " instead of ",
                                        final_shape->DebugString()));
    if (spec.is_identity) {
      auto r = dy.Reshape(*shape);
      OP_REQUIRES_OK(ctx, r.status());
      ctx->set_output(0, *r);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    if (dy.dtype() != DT_STRING) {  // a new string tensor already holds empty strings
      Tensor zero;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(dy.dtype(), TensorShape(), &zero));
      std::memset(zero.raw_data(), 0, DataTypeSize(dy.dtype()));
      array::FillWith(ctx, zero, out);
    }
    if (dy.NumElements() == 0) return;
    const int rank = shape->dims();
    const std::vector<int64_t> os = RowMajorStrides(*shape);
    array::StridedCopyPlan p;
    p.dims = spec.processing_dims;
    p.out_strides.assign(rank, 0);
    for (int i = 0; i < rank; ++i) {
      p.out_base += spec.begin[i] * os[i];
      if (p.dims[i] > 1) p.out_strides[i] = spec.strides[i] * os[i];
    }
    auto ps = TensorShape::FromDims(p.dims);
    OP_REQUIRES_OK(ctx, ps.status());
    p.in_strides = RowMajorStrides(*ps);
    array::StridedCopy(ctx, dy.dtype(), p, dy, out);
  }

 private:
  int64_t begin_mask_ = 0, end_mask_ = 0, ellipsis_mask_ = 0, new_axis_mask_ = 0, shrink_axis_mask_ = 0;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("StridedSliceGrad").Device(DEVICE_CPU).TypeConstraint("T", array::AllTypes()),
                        StridedSliceGradOp);

}  // namespace flowvm
