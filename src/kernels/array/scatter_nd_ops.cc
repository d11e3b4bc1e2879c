// GatherNd, ScatterNd, TensorScatterUpdate and TensorScatterAdd. Each index
// tuple (the last dimension of `indices`, of length K) names a slice of the
// first K dims of a tensor; every tuple is checked before anything is read
// or written, and a bad one is an InvalidArgument naming its position.
// Slices move by element width (array_util.h); the adding ops have a kernel
// per numeric type and add in order, so duplicate indices sum
// deterministically.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/cwise_ops.h"

namespace flowvm {
namespace {

// The element offsets of the slices that `indices` names in a tensor of
// shape `target`, and the slice size.
struct SlicePlan {
  int64_t k = 0;           // index depth
  int64_t num_slices = 0;  // indices.shape[:-1] elements
  int64_t slice_size = 1;  // elements per slice
  std::vector<int64_t> offsets;
};

// "indices[1,0] = [4, 2]" for error messages.
std::string IndexText(const Tensor& indices, int64_t slice, int64_t k) {
  std::string s = "indices[";
  int64_t rem = slice;
  std::vector<int64_t> pos(std::max(indices.dims() - 1, 0));
  for (int d = indices.dims() - 2; d >= 0; --d) {
    pos[d] = rem % indices.dim_size(d);
    rem /= indices.dim_size(d);
  }
  for (size_t d = 0; d < pos.size(); ++d) s += (d ? "," : "") + std::to_string(pos[d]);
  s += "] = [";
  for (int64_t j = 0; j < k; ++j) s += (j ? ", " : "") + std::to_string(array::IndexAt(indices, slice * k + j));
  return s + "]";
}

// `what` names the target in errors ("param shape", "shape").
Status PlanSlices(const Tensor& indices, const TensorShape& target, const char* what, SlicePlan* plan) {
  if (indices.dims() < 1)
    return errors::InvalidArgument("indices must be at least a vector, got shape ", indices.shape().DebugString());
  plan->k = indices.dim_size(indices.dims() - 1);
  if (plan->k > target.dims())
    return errors::InvalidArgument("index innermost dimension length must be <= ", what, " rank; saw: ", plan->k,
                                   " vs. ", target.dims());
  plan->num_slices = 1;
  for (int d = 0; d + 1 < indices.dims(); ++d) plan->num_slices *= indices.dim_size(d);
  for (int d = static_cast<int>(plan->k); d < target.dims(); ++d) plan->slice_size *= target.dim_size(d);
  // Strides of the first K dims, in elements.
  std::vector<int64_t> strides(plan->k);
  int64_t acc = plan->slice_size;
  for (int64_t d = plan->k - 1; d >= 0; --d) {
    strides[d] = acc;
    acc *= target.dim_size(static_cast<int>(d));
  }
  plan->offsets.resize(plan->num_slices);
  for (int64_t i = 0; i < plan->num_slices; ++i) {
    int64_t off = 0;
    for (int64_t j = 0; j < plan->k; ++j) {
      const int64_t v = array::IndexAt(indices, i * plan->k + j);
      if (v < 0 || v >= target.dim_size(static_cast<int>(j)))
        return errors::InvalidArgument(IndexText(indices, i, plan->k), " does not index into ", what, " ",
                                       target.DebugString());
      off += v * strides[j];
    }
    plan->offsets[i] = off;
  }
  return Status::OK();
}

// updates must be indices.shape[:-1] + target.shape[K:].
Status CheckUpdates(const Tensor& indices, const Tensor& updates, const TensorShape& target, int64_t k) {
  TensorShape want;
  for (int d = 0; d + 1 < indices.dims(); ++d) want.AddDim(indices.dim_size(d));
  for (int d = static_cast<int>(k); d < target.dims(); ++d) want.AddDim(target.dim_size(d));
  if (updates.shape() != want)
    return errors::InvalidArgument("updates must have shape indices.shape[:-1] + shape[indices.shape[-1]:] = ",
                                   want.DebugString(), " but has shape ", updates.shape().DebugString(),
                                   " (indices: ", indices.shape().DebugString(), ", shape: ", target.DebugString(),
                                   ")");
  return Status::OK();
}

class GatherNdOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& params = ctx->input(0);
    const Tensor& indices = ctx->input(1);
    OP_REQUIRES(ctx, params.dims() >= 1,
                errors::InvalidArgument("params must be at least a vector, got shape ", params.shape().DebugString()));
    SlicePlan plan;
    OP_REQUIRES_OK(ctx, PlanSlices(indices, params.shape(), "param shape", &plan));
    TensorShape out_shape;
    for (int d = 0; d + 1 < indices.dims(); ++d) out_shape.AddDim(indices.dim_size(d));
    for (int d = static_cast<int>(plan.k); d < params.dims(); ++d) out_shape.AddDim(params.dim_size(d));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    const int64_t n = plan.slice_size;
    ctx->ParallelFor(plan.num_slices, std::max<int64_t>(1, n), [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) array::CopyElements(params, plan.offsets[i], out, i * n, n);
    });
  }
};

// The output of the scatter ops: a copy of input 0 (TensorScatter*), or
// zeros of the `shape` input (ScatterNd); then the plan of its slices.
enum class Scatter { kNd, kUpdate, kAdd };

Status ScatterOutput(OpKernelContext* ctx, Scatter kind, const Tensor& indices, const Tensor& updates,
                     SlicePlan* plan, Tensor** out) {
  TensorShape shape;
  if (kind == Scatter::kNd) {
    const Tensor& st = ctx->input(2);
    if (st.dims() != 1)
      return errors::InvalidArgument("shape must be a vector, got shape ", st.shape().DebugString());
    std::vector<int64_t> dims = array::IndexVector(st);
    for (int64_t d : dims)
      if (d < 0) return errors::InvalidArgument("shape must not have negative entries, got ", st.ValuesString());
    FLOWVM_ASSIGN_OR_RETURN(shape, TensorShape::FromDims(dims));
  } else {
    shape = ctx->input(0).shape();
  }
  FLOWVM_RETURN_IF_ERROR(PlanSlices(indices, shape, "shape", plan));
  FLOWVM_RETURN_IF_ERROR(CheckUpdates(indices, updates, shape, plan->k));
  if (shape.num_elements() == 0 && plan->num_slices > 0 && plan->slice_size > 0)
    return errors::InvalidArgument("Indices and updates specified for empty output shape ", shape.DebugString());
  if (kind == Scatter::kNd) {
    FLOWVM_RETURN_IF_ERROR(ctx->allocate_output(0, shape, out));
    if ((*out)->dtype() != DT_STRING && (*out)->NumElements() > 0)
      std::memset((*out)->raw_data(), 0, (*out)->NumElements() * DataTypeSize((*out)->dtype()));
  } else if (!ctx->forward_input_to_output(0, 0, shape, out)) {
    FLOWVM_RETURN_IF_ERROR(ctx->allocate_output(0, shape, out));
    array::CopyElements(ctx->input(0), 0, *out, 0, shape.num_elements());
  }
  return Status::OK();
}

class TensorScatterUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& indices = ctx->input(1);
    const Tensor& updates = ctx->input(2);
    SlicePlan plan;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ScatterOutput(ctx, Scatter::kUpdate, indices, updates, &plan, &out));
    // In order: with duplicate indices the last update wins.
    for (int64_t i = 0; i < plan.num_slices; ++i)
      array::CopyElements(updates, i * plan.slice_size, out, plan.offsets[i], plan.slice_size);
  }
};

template <typename T>
class ScatterAddOp : public OpKernel {
 public:
  ScatterAddOp(OpKernelConstruction* ctx, Scatter kind) : OpKernel(ctx), kind_(kind) {}
  void Compute(OpKernelContext* ctx) override {
    const int base = kind_ == Scatter::kNd ? 0 : 1;
    const Tensor& indices = ctx->input(base);
    const Tensor& updates = ctx->input(base + 1);
    SlicePlan plan;
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ScatterOutput(ctx, kind_, indices, updates, &plan, &out));
    const T* u = updates.data<T>();
    T* o = out->data<T>();
    const int64_t n = plan.slice_size;
    for (int64_t i = 0; i < plan.num_slices; ++i) {
      T* dst = o + plan.offsets[i];
      const T* src = u + i * n;
      for (int64_t j = 0; j < n; ++j) dst[j] = cwise::AddFn::Apply(dst[j], src[j]);  // integers wrap
    }
  }

 private:
  Scatter kind_;
};

template <typename T>
class ScatterNdOp : public ScatterAddOp<T> {
 public:
  explicit ScatterNdOp(OpKernelConstruction* ctx) : ScatterAddOp<T>(ctx, Scatter::kNd) {}
};
template <typename T>
class TensorScatterAddOp : public ScatterAddOp<T> {
 public:
  explicit TensorScatterAddOp(OpKernelConstruction* ctx) : ScatterAddOp<T>(ctx, Scatter::kAdd) {}
};

const std::vector<DataType> kIndexTypes = {DT_INT16, DT_INT32, DT_INT64};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("GatherNd")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("Tparams", array::AllTypes())
                            .TypeConstraint("Tindices", kIndexTypes),
                        GatherNdOp);
REGISTER_KERNEL_BUILDER(Name("TensorScatterUpdate")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array::AllTypes())
                            .TypeConstraint("Tindices", kIndexTypes),
                        TensorScatterUpdateOp);

#define FLOWVM_REGISTER_SCATTER_ADD(T)                                                                        \
  REGISTER_KERNEL_BUILDER(Name("ScatterNd").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint(        \
                              "Tindices", kIndexTypes),                                                       \
                          ScatterNdOp<T>);                                                                    \
  REGISTER_KERNEL_BUILDER(Name("TensorScatterAdd").Device(DEVICE_CPU).TypeConstraint<T>("T").TypeConstraint( \
                              "Tindices", kIndexTypes),                                                       \
                          TensorScatterAddOp<T>);
FLOWVM_REGISTER_SCATTER_ADD(float)
FLOWVM_REGISTER_SCATTER_ADD(double)
FLOWVM_REGISTER_SCATTER_ADD(half)
FLOWVM_REGISTER_SCATTER_ADD(bfloat16)
FLOWVM_REGISTER_SCATTER_ADD(int8_t)
FLOWVM_REGISTER_SCATTER_ADD(uint8_t)
FLOWVM_REGISTER_SCATTER_ADD(int16_t)
FLOWVM_REGISTER_SCATTER_ADD(uint16_t)
FLOWVM_REGISTER_SCATTER_ADD(int32_t)
FLOWVM_REGISTER_SCATTER_ADD(int64_t)
FLOWVM_REGISTER_SCATTER_ADD(complex64)
FLOWVM_REGISTER_SCATTER_ADD(complex128)
#undef FLOWVM_REGISTER_SCATTER_ADD

}  // namespace flowvm
