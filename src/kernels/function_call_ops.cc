// Kernels of PartitionedCall and StatefulPartitionedCall: run the function
// named by `f` on this kernel's device, through the partition's function
// library. A session inlines most calls before placement
// (runtime/passes/function_inlining.h); these run the calls it keeps,
// those of recursive functions, when the call is reached: the body runs
// only if it is, so a base case in a conditional ends the recursion.
#include <memory>
#include <mutex>

#include "graph/function_library.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/function_runtime.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm {
namespace {

class FunctionCallOp : public AsyncOpKernel {
 public:
  explicit FunctionCallOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx), flr_(ctx->function_library()) {
    OP_REQUIRES_OK(ctx, GetFunctionAttr(ctx->def(), "f", &func_));
    OP_REQUIRES(ctx, flr_ != nullptr,
                errors::FailedPrecondition(NodeLabel(ctx->def()), ": calls function '", func_.name(),
                                           "' but the graph it runs in has no function library"));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    FunctionCallOptions options;
    options.step_id = ctx->step_id();
    options.cancellation = ctx->cancellation_manager();
    options.resources = ctx->step().resources;
    options.depth = ctx->step().call_depth + 1;
    OP_REQUIRES_ASYNC(ctx, options.depth <= FunctionCallOptions::kMaxCallDepth,
                      errors::ResourceExhausted("function '", func_.name(), "' reached ", options.depth,
                                                " nested calls, more than the ", FunctionCallOptions::kMaxCallDepth,
                                                " allowed: a recursion that its base case does not end soon enough"),
                      done);
    // Instantiated on first use, not at construction: a recursive
    // function's body holds a call of itself, whose kernel is built while
    // the function is being instantiated.
    auto instance = flr_->Instantiate(func_);
    OP_REQUIRES_OK_ASYNC(ctx, instance.status(), done);
    std::vector<Tensor> args;
    args.reserve(ctx->num_inputs());
    for (int i = 0; i < ctx->num_inputs(); ++i) args.push_back(ctx->input(i));
    auto rets = std::make_shared<std::vector<Tensor>>();
    std::shared_ptr<const FunctionInstance> keep = *instance;
    keep->RunAsync(options, std::move(args), rets.get(), [ctx, rets, keep, done](const Status& s) {
      if (!s.ok()) {
        ctx->SetStatus(s);
      } else if (static_cast<int>(rets->size()) != ctx->num_outputs()) {
        ctx->SetStatus(errors::Internal("function '", keep->name(), "' returned ", rets->size(), " results for ",
                                        ctx->num_outputs(), " outputs"));
      } else {
        for (int i = 0; i < ctx->num_outputs(); ++i) ctx->set_output(i, std::move((*rets)[i]));
      }
      done();
    });
  }

 private:
  FunctionLibraryRuntime* flr_;
  NameAttrList func_;
};

REGISTER_KERNEL_BUILDER(Name("PartitionedCall").Device(DEVICE_CPU), FunctionCallOp);
REGISTER_KERNEL_BUILDER(Name("StatefulPartitionedCall").Device(DEVICE_CPU), FunctionCallOp);

}  // namespace
}  // namespace flowvm
