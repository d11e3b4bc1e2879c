// What kernels see of functions (GraphDef.library, white paper section 10):
// a kernel whose op takes a `func` attr (a dataset's Map, a call of a
// recursive function) instantiates the function on its own device through
// the FunctionLibraryRuntime it was built with, and runs the instance as
// often as it likes, from any thread, concurrently.
//
// The runtime layer implements both interfaces (runtime/function_runtime.h):
// an instance is the function's body, its nested calls inlined, run by an
// Executor on the kernel's device. Instances are cached per (name, attrs):
// instantiating the same function twice returns the same instance.
//
// Ownership: an instance is shared (std::shared_ptr); whoever holds one
// (a dataset that outlives the step that made it) keeps it runnable for as
// long as the device that made it lives. Thread-safe.
#ifndef FLOWVM_KERNELS_FRAMEWORK_FUNCTION_RUNTIME_H_
#define FLOWVM_KERNELS_FRAMEWORK_FUNCTION_RUNTIME_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flowvm/attr_value.pb.h"
#include "flowvm/dtype.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "graph/node_def_util.h"

namespace flowvm {

class CancellationManager;
class DeviceBase;
class StepResources;

// How one call runs. Everything may be left at its default: a call made
// outside any step (a dataset's background thread) gets a step id of its
// own and cannot be cancelled.
struct FunctionCallOptions {
  // The caller's step: per-step state of the body (stacks, TensorArrays)
  // lives in that step's containers. 0: a fresh step id for this call.
  int64_t step_id = 0;
  // The caller's (not owned; may be null): cancelling it cancels the
  // call; an error in the call cancels only the call.
  CancellationManager* cancellation = nullptr;
  StepResources* resources = nullptr;           // not owned; may be null
  // How many calls deep this one is (a recursive function's call kernel
  // adds one); past kMaxCallDepth the call fails.
  int depth = 0;
  static constexpr int kMaxCallDepth = 256;
};

// One function instantiated for one device with concrete attrs.
class FunctionInstance {
 public:
  using DoneCallback = std::function<void(const Status&)>;
  virtual ~FunctionInstance() = default;

  // The function's name, as the library has it.
  virtual const std::string& name() const = 0;
  virtual const DataTypeVector& arg_types() const = 0;
  virtual const DataTypeVector& ret_types() const = 0;

  // Runs the body once: `args` must match arg_types() (InvalidArgument
  // naming the function and the argument otherwise); on success *rets
  // holds one tensor per ret type. `done` is called exactly once, possibly
  // on another thread, possibly before RunAsync returns; `rets` must stay
  // valid until then. Errors name the function and the node in its body.
  virtual void RunAsync(const FunctionCallOptions& options, std::vector<Tensor> args, std::vector<Tensor>* rets,
                        DoneCallback done) const = 0;
  // RunAsync, waiting for it. Must not be called on a thread that the body
  // itself may need (a kernel calling a function synchronously from
  // Compute holds one of the device's threads while it waits).
  Status Run(const FunctionCallOptions& options, std::vector<Tensor> args, std::vector<Tensor>* rets) const;
};

class FunctionLibraryRuntime {
 public:
  virtual ~FunctionLibraryRuntime() = default;
  // The instance of `func` (a function of the graph's library, with the
  // attrs its signature needs) on this runtime's device, made on first use
  // and cached. NotFound naming the function if the library has none of
  // that name; InvalidArgument if attrs are missing or the body does not
  // build (naming the node in the body).
  virtual StatusOr<std::shared_ptr<const FunctionInstance>> Instantiate(const NameAttrList& func) = 0;
  // Whether the library defines `name` (as opposed to a registered op).
  virtual bool IsFunction(const std::string& name) const = 0;
  virtual DeviceBase* device() const = 0;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_FUNCTION_RUNTIME_H_
