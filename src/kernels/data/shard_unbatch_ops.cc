// ShardDataset (every num_shards-th element from `index`: one worker's
// share of a dataset) and UnbatchDataset (each dim-0 slice of each
// element: batching undone).
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/data/tensor_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

class ShardDataset : public UnaryDataset {
 public:
  ShardDataset(std::string node, DatasetPtr input, int64_t num_shards, int64_t index, bool require_non_empty,
               std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)),
        num_shards_(num_shards),
        index_(index),
        require_non_empty_(require_non_empty) {}
  const char* op() const override { return "ShardDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  class Iterator : public DatasetIterator<ShardDataset> {
   public:
    Iterator(IteratorContext* ctx, const ShardDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const ShardDataset* d = dataset();
      while (true) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(d->op()));
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(out, end_of_sequence));
        if (*end_of_sequence) {
          if (d->require_non_empty_ && produced_ == 0 && !reported_) {
            reported_ = true;
            return errors::InvalidArgument(d->DebugString(), ": shard ", d->index_, " of ", d->num_shards_,
                                           " is empty: the input has fewer elements than shards "
                                           "(require_non_empty is set)");
          }
          return Status::OK();
        }
        if (position_++ % d->num_shards_ == d->index_) {
          ++produced_;
          return Status::OK();
        }
        out->clear();
      }
    }

   private:
    std::unique_ptr<IteratorBase> input_;
    int64_t position_ = 0, produced_ = 0;
    bool reported_ = false;
  };

  const int64_t num_shards_, index_;
  const bool require_non_empty_;
};

class UnbatchDataset : public UnaryDataset {
 public:
  UnbatchDataset(std::string node, const char* op, DatasetPtr input, std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)), op_(op) {}
  const char* op() const override { return op_; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  class Iterator : public DatasetIterator<UnbatchDataset> {
   public:
    Iterator(IteratorContext* ctx, const UnbatchDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      while (next_ >= rows_) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(dataset()->op()));
        std::vector<Tensor> batch;
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(&batch, end_of_sequence));
        if (*end_of_sequence) return Status::OK();
        for (size_t c = 0; c < batch.size(); ++c) {
          if (batch[c].dims() == 0)
            return errors::InvalidArgument(dataset()->DebugString(), ": component ", c,
                                           " of an input element is a scalar, which cannot be unbatched");
          if (batch[c].dim_size(0) != batch[0].dim_size(0))
            return errors::InvalidArgument(dataset()->DebugString(), ": the components of an input element differ in "
                                           "their first dimension (", batch[0].dim_size(0), " and ",
                                           batch[c].dim_size(0), ")");
        }
        batch_ = std::move(batch);
        rows_ = batch_[0].dim_size(0);
        next_ = 0;
      }
      out->clear();
      for (const Tensor& t : batch_) {
        FLOWVM_ASSIGN_OR_RETURN(Tensor row, SliceElement(t, next_));
        out->push_back(std::move(row));
      }
      ++next_;
      *end_of_sequence = false;
      return Status::OK();
    }

   private:
    std::unique_ptr<IteratorBase> input_;
    std::vector<Tensor> batch_;
    int64_t rows_ = 0, next_ = 0;
  };

  const char* const op_;
};

class ShardDatasetOp : public DatasetOpKernel {
 public:
  explicit ShardDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("require_non_empty", &require_non_empty_));
  }

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(int64_t num_shards, ScalarInput<int64_t>(ctx, 1, "num_shards"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t index, ScalarInput<int64_t>(ctx, 2, "index"));
    if (num_shards <= 0) return errors::InvalidArgument("Number of shards must be greater than zero (currently num_shards = ", num_shards, ").");
    if (index < 0 || index >= num_shards)
      return errors::InvalidArgument("Index must be between 0 and ", num_shards - 1, " (currently index = ", index, ").");
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    return DatasetPtr(std::make_shared<ShardDataset>(name(), std::move(input), num_shards, index, require_non_empty_,
                                                     output_shapes()));
  }

 private:
  bool require_non_empty_ = false;
};

class UnbatchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    const char* op = type_string() == "UnbatchDataset" ? "UnbatchDataset" : "ExperimentalUnbatchDataset";
    return DatasetPtr(std::make_shared<UnbatchDataset>(name(), op, std::move(input), output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ShardDataset").Device(DEVICE_CPU), ShardDatasetOp);
REGISTER_KERNEL_BUILDER(Name("UnbatchDataset").Device(DEVICE_CPU), UnbatchDatasetOp);
REGISTER_KERNEL_BUILDER(Name("ExperimentalUnbatchDataset").Device(DEVICE_CPU), UnbatchDatasetOp);

}  // namespace flowvm::data
