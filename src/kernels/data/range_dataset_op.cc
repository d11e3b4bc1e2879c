// RangeDataset: start, start + step, ... while before stop (Python's range).
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

class RangeDataset : public DatasetBase {
 public:
  RangeDataset(std::string node, int64_t start, int64_t stop, int64_t step, std::vector<PartialTensorShape> shapes)
      : DatasetBase(std::move(node), {DT_INT64}, std::move(shapes)), start_(start), stop_(stop), step_(step) {}
  const char* op() const override { return "RangeDataset"; }

  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this));
  }

 private:
  class Iterator : public DatasetIterator<RangeDataset> {
   public:
    Iterator(IteratorContext* ctx, const RangeDataset* d) : DatasetIterator(ctx, d), next_(d->start_) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const RangeDataset* d = dataset();
      *end_of_sequence = done_ || (d->step_ > 0 ? next_ >= d->stop_ : next_ <= d->stop_);
      if (*end_of_sequence) return Status::OK();
      out->assign(1, Tensor::Scalar<int64_t>(next_));
      // Stops before the addition could overflow.
      if (__builtin_add_overflow(next_, d->step_, &next_)) done_ = true;
      return Status::OK();
    }

   private:
    int64_t next_;
    bool done_ = false;
  };

  const int64_t start_, stop_, step_;
};

class RangeDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(int64_t start, ScalarInput<int64_t>(ctx, 0, "start"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t stop, ScalarInput<int64_t>(ctx, 1, "stop"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t step, ScalarInput<int64_t>(ctx, 2, "step"));
    if (step == 0) return errors::InvalidArgument("step must be a non-zero integer.");
    return DatasetPtr(std::make_shared<RangeDataset>(name(), start, stop, step, output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("RangeDataset").Device(DEVICE_CPU), RangeDatasetOp);

}  // namespace flowvm::data
