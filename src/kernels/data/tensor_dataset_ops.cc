// TensorDataset (one element: the inputs) and TensorSliceDataset (each
// dim-0 slice of the inputs). Elements share the inputs' buffers; no kernel
// writes into them, since the dataset holds a reference.
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/data/tensor_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

DataTypeVector TypesOf(const std::vector<Tensor>& ts) {
  DataTypeVector types;
  for (const Tensor& t : ts) types.push_back(t.dtype());
  return types;
}

class TensorDataset : public DatasetBase {
 public:
  TensorDataset(std::string node, std::vector<Tensor> components, std::vector<PartialTensorShape> shapes)
      : DatasetBase(std::move(node), TypesOf(components), std::move(shapes)), components_(std::move(components)) {}
  const char* op() const override { return "TensorDataset"; }

  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this));
  }

 private:
  class Iterator : public DatasetIterator<TensorDataset> {
   public:
    using DatasetIterator::DatasetIterator;
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      *end_of_sequence = done_;
      if (!done_) *out = dataset()->components_;
      done_ = true;
      return Status::OK();
    }

   private:
    bool done_ = false;
  };

  const std::vector<Tensor> components_;
};

class TensorSliceDataset : public DatasetBase {
 public:
  TensorSliceDataset(std::string node, std::vector<Tensor> components, std::vector<PartialTensorShape> shapes)
      : DatasetBase(std::move(node), TypesOf(components), std::move(shapes)), components_(std::move(components)) {}
  const char* op() const override { return "TensorSliceDataset"; }

  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this));
  }

 private:
  class Iterator : public DatasetIterator<TensorSliceDataset> {
   public:
    using DatasetIterator::DatasetIterator;
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const auto& cs = dataset()->components_;
      *end_of_sequence = next_ >= cs[0].dim_size(0);
      if (*end_of_sequence) return Status::OK();
      out->clear();
      out->reserve(cs.size());
      for (const Tensor& c : cs) {
        FLOWVM_ASSIGN_OR_RETURN(Tensor slice, SliceElement(c, next_));
        out->push_back(std::move(slice));
      }
      ++next_;
      return Status::OK();
    }

   private:
    int64_t next_ = 0;
  };

  const std::vector<Tensor> components_;
};

std::vector<Tensor> InputList(OpKernelContext* ctx) {
  std::vector<Tensor> out;
  for (int i = 0; i < ctx->num_inputs(); ++i) out.push_back(ctx->input(i));
  return out;
}

class TensorDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    return DatasetPtr(std::make_shared<TensorDataset>(name(), InputList(ctx), output_shapes()));
  }
};

class TensorSliceDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    std::vector<Tensor> cs = InputList(ctx);
    for (size_t i = 0; i < cs.size(); ++i) {
      if (cs[i].dims() == 0)
        return errors::InvalidArgument("component ", i, " of TensorSliceDataset must have at least one dimension to slice, got a scalar");
      if (cs[i].dim_size(0) != cs[0].dim_size(0))
        return errors::InvalidArgument("all components of TensorSliceDataset must have the same size in the 0th dimension: component 0 has ",
                                       cs[0].dim_size(0), ", component ", i, " has ", cs[i].dim_size(0));
    }
    return DatasetPtr(std::make_shared<TensorSliceDataset>(name(), std::move(cs), output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("TensorDataset").Device(DEVICE_CPU), TensorDatasetOp);
REGISTER_KERNEL_BUILDER(Name("TensorSliceDataset").Device(DEVICE_CPU), TensorSliceDatasetOp);

}  // namespace flowvm::data
