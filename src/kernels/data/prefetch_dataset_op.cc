// PrefetchDataset: a background thread, started on the first GetNext, pulls
// the input's elements into a buffer of up to buffer_size (AUTOTUNE, -1:
// kAutotuneBuffer; 0: no prefetching), so producing the next element
// overlaps the step that consumes this one. Errors travel through the
// buffer in order. The thread stops and is joined when the iterator goes
// (its context is cancelled first, so a blocked input returns soon).
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

constexpr int64_t kAutotuneBuffer = 16;

class PrefetchDataset : public UnaryDataset {
 public:
  PrefetchDataset(std::string node, DatasetPtr input, int64_t buffer_size, std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)), buffer_size_(buffer_size) {}
  const char* op() const override { return "PrefetchDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    if (buffer_size_ == 0) return input;
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  struct Item {
    Status status;
    bool end = false;
    std::vector<Tensor> element;
  };

  class Iterator : public DatasetIterator<PrefetchDataset> {
   public:
    Iterator(IteratorContext* ctx, const PrefetchDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {
      on_cancel_ = std::make_unique<CancelCallback>(ctx->cancellation, [this] { Stop(); });
    }
    ~Iterator() override {
      on_cancel_.reset();
      Stop();
      if (thread_.joinable()) thread_.join();
    }

    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      std::unique_lock<std::mutex> lock(mu_);
      if (!thread_.joinable() && !stopping_) thread_ = std::thread([this] { Produce(); });
      cv_.wait(lock, [this] { return !buffer_.empty() || stopping_; });
      if (buffer_.empty())
        return errors::Cancelled(dataset()->DebugString(), ": the iterator was cancelled while waiting for an element");
      Item& front = buffer_.front();
      if (front.end) {  // stays, so that later calls end too
        *end_of_sequence = true;
        return Status::OK();
      }
      Item item = std::move(front);
      buffer_.pop_front();
      cv_.notify_all();
      *end_of_sequence = false;
      if (!item.status.ok()) return item.status;
      *out = std::move(item.element);
      return Status::OK();
    }

    bool TryGetNextReady(std::vector<Tensor>* out) override {
      std::lock_guard<std::mutex> lock(mu_);
      if (buffer_.empty() || buffer_.front().end || !buffer_.front().status.ok()) return false;
      *out = std::move(buffer_.front().element);
      buffer_.pop_front();
      cv_.notify_all();
      return true;
    }

   private:
    size_t capacity() const {
      const int64_t b = dataset()->buffer_size_;
      return static_cast<size_t>(b < 0 ? kAutotuneBuffer : b);
    }

    void Stop() {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
      cv_.notify_all();
    }

    void Produce() {
      while (true) {
        {
          std::unique_lock<std::mutex> lock(mu_);
          cv_.wait(lock, [this] { return buffer_.size() < capacity() || stopping_; });
          if (stopping_) return;
        }
        Item item;
        item.status = input_->GetNext(&item.element, &item.end);
        std::lock_guard<std::mutex> lock(mu_);
        if (stopping_) return;
        const bool end = item.status.ok() && item.end;
        buffer_.push_back(std::move(item));
        cv_.notify_all();
        if (end) return;
      }
    }

    std::unique_ptr<IteratorBase> input_;  // used by the thread only
    std::mutex mu_;
    std::condition_variable cv_;
    std::deque<Item> buffer_;  // guarded by mu_
    bool stopping_ = false;    // guarded by mu_
    std::thread thread_;
    std::unique_ptr<CancelCallback> on_cancel_;  // made last: its callback uses the members above
  };

  const int64_t buffer_size_;
};

class PrefetchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(int64_t buffer_size, ScalarInput<int64_t>(ctx, 1, "buffer_size"));
    if (buffer_size < -1) return errors::InvalidArgument("buffer_size must be >= 0 or -1 (AUTOTUNE), got ", buffer_size);
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    return DatasetPtr(std::make_shared<PrefetchDataset>(name(), std::move(input), buffer_size, output_shapes()));
  }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("PrefetchDataset").Device(DEVICE_CPU), PrefetchDatasetOp);

}  // namespace flowvm::data
