// PyFunc, PyFuncStateless and EagerPyFunc kernels, and the process-wide
// dispatcher they call through (host_function.h). The results are checked
// against the node's Tout: their number and their types.
#include <memory>
#include <mutex>
#include <utility>

#include "graph/node_def_util.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/script/host_function.h"

namespace flowvm {

namespace {
std::mutex dispatcher_mu;
std::shared_ptr<const HostFunctionDispatcher> dispatcher;  // guarded by dispatcher_mu
}  // namespace

void SetHostFunctionDispatcher(HostFunctionDispatcher d) {
  auto next = d ? std::make_shared<const HostFunctionDispatcher>(std::move(d)) : nullptr;
  std::lock_guard<std::mutex> lock(dispatcher_mu);
  dispatcher = std::move(next);
}

Status CallHostFunction(const std::string& token, const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  std::shared_ptr<const HostFunctionDispatcher> d;
  {
    std::lock_guard<std::mutex> lock(dispatcher_mu);
    d = dispatcher;
  }
  if (d == nullptr)
    return errors::FailedPrecondition("function '", token,
                                      "' of the host program is not available in this process: a py_func runs only "
                                      "in the Python process that built its graph");
  return (*d)(token, inputs, outputs);
}

namespace {

class PyFuncOp : public OpKernel {
 public:
  explicit PyFuncOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("token", &token_));
    output_types_ = ctx->output_types();
  }

  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> inputs;
    inputs.reserve(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) inputs.push_back(ctx->input(i));
    std::vector<Tensor> outputs;
    Status s = CallHostFunction(token_, inputs, &outputs);
    if (!s.ok()) {
      ctx->SetStatus(s);
      return;
    }
    OP_REQUIRES(ctx, outputs.size() == output_types_.size(),
                errors::InvalidArgument("the Python function returned ", outputs.size(), " values, but Tout lists ",
                                        output_types_.size(), " types"));
    for (size_t i = 0; i < outputs.size(); ++i) {
      OP_REQUIRES(ctx, outputs[i].dtype() == output_types_[i],
                  errors::InvalidArgument("value ", i, " the Python function returned is ",
                                          DataTypeName(outputs[i].dtype()), ", but Tout says ",
                                          DataTypeName(output_types_[i])));
      ctx->set_output(static_cast<int>(i), std::move(outputs[i]));
    }
  }

 private:
  std::string token_;
  DataTypeVector output_types_;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("PyFunc").Device(DEVICE_CPU), PyFuncOp);
REGISTER_KERNEL_BUILDER(Name("PyFuncStateless").Device(DEVICE_CPU), PyFuncOp);
REGISTER_KERNEL_BUILDER(Name("EagerPyFunc").Device(DEVICE_CPU), PyFuncOp);

}  // namespace flowvm
