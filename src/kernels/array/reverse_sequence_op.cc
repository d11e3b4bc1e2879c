// ReverseSequence: for each slice b along batch_dim, the first
// seq_lengths[b] entries along seq_dim reversed, the rest copied as they
// are (what bidirectional RNNs do to variable-length sequences). The input
// is copied whole, then each slice's prefix is copied again through a
// strided plan that reads the sequence dim back to front.
#include <vector>

#include "kernels/array/array_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {
namespace {

class ReverseSequenceOp : public OpKernel {
 public:
  explicit ReverseSequenceOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("seq_dim", &seq_dim_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("batch_dim", &batch_dim_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& in = ctx->input(0);
    const Tensor& lengths = ctx->input(1);
    OP_REQUIRES(ctx, lengths.dims() == 1,
                errors::InvalidArgument("seq_lens input must be 1-dim, not ", lengths.dims()));
    OP_REQUIRES(ctx, batch_dim_ != seq_dim_, errors::InvalidArgument("batch_dim == seq_dim == ", seq_dim_));
    OP_REQUIRES(ctx, seq_dim_ >= 0 && seq_dim_ < in.dims(),
                errors::InvalidArgument("seq_dim must be < input rank ( ", seq_dim_, " vs. ", in.dims(), ")"));
    OP_REQUIRES(ctx, batch_dim_ >= 0 && batch_dim_ < in.dims(),
                errors::InvalidArgument("batch_dim must be < input rank ( ", batch_dim_, " vs. ", in.dims(), ")"));
    const int64_t batch = in.dim_size(batch_dim_), steps = in.dim_size(seq_dim_);
    OP_REQUIRES(ctx, lengths.NumElements() == batch,
                errors::InvalidArgument("Length of seq_lengths != input.dims(", batch_dim_, "), (",
                                        lengths.NumElements(), " vs. ", batch, ")"));
    const std::vector<int64_t> len = array::IndexVector(lengths);
    for (int64_t b = 0; b < batch; ++b) {
      OP_REQUIRES(ctx, len[b] >= 0, errors::InvalidArgument("seq_lens(", b, ") < 0"));
      OP_REQUIRES(ctx, len[b] <= steps, errors::InvalidArgument("seq_lens(", b, ") > input.dims(", seq_dim_, ")"));
    }
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, in.shape(), &out));
    if (in.NumElements() == 0) return;
    array::CopyElements(in, 0, out, 0, in.NumElements());
    const std::vector<int64_t> strides = array::RowMajorStrides(in.shape());
    for (int64_t b = 0; b < batch; ++b) {
      if (len[b] < 2) continue;  // nothing moves
      array::StridedCopyPlan p;
      p.dims = in.shape().dim_sizes();
      p.dims[batch_dim_] = 1;
      p.dims[seq_dim_] = len[b];
      p.in_strides = strides;
      p.out_strides = strides;
      p.out_base = b * strides[batch_dim_];
      p.in_base = p.out_base + (len[b] - 1) * strides[seq_dim_];
      p.in_strides[seq_dim_] = -strides[seq_dim_];
      array::StridedCopy(ctx, in.dtype(), p, in, out);
    }
  }

 private:
  int64_t seq_dim_ = 0;
  int64_t batch_dim_ = 0;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ReverseSequence")
                            .Device(DEVICE_CPU)
                            .TypeConstraint("T", array::AllTypes())
                            .TypeConstraint("Tlen", {DT_INT32, DT_INT64}),
                        ReverseSequenceOp);

}  // namespace flowvm
