// A step's own container of resources on a device: the stacks a while
// loop's gradient keeps and the TensorArrays of a step live in
// "__step_<step id>" of the device's resource manager, and the container
// goes when the step ends (paper 4.4: per-step state). Thread-safe.
#ifndef FLOWVM_KERNELS_DATA_FLOW_STEP_CONTAINER_H_
#define FLOWVM_KERNELS_DATA_FLOW_STEP_CONTAINER_H_

#include <cstdint>
#include <string>

#include "flowvm/status.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {

// The name of step `step_id`'s container.
std::string StepContainerName(int64_t step_id);

// The container of ctx's step on ctx's device, held by the step: it is
// removed from the device's resource manager when the step is over (the
// first of the step's holders to go removes it; the others find nothing).
// Internal if the step holds no resources or the device has no resource
// manager; `what` names the resource for that message.
StatusOr<std::string> StepContainerForStep(OpKernelContext* ctx, const std::string& what);

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_STEP_CONTAINER_H_
