// ParallelMapDataset: MapDataset with up to num_parallel_calls calls of f
// running at once (AUTOTUNE, -1: one per hardware thread). A runner thread
// pulls input elements ahead and hands each call to a pool of the
// iterator's own threads (a body run synchronously never waits for a
// thread it holds); results leave in input order, also with sloppy (which
// only allows reordering). Threads start on the first GetNext and are
// joined when the iterator goes.
#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "core/thread_pool.h"
#include "kernels/data/captured_function.h"
#include "kernels/data/dataset_factories.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

class ParallelMapDataset : public UnaryDataset {
 public:
  ParallelMapDataset(std::string node, DatasetPtr input, std::shared_ptr<const CapturedFunction> f, int parallelism,
                     bool preserve_cardinality, DataTypeVector types, std::vector<PartialTensorShape> shapes,
                     const char* op)
      : UnaryDataset(std::move(node), std::move(input), types, std::move(shapes)),
        op_(op),
        types_(std::move(types)),
        f_(std::move(f)),
        parallelism_(parallelism),
        preserve_cardinality_(preserve_cardinality) {}
  const char* op() const override { return op_; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  // One input element's call, in input order.
  struct Call {
    bool done = false;
    bool end = false;  // the input ended here (nothing was called)
    Status status;
    std::vector<Tensor> result;
  };

  class Iterator : public DatasetIterator<ParallelMapDataset> {
   public:
    Iterator(IteratorContext* ctx, const ParallelMapDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {
      on_cancel_ = std::make_unique<CancelCallback>(ctx->cancellation, [this] { Stop(); });
    }
    ~Iterator() override {
      on_cancel_.reset();
      Stop();
      if (runner_.joinable()) runner_.join();
      pool_.reset();  // runs the calls still queued (they see stopping_), joins
    }

    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      std::unique_lock<std::mutex> lock(mu_);
      if (!runner_.joinable() && !stopping_) {
        pool_ = std::make_unique<ThreadPool>("parallel_map", dataset()->parallelism_, /*spin_us=*/0);
        runner_ = std::thread([this] { Run(); });
      }
      cv_.wait(lock, [this] { return stopping_ || (!calls_.empty() && calls_.front()->done); });
      if (stopping_)
        return errors::Cancelled(dataset()->DebugString(), ": the iterator was cancelled while waiting for an element");
      std::shared_ptr<Call> call = calls_.front();
      if (call->end || ended_) {
        *end_of_sequence = true;
        return Status::OK();
      }
      calls_.pop_front();
      cv_.notify_all();
      *end_of_sequence = false;
      const ParallelMapDataset* d = dataset();
      if (call->status.code() == Code::kOutOfRange && !d->preserve_cardinality_) {
        ended_ = true;  // f's OutOfRange ends the sequence
        *end_of_sequence = true;
        return Status::OK();
      }
      if (!call->status.ok()) return MapFunctionStatus(call->status, d->preserve_cardinality_);
      *out = std::move(call->result);
      return Status::OK();
    }

   private:
    void Stop() {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      cv_.notify_all();
    }

    // The runner: keeps up to `parallelism` calls queued or running.
    void Run() {
      const ParallelMapDataset* d = dataset();
      while (true) {
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [&] { return stopping_ || calls_.size() < static_cast<size_t>(d->parallelism_); });
          if (stopping_) return;
        }
        auto call = std::make_shared<Call>();
        std::vector<Tensor> args;
        bool end = false;
        Status s = input_->GetNext(&args, &end);
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return;
        calls_.push_back(call);
        if (!s.ok() || end) {
          call->status = s;
          call->end = s.ok();
          call->done = true;
          cv_.notify_all();
          if (call->end) return;
          continue;
        }
        pool_->Schedule([this, call, args = std::move(args)]() mutable {
          {
            std::lock_guard<std::mutex> lock(mu_);
            if (stopping_) return;
          }
          std::vector<Tensor> result;
          Status st = dataset()->f_->RunAndCheck(ctx(), std::move(args), dataset()->types_, &result);
          std::lock_guard<std::mutex> lock(mu_);
          call->status = st;
          call->result = std::move(result);
          call->done = true;
          cv_.notify_all();
        });
      }
    }

    std::unique_ptr<IteratorBase> input_;  // used by the runner only
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<std::shared_ptr<Call>> calls_;  // guarded by mu_
    bool stopping_ = false;                    // guarded by mu_
    bool ended_ = false;                       // guarded by mu_
    std::unique_ptr<ThreadPool> pool_;
    std::thread runner_;
    std::unique_ptr<CancelCallback> on_cancel_;  // made last: its callback uses the members above
  };

  const char* const op_;
  const DataTypeVector types_;
  const std::shared_ptr<const CapturedFunction> f_;
  const int parallelism_;
  const bool preserve_cardinality_;
};

// The number of calls at once: -1 (AUTOTUNE) is one per hardware thread.
StatusOr<int> Parallelism(int64_t calls) {
  if (calls == -1) return ThreadPool::HardwareConcurrency();
  if (calls <= 0) return errors::InvalidArgument("num_parallel_calls must be greater than zero.");
  return static_cast<int>(std::min<int64_t>(calls, 256));
}

class ParallelMapDatasetOp : public DatasetOpKernel {
 public:
  explicit ParallelMapDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
  }

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(int32_t calls, ScalarInput<int32_t>(ctx, ctx->num_inputs() - 1, "num_parallel_calls"));
    FLOWVM_ASSIGN_OR_RETURN(int parallelism, Parallelism(calls));
    FLOWVM_ASSIGN_OR_RETURN(std::shared_ptr<const CapturedFunction> f,
                            CaptureFunction(ctx, "f"));
    return NewParallelMapDataset(name(), std::move(input), std::move(f), parallelism, preserve_cardinality_,
                                 output_types(), output_shapes());
  }

 private:
  bool preserve_cardinality_ = false;
};

// MapAndBatchDataset (and its Experimental name): the fused map-then-batch
// of tf.data.experimental.map_and_batch, built as a ParallelMapDataset
// under a BatchDatasetV2.
class MapAndBatchDatasetOp : public DatasetOpKernel {
 public:
  explicit MapAndBatchDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
  }

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    const int n = ctx->num_inputs();
    FLOWVM_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInput<int64_t>(ctx, n - 3, "batch_size"));
    FLOWVM_ASSIGN_OR_RETURN(int64_t calls, ScalarInput<int64_t>(ctx, n - 2, "num_parallel_calls"));
    FLOWVM_ASSIGN_OR_RETURN(bool drop_remainder, ScalarInput<bool>(ctx, n - 1, "drop_remainder"));
    if (batch_size <= 0) return errors::InvalidArgument("batch_size must be greater than zero.");
    FLOWVM_ASSIGN_OR_RETURN(int parallelism, Parallelism(calls));
    FLOWVM_ASSIGN_OR_RETURN(std::shared_ptr<const CapturedFunction> f,
                            CaptureFunction(ctx, "f"));
    // The mapped elements' shapes: the batches' without their first dimension.
    std::vector<PartialTensorShape> element_shapes;
    for (const PartialTensorShape& s : output_shapes()) {
      if (s.unknown_rank() || s.dims() == 0) {
        element_shapes.push_back(PartialTensorShape());
        continue;
      }
      std::vector<int64_t> dims(s.dim_sizes().begin() + 1, s.dim_sizes().end());
      FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape e, PartialTensorShape::FromDims(dims));
      element_shapes.push_back(std::move(e));
    }
    DatasetPtr mapped = NewParallelMapDataset(name(), std::move(input), std::move(f), parallelism,
                                              preserve_cardinality_, output_types(), element_shapes,
                                              "MapAndBatchDataset");
    return NewBatchDataset(name(), std::move(mapped), batch_size, drop_remainder, output_shapes(),
                           "MapAndBatchDataset");
  }

 private:
  bool preserve_cardinality_ = false;
};

}  // namespace

DatasetPtr NewParallelMapDataset(std::string node, DatasetPtr input, std::shared_ptr<const CapturedFunction> f,
                                 int parallelism, bool preserve_cardinality, DataTypeVector types,
                                 std::vector<PartialTensorShape> shapes, const char* op) {
  return std::make_shared<ParallelMapDataset>(std::move(node), std::move(input), std::move(f), parallelism,
                                              preserve_cardinality, std::move(types), std::move(shapes), op);
}

REGISTER_KERNEL_BUILDER(Name("ParallelMapDataset").Device(DEVICE_CPU), ParallelMapDatasetOp);
REGISTER_KERNEL_BUILDER(Name("MapAndBatchDataset").Device(DEVICE_CPU), MapAndBatchDatasetOp);
REGISTER_KERNEL_BUILDER(Name("ExperimentalMapAndBatchDataset").Device(DEVICE_CPU), MapAndBatchDatasetOp);

}  // namespace flowvm::data
