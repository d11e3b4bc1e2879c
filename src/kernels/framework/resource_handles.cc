#include "kernels/framework/resource_handles.h"

namespace flowvm {

Tensor MakeResourceHandleTensor(const OpKernelContext* ctx, const std::string& container, const std::string& name,
                                const std::string& type_name) {
  Tensor handle(DT_RESOURCE, TensorShape({}));
  ResourceHandle& h = handle.scalar<ResourceHandle>();
  h.device = ctx->device() == nullptr ? std::string() : ctx->device()->name();
  h.container = container;
  h.name = name;
  h.type_name = type_name;
  return handle;
}

StatusOr<ResourceHandle> HandleFromInput(const OpKernelContext* ctx, int input) {
  const Tensor& t = ctx->input(input);
  if (t.dtype() != DT_RESOURCE || t.NumElements() != 1)
    return errors::InvalidArgument("input ", input, " must be a scalar resource handle, got a ",
                                   DataTypeName(t.dtype()), " tensor of shape ", t.shape().DebugString());
  const ResourceHandle& h = t.flat<ResourceHandle>()[0];
  if (ctx->device() != nullptr && !h.device.empty() && h.device != ctx->device()->name())
    return errors::InvalidArgument("the handle of ", h.DebugString(), " was used on ", ctx->device()->name(),
                                   "; ops on a resource run on its device");
  return h;
}

}  // namespace flowvm
