// The kernel registry: which OpKernel implements an op on a device type for
// which attr types. Registering is one line beside the kernel:
//
//   REGISTER_KERNEL_BUILDER(Name("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                           MatMulOp<float>);
//
// Registration happens at static-initialisation time; lookups are
// thread-safe.
#ifndef FLOWVM_KERNELS_FRAMEWORK_KERNEL_REGISTRY_H_
#define FLOWVM_KERNELS_FRAMEWORK_KERNEL_REGISTRY_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flowvm/status.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {

struct KernelDef {
  std::string op;
  std::string device_type = DEVICE_CPU;
  // attr name -> the types this kernel accepts for it
  std::vector<std::pair<std::string, std::vector<DataType>>> type_constraints;
};

using KernelFactory = std::function<OpKernel*(OpKernelConstruction*)>;

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(std::string op) { def_.op = std::move(op); }
  KernelDefBuilder& Device(const char* type) {
    def_.device_type = type;
    return *this;
  }
  template <typename T>
  KernelDefBuilder& TypeConstraint(const std::string& attr) {
    return TypeConstraint(attr, std::vector<DataType>{DataTypeToEnum<T>::value});
  }
  KernelDefBuilder& TypeConstraint(const std::string& attr, std::vector<DataType> types);
  const KernelDef& def() const { return def_; }

 private:
  KernelDef def_;
};
using Name = KernelDefBuilder;

// One line per kernel registered for `op`: "CPU T=float|double".
std::vector<std::string> DescribeKernels(const std::string& op);
// OK, or NotFound naming the node, its type attrs and the registered kernels.
Status CheckKernelExists(const std::string& device_type, const NodeDef& node);
// The same without building a message (the placer asks per node and device type).
bool HasKernel(const std::string& device_type, const NodeDef& node);

// Instantiates the kernel for a node. NotFound (naming the node, its types
// and what is registered) if none matches; the constructor's error if the
// kernel rejects the node's attrs.
// `device` may be null (kernels built outside a device, in tests and benches);
// so may `flr`, the functions the kernel may instantiate.
StatusOr<std::unique_ptr<OpKernel>> CreateOpKernel(const std::string& device_type, const NodeDef& node,
                                                   const OpDef& op_def, const DataTypeVector& input_types,
                                                   const DataTypeVector& output_types, DeviceBase* device,
                                                   FunctionLibraryRuntime* flr = nullptr);

namespace internal {
void RegisterKernel(const KernelDef& def, KernelFactory factory);
struct KernelRegistrar {
  KernelRegistrar(const KernelDefBuilder& b, KernelFactory f) { RegisterKernel(b.def(), std::move(f)); }
};
}  // namespace internal

#define FLOWVM_KERNEL_CONCAT_INNER_(a, b) a##b
#define FLOWVM_KERNEL_CONCAT_(a, b) FLOWVM_KERNEL_CONCAT_INNER_(a, b)
#define REGISTER_KERNEL_BUILDER(builder, ...)                                                      \
  static ::flowvm::internal::KernelRegistrar FLOWVM_KERNEL_CONCAT_(flowvm_kernel_, __COUNTER__)   \
      [[maybe_unused]](::flowvm::builder,                                                          \
                       [](::flowvm::OpKernelConstruction* ctx) -> ::flowvm::OpKernel* {           \
                         return new __VA_ARGS__(ctx);                                              \
                       })

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_KERNEL_REGISTRY_H_
