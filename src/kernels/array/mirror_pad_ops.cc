// PadV2 (a constant border), MirrorPad and MirrorPadGrad.
//
// MirrorPad copies the input into the middle of the output, then fills the
// borders one dimension at a time from the region already written: dim k's
// border slabs span the whole (padded) extent of dims < k and the middle of
// dims > k, and are read back to front (a negative stride). MirrorPadGrad
// undoes this in reverse order, adding each border slab onto the elements
// it mirrors, and returns the middle.
#include <string>
#include <vector>

#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/cwise_ops.h"

namespace flowvm {
namespace {

using array::RowMajorStrides;
using array::StridedCopy;
using array::StridedCopyPlan;

// The paddings input, checked against `in` (rank and sign).
Status ReadPaddings(const Tensor& in, const Tensor& pt, std::vector<int64_t>* pads) {
  if (pt.dims() != 2 || pt.dim_size(1) != 2)
    return errors::InvalidArgument("paddings must be a matrix with 2 columns: ", pt.shape().DebugString());
  if (pt.dim_size(0) != in.dims())
    return errors::InvalidArgument("The first dimension of paddings must be the rank of inputs",
                                   pt.shape().DebugString(), " ", in.shape().DebugString());
  *pads = array::IndexVector(pt);
  for (int i = 0; i < in.dims(); ++i) {
    const int64_t lo = (*pads)[2 * i], hi = (*pads)[2 * i + 1];
    if (lo < 0 || hi < 0) return errors::InvalidArgument("Paddings must be non-negative: ", lo, " ", hi);
  }
  return Status::OK();
}

// The shape of `in` grown by the paddings, or InvalidArgument if too large.
StatusOr<TensorShape> PaddedShape(const Tensor& in, const std::vector<int64_t>& pads) {
  std::vector<int64_t> dims(in.dims());
  double total = 1;
  for (int i = 0; i < in.dims(); ++i) {
    const int64_t lo = pads[2 * i], hi = pads[2 * i + 1], d = in.dim_size(i);
    if (lo > TensorShape::kMaxElements - d || hi > TensorShape::kMaxElements - d - lo)
      return errors::InvalidArgument("Pad output dimension ", i, " is too large");
    dims[i] = d + lo + hi;
    total *= static_cast<double>(dims[i]);
  }
  if (total > static_cast<double>(TensorShape::kMaxElements))
    return errors::InvalidArgument("Pad output of ", total, " elements is too large");
  return TensorShape::FromDims(dims);
}

// Copies `in` into the middle of `out` (offset by the low paddings).
void CopyIntoMiddle(OpKernelContext* ctx, const Tensor& in, const std::vector<int64_t>& pads, Tensor* out) {
  if (in.NumElements() == 0) return;
  StridedCopyPlan p;
  p.dims = in.shape().dim_sizes();
  p.in_strides = RowMajorStrides(in.shape());
  p.out_strides = RowMajorStrides(out->shape());
  for (int i = 0; i < in.dims(); ++i) p.out_base += pads[2 * i] * p.out_strides[i];
  StridedCopy(ctx, in.dtype(), p, in, out);
}

class PadV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES(ctx, value.dims() == 0,
                errors::InvalidArgument("constant_values must be a scalar. Found: ", value.shape().DebugString()));
    std::vector<int64_t> pads;
    OP_REQUIRES_OK(ctx, ReadPaddings(in, ctx->input(1), &pads));
    auto shape = PaddedShape(in, pads);
    OP_REQUIRES_OK(ctx, shape.status());
    if (*shape == in.shape()) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    array::FillWith(ctx, value, out);
    CopyIntoMiddle(ctx, in, pads, out);
  }
};

// One border slab of dim k of a tensor of shape `full` whose middle (the
// unpadded region) has shape `mid`: dims < k whole, dims > k the middle,
// dim k the `n` elements that start at `border` and run away from the
// middle, paired with the elements they mirror (which start at `mirror` and
// run into the middle). Offsets are into the padded tensor.
struct Slab {
  std::vector<int64_t> dims, border_strides, mirror_strides;
  int64_t border_base = 0, mirror_base = 0;
};
Slab MakeSlab(const std::vector<int64_t>& full, const std::vector<int64_t>& strides,
              const std::vector<int64_t>& pads, const std::vector<int64_t>& mid, int k, bool left, int64_t offset) {
  Slab s;
  const int rank = static_cast<int>(full.size());
  s.dims.resize(rank);
  s.border_strides = strides;
  s.mirror_strides = strides;
  for (int j = 0; j < rank; ++j) {
    if (j < k) {
      s.dims[j] = full[j];
    } else if (j > k) {
      s.dims[j] = mid[j];
      s.border_base += pads[2 * j] * strides[j];
      s.mirror_base += pads[2 * j] * strides[j];
    }
  }
  const int64_t lo = pads[2 * k], hi = pads[2 * k + 1], d = mid[k];
  if (left) {  // border lo-1, lo-2, ...; mirror lo+offset, lo+offset+1, ...
    s.dims[k] = lo;
    s.border_base += (lo - 1) * strides[k];
    s.border_strides[k] = -strides[k];
    s.mirror_base += (lo + offset) * strides[k];
  } else {  // border lo+d, lo+d+1, ...; mirror lo+d-1-offset, lo+d-2-offset, ...
    s.dims[k] = hi;
    s.border_base += (lo + d) * strides[k];
    s.mirror_base += (lo + d - 1 - offset) * strides[k];
    s.mirror_strides[k] = -strides[k];
  }
  return s;
}

// 1 for REFLECT (the border element is not repeated), 0 for SYMMETRIC.
Status ModeOffset(OpKernelConstruction* ctx, int64_t* offset) {
  std::string mode;
  FLOWVM_RETURN_IF_ERROR(ctx->GetAttr("mode", &mode));
  if (mode != "REFLECT" && mode != "SYMMETRIC")
    return errors::InvalidArgument("mode must be REFLECT or SYMMETRIC, got ", mode);
  *offset = mode == "REFLECT" ? 1 : 0;
  return Status::OK();
}

Status CheckMirrorPaddings(const std::vector<int64_t>& mid, const std::vector<int64_t>& pads, int64_t offset) {
  for (size_t i = 0; i < mid.size(); ++i) {
    const int64_t lo = pads[2 * i], hi = pads[2 * i + 1];
    if (lo > mid[i] - offset || hi > mid[i] - offset)
      return errors::InvalidArgument("paddings must be less than", offset == 0 ? " or equal to" : "",
                                     " the dimension size: ", lo, ", ", hi, " not less than",
                                     offset == 0 ? " or equal to " : " ", mid[i], " (dimension ", i, ")");
  }
  return Status::OK();
}

class MirrorPadOp : public OpKernel {
 public:
  explicit MirrorPadOp(OpKernelConstruction* ctx) : OpKernel(ctx) { OP_REQUIRES_OK(ctx, ModeOffset(ctx, &offset_)); }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> pads;
    OP_REQUIRES_OK(ctx, ReadPaddings(in, ctx->input(1), &pads));
    const std::vector<int64_t> mid = in.shape().dim_sizes();
    OP_REQUIRES_OK(ctx, CheckMirrorPaddings(mid, pads, offset_));
    auto shape = PaddedShape(in, pads);
    OP_REQUIRES_OK(ctx, shape.status());
    if (*shape == in.shape()) {
      ctx->set_output(0, in);
      return;
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *shape, &out));
    if (out->NumElements() == 0) return;
    CopyIntoMiddle(ctx, in, pads, out);
    const std::vector<int64_t> full = shape->dim_sizes(), strides = RowMajorStrides(*shape);
    for (int k = 0; k < in.dims(); ++k) {
      for (bool left : {true, false}) {
        if (pads[2 * k + (left ? 0 : 1)] == 0) continue;
        Slab s = MakeSlab(full, strides, pads, mid, k, left, offset_);
        StridedCopyPlan p;
        p.dims = s.dims;
        p.in_strides = s.mirror_strides;
        p.in_base = s.mirror_base;
        p.out_strides = s.border_strides;
        p.out_base = s.border_base;
        StridedCopy(ctx, in.dtype(), p, *out, out);
      }
    }
  }

 private:
  int64_t offset_ = 0;
};

// buf[mirror offsets] += buf[border offsets] over a slab, serially (the
// pairs within one slab are distinct).
template <typename T>
void AddSlab(const Slab& s, T* buf) {
  const int rank = static_cast<int>(s.dims.size());
  for (int64_t d : s.dims)
    if (d == 0) return;
  std::vector<int64_t> idx(rank, 0);
  int64_t b = s.border_base, m = s.mirror_base;
  while (true) {
    buf[m] = cwise::AddFn::Apply(buf[m], buf[b]);  // integers wrap
    int k = rank - 1;
    for (; k >= 0; --k) {
      b += s.border_strides[k];
      m += s.mirror_strides[k];
      if (++idx[k] < s.dims[k]) break;
      b -= s.border_strides[k] * s.dims[k];
      m -= s.mirror_strides[k] * s.dims[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

template <typename T>
class MirrorPadGradOp : public OpKernel {
 public:
  explicit MirrorPadGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ModeOffset(ctx, &offset_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    std::vector<int64_t> pads;
    OP_REQUIRES_OK(ctx, ReadPaddings(in, ctx->input(1), &pads));
    std::vector<int64_t> mid(in.dims());
    for (int i = 0; i < in.dims(); ++i) {
      const int64_t lo = pads[2 * i], hi = pads[2 * i + 1], d = in.dim_size(i);
      OP_REQUIRES(ctx, lo <= d && hi <= d - lo,
                  errors::InvalidArgument("paddings ", lo, ", ", hi, " are larger than dimension ", i, " (", d,
                                          ") of the gradient"));
      mid[i] = d - lo - hi;
    }
    OP_REQUIRES_OK(ctx, CheckMirrorPaddings(mid, pads, offset_));
    auto out_shape = TensorShape::FromDims(mid);
    OP_REQUIRES_OK(ctx, out_shape.status());
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, *out_shape, &out));
    if (out->NumElements() == 0) return;
    Tensor work = in.DeepCopy();
    const std::vector<int64_t> full = in.shape().dim_sizes(), strides = RowMajorStrides(in.shape());
    for (int k = in.dims() - 1; k >= 0; --k) {
      for (bool left : {false, true}) {
        if (pads[2 * k + (left ? 0 : 1)] == 0) continue;
        AddSlab<T>(MakeSlab(full, strides, pads, mid, k, left, offset_), work.data<T>());
      }
    }
    StridedCopyPlan p;
    p.dims = mid;
    p.in_strides = strides;
    p.out_strides = RowMajorStrides(*out_shape);
    for (int i = 0; i < in.dims(); ++i) p.in_base += pads[2 * i] * strides[i];
    StridedCopy(ctx, in.dtype(), p, work, out);
  }

 private:
  int64_t offset_ = 0;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("PadV2").Device(DEVICE_CPU).TypeConstraint("T", array::AllTypes()), PadV2Op);
REGISTER_KERNEL_BUILDER(Name("MirrorPad").Device(DEVICE_CPU).TypeConstraint("T", array::AllTypes()), MirrorPadOp);
#define FLOWVM_REGISTER_MIRROR_PAD_GRAD(T) \
  REGISTER_KERNEL_BUILDER(Name("MirrorPadGrad").Device(DEVICE_CPU).TypeConstraint<T>("T"), MirrorPadGradOp<T>);
FLOWVM_REGISTER_MIRROR_PAD_GRAD(float)
FLOWVM_REGISTER_MIRROR_PAD_GRAD(double)
FLOWVM_REGISTER_MIRROR_PAD_GRAD(half)
FLOWVM_REGISTER_MIRROR_PAD_GRAD(bfloat16)
FLOWVM_REGISTER_MIRROR_PAD_GRAD(int32_t)
FLOWVM_REGISTER_MIRROR_PAD_GRAD(int64_t)
#undef FLOWVM_REGISTER_MIRROR_PAD_GRAD

}  // namespace flowvm
