// Resource handles for kernels: the DT_RESOURCE scalar a creator op
// outputs, and the lookup of the resource a handle input names, with
// errors that name it. Used by queues, readers, stacks and mutexes.
#ifndef FLOWVM_KERNELS_FRAMEWORK_RESOURCE_HANDLES_H_
#define FLOWVM_KERNELS_FRAMEWORK_RESOURCE_HANDLES_H_

#include <memory>
#include <string>

#include "flowvm/resource_handle.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {

// A scalar DT_RESOURCE tensor naming (container, name) on ctx's device.
Tensor MakeResourceHandleTensor(const OpKernelContext* ctx, const std::string& container, const std::string& name,
                                const std::string& type_name);

// The handle in input `input`: InvalidArgument if it is not one scalar
// handle, or if it names another device than ctx's.
StatusOr<ResourceHandle> HandleFromInput(const OpKernelContext* ctx, int input);

// The T that input `input` names, kept alive for the step. NotFound
// naming it (`what`: "queue", "reader", ...) if it does not exist.
template <typename T>
Status LookupResource(OpKernelContext* ctx, int input, const char* what, std::shared_ptr<T>* out) {
  FLOWVM_ASSIGN_OR_RETURN(ResourceHandle h, HandleFromInput(ctx, input));
  ResourceMgr* rm = ctx->resource_manager();
  if (rm == nullptr) return errors::Internal("no resource manager to find ", what, " '", h.name, "' in");
  if (!rm->Lookup<T>(h.container, h.name, out).ok())
    return errors::NotFound(what, " '", h.name, "' (container '", h.container,
                            "') does not exist on this device; run the op that makes it first, or its container "
                            "was reset");
  ctx->KeepAliveForStep(*out);
  return Status::OK();
}

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_RESOURCE_HANDLES_H_
