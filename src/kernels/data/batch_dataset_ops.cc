// BatchDataset(V2): batch_size consecutive elements stacked along a new
// dimension 0; PaddedBatchDataset(V2): the same, each component first
// padded to its padded shape (-1 dims: the largest in the batch) with its
// padding value. A smaller last batch is kept unless drop_remainder.
#include <algorithm>

#include "kernels/data/dataset_factories.h"
#include "kernels/data/dataset_op_kernel.h"
#include "kernels/data/tensor_util.h"
#include "kernels/framework/kernel_registry.h"

namespace flowvm::data {
namespace {

struct PaddingSpec {
  std::vector<PartialTensorShape> padded_shapes;  // one per component
  std::vector<Tensor> padding_values;             // scalars, one per component
};

class BatchDataset : public UnaryDataset {
 public:
  // `padding` null: plain batching.
  BatchDataset(std::string node, const char* op, DatasetPtr input, int64_t batch_size, bool drop_remainder,
               std::shared_ptr<const PaddingSpec> padding, std::vector<PartialTensorShape> shapes)
      : UnaryDataset(std::move(node), std::move(input), std::move(shapes)),
        op_(op),
        batch_size_(batch_size),
        drop_remainder_(drop_remainder),
        padding_(std::move(padding)) {}
  const char* op() const override { return op_; }
  StatusOr<std::unique_ptr<IteratorBase>> MakeIterator(IteratorContext* ctx) const override {
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<IteratorBase> input, input()->MakeIterator(ctx));
    return std::unique_ptr<IteratorBase>(new Iterator(ctx, this, std::move(input)));
  }

 private:
  class Iterator : public DatasetIterator<BatchDataset> {
   public:
    Iterator(IteratorContext* ctx, const BatchDataset* d, std::unique_ptr<IteratorBase> input)
        : DatasetIterator(ctx, d), input_(std::move(input)) {}

    Status GetNext(std::vector<Tensor>* out, bool* end_of_sequence) override {
      const BatchDataset* d = dataset();
      std::vector<std::vector<Tensor>> elements;
      elements.reserve(static_cast<size_t>(std::min<int64_t>(d->batch_size_, 4096)));
      while (!input_ended_ && static_cast<int64_t>(elements.size()) < d->batch_size_) {
        FLOWVM_RETURN_IF_ERROR(ctx()->CheckCancelled(d->op()));
        std::vector<Tensor> e;
        bool end = false;
        FLOWVM_RETURN_IF_ERROR(input_->GetNext(&e, &end));
        if (end) {
          input_ended_ = true;
          break;
        }
        elements.push_back(std::move(e));
      }
      *end_of_sequence = elements.empty() ||
                         (d->drop_remainder_ && static_cast<int64_t>(elements.size()) < d->batch_size_);
      if (*end_of_sequence) return Status::OK();
      return d->padding_ == nullptr ? Stack(elements, out) : PadAndStack(elements, out);
    }

   private:
    Status Stack(const std::vector<std::vector<Tensor>>& elements, std::vector<Tensor>* out) const {
      out->clear();
      const int64_t n = static_cast<int64_t>(elements.size());
      for (size_t c = 0; c < elements[0].size(); ++c) {
        const Tensor& first = elements[0][c];
        for (int64_t i = 1; i < n; ++i) {
          if (elements[i][c].shape() != first.shape())
            return errors::InvalidArgument("Cannot batch tensors with different shapes in component ", c,
                                           ". First element had shape ", first.shape().DebugString(), " and element ",
                                           i, " had shape ", elements[i][c].shape().DebugString(), ".");
        }
        TensorShape shape = first.shape();
        shape.InsertDim(0, n);
        FLOWVM_ASSIGN_OR_RETURN(Tensor batch, Tensor::Allocate(first.dtype(), shape));
        for (int64_t i = 0; i < n; ++i) CopyElementToRow(elements[i][c], &batch, i);
        out->push_back(std::move(batch));
      }
      return Status::OK();
    }

    Status PadAndStack(const std::vector<std::vector<Tensor>>& elements, std::vector<Tensor>* out) const {
      const PaddingSpec& p = *dataset()->padding_;
      out->clear();
      const int64_t n = static_cast<int64_t>(elements.size());
      for (size_t c = 0; c < elements[0].size(); ++c) {
        const PartialTensorShape& padded = p.padded_shapes[c];
        // The batch's shape: the padded shape, its unknown dims the largest.
        std::vector<int64_t> dims(padded.dim_sizes());
        for (int d = 0; d < padded.dims(); ++d) dims[d] = std::max<int64_t>(dims[d], 0);
        for (int64_t i = 0; i < n; ++i) {
          const Tensor& e = elements[i][c];
          if (e.dims() != padded.dims())
            return errors::InvalidArgument("All elements in a batch must have the same rank as the padded shape for "
                                           "component ", c, ": expected rank ", padded.dims(),
                                           " but got element with rank ", e.dims());
          for (int d = 0; d < e.dims(); ++d) {
            if (padded.dim_size(d) >= 0 && e.dim_size(d) > padded.dim_size(d))
              return errors::DataLoss("Attempted to pad to a smaller size than the input element: component ", c,
                                      " of element ", i, " has shape ", e.shape().DebugString(),
                                      ", the padded shape is ", padded.DebugString());
            if (padded.dim_size(d) < 0) dims[d] = std::max(dims[d], e.dim_size(d));
          }
        }
        dims.insert(dims.begin(), n);
        FLOWVM_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
        FLOWVM_ASSIGN_OR_RETURN(Tensor batch, Tensor::Allocate(p.padding_values[c].dtype(), shape));
        if (elements[0][c].dtype() != batch.dtype())
          return errors::InvalidArgument("component ", c, " is a ", DataTypeName(elements[0][c].dtype()),
                                         " tensor, but its padding value is a ", DataTypeName(batch.dtype()));
        FillWith(p.padding_values[c], &batch);
        for (int64_t i = 0; i < n; ++i) CopyElementToPaddedRow(elements[i][c], &batch, i);
        out->push_back(std::move(batch));
      }
      return Status::OK();
    }

    std::unique_ptr<IteratorBase> input_;
    bool input_ended_ = false;
  };

  const char* const op_;
  const int64_t batch_size_;
  const bool drop_remainder_;
  const std::shared_ptr<const PaddingSpec> padding_;
};

class BatchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInput<int64_t>(ctx, 1, "batch_size"));
    if (batch_size <= 0) return errors::InvalidArgument("Batch size must be greater than zero.");
    bool drop_remainder = false;
    if (ctx->num_inputs() > 2) {
      FLOWVM_ASSIGN_OR_RETURN(drop_remainder, ScalarInput<bool>(ctx, 2, "drop_remainder"));
    }
    FLOWVM_RETURN_IF_ERROR(CheckDatasetMatches(*input, output_types(), {}, Describe()));
    return DatasetPtr(std::make_shared<BatchDataset>(name(), type_string() == "BatchDataset" ? "BatchDataset" : "BatchDatasetV2",
                                                     std::move(input), batch_size, drop_remainder, nullptr,
                                                     output_shapes()));
  }
};

class PaddedBatchDatasetOp : public DatasetOpKernel {
 public:
  using DatasetOpKernel::DatasetOpKernel;

 protected:
  StatusOr<DatasetPtr> MakeDataset(OpKernelContext* ctx) override {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr input, InputDataset(ctx, 0));
    FLOWVM_ASSIGN_OR_RETURN(int64_t batch_size, ScalarInput<int64_t>(ctx, 1, "batch_size"));
    if (batch_size <= 0) return errors::InvalidArgument("Batch size must be greater than zero.");
    int shapes_at = 0, num_shapes = 0, values_at = 0, num_values = 0;
    FLOWVM_RETURN_IF_ERROR(InputRange("padded_shapes", &shapes_at, &num_shapes));
    FLOWVM_RETURN_IF_ERROR(InputRange("padding_values", &values_at, &num_values));
    const bool v2 = type_string() == "PaddedBatchDatasetV2";
    bool drop_remainder = false;
    if (v2) {
      FLOWVM_ASSIGN_OR_RETURN(drop_remainder, ScalarInput<bool>(ctx, ctx->num_inputs() - 1, "drop_remainder"));
    }
    const size_t components = input->output_dtypes().size();
    if (static_cast<size_t>(num_shapes) != components || static_cast<size_t>(num_values) != components)
      return errors::InvalidArgument("Number of padded shapes (", num_shapes, ") and padding values (", num_values,
                                     ") must match the number of components in the input dataset's elements (",
                                     components, ")");
    auto spec = std::make_shared<PaddingSpec>();
    for (int i = 0; i < num_shapes; ++i) {
      const Tensor& s = ctx->input(shapes_at + i);
      if (s.dims() != 1 || s.dtype() != DT_INT64)
        return errors::InvalidArgument("All padded shapes must be int64 vectors, but component ", i, " has a ",
                                       DataTypeName(s.dtype()), " of shape ", s.shape().DebugString());
      std::vector<int64_t> dims(s.data<int64_t>(), s.data<int64_t>() + s.NumElements());
      for (int64_t& d : dims) d = d < 0 ? -1 : d;
      FLOWVM_ASSIGN_OR_RETURN(PartialTensorShape shape, PartialTensorShape::FromDims(dims));
      spec->padded_shapes.push_back(std::move(shape));
      const Tensor& v = ctx->input(values_at + i);
      if (v.dims() != 0)
        return errors::InvalidArgument("All padding values must be scalars, but component ", i, " has shape ",
                                       v.shape().DebugString());
      if (v.dtype() != input->output_dtypes()[i])
        return errors::InvalidArgument("the padding value of component ", i, " is a ", DataTypeName(v.dtype()),
                                       ", but the component is ", DataTypeName(input->output_dtypes()[i]));
      spec->padding_values.push_back(v);
    }
    return DatasetPtr(std::make_shared<BatchDataset>(name(), v2 ? "PaddedBatchDatasetV2" : "PaddedBatchDataset",
                                                     std::move(input), batch_size, drop_remainder, std::move(spec),
                                                     output_shapes()));
  }
};

}  // namespace

DatasetPtr NewBatchDataset(std::string node, DatasetPtr input, int64_t batch_size, bool drop_remainder,
                           std::vector<PartialTensorShape> shapes, const char* op) {
  return std::make_shared<BatchDataset>(std::move(node), op, std::move(input), batch_size, drop_remainder, nullptr,
                                        std::move(shapes));
}

REGISTER_KERNEL_BUILDER(Name("BatchDataset").Device(DEVICE_CPU), BatchDatasetOp);
REGISTER_KERNEL_BUILDER(Name("BatchDatasetV2").Device(DEVICE_CPU), BatchDatasetOp);
REGISTER_KERNEL_BUILDER(Name("PaddedBatchDataset").Device(DEVICE_CPU), PaddedBatchDatasetOp);
REGISTER_KERNEL_BUILDER(Name("PaddedBatchDatasetV2").Device(DEVICE_CPU), PaddedBatchDatasetOp);

}  // namespace flowvm::data
