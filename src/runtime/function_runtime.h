// The runtime's FunctionLibraryRuntime (kernels/framework/function_runtime.h):
// functions of one graph's library instantiated on one device. An instance
// is the function's body with its nested calls inlined and its functional
// control flow lowered (runtime/passes/function_inlining.h), run by an
// Executor on the device, arguments and results passing through a
// CallFrame. Instances are cached by function and attrs for the runtime's
// lifetime.
//
// Ownership: made by Create (always a shared_ptr); an instance handed out
// shares ownership of the runtime, so whoever holds an instance (a dataset
// in a device's resource manager) keeps it runnable after the prepared step
// that made the runtime is gone. The device must outlive the runtime.
// Thread-safe.
#ifndef FLOWVM_RUNTIME_FUNCTION_RUNTIME_H_
#define FLOWVM_RUNTIME_FUNCTION_RUNTIME_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "graph/function_library.h"
#include "kernels/framework/device_base.h"
#include "kernels/framework/function_runtime.h"

namespace flowvm {

class DeviceFunctionRuntime : public FunctionLibraryRuntime,
                              public std::enable_shared_from_this<DeviceFunctionRuntime> {
 public:
  static std::shared_ptr<DeviceFunctionRuntime> Create(DeviceBase* device,
                                                       std::shared_ptr<FunctionLibraryDefinition> library);
  ~DeviceFunctionRuntime() override;

  StatusOr<std::shared_ptr<const FunctionInstance>> Instantiate(const NameAttrList& func) override;
  bool IsFunction(const std::string& name) const override { return library_->Contains(name); }
  DeviceBase* device() const override { return device_; }
  const FunctionLibraryDefinition& library() const { return *library_; }

 private:
  class Instance;
  DeviceFunctionRuntime(DeviceBase* device, std::shared_ptr<FunctionLibraryDefinition> library);

  DeviceBase* const device_;
  const std::shared_ptr<FunctionLibraryDefinition> library_;
  std::mutex mu_;
  std::map<std::string, std::unique_ptr<Instance>> cache_;  // by CanonicalFunctionKey
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_FUNCTION_RUNTIME_H_
