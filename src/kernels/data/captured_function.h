// A dataset's user function: a function of the graph's library, named by a
// `func` attr of the dataset op, instantiated on the op's device, with the
// op's `other_arguments` captured (appended to every call's arguments).
// Datasets keep it and call it from their iterators' threads. Immutable and
// thread-safe; keeps its FunctionInstance alive.
#ifndef FLOWVM_KERNELS_DATA_CAPTURED_FUNCTION_H_
#define FLOWVM_KERNELS_DATA_CAPTURED_FUNCTION_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/data/dataset.h"
#include "kernels/framework/function_runtime.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm::data {

class CapturedFunction {
 public:
  // Instantiates the function attr `attr` of ctx's node with `flr` (the
  // node's function library), capturing inputs [first, first + count). `owner`
  // names the dataset in errors ("MapDataset 'm'"). FailedPrecondition if
  // the graph runs without a function library; the library's error
  // (NotFound naming the function) if it cannot be instantiated.
  static StatusOr<std::shared_ptr<const CapturedFunction>> Create(OpKernelContext* ctx, FunctionLibraryRuntime* flr,
                                                                  const std::string& attr, int first, int count,
                                                                  std::string owner);

  // f(args..., captured...), blocking: *rets gets one tensor per result.
  // Errors name the function and the owner; an OutOfRange from the body
  // keeps its code (Map and friends read it as the end of the input).
  Status Run(const IteratorContext* ctx, std::vector<Tensor> args, std::vector<Tensor>* rets) const;
  // The same, with the results' dtypes checked against `types`.
  Status RunAndCheck(const IteratorContext* ctx, std::vector<Tensor> args, const DataTypeVector& types,
                     std::vector<Tensor>* rets) const;

  const std::string& name() const { return instance_->name(); }
  const DataTypeVector& ret_types() const { return instance_->ret_types(); }
  // "function 'f' of MapDataset 'm'".
  std::string Describe() const;

  CapturedFunction(std::shared_ptr<const FunctionInstance> instance, std::vector<Tensor> captured, std::string owner)
      : instance_(std::move(instance)), captured_(std::move(captured)), owner_(std::move(owner)) {}

 private:
  const std::shared_ptr<const FunctionInstance> instance_;
  const std::vector<Tensor> captured_;
  const std::string owner_;
};

// What a map function's error means for its dataset: an OutOfRange from
// the function is an InvalidArgument when the dataset must keep its
// input's cardinality (TF's preserve_cardinality); else unchanged.
inline Status MapFunctionStatus(const Status& s, bool preserve_cardinality) {
  if (s.code() == Code::kOutOfRange && preserve_cardinality)
    return errors::InvalidArgument("Function invocation produced OutOfRangeError: ", s.message());
  return s;
}

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_CAPTURED_FUNCTION_H_
