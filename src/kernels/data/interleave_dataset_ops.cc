// FlatMapDataset and InterleaveDataset: f maps each input element to a
// dataset (its body holds dataset ops); the outputs are those datasets'
// elements. FlatMap reads them one after the other. Interleave keeps up to
// cycle_length of them open and takes block_length elements from each in
// turn, in TF's deterministic order: an exhausted one's place in the
// cycle goes to the next input element when the cycle comes back to it.
#include "core/thread_pool.h"
#include "kernels/data/captured_function.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

constexpr int64_t kMaxCycleLength = 1 << 16;

class InterleaveDataset : public UnaryDataset {
 public:
  // FlatMap is Interleave with cycle_length 1 (and any block length).
  InterleaveDataset(std::string node, const char* op, DatasetPtr input, std::shared_ptr<const CapturedFunction> f,
                    int64_t cycle_length, int64_t block_length, DataTypeVector types,
                    std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(types), std::move(shapes)),
        op_(op),
        f_(std::move(f)),
        cycle_length_(cycle_length),
        block_length_(block_length) {}
  const char* op() const override { return op_; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  class Iterator : public DatasetIterator<InterleaveDataset> {
   public:
    Iterator(IteratorContext* ctx, const InterleaveDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)), cycle_(static_cast<size_t>(d->cycle_length_)) {}

    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const InterleaveDataset* d = dataset();
      while (!input_ended_ || open_ > 0) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(d->op()));
        std::unique_ptr<IteratorBase>& slot = cycle_[index_];
        if (slot != nullptr) {
          bool end = false;
          FLOWVM_RETURN_IF_ERROR(slot->GetNext(out, &end));
          if (!end) {
            if (++in_block_ == d->block_length_) Advance();
            *end_of_sequence = false;
            return Status::OK();
          }
          slot.reset();
          --open_;
          Advance();
        } else if (!input_ended_) {
          std::vector<Tensor> args;
          FLOWVM_RETURN_IF_ERROR(input_->GetNext(&args, &input_ended_));
          if (input_ended_) continue;
          FLOWVM_ASSIGN_OR_RETURN(slot, MakeElementIterator(std::move(args)));
          ++open_;
        } else {
          Advance();
        }
      }
      *end_of_sequence = true;
      return Status::OK();
    }

   private:
    void Advance() {
      index_ = (index_ + 1) % cycle_.size();
      in_block_ = 0;
    }

    StatusOr<std::unique_ptr<IteratorBase>> MakeElementIterator(std::vector<Tensor> args) {
      const InterleaveDataset* d = dataset();
      std::vector<Tensor> rets;
      FLOWVM_RETURN_IF_ERROR(d->f_->RunAndCheck(ctx(), std::move(args), {DT_VARIANT}, &rets));
      FLOWVM_ASSIGN_OR_RETURN(DatasetPtr inner, DatasetFromTensor(rets[0], "the value " + d->f_->Describe() + " returned"));
      FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*inner, d->output_dtypes(), {}, d->DebugString()));
      return inner->MakeIterator(ctx());
    }

    std::unique_ptr<IteratorBase> input_;
    bool input_ended_ = false;
    std::vector<std::unique_ptr<IteratorBase>> cycle_;
    size_t index_ = 0;     // the cycle's current place
    int64_t in_block_ = 0;  // elements taken from it in this turn
    int open_ = 0;          // non-null places
  };

  const char* const op_;
  const std::shared_ptr<const CapturedFunction> f_;
  const int64_t cycle_length_, block_length_;
};

class InterleaveDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    int64_t cycle_length = 1, block_length = 1;
    const bool flat_map = type_string() == "FlatMapDataset";
    if (!flat_map) {
      FLOWVM_ASSIGN_OR_RETURN(cycle_length, ScalarInput<int64_t>(ctx, ctx->num_inputs() - 2, "cycle_length"));
      FLOWVM_ASSIGN_OR_RETURN(block_length, ScalarInput<int64_t>(ctx, ctx->num_inputs() - 1, "block_length"));
      if (cycle_length == -1) cycle_length = ThreadPool::HardwareConcurrency();  // AUTOTUNE
      if (cycle_length <= 0) return errors::InvalidArgument("cycle_length must be greater than zero.");
      if (cycle_length > kMaxCycleLength)
        return errors::InvalidArgument("cycle_length ", cycle_length, " is larger than ", kMaxCycleLength,
                                       ", the most datasets InterleaveDataset keeps open");
      if (block_length <= 0) return errors::InvalidArgument("block_length must be greater than zero.");
    } else {
      block_length = INT64_MAX;
    }
    FLOWVM_ASSIGN_OR_RETURN(std::shared_ptr<const CapturedFunction> f,
                            CaptureFunction(ctx, "f"));
    return DatasetPtr(std::make_shared<InterleaveDataset>(name(), flat_map ? "FlatMapDataset" : "InterleaveDataset",
                                                          std::move(input), std::move(f), cycle_length, block_length,
                                                          output_types(), output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("FlatMapDataset").Device(DEVICE_CPU), InterleaveDatasetOp);
REGISTER_KERNEL_BUILDER(Name("InterleaveDataset").Device(DEVICE_CPU), InterleaveDatasetOp);

}  // namespace flowvm::data
