// Kernels of the TensorArrayV3 family (ops/tensor_array_ops.cc) over the
// TensorArray resource (kernels/data_flow/tensor_array.h). An array is made
// anew by every run of TensorArrayV3 (a TensorArrayV3 in a loop body gives
// each iteration its own), in its step's container; its gradient array for
// a given `source` is made once, by the first TensorArrayGradV3 that asks,
// and shared by every later one. Ops that take a flow_in only order
// themselves by it; those that change the array pass it on as flow_out.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "kernels/data_flow/step_container.h"
#include "kernels/data_flow/tensor_array.h"
#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"
#include "kernels/framework/resource_handles.h"

namespace flowvm {
namespace {

const char kTypeName[] = "TensorArray";

Status GetTensorArray(OpKernelContext* ctx, std::shared_ptr<TensorArray>* ta) {
  return LookupResource(ctx, 0, "TensorArray", ta);
}

Tensor FloatScalar(float v) { return Tensor::Scalar<float>(v); }

// Copies n elements of `from` starting at element from_at into `to` at
// element to_at (types a Tensor can copy element by element: numbers, bool,
// strings).
Status CopyElements(const Tensor& from, int64_t from_at, Tensor* to, int64_t to_at, int64_t n, const TensorArray& ta) {
  if (n == 0) return Status::OK();
  if (from.dtype() == DT_STRING) {
    const std::string* src = from.data<std::string>() + from_at;
    std::string* dst = to->data<std::string>() + to_at;
    for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
    return Status::OK();
  }
  const size_t size = DataTypeSize(from.dtype());
  if (size == 0)
    return errors::Unimplemented(ta.DebugString(), ": elements of type ", DataTypeName(from.dtype()),
                                 " cannot be copied into one tensor");
  std::memcpy(static_cast<char*>(to->raw_data()) + to_at * size,
              static_cast<const char*>(from.raw_data()) + from_at * size, n * size);
  return Status::OK();
}

Status CheckDtype(const TensorArray& ta, DataType requested) {
  if (requested != ta.dtype())
    return errors::InvalidArgument(ta.DebugString(), ": TensorArray dtype is ", DataTypeName(ta.dtype()),
                                   " but Op requested dtype ", DataTypeName(requested), ".");
  return Status::OK();
}

Status CheckWriteDtype(const TensorArray& ta, DataType written) {
  if (written != ta.dtype())
    return errors::InvalidArgument(ta.DebugString(), ": TensorArray dtype is ", DataTypeName(ta.dtype()),
                                   " but Op is trying to write dtype ", DataTypeName(written), ".");
  return Status::OK();
}

// ---- creation ----

class TensorArrayOp : public OpKernel {
 public:
  explicit TensorArrayOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &options_.dtype));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &options_.element_shape));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dynamic_size", &options_.dynamic_size));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("clear_after_read", &options_.clear_after_read));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("identical_element_shapes", &options_.identical_element_shapes));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("tensor_array_name", &tensor_array_name_));
    if (tensor_array_name_.empty()) tensor_array_name_ = name();
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& size = ctx->input(0);
    OP_REQUIRES(ctx, size.dims() == 0,
                errors::InvalidArgument("TensorArray ", tensor_array_name_, ": TensorArray size must be scalar, ",
                                        "but had shape: ", size.shape().DebugString()));
    TensorArray::Options options = options_;
    options.size = size.scalar<int32_t>();
    OP_REQUIRES(ctx, options.size >= 0,
                errors::InvalidArgument("TensorArray ", tensor_array_name_, ": Size should be >= 0, not ",
                                        options.size, "."));
    auto container = StepContainerForStep(ctx, "TensorArray " + tensor_array_name_);
    OP_REQUIRES_OK(ctx, container.status());
    // Every run makes an array of its own (TensorFlow's rule).
    static std::atomic<int64_t> counter{0};
    const std::string name = tensor_array_name_ + "_" + std::to_string(counter.fetch_add(1));
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, ctx->resource_manager()->LookupOrCreate<TensorArray>(
                            *container, name, &ta, [&]() -> StatusOr<std::shared_ptr<TensorArray>> {
                              return std::make_shared<TensorArray>(name, options);
                            }));
    ctx->KeepAliveForStep(ta);
    ctx->set_output(0, MakeResourceHandleTensor(ctx, *container, name, kTypeName));
    ctx->set_output(1, FloatScalar(0));
  }
  bool IsExpensive() const override { return false; }

 private:
  TensorArray::Options options_;
  std::string tensor_array_name_;
};

// TensorArrayGradV3 and TensorArrayGradWithShape (input 2: shape_to_prepend).
class TensorArrayGradOp : public OpKernel {
 public:
  explicit TensorArrayGradOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("source", &source_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto handle = HandleFromInput(ctx, 0);
    OP_REQUIRES_OK(ctx, handle.status());
    std::shared_ptr<TensorArray> forward;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &forward));
    // From now on the forward array keeps its size: the gradient array has
    // the same.
    forward->DisableDynamicSize();
    auto size = forward->Size();
    OP_REQUIRES_OK(ctx, size.status());
    auto marked = forward->MarkedSize();
    OP_REQUIRES_OK(ctx, marked.status());
    OP_REQUIRES(ctx, forward->GradientsAllowed(),
                errors::InvalidArgument("Unable to create a gradients TensorArray for ", forward->name(),
                                        ".  Perhaps you used the multiple_writes_aggregate flag on a previous "
                                        "write?  Gradient calculation is impossible when multiple writes are "
                                        "performed to the same index."));
    TensorShape prepend;
    const bool with_shape = ctx->num_inputs() > 2;
    PartialTensorShape element_shape = forward->element_shape();
    if (with_shape) {
      const Tensor& s = ctx->input(2);
      OP_REQUIRES(ctx, s.dims() == 1,
                  errors::InvalidArgument(forward->DebugString(), ": shape_to_prepend must be a vector, but had ",
                                          "shape: ", s.shape().DebugString()));
      std::vector<int64_t> dims;
      for (int32_t d : s.flat<int32_t>()) dims.push_back(d);
      auto p = TensorShape::FromDims(dims);
      OP_REQUIRES(ctx, p.ok(),
                  errors::InvalidArgument(forward->DebugString(), ": shape_to_prepend ", s.ValuesString(),
                                          " is not a shape: ", p.status().message()));
      prepend = *p;
      if (!element_shape.unknown_rank()) {
        std::vector<int64_t> all = prepend.dim_sizes();
        for (int64_t d : element_shape.dim_sizes()) all.push_back(d);
        element_shape = *PartialTensorShape::FromDims(all);
      }
    }
    TensorArray::Options options;
    options.dtype = forward->dtype();
    options.size = *size;
    options.element_shape = element_shape;
    options.identical_element_shapes = forward->identical_element_shapes();
    options.dynamic_size = false;
    options.clear_after_read = true;
    options.is_grad = true;
    options.marked_size = *marked;
    const std::string name = forward->name() + "@" + source_;
    std::shared_ptr<TensorArray> grad;
    ResourceMgr* rm = ctx->resource_manager();
    // The gradient array of (forward, source) is made once; every caller
    // after the first gets the same.
    OP_REQUIRES_OK(ctx, rm->LookupOrCreate<TensorArray>(
                            handle->container, name, &grad, [&]() -> StatusOr<std::shared_ptr<TensorArray>> {
                              auto made = std::make_shared<TensorArray>(name, options);
                              FLOWVM_RETURN_IF_ERROR(made->CopyShapesFrom(forward.get(), with_shape ? &prepend : nullptr));
                              return made;
                            }));
    ctx->KeepAliveForStep(grad);
    ctx->set_output(0, MakeResourceHandleTensor(ctx, handle->container, name, kTypeName));
    ctx->set_output(1, FloatScalar(0));
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string source_;
};

// ---- element by element ----

Status ScalarIndex(const Tensor& t, const TensorArray& ta, int32_t* index) {
  if (t.dims() != 0)
    return errors::InvalidArgument(ta.DebugString(), ": TensorArray index must be scalar, but had shape: ",
                                   t.shape().DebugString());
  *index = t.scalar<int32_t>();
  return Status::OK();
}

class TensorArrayWriteOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx->input(1), *ta, &index));
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*ta, value.dtype()));
    OP_REQUIRES_OK(ctx, ta->Write(index, value, ctx->allocator()));
    ctx->set_output(0, ctx->input(3));
  }
  bool IsExpensive() const override { return false; }
};

class TensorArrayReadOp : public OpKernel {
 public:
  explicit TensorArrayReadOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    int32_t index = 0;
    OP_REQUIRES_OK(ctx, ScalarIndex(ctx->input(1), *ta, &index));
    OP_REQUIRES_OK(ctx, CheckDtype(*ta, dtype_));
    Tensor value;
    OP_REQUIRES_OK(ctx, ta->Read(index, ctx->allocator(), &value));
    ctx->set_output(0, std::move(value));
  }
  bool IsExpensive() const override { return false; }

 private:
  DataType dtype_ = DT_FLOAT;
};

// ---- many elements at once ----

class TensorArrayGatherOp : public OpKernel {
 public:
  explicit TensorArrayGatherOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape", &element_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    OP_REQUIRES_OK(ctx, CheckDtype(*ta, dtype_));
    // The op's element shape must agree with what the array knows.
    OP_REQUIRES_OK(ctx, ta->MergeElementShape(element_shape_));
    const Tensor& indices_t = ctx->input(1);
    OP_REQUIRES(ctx, indices_t.dims() == 1,
                errors::InvalidArgument(ta->DebugString(), ": Expected indices to be a vector, but received shape: ",
                                        indices_t.shape().DebugString()));
    std::vector<int32_t> indices(indices_t.flat<int32_t>().begin(), indices_t.flat<int32_t>().end());
    if (indices.empty()) {
      // Nothing to read: [0] + the element shape, which must be known.
      const PartialTensorShape known = ta->element_shape();
      OP_REQUIRES(ctx, known.IsFullyDefined(),
                  errors::Unimplemented(ta->DebugString(), ": TensorArray has size zero, but element shape ",
                                        known.DebugString(), " is not fully defined. Currently only static shapes ",
                                        "are supported when packing zero-size TensorArrays."));
      TensorShape shape = known.AsTensorShape();
      shape.InsertDim(0, 0);
      Tensor* out = nullptr;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      return;
    }
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, ta->ReadMany(indices, ctx->allocator(), &values));
    const TensorShape& first = values[0].shape();
    OP_REQUIRES(ctx, element_shape_.IsCompatibleWith(first),
                errors::InvalidArgument(ta->DebugString(), ": TensorArray was passed element_shape ",
                                        element_shape_.DebugString(), " which does not match the Tensor at index 0: ",
                                        first.DebugString()));
    for (size_t i = 1; i < values.size(); ++i)
      OP_REQUIRES(ctx, values[i].shape() == first,
                  errors::InvalidArgument(ta->DebugString(), ": TensorArray has inconsistent shapes.  Index 0 has ",
                                          "shape: ", first.DebugString(), " but index ", i,
                                          " has shape: ", values[i].shape().DebugString()));
    TensorShape shape = first;
    shape.InsertDim(0, static_cast<int64_t>(values.size()));
    Tensor* out = nullptr;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    const int64_t n = first.num_elements();
    for (size_t i = 0; i < values.size(); ++i)
      OP_REQUIRES_OK(ctx, CopyElements(values[i], 0, out, static_cast<int64_t>(i) * n, n, *ta));
  }

 private:
  DataType dtype_ = DT_FLOAT;
  PartialTensorShape element_shape_;
};

// Rows [row, row + rows) of `value` (dimension 0), copied into a tensor of
// `shape` (as many elements).
StatusOr<Tensor> Rows(OpKernelContext* ctx, const Tensor& value, int64_t row, int64_t rows, const TensorShape& shape,
                      const TensorArray& ta) {
  FLOWVM_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(ctx->allocator(), value.dtype(), shape));
  const int64_t per_row = value.dim_size(0) == 0 ? 0 : value.NumElements() / value.dim_size(0);
  FLOWVM_RETURN_IF_ERROR(CopyElements(value, row * per_row, &t, 0, rows * per_row, ta));
  return t;
}

class TensorArrayScatterOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    const Tensor& indices_t = ctx->input(1);
    const Tensor& value = ctx->input(2);
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*ta, value.dtype()));
    OP_REQUIRES(ctx, value.dims() > 0,
                errors::InvalidArgument(ta->DebugString(), ": Input value for unpack must be at least a vector but ",
                                        "received shape: ", value.shape().DebugString()));
    OP_REQUIRES(ctx, indices_t.dims() == 1,
                errors::InvalidArgument(ta->DebugString(), ": Expected indices to be a vector, but received shape: ",
                                        indices_t.shape().DebugString()));
    OP_REQUIRES(ctx, indices_t.NumElements() == value.dim_size(0),
                errors::InvalidArgument(ta->DebugString(), ": Expected len(indices) == values.shape[0], but saw: ",
                                        indices_t.NumElements(), " vs. ", value.dim_size(0)));
    auto size = ta->Size();
    OP_REQUIRES_OK(ctx, size.status());
    std::vector<int32_t> indices(indices_t.flat<int32_t>().begin(), indices_t.flat<int32_t>().end());
    int32_t max_index = -1;
    for (int32_t i : indices) max_index = std::max(max_index, i);
    int64_t array_size = *size;
    if (ta->HasDynamicSize() && array_size < int64_t{max_index} + 1) array_size = int64_t{max_index} + 1;
    OP_REQUIRES(ctx, max_index < array_size,
                errors::InvalidArgument(ta->DebugString(), ": Max scatter index must be < array size (", max_index,
                                        " vs. ", array_size, ")"));
    std::vector<Tensor> elements;
    elements.reserve(indices.size());
    TensorShape element_shape = value.shape();
    element_shape.RemoveDim(0);
    for (size_t i = 0; i < indices.size(); ++i) {
      auto element = Rows(ctx, value, static_cast<int64_t>(i), 1, element_shape, *ta);
      OP_REQUIRES_OK(ctx, element.status());
      elements.push_back(*std::move(element));
    }
    OP_REQUIRES_OK(ctx, ta->WriteMany(indices, elements, ctx->allocator()));
    ctx->set_output(0, ctx->input(3));
  }
};

class TensorArrayConcatOp : public OpKernel {
 public:
  explicit TensorArrayConcatOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("dtype", &dtype_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("element_shape_except0", &element_shape_except0_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    OP_REQUIRES_OK(ctx, CheckDtype(*ta, dtype_));
    auto size = ta->PackOrConcatSize();
    OP_REQUIRES_OK(ctx, size.status());
    Tensor* out = nullptr;
    Tensor* lengths = nullptr;
    if (*size == 0) {
      OP_REQUIRES(ctx, element_shape_except0_.IsFullyDefined(),
                  errors::Unimplemented(ta->DebugString(), ": TensorArray has size zero, but element_shape_except0 ",
                                        element_shape_except0_.DebugString(), " is not fully defined. Currently only ",
                                        "static shapes are supported when concatenating zero-size TensorArrays."));
      TensorShape shape = element_shape_except0_.AsTensorShape();
      shape.InsertDim(0, 0);
      OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
      OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({0}), &lengths));
      return;
    }
    std::vector<int32_t> indices(*size);
    for (int32_t i = 0; i < *size; ++i) indices[i] = i;
    std::vector<Tensor> values;
    OP_REQUIRES_OK(ctx, ta->ReadMany(indices, ctx->allocator(), &values));
    TensorShape except0;
    int64_t rows = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      const TensorShape& s = values[i].shape();
      OP_REQUIRES(ctx, s.dims() > 0,
                  errors::InvalidArgument(ta->DebugString(), ": Concat saw a scalar shape at index ", i,
                                          " but requires at least vectors.  Did you mean to call pack?"));
      TensorShape rest = s;
      rest.RemoveDim(0);
      if (i == 0) {
        except0 = rest;
        OP_REQUIRES(ctx, element_shape_except0_.IsCompatibleWith(rest),
                    errors::InvalidArgument(ta->DebugString(), ": TensorArray was passed element_shape_except0 ",
                                            element_shape_except0_.DebugString(), " but index 0 has (excepting ",
                                            "dimension 0) shape: ", rest.DebugString(), " which does not match."));
      } else {
        OP_REQUIRES(ctx, rest == except0,
                    errors::InvalidArgument(ta->DebugString(), ": TensorArray has inconsistent shapes.  Index 0 has ",
                                            "(excepting dimension 0) shape: ", except0.DebugString(), " but index ",
                                            i, " has (excepting dimension 0) shape: ", rest.DebugString()));
      }
      rows += s.dim_size(0);
    }
    TensorShape shape = except0;
    shape.InsertDim(0, rows);
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({static_cast<int64_t>(values.size())}), &lengths));
    int64_t at = 0;
    for (size_t i = 0; i < values.size(); ++i) {
      lengths->flat<int64_t>()[i] = values[i].dim_size(0);
      OP_REQUIRES_OK(ctx, CopyElements(values[i], 0, out, at, values[i].NumElements(), *ta));
      at += values[i].NumElements();
    }
  }

 private:
  DataType dtype_ = DT_FLOAT;
  PartialTensorShape element_shape_except0_;
};

class TensorArraySplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    const Tensor& value = ctx->input(1);
    const Tensor& lengths_t = ctx->input(2);
    OP_REQUIRES(ctx, lengths_t.dims() == 1,
                errors::InvalidArgument(ta->DebugString(), ": Expected lengths to be a vector, received shape: ",
                                        lengths_t.shape().DebugString()));
    OP_REQUIRES(ctx, value.dims() > 0,
                errors::InvalidArgument(ta->DebugString(), ": Expected value to be at least a vector, but ",
                                        "received shape: ", value.shape().DebugString()));
    const int64_t n = lengths_t.NumElements();
    OP_REQUIRES(ctx, n <= std::numeric_limits<int32_t>::max(),
                errors::InvalidArgument(ta->DebugString(), ": Expected lengths to have < max int32 entries"));
    std::vector<int64_t> lengths(lengths_t.flat<int64_t>().begin(), lengths_t.flat<int64_t>().end());
    int64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      OP_REQUIRES(ctx, lengths[i] >= 0,
                  errors::InvalidArgument(ta->DebugString(), ": lengths[", i, "] is ", lengths[i],
                                          "; a length cannot be negative"));
      total += lengths[i];
    }
    OP_REQUIRES(ctx, total == value.dim_size(0),
                errors::InvalidArgument(ta->DebugString(), ": Expected sum of lengths to be equal to values.shape[0], ",
                                        "but sum of lengths is ", total, " and value's shape is: ",
                                        value.shape().DebugString()));
    auto size = ta->Size();
    OP_REQUIRES_OK(ctx, size.status());
    int64_t array_size = *size;
    if (ta->HasDynamicSize() && array_size < n) array_size = n;
    OP_REQUIRES(ctx, array_size == n,
                errors::InvalidArgument(ta->DebugString(), ": TensorArray's size is not equal to the size of lengths (",
                                        array_size, " vs. ", n, "), and the TensorArray is not marked as ",
                                        "dynamically resizeable"));
    OP_REQUIRES_OK(ctx, CheckWriteDtype(*ta, value.dtype()));
    std::vector<Tensor> pieces;
    std::vector<int32_t> indices;
    int64_t row = 0;
    for (int64_t i = 0; i < n; ++i) {
      TensorShape shape = value.shape();
      shape.set_dim(0, lengths[i]);
      auto piece = Rows(ctx, value, row, lengths[i], shape, *ta);
      OP_REQUIRES_OK(ctx, piece.status());
      pieces.push_back(*std::move(piece));
      indices.push_back(static_cast<int32_t>(i));
      row += lengths[i];
    }
    OP_REQUIRES_OK(ctx, ta->SetMarkedSize(static_cast<int32_t>(array_size)));
    OP_REQUIRES_OK(ctx, ta->WriteMany(indices, pieces, ctx->allocator()));
    ctx->set_output(0, ctx->input(3));
  }
};

// ---- the array as a whole ----

class TensorArraySizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    auto size = ta->Size();
    OP_REQUIRES_OK(ctx, size.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(*size));
  }
  bool IsExpensive() const override { return false; }
};

// Clears the array and marks it closed; it stays in its step's container
// until the step ends, so later ops on it get "has already been closed".
class TensorArrayCloseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::shared_ptr<TensorArray> ta;
    OP_REQUIRES_OK(ctx, GetTensorArray(ctx, &ta));
    ta->Close();
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("TensorArrayV3").Device(DEVICE_CPU), TensorArrayOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGradV3").Device(DEVICE_CPU), TensorArrayGradOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGradWithShape").Device(DEVICE_CPU), TensorArrayGradOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayWriteV3").Device(DEVICE_CPU), TensorArrayWriteOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayReadV3").Device(DEVICE_CPU), TensorArrayReadOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayGatherV3").Device(DEVICE_CPU), TensorArrayGatherOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayScatterV3").Device(DEVICE_CPU), TensorArrayScatterOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayConcatV3").Device(DEVICE_CPU), TensorArrayConcatOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySplitV3").Device(DEVICE_CPU), TensorArraySplitOp);
REGISTER_KERNEL_BUILDER(Name("TensorArraySizeV3").Device(DEVICE_CPU), TensorArraySizeOp);
REGISTER_KERNEL_BUILDER(Name("TensorArrayCloseV3").Device(DEVICE_CPU), TensorArrayCloseOp);

}  // namespace flowvm
