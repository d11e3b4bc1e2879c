// ShuffleDataset: fills a buffer of buffer_size elements, then outputs a
// random one of them and refills its place from the input (TF's
// algorithm; the random stream is ours, so orders differ from TF's).
//
// Seeds: (seed, seed2) fix the orders; both 0 draws random ones when the
// dataset is made (TF). With reshuffle_each_iteration, each iterator of
// the dataset (each epoch under a RepeatDataset, and each re-initialization
// of the iterator resource, whose seed streams outlive its passes: TF
// 1.15's seed generators) takes the next seed of a stream seeded by them,
// so epochs differ but the sequence of epochs is the same run after run;
// without it every iterator uses the same order.
#include <mutex>
#include <random>

#include "kernels/data/dataset_op_kernel.h"
#include "kernels/data/dataset_factories.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

uint64_t Mix(uint64_t a, uint64_t b) {
  // splitmix64 of the pair: nearby seeds give unrelated streams.
  uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class ShuffleDataset : public UnaryDataset {
 public:
  ShuffleDataset(std::string node, DatasetPtr input, int64_t buffer_size, uint64_t seed, bool reshuffle,
                 std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)),
        buffer_size_(buffer_size),
        seed_(seed),
        reshuffle_(reshuffle),
        seeds_(seed) {}
  const char* op() const override { return "ShuffleDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    uint64_t seed = seed_;
    if (reshuffle_ && ctx->seeds != nullptr) {
      seed = ctx->seeds->Next(node() + "/" + std::to_string(seed_), seed_);
    } else if (reshuffle_) {
      std::lock_guard<std::mutex> lock(mu_);
      seed = seeds_();
    }
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input), seed));
  }

 private:
  class Iterator : public DatasetIterator<ShuffleDataset> {
   public:
    Iterator(IteratorContext* ctx, const ShuffleDataset* d, std::unique_ptr<IteratorBase> input, uint64_t seed)
        : DatasetIterator(ctx, d), input_(std::move(input)), rng_(seed) {}

    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const size_t capacity = static_cast<size_t>(dataset()->buffer_size_);
      while (!input_ended_ && buffer_.size() < capacity) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(dataset()->op()));
        std::vector<Tensor> e;
        bool end = false;
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(&e, &end));
        if (end) {
          input_ended_ = true;
          input_.reset();
          break;
        }
        buffer_.push_back(std::move(e));
      }
      *end_of_sequence = buffer_.empty();
      if (*end_of_sequence) return Status::OK();
      const size_t pick = std::uniform_int_distribution<size_t>(0, buffer_.size() - 1)(rng_);
      *out = std::move(buffer_[pick]);
      // The last element fills the hole; the next input element is
      // appended by the next call.
      if (pick != buffer_.size() - 1) buffer_[pick] = std::move(buffer_.back());
      buffer_.pop_back();
      return Status::OK();
    }

   private:
    std::unique_ptr<IteratorBase> input_;
    bool input_ended_ = false;
    std::vector<std::vector<Tensor>> buffer_;
    std::mt19937_64 rng_;
  };

  const int64_t buffer_size_;
  const uint64_t seed_;
  const bool reshuffle_;
  mutable std::mutex mu_;
  mutable std::mt19937_64 seeds_;  // guarded by mu_
};

// ShuffleDataset, and ShuffleAndRepeatDataset (a reshuffling ShuffleDataset
// under a RepeatDataset, as TF's fused op behaves).
class ShuffleDatasetOp : public DatasetOpKernel {
 public:
  explicit ShuffleDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    if (def().attr().count("reshuffle_each_iteration"))
      OP_REQUIRES_OK(ctx, ctx->GetAttr("reshuffle_each_iteration", &reshuffle_));
  }

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(int64_t buffer_size, ScalarInput<int64_t>(ctx, 1, "buffer_size"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t seed, ScalarInput<int64_t>(ctx, 2, "seed"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t seed2, ScalarInput<int64_t>(ctx, 3, "seed2"));
    if (buffer_size <= 0) return errors::InvalidArgument("buffer_size must be greater than zero.");
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    uint64_t mixed;
    if (seed == 0 && seed2 == 0) {
      std::random_device rd;
      mixed = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    } else {
      mixed = Mix(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
    }
    auto shuffled =
        std::make_shared<ShuffleDataset>(name(), std::move(input), buffer_size, mixed, reshuffle_, output_shapes());
    if (type_string() != "ShuffleAndRepeatDataset") return DatasetPtr(shuffled);
    FLOWVM_ASSIGN_OR_RETURN(int64_t count, ScalarInput<int64_t>(ctx, 4, "count"));
    return NewRepeatDataset(name(), std::move(shuffled), count, output_shapes(), "ShuffleAndRepeatDataset");
  }

 private:
  bool reshuffle_ = true;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("ShuffleDataset").Device(DEVICE_CPU), ShuffleDatasetOp);
REGISTER_KERNEL_BUILDER(Name("ShuffleAndRepeatDataset").Device(DEVICE_CPU), ShuffleDatasetOp);

}  // namespace flowvm::data
