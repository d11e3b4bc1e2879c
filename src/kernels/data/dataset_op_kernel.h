// The kernel shape every dataset op shares: read the declared output types
// and shapes from the node's attrs, build a dataset from the inputs, output
// it as a scalar DT_VARIANT. Datasets are built cheaply (no element is
// produced here), so these kernels run inline.
#ifndef FLOWVM_KERNELS_DATA_DATASET_OP_KERNEL_H_
#define FLOWVM_KERNELS_DATA_DATASET_OP_KERNEL_H_

#include <memory>
#include <string>
#include <vector>

#include "kernels/data/dataset.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm::data {

class CapturedFunction;

class DatasetOpKernel : public OpKernel {
 public:
  // Reads `output_types` (or `Toutput_types`) and `output_shapes` when the
  // op has them (file sources do not: they know their outputs).
  explicit DatasetOpKernel(OpKernelConstruction* ctx);
  void Compute(OpKernelContext* ctx) final;
  bool IsExpensive() const override { return false; }

 protected:
  virtual StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) = 0;

  const DataTypeVector& output_types() const { return output_types_; }
  const std::vector<PartialTensorShape>& output_shapes() const { return output_shapes_; }
  // "MapDataset 'name'".
  std::string Describe() const { return type_string() + " '" + name() + "'"; }
  // The index of the first tensor of input argument `arg` (in the op's
  // signature) and how many tensors it has.
  Status InputRange(const std::string& arg, int* start, int* count) const;
  // The functions this node may call: the step's library, or the one the
  // kernel was built with; null if neither.
  FunctionLibraryRuntime* function_library(OpKernelContext* ctx) const {
    return ctx->function_library() != nullptr ? ctx->function_library() : flr_;
  }
  // The function named by attr `attr`, with the tensors of input argument
  // "other_arguments" as its captured inputs.
  StatusOr<std::shared_ptr<const CapturedFunction>> CaptureFunction(OpKernelContext* ctx,
                                                                    const std::string& attr) const;

 private:
  FunctionLibraryRuntime* const flr_;
  DataTypeVector output_types_;
  std::vector<PartialTensorShape> output_shapes_;
  std::vector<std::pair<std::string, int>> arg_sizes_;  // the op's input args in order, with their tensor counts
};

// Input `i` as a dataset.
StatusOr<DatasetPtr> InputDataset(OpKernelContext* ctx, int i, const char* arg = "input_dataset");
// Input `i` as a scalar of type T (int64, bool, string, int32);
// InvalidArgument naming `arg` otherwise.
template <typename T>
StatusOr<T> ScalarInput(OpKernelContext* ctx, int i, const char* arg) {
  const Tensor& t = ctx->input(i);
  if (t.dims() != 0 || t.dtype() != DataTypeToEnum<T>::value)
    return errors::InvalidArgument(arg, " must be a scalar ", DataTypeName(DataTypeToEnum<T>::value), ", got a ",
                                   DataTypeName(t.dtype()), " tensor of shape ", t.shape().DebugString());
  return t.scalar<T>();
}
// Input `i` as a list of strings (a scalar or a vector).
StatusOr<std::vector<std::string>> StringsInput(OpKernelContext* ctx, int i, const char* arg);

}  // namespace flowvm::data

#endif  // FLOWVM_KERNELS_DATA_DATASET_OP_KERNEL_H_
