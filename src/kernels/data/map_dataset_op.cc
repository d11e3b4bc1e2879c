// MapDataset: f(element..., captured...) of each input element, in order.
// An OutOfRange error from f ends the sequence (TF), unless
// preserve_cardinality asks for it to be an error. use_inter_op_parallelism
// is accepted and has no effect (a function body always runs on its
// device's threads). ParallelMapDataset: parallel_map_dataset_op.cc.
#include "kernels/data/captured_function.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

class MapDataset : public UnaryDataset {
 public:
  MapDataset(std::string node, DatasetPtr input, std::shared_ptr<const CapturedFunction> f, bool preserve_cardinality,
             DataTypeVector types, std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), types, std::move(shapes)),
        types_(std::move(types)),
        f_(std::move(f)),
        preserve_cardinality_(preserve_cardinality) {}
  const char* op() const override { return "MapDataset"; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  class Iterator : public DatasetIterator<MapDataset> {
   public:
    Iterator(IteratorContext* ctx, const MapDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {}
    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const MapDataset* d = dataset();
      if (ended_) {
        *end_of_sequence = true;
        return Status::OK();
      }
      std::vector<Tensor> args;
      FLOWVM_RETURN_IF_ERROR(input_->GetNext(&args, end_of_sequence));
      if (*end_of_sequence) return Status::OK();
      Status s = d->f_->RunAndCheck(ctx(), std::move(args), d->types_, out);
      if (s.code() == Code::kOutOfRange && !d->preserve_cardinality_) {
        ended_ = true;
        *end_of_sequence = true;
        out->clear();
        return Status::OK();
      }
      return MapFunctionStatus(s, d->preserve_cardinality_);
    }

   private:
    std::unique_ptr<IteratorBase> input_;
    bool ended_ = false;
  };

  const DataTypeVector types_;
  const std::shared_ptr<const CapturedFunction> f_;
  const bool preserve_cardinality_;
};

class MapDatasetOp : public DatasetOpKernel {
 public:
  explicit MapDatasetOp(OpKernelConstruction* ctx) : DatasetOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("preserve_cardinality", &preserve_cardinality_));
  }

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(std::shared_ptr<const CapturedFunction> f,
                            CaptureFunction(ctx, "f"));
    return DatasetPtr(std::make_shared<MapDataset>(name(), std::move(input), std::move(f), preserve_cardinality_,
                                                   output_types(), output_shapes()));
  }

 private:
  bool preserve_cardinality_ = false;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("MapDataset").Device(DEVICE_CPU), MapDatasetOp);

}  // namespace flowvm::data
