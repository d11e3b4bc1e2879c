// Kernels of _Send and _Recv. Both build their rendezvous key once, at
// construction, for frame 0 iteration 0, and only append the frame and
// iteration inside loops. _Recv is asynchronous: it holds no thread while
// it waits for its tensor. A dead value (a Switch's untaken branch) travels
// as a dead flag without a tensor.
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/rendezvous.h"

namespace flowvm {

namespace {

// The key parts both kernels share.
class RendezvousKey {
 public:
  explicit RendezvousKey(OpKernelConstruction* ctx) {
    std::string send_device, recv_device, tensor_name;
    int64_t incarnation = 0;
    for (Status s : {ctx->GetAttr("send_device", &send_device), ctx->GetAttr("recv_device", &recv_device),
                     ctx->GetAttr("tensor_name", &tensor_name),
                     ctx->GetAttr("send_device_incarnation", &incarnation)}) {
      if (!s.ok()) {
        ctx->SetStatus(s);
        return;
      }
    }
    prefix_ = Rendezvous::KeyPrefix(send_device, static_cast<uint64_t>(incarnation), recv_device, tensor_name);
    key_00_ = Rendezvous::Key(prefix_, 0, 0);
  }

  // The key for this step's frame and iteration; `scratch` holds it when
  // it is not the precomputed 0:0 one.
  const std::string& For(const OpKernelContext* ctx, std::string* scratch) const {
    const FrameAndIter fi = ctx->frame_iter();
    if (fi.frame_id == 0 && fi.iter_id == 0) return key_00_;
    *scratch = Rendezvous::Key(prefix_, fi.frame_id, fi.iter_id);
    return *scratch;
  }

 private:
  std::string prefix_;
  std::string key_00_;
};

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* ctx) : OpKernel(ctx), key_(ctx) {}

  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->rendezvous() != nullptr,
                errors::Internal("_Send ", name(), " ran in a step without a rendezvous"));
    std::string scratch;
    if (ctx->is_input_dead()) {
      OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(key_.For(ctx, &scratch), Tensor(), /*is_dead=*/true));
      return;
    }
    OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(key_.For(ctx, &scratch), ctx->input(0), /*is_dead=*/false));
  }
  bool IsExpensive() const override { return false; }

 private:
  RendezvousKey key_;
};

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), key_(ctx) {}

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr,
                      errors::Internal("_Recv ", name(), " ran in a step without a rendezvous"), done);
    std::string scratch;
    ctx->rendezvous()->RecvAsync(key_.For(ctx, &scratch), [ctx, done = std::move(done)](const Status& s, const Tensor& value,
                                                                              bool is_dead) {
      if (!s.ok()) {
        ctx->SetStatus(s);
      } else if (!is_dead) {
        ctx->set_output(0, value);
      }  // else the output stays unset: the executor passes the deadness on
      done();
    });
  }
  bool IsExpensive() const override { return false; }

 private:
  RendezvousKey key_;
};

REGISTER_KERNEL_BUILDER(Name("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL_BUILDER(Name("_Recv").Device(DEVICE_CPU), RecvOp);

}  // namespace
}  // namespace flowvm
