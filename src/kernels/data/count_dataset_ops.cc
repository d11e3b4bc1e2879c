// RepeatDataset, TakeDataset, SkipDataset: the input's elements, counted.
// Also ModelDataset and OptimizeDataset, which TF 1.15's Python wraps
// around every dataset it iterates: here they pass the input through.
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/data/dataset_factories.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

// RepeatDataset: a new pass over the input each time one ends, `count`
// times (-1: for ever). A pass that yields nothing ends it all (else an
// empty input repeated for ever would spin).
class RepeatDataset : public UnaryDataset {
 public:
  RepeatDataset(std::string node, DatasetPtr input, int64_t count, std::vector<PartialTensorShape> shapes,
                const char* op)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)), count_(count), op_(op) {}
  const char* op() const override { return op_; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this));
  }

 private:
  class Iterator : public DatasetIterator<RepeatDataset> {
   public:
    using DatasetIterator::DatasetIterator;
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const RepeatDataset* d = dataset();
      while (true) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(d->op()));
        if (done_ || (d->count_ >= 0 && pass_ >= d->count_)) {
          *end_of_sequence = true;
          return Status::OK();
        }
        if (input_ == nullptr) {
          FLOWVM_ASSIGN_OR_RETURN(input_, d->input()->MakeIterator(ctx()));
          produced_in_pass_ = false;
        }
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(out, end_of_sequence));
        if (!*end_of_sequence) {
          produced_in_pass_ = true;
          return Status::OK();
        }
        input_.reset();
        ++pass_;
        if (!produced_in_pass_) {
          done_ = true;
          return Status::OK();  // *end_of_sequence is true
        }
      }
    }

   private:
    int64_t pass_ = 0;
    bool produced_in_pass_ = false, done_ = false;
    std::unique_ptr<IteratorBase> input_;
  };

  const int64_t count_;
  const char* const op_;
};

// TakeDataset (-1: all) and SkipDataset (-1: all are skipped).
class TakeSkipDataset : public UnaryDataset {
 public:
  TakeSkipDataset(std::string node, DatasetPtr input, int64_t count, bool take, std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)), count_(count), take_(take) {}
  const char* op() const override { return take_ ? "TakeDataset" : "SkipDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  class Iterator : public DatasetIterator<TakeSkipDataset> {
   public:
    Iterator(IteratorContext* ctx, const TakeSkipDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const TakeSkipDataset* d = dataset();
      if (d->take_) {
        if (d->count_ >= 0 && seen_ >= d->count_) {
          *end_of_sequence = true;
          return Status::OK();
        }
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(out, end_of_sequence));
        if (!*end_of_sequence) ++seen_;
        return Status::OK();
      }
      while (d->count_ < 0 || seen_ < d->count_) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(d->op()));
        std::vector<Tensor> skipped;
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(&skipped, end_of_sequence));
        if (*end_of_sequence) return Status::OK();
        ++seen_;
      }
      return input_->GetNext(out, end_of_sequence);
    }

   private:
    std::unique_ptr<IteratorBase> input_;
    int64_t seen_ = 0;
  };

  const int64_t count_;
  const bool take_;
};

// ModelDataset / OptimizeDataset: the input itself.
class PassThroughDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), output_shapes(), Describe()));
    return input;
  }
};

class CountDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(int64_t count, ScalarInput<int64_t>(ctx, 1, "count"));
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    if (type_string() == "RepeatDataset")
      return NewRepeatDataset(name(), std::move(input), count, output_shapes());
    return DatasetPtr(std::make_shared<TakeSkipDataset>(name(), std::move(input), count,
                                                        type_string() == "TakeDataset", output_shapes()));
  }
};

}  // namespace

DatasetPtr NewRepeatDataset(std::string node, DatasetPtr input, int64_t count, std::vector<PartialTensorShape> shapes,
                            const char* op) {
  return std::make_shared<RepeatDataset>(std::move(node), std::move(input), count, std::move(shapes), op);
}

REGISTER_KERNEL_BUILDER(Name("RepeatDataset").Device(DEVICE_CPU), CountDatasetOp);
REGISTER_KERNEL_BUILDER(Name("TakeDataset").Device(DEVICE_CPU), CountDatasetOp);
REGISTER_KERNEL_BUILDER(Name("SkipDataset").Device(DEVICE_CPU), CountDatasetOp);
REGISTER_KERNEL_BUILDER(Name("ModelDataset").Device(DEVICE_CPU), PassThroughDatasetOp);
REGISTER_KERNEL_BUILDER(Name("OptimizeDataset").Device(DEVICE_CPU), PassThroughDatasetOp);

}  // namespace flowvm::data
