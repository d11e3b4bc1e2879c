#include "kernels/data_flow/tensor_array.h"

#include <cstring>
#include <type_traits>
#include <utility>

namespace flowvm {

namespace {

// sum = a + b elementwise, for the numeric types (16-bit floats through
// float). Returns false for other types.
bool AddTensors(const Tensor& a, const Tensor& b, Tensor* sum) {
  return VisitDataType(a.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const int64_t n = a.NumElements();
    const T* x = a.data<T>();
    const T* y = b.data<T>();
    T* out = sum->data<T>();
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
      for (int64_t i = 0; i < n; ++i) out[i] = T(static_cast<float>(x[i]) + static_cast<float>(y[i]));
    } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
      for (int64_t i = 0; i < n; ++i) out[i] = static_cast<T>(x[i] + y[i]);
    } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
      for (int64_t i = 0; i < n; ++i) out[i] = x[i] + y[i];
    }
  });
}

bool IsAddable(DataType dtype) {
  DataType t = BaseType(dtype);
  return DataTypeIsFloating(t) || DataTypeIsInteger(t) || DataTypeIsComplex(t);
}

}  // namespace

StatusOr<Tensor> TensorArrayZeros(DataType dtype, const TensorShape& shape, Allocator* allocator,
                                  const std::string& what) {
  if (!IsAddable(dtype))
    return errors::Unimplemented(what, ": zeros of type ", DataTypeName(dtype), " stand in for an element never ",
                                 "written, but only numeric types have zeros");
  FLOWVM_ASSIGN_OR_RETURN(Tensor t, allocator != nullptr ? Tensor::Allocate(allocator, dtype, shape)
                                                         : Tensor::Allocate(dtype, shape));
  if (t.NumElements() > 0) std::memset(t.raw_data(), 0, t.NumElements() * DataTypeSize(dtype));
  return t;
}

TensorArray::TensorArray(std::string name, const Options& options)
    : name_(std::move(name)),
      dtype_(options.dtype),
      clear_after_read_(options.clear_after_read),
      is_grad_(options.is_grad),
      identical_element_shapes_(options.identical_element_shapes),
      multiple_writes_aggregate_(options.is_grad),
      dynamic_size_(options.dynamic_size),
      marked_size_(options.marked_size),
      element_shape_(options.element_shape),
      elements_(options.size < 0 ? 0 : options.size) {}

Status TensorArray::CheckOpenLocked() const {
  if (closed_) return errors::InvalidArgument("TensorArray ", name_, " has already been closed.");
  return Status::OK();
}

Status TensorArray::Write(int32_t index, const Tensor& value, Allocator* allocator) {
  std::lock_guard<std::mutex> lock(mu_);
  return WriteLocked(index, value, allocator);
}

Status TensorArray::WriteMany(const std::vector<int32_t>& indices, const std::vector<Tensor>& values,
                              Allocator* allocator) {
  std::lock_guard<std::mutex> lock(mu_);
  for (size_t i = 0; i < indices.size(); ++i) FLOWVM_RETURN_IF_ERROR(WriteLocked(indices[i], values[i], allocator));
  return Status::OK();
}

Status TensorArray::WriteLocked(int32_t index, const Tensor& value, Allocator* allocator) {
  FLOWVM_RETURN_IF_ERROR(CheckOpenLocked());
  const size_t at = static_cast<size_t>(index);
  if (index < 0 || (!dynamic_size_ && at >= elements_.size()))
    return errors::InvalidArgument(Prefix(), "Tried to write to index ", index,
                                   " but array is not resizeable and size is: ", elements_.size());
  if (value.dtype() != dtype_)
    return errors::InvalidArgument(Prefix(), "Could not write to TensorArray index ", index,
                                   " because the value dtype is ", DataTypeName(value.dtype()),
                                   " but TensorArray dtype is ", DataTypeName(dtype_), ".");
  if (!element_shape_.IsCompatibleWith(value.shape()))
    return errors::InvalidArgument(Prefix(), "Could not write to TensorArray index ", index,
                                   " because the value shape is ", value.shape().DebugString(),
                                   " which is incompatible with the TensorArray's inferred element shape: ",
                                   element_shape_.DebugString(), " (consider setting infer_shape=False).");
  if (dynamic_size_ && at >= elements_.size()) elements_.resize(at + 1);
  Element& e = elements_[at];
  if (e.read)
    return errors::InvalidArgument(Prefix(), "Could not write to TensorArray index ", index,
                                   " because it has already been read.");
  if (e.written && !multiple_writes_aggregate_)
    return errors::InvalidArgument(Prefix(), "Could not write to TensorArray index ", index,
                                   " because it has already been written to.");
  // The first element fixes the shape of the others (checked above from
  // the next write on).
  if (identical_element_shapes_ && !element_shape_.IsFullyDefined()) element_shape_ = value.shape();
  if (!e.written) {
    e.tensor = value;
    e.shape = value.shape();
    e.written = true;
    return Status::OK();
  }
  // A gradient array: partial gradients of one element add up.
  if (value.shape() != e.shape)
    return errors::InvalidArgument(Prefix(), "Could not aggregate to TensorArray index ", index,
                                   " because the existing shape is ", e.shape.DebugString(),
                                   " but the new input shape is ", value.shape().DebugString(), ".");
  if (!e.tensor.IsInitialized() || e.tensor.NumElements() == 0) {
    e.tensor = value;  // only zeros were there
    return Status::OK();
  }
  if (!IsAddable(dtype_))
    return errors::Unimplemented(Prefix(), "Could not aggregate to TensorArray index ", index,
                                 ": values of type ", DataTypeName(dtype_), " cannot be added");
  if (e.local_copy) {
    AddTensors(e.tensor, value, &e.tensor);
  } else {
    // The first sum goes into a buffer of our own: the written tensors may
    // be shared with other ops.
    FLOWVM_ASSIGN_OR_RETURN(Tensor sum, allocator != nullptr ? Tensor::Allocate(allocator, dtype_, e.shape)
                                                             : Tensor::Allocate(dtype_, e.shape));
    AddTensors(e.tensor, value, &sum);
    e.tensor = std::move(sum);
    e.local_copy = true;
  }
  gradients_disallowed_ = true;
  return Status::OK();
}

Status TensorArray::Read(int32_t index, Allocator* allocator, Tensor* value) {
  std::lock_guard<std::mutex> lock(mu_);
  return ReadLocked(index, allocator, value);
}

Status TensorArray::ReadMany(const std::vector<int32_t>& indices, Allocator* allocator,
                             std::vector<Tensor>* values) {
  std::lock_guard<std::mutex> lock(mu_);
  values->assign(indices.size(), Tensor());
  for (size_t i = 0; i < indices.size(); ++i) FLOWVM_RETURN_IF_ERROR(ReadLocked(indices[i], allocator, &(*values)[i]));
  return Status::OK();
}

Status TensorArray::ReadLocked(int32_t index, Allocator* allocator, Tensor* value) {
  FLOWVM_RETURN_IF_ERROR(CheckOpenLocked());
  const size_t at = static_cast<size_t>(index);
  // A gradient array may be read past its end: a gradient that was never
  // written (cut by a stop_gradient) is zeros.
  if (index < 0 || (!is_grad_ && at >= elements_.size()))
    return errors::InvalidArgument(Prefix(), "Tried to read from index ", index,
                                   " but array size is: ", elements_.size());
  if (at >= elements_.size() || !elements_[at].written) {
    TensorShape shape;
    if (is_grad_ && at < elements_.size() && elements_[at].shape.dims() > 0) {
      shape = elements_[at].shape;
    } else if (!element_shape_.IsFullyDefined()) {
      return errors::InvalidArgument(Prefix(), "Could not read from TensorArray index ", index,
                                     " because it has not yet been written to.  Furthermore, the element shape "
                                     "is not fully defined: ",
                                     element_shape_.DebugString(),
                                     ", so no zeros can stand in for it.  (If a gradient was expected here, a "
                                     "full element_shape on the forward TensorArray gives zeros instead.)");
    } else {
      shape = element_shape_.AsTensorShape();
    }
    // From here on the element is zeros of that shape (and so is every
    // index a gradient array grows by).
    const size_t from = at < elements_.size() ? at : elements_.size();
    if (at >= elements_.size()) elements_.resize(at + 1);
    for (size_t i = from; i <= at; ++i) {
      elements_[i].shape = shape;
      elements_[i].written = true;
    }
  }
  Element& e = elements_[at];
  if (e.cleared)
    return errors::InvalidArgument(Prefix(), "Could not read index ", index,
                                   " twice because it was cleared after a previous read (perhaps try setting "
                                   "clear_after_read = false?).");
  if (!e.tensor.IsInitialized()) {
    FLOWVM_ASSIGN_OR_RETURN(e.tensor, TensorArrayZeros(dtype_, e.shape, allocator, DebugString()));
  }
  *value = e.tensor;
  if (clear_after_read_) {
    e.tensor = Tensor();
    e.cleared = true;
  }
  e.read = true;
  return Status::OK();
}

StatusOr<int32_t> TensorArray::Size() const {
  std::lock_guard<std::mutex> lock(mu_);
  FLOWVM_RETURN_IF_ERROR(CheckOpenLocked());
  return static_cast<int32_t>(elements_.size());
}

StatusOr<int32_t> TensorArray::PackOrConcatSize() const {
  std::lock_guard<std::mutex> lock(mu_);
  FLOWVM_RETURN_IF_ERROR(CheckOpenLocked());
  if (is_grad_ && marked_size_ >= 0) return marked_size_;
  return static_cast<int32_t>(elements_.size());
}

Status TensorArray::SetMarkedSize(int32_t size) {
  std::lock_guard<std::mutex> lock(mu_);
  FLOWVM_RETURN_IF_ERROR(CheckOpenLocked());
  if (!is_grad_) marked_size_ = size;
  return Status::OK();
}

StatusOr<int32_t> TensorArray::MarkedSize() const {
  std::lock_guard<std::mutex> lock(mu_);
  FLOWVM_RETURN_IF_ERROR(CheckOpenLocked());
  return marked_size_;
}

PartialTensorShape TensorArray::element_shape() const {
  std::lock_guard<std::mutex> lock(mu_);
  return element_shape_;
}

Status TensorArray::MergeElementShape(const PartialTensorShape& shape) {
  std::lock_guard<std::mutex> lock(mu_);
  auto merged = element_shape_.MergeWith(shape);
  if (!merged.ok())
    return errors::InvalidArgument(Prefix(), "the element shape ", shape.DebugString(),
                                   " does not match the TensorArray's element shape ", element_shape_.DebugString());
  element_shape_ = *std::move(merged);
  return Status::OK();
}

void TensorArray::DisableDynamicSize() {
  std::lock_guard<std::mutex> lock(mu_);
  dynamic_size_ = false;
}

bool TensorArray::HasDynamicSize() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dynamic_size_;
}

bool TensorArray::GradientsAllowed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return !gradients_disallowed_;
}

Status TensorArray::CopyShapesFrom(TensorArray* forward, const TensorShape* prepend) {
  std::scoped_lock lock(mu_, forward->mu_);
  FLOWVM_RETURN_IF_ERROR(CheckOpenLocked());
  FLOWVM_RETURN_IF_ERROR(forward->CheckOpenLocked());
  if (elements_.size() != forward->elements_.size())
    return errors::InvalidArgument(Prefix(), "TensorArray sizes do not match during CopyShapesFrom: it has size ",
                                   elements_.size(), " but ", forward->name_, " has size ",
                                   forward->elements_.size());
  for (size_t i = 0; i < elements_.size(); ++i) {
    const Element& from = forward->elements_[i];
    if (!from.written) continue;
    TensorShape shape = prepend != nullptr ? *prepend : TensorShape();
    for (int64_t d : from.shape.dim_sizes()) shape.AddDim(d);
    elements_[i].shape = shape;
    elements_[i].written = true;  // with zeros, until a gradient is written
  }
  return Status::OK();
}

void TensorArray::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  elements_.clear();
  closed_ = true;
}

}  // namespace flowvm
