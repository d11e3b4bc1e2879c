// ZipDataset (one element of each input, side by side; ends with the
// shortest) and ConcatenateDataset (one input after the other).
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

class ZipDataset : public DatasetBase {
 public:
  ZipDataset(std::string node, std::vector<DatasetPtr> inputs, DataTypeVector types,
             std::vector<PartialTensorShape> shapes)
      : DatasetBase(std::move(node), std::move(types), std::move(shapes)), inputs_(std::move(inputs)) {}
  const char* op() const override { return "ZipDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    std::vector<std::unique_ptr<IteratorBase>> its;
    for (const DatasetPtr& in : inputs_) {
      FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> it, in->MakeIterator(ctx));
      its.push_back(std::move(it));
    }
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(its)));
  }

 private:
  class Iterator : public DatasetIterator<ZipDataset> {
   public:
    Iterator(IteratorContext* ctx, const ZipDataset* d, std::vector<std::unique_ptr<IteratorBase>> inputs)
        : DatasetIterator(ctx, d), inputs_(std::move(inputs)) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      *end_of_sequence = ended_;
      if (ended_) return Status::OK();
      out->clear();
      for (auto& in : inputs_) {
        std::vector<Tensor> part;
        FLOWVM_RETURN_IF_ERROR(in->GetNext(&part, end_of_sequence));
        if (*end_of_sequence) {
          ended_ = true;
          out->clear();
          return Status::OK();
        }
        for (Tensor& t : part) out->push_back(std::move(t));
      }
      return Status::OK();
    }

   private:
    std::vector<std::unique_ptr<IteratorBase>> inputs_;
    bool ended_ = false;
  };

  const std::vector<DatasetPtr> inputs_;
};

class ConcatenateDataset : public DatasetBase {
 public:
  ConcatenateDataset(std::string node, DatasetPtr first, DatasetPtr second, std::vector<PartialTensorShape> shapes)
      : DatasetBase(std::move(node), first->output_dtypes(), std::move(shapes)),
        first_(std::move(first)),
        second_(std::move(second)) {}
  const char* op() const override { return "ConcatenateDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> first, first_->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(first)));
  }

 private:
  class Iterator : public DatasetIterator<ConcatenateDataset> {
   public:
    Iterator(IteratorContext* ctx, const ConcatenateDataset* d, std::unique_ptr<IteratorBase> first)
        : DatasetIterator(ctx, d), current_(std::move(first)) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      while (current_ != nullptr) {
        FLOWVM_RETURN_IF_ERROR(current_->GetNext(out, end_of_sequence));
        if (!*end_of_sequence) return Status::OK();
        current_.reset();
        if (on_first_) {
          on_first_ = false;
          FLOWVM_ASSIGN_OR_RETURN(current_, dataset()->second_->MakeIterator(ctx()));
        }
      }
      *end_of_sequence = true;
      return Status::OK();
    }

   private:
    std::unique_ptr<IteratorBase> current_;
    bool on_first_ = true;
  };

  const DatasetPtr first_, second_;
};

class ZipDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::vector<DatasetPtr> inputs;
    DataTypeVector types;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      FLOWVM_ASSIGN_OR_RETURN(DatasetPtr in, InputDataset(ctx, i, "input_datasets"));
      types.insert(types.end(), in->output_dtypes().begin(), in->output_dtypes().end());
      inputs.push_back(std::move(in));
    }
    if (types != output_types())
      return errors::InvalidArgument(Describe(), " declares output_types ", DataTypesString(output_types()),
                                     ", but its inputs produce ", DataTypesString(types));
    return DatasetPtr(std::make_shared<ZipDataset>(name(), std::move(inputs), types, output_shapes()));
  }
};

class ConcatenateDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr first, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr second, InputDataset(ctx, 1, "another_dataset"));
    if (first->output_dtypes() != second->output_dtypes())
      return errors::InvalidArgument("input dataset and dataset to be concatenated have different types: ",
                                     first->DebugString(), " produces ", DataTypesString(first->output_dtypes()),
                                     ", ", second->DebugString(), " produces ",
                                     DataTypesString(second->output_dtypes()));
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*first, output_types(), {}, Describe()));
    return DatasetPtr(std::make_shared<ConcatenateDataset>(name(), std::move(first), std::move(second), output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ZipDataset").Device(DEVICE_CPU), ZipDatasetOp);
REGISTER_KERNEL_BUILDER(Name("ConcatenateDataset").Device(DEVICE_CPU), ConcatenateDatasetOp);

}  // namespace flowvm::data
