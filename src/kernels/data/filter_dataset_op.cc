// FilterDataset: the input elements for which predicate(element...,
// captured...) returns a true scalar bool.
#include "kernels/data/captured_function.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

class FilterDataset : public UnaryDataset {
 public:
  FilterDataset(std::string node, DatasetPtr input, std::shared_ptr<const CapturedFunction> predicate,
                std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)), predicate_(std::move(predicate)) {}
  const char* op() const override { return "FilterDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  class Iterator : public DatasetIterator<FilterDataset> {
   public:
    Iterator(IteratorContext* ctx, const FilterDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      while (true) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(dataset()->op()));
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(out, end_of_sequence));
        if (*end_of_sequence) return Status::OK();
        std::vector<Tensor> keep;
        FLOWVM_RETURN_IF_ERROR(dataset()->predicate_->Run(ctx(), *out, &keep));
        if (keep.size() != 1 || keep[0].dtype() != DT_BOOL || keep[0].NumElements() != 1 || keep[0].dims() != 0)
          return errors::InvalidArgument("Filter predicate `f` must return a scalar bool: ",
                                         dataset()->predicate_->Describe(), " returned ", keep.size(), " values",
                                         keep.empty() ? std::string() : ", the first a " + keep[0].DebugString(4));
        if (keep[0].scalar<bool>()) return Status::OK();
        out->clear();
      }
    }

   private:
    std::unique_ptr<IteratorBase> input_;
  };

  const std::shared_ptr<const CapturedFunction> predicate_;
};

class FilterDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    FLOWVM_ASSIGN_OR_RETURN(std::shared_ptr<const CapturedFunction> predicate,
                            CaptureFunction(ctx, "predicate"));
    return DatasetPtr(std::make_shared<FilterDataset>(name(), std::move(input), std::move(predicate), output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("FilterDataset").Device(DEVICE_CPU), FilterDatasetOp);

}  // namespace flowvm::data
