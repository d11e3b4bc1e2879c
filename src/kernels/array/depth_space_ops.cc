// DepthToSpace and SpaceToDepth (NHWC): each is one strided copy, a
// transpose of the input viewed as 6-D. With bs the block size, C the
// input channels and oc = C / bs^2,
//   DepthToSpace: in [B, H, W, bs, bs, oc] -> out [B, H, bs, W, bs, oc]
//   SpaceToDepth: in [B, H, bs, W, bs, C]  -> out [B, H, W, bs, bs, C]
#include <string>

#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {
namespace {

class DepthSpaceOp : public OpKernel {
 public:
  DepthSpaceOp(OpKernelConstruction* ctx, bool to_space) : OpKernel(ctx), to_space_(to_space) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("block_size", &bs_));
    OP_REQUIRES(ctx, bs_ >= 2, errors::InvalidArgument("Block size should be > 1, but was: ", bs_));
    std::string format;
    OP_REQUIRES_OK(ctx, ctx->GetAttr("data_format", &format));
    OP_REQUIRES(ctx, format == "NHWC",
                errors::InvalidArgument("Only NHWC data_format is supported on CPU, got ", format));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    OP_REQUIRES(ctx, in.dims() == 4,
                errors::InvalidArgument("Input rank should be: 4 instead of: ", in.dims()));
    const int64_t b = in.dim_size(0), h = in.dim_size(1), w = in.dim_size(2), c = in.dim_size(3);
    const int64_t bs = bs_;
    array::StridedCopyPlan p;
    TensorShape out_shape;
    if (to_space_) {
      OP_REQUIRES(ctx, c % (bs * bs) == 0,
                  errors::InvalidArgument("Input depth dimension ", c, " should be divisible by: ", bs * bs));
      const int64_t oc = c / (bs * bs);
      out_shape = TensorShape({b, h * bs, w * bs, oc});
      // Output order [B, H, bs_i, W, bs_j, oc]; the input's strides for it.
      p.dims = {b, h, bs, w, bs, oc};
      p.in_strides = {h * w * c, w * c, bs * oc, c, oc, 1};
    } else {
      OP_REQUIRES(ctx, h % bs == 0 && w % bs == 0,
                  errors::InvalidArgument("Image width ", w, " and height ", h,
                                          " should be divisible by block_size: ", bs));
      const int64_t oh = h / bs, ow = w / bs;
      out_shape = TensorShape({b, oh, ow, c * bs * bs});
      // Output order [B, oh, ow, bs_i, bs_j, C]; the input's strides for it.
      p.dims = {b, oh, ow, bs, bs, c};
      p.in_strides = {h * w * c, bs * w * c, bs * c, w * c, c, 1};
    }
    p.out_strides.assign(6, 1);
    for (int k = 4; k >= 0; --k) p.out_strides[k] = p.out_strides[k + 1] * p.dims[k + 1];
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return;
    array::StridedCopy(ctx, in.dtype(), p, in, out);
  }

 private:
  bool to_space_;
  int64_t bs_ = 0;
};

class DepthToSpaceOp : public DepthSpaceOp {
 public:
  explicit DepthToSpaceOp(OpKernelConstruction* ctx) : DepthSpaceOp(ctx, true) {}
};
class SpaceToDepthOp : public DepthSpaceOp {
 public:
  explicit SpaceToDepthOp(OpKernelConstruction* ctx) : DepthSpaceOp(ctx, false) {}
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("DepthToSpace").Device(DEVICE_CPU).TypeConstraint("T", array::AllTypes()),
                        DepthToSpaceOp);
REGISTER_KERNEL_BUILDER(Name("SpaceToDepth").Device(DEVICE_CPU).TypeConstraint("T", array::AllTypes()),
                        SpaceToDepthOp);

}  // namespace flowvm
