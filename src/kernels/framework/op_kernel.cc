#include "kernels/framework/op_kernel.h"

#include <condition_variable>

namespace flowvm {

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : def_(ctx->def()), input_types_(ctx->input_types()), output_types_(ctx->output_types()) {}

OpKernel::~OpKernel() = default;

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  ComputeAsync(ctx, [&] {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
    cv.notify_one();
  });
  std::unique_lock<std::mutex> lock(mu);
  cv.wait(lock, [&] { return done; });
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  auto t = Tensor::Allocate(allocator(), kernel_->output_type(i), shape);
  if (!t.ok()) {
    Status s = t.status().WithContext("output " + std::to_string(i));
    SetStatus(s);
    return s;
  }
  outputs_[i].value = std::move(t).value();
  outputs_[i].has_value = true;
  *out = &outputs_[i].value;
  return Status::OK();
}

Status OpKernelContext::allocate_temp(DataType dtype, const TensorShape& shape, Tensor* out) {
  auto t = Tensor::Allocate(allocator(), dtype, shape);
  if (!t.ok()) {
    SetStatus(t.status());
    return t.status();
  }
  *out = std::move(t).value();
  return Status::OK();
}

bool OpKernelContext::forward_input_to_output(int input, int output, const TensorShape& shape, Tensor** out) {
  if (inputs_[input].is_ref()) return false;
  Tensor* in = inputs_[input].tensor;
  // The executor holds one reference in the input slot; if that is the only
  // one, nobody else can observe the buffer and it can be reused.
  if (!in->RefCountIsOne() || in->dtype() != kernel_->output_type(output) ||
      in->NumElements() != shape.num_elements())
    return false;
  auto reshaped = in->Reshape(shape);
  if (!reshaped.ok()) return false;
  outputs_[output].value = std::move(reshaped).value();
  outputs_[output].has_value = true;
  *in = Tensor();
  *out = &outputs_[output].value;
  return true;
}

}  // namespace flowvm
