#include "kernels/data_flow/step_container.h"

#include <memory>

#include "kernels/framework/resource_mgr.h"

namespace flowvm {

namespace {

// Removes a step's container from a resource manager when the step is over
// (the step holds it; see StepResources).
class StepContainer : public ResourceBase {
 public:
  StepContainer(ResourceMgr* rm, std::string container) : rm_(rm), container_(std::move(container)) {}
  ~StepContainer() override { rm_->Cleanup(container_); }
  std::string DebugString() const override { return "step container " + container_; }

 private:
  ResourceMgr* rm_;
  std::string container_;
};

}  // namespace

std::string StepContainerName(int64_t step_id) { return "__step_" + std::to_string(step_id); }

StatusOr<std::string> StepContainerForStep(OpKernelContext* ctx, const std::string& what) {
  ResourceMgr* rm = ctx->resource_manager();
  if (rm == nullptr) return errors::Internal("no resource manager for ", what);
  if (ctx->step().resources == nullptr) return errors::Internal(what, " in a step that holds no resources");
  std::string container = StepContainerName(ctx->step_id());
  ctx->KeepAliveForStep(std::make_shared<StepContainer>(rm, container));
  return container;
}

}  // namespace flowvm
