#include "flowvm/tensor.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <vector>

#include "core/memory_info.h"
#include "flowvm/resource_handle.h"
#include "flowvm/variant.h"

namespace flowvm {

namespace {

// Element types that are objects rather than plain bytes.
bool HasObjectElements(DataType dtype) {
  const DataType b = BaseType(dtype);
  return b == DT_STRING || b == DT_RESOURCE || b == DT_VARIANT;
}

size_t ElementBytes(DataType dtype) {
  switch (BaseType(dtype)) {
    case DT_STRING: return sizeof(std::string);
    case DT_RESOURCE: return sizeof(ResourceHandle);
    case DT_VARIANT: return sizeof(Variant);
    default: return DataTypeSize(dtype);
  }
}

template <typename T>
void ConstructAll(void* data, int64_t n) {
  auto* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) new (p + i) T();
}
template <typename T>
void DestroyAll(void* data, int64_t n) {
  auto* p = static_cast<T*>(data);
  for (int64_t i = 0; i < n; ++i) p[i].~T();
}
template <typename T>
void CopyAll(const void* from, void* to, int64_t n) {
  const auto* src = static_cast<const T*>(from);
  auto* dst = static_cast<T*>(to);
  for (int64_t i = 0; i < n; ++i) dst[i] = src[i];
}

void ConstructElements(DataType dtype, void* data, int64_t n) {
  switch (BaseType(dtype)) {
    case DT_STRING: ConstructAll<std::string>(data, n); break;
    case DT_RESOURCE: ConstructAll<ResourceHandle>(data, n); break;
    case DT_VARIANT: ConstructAll<Variant>(data, n); break;
    default: break;
  }
}
void DestroyElements(DataType dtype, void* data, int64_t n) {
  switch (BaseType(dtype)) {
    case DT_STRING: DestroyAll<std::string>(data, n); break;
    case DT_RESOURCE: DestroyAll<ResourceHandle>(data, n); break;
    case DT_VARIANT: DestroyAll<Variant>(data, n); break;
    default: break;
  }
}
void CopyElements(DataType dtype, const void* from, void* to, int64_t n) {
  switch (BaseType(dtype)) {
    case DT_STRING: CopyAll<std::string>(from, to, n); break;
    case DT_RESOURCE: CopyAll<ResourceHandle>(from, to, n); break;
    case DT_VARIANT: CopyAll<Variant>(from, to, n); break;
    default: std::memcpy(to, from, static_cast<size_t>(n) * DataTypeSize(dtype)); break;
  }
}

// One allocation: this header in the first kAlignment bytes, the elements
// after it, so a tensor costs a single malloc.
class InlineBuffer final : public TensorBuffer {
 public:
  static InlineBuffer* New(Allocator* allocator, DataType dtype, int64_t n) {
    size_t elem = ElementBytes(dtype);
    // Refuse sizes whose byte count would wrap around: n may be up to 2^62.
    if (n < 0 || static_cast<size_t>(n) > (SIZE_MAX - 2 * Tensor::kAlignment) / elem) return nullptr;
    size_t bytes = elem * static_cast<size_t>(n);
    size_t total = Tensor::kAlignment + ((bytes + Tensor::kAlignment - 1) / Tensor::kAlignment) * Tensor::kAlignment;
    size_t capacity = 0;
    void* mem = allocator->AllocateRaw(total, &capacity);
    if (mem == nullptr) return nullptr;
    char* data = static_cast<char*>(mem) + Tensor::kAlignment;
    auto* buf = new (mem) InlineBuffer(data, bytes, dtype, n, capacity, allocator);
    ConstructElements(dtype, data, n);
    return buf;
  }

 private:
  InlineBuffer(void* data, size_t bytes, DataType dtype, int64_t n, size_t capacity, Allocator* allocator)
      : TensorBuffer(data, bytes), dtype_(dtype), n_(n), capacity_(capacity), allocator_(allocator) {}
  void Destroy() const override {
    DestroyElements(dtype_, data(), n_);
    const size_t capacity = capacity_;
    Allocator* allocator = allocator_;
    this->~InlineBuffer();
    allocator->DeallocateRaw(const_cast<InlineBuffer*>(this), capacity);
  }
  DataType dtype_;
  int64_t n_;
  size_t capacity_;        // bytes of the block (may exceed what this tensor needs)
  Allocator* allocator_;   // where the block goes back to
};
static_assert(sizeof(InlineBuffer) <= Tensor::kAlignment);

}  // namespace

StatusOr<Tensor> Tensor::Allocate(DataType dtype, const TensorShape& shape) {
  return Allocate(ProcessCpuAllocator(), dtype, shape);
}

StatusOr<Tensor> Tensor::Allocate(Allocator* allocator, DataType dtype, const TensorShape& shape) {
  if (!DataTypeIsStorable(dtype))
    return errors::InvalidArgument("cannot allocate a tensor of type ", DataTypeName(dtype));
  InlineBuffer* buf = InlineBuffer::New(allocator, dtype, shape.num_elements());
  if (buf == nullptr) {
    // Saturating: a shape may hold up to 2^62 elements.
    const size_t n = static_cast<size_t>(std::max<int64_t>(0, shape.num_elements()));
    const size_t elem = ElementBytes(dtype);
    const std::string why = allocator->DescribeRefusal(elem != 0 && n > SIZE_MAX / elem ? SIZE_MAX : n * elem);
    if (!why.empty())
      return errors::ResourceExhausted("cannot allocate a ", DataTypeName(dtype), " tensor of shape ",
                                       shape.DebugString(), " (", shape.num_elements() * ElementBytes(dtype),
                                       " bytes) on ", allocator->Name(), ": ", why);
    return errors::ResourceExhausted("out of memory allocating a ", DataTypeName(dtype), " tensor of shape ",
                                     shape.DebugString(), " (", shape.num_elements() * ElementBytes(dtype),
                                     " bytes) on ", allocator->Name(), "; the machine has ", AvailableMemoryBytes(),
                                     " bytes available");
  }
  return Tensor(BaseType(dtype), shape, buf, static_cast<char*>(buf->data()));
}

Tensor::Tensor(DataType dtype, const TensorShape& shape) {
  StatusOr<Tensor> t = Allocate(dtype, shape);
  if (!t.ok()) {
    std::fprintf(stderr, "flowvm: %s\n", t.status().ToString().c_str());
    std::abort();
  }
  *this = std::move(t).value();
}

StatusOr<Tensor> Tensor::FromBuffer(DataType dtype, const TensorShape& shape, TensorBuffer* buf) {
  if (buf == nullptr) return errors::InvalidArgument("Tensor::FromBuffer: no buffer");
  if (!DataTypeIsStorable(dtype) || HasObjectElements(dtype) || IsRefType(dtype)) {
    buf->Unref();
    return errors::InvalidArgument("Tensor::FromBuffer: cannot wrap ", DataTypeName(dtype), " elements");
  }
  const size_t elem = DataTypeSize(dtype);
  const uint64_t need = static_cast<uint64_t>(shape.num_elements()) * elem;
  if (need > buf->bytes() || (elem > 0 && reinterpret_cast<uintptr_t>(buf->data()) % elem != 0)) {
    buf->Unref();
    return errors::InvalidArgument("Tensor::FromBuffer: ", buf->bytes(), " bytes at ", buf->data(),
                                   " cannot hold ", DataTypeName(dtype), " ", shape.DebugString());
  }
  return Tensor(dtype, shape, buf, static_cast<char*>(buf->data()));
}

Tensor::Tensor(const Tensor& other)
    : dtype_(other.dtype_), shape_(other.shape_), buf_(other.buf_), data_(other.data_) {
  if (buf_) buf_->Ref();
}

Tensor::Tensor(Tensor&& other) noexcept
    : dtype_(other.dtype_), shape_(std::move(other.shape_)), buf_(other.buf_), data_(other.data_) {
  other.buf_ = nullptr;
  other.data_ = nullptr;
  other.dtype_ = DT_INVALID;
  other.shape_ = TensorShape();
}

Tensor& Tensor::operator=(const Tensor& other) {
  if (this == &other) return *this;
  if (other.buf_) other.buf_->Ref();
  if (buf_) buf_->Unref();
  dtype_ = other.dtype_;
  shape_ = other.shape_;
  buf_ = other.buf_;
  data_ = other.data_;
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this == &other) return *this;
  if (buf_) buf_->Unref();
  dtype_ = other.dtype_;
  shape_ = std::move(other.shape_);
  buf_ = other.buf_;
  data_ = other.data_;
  other.buf_ = nullptr;
  other.data_ = nullptr;
  other.dtype_ = DT_INVALID;
  other.shape_ = TensorShape();
  return *this;
}

Tensor::~Tensor() {
  if (buf_) buf_->Unref();
}

size_t Tensor::TotalBytes() const {
  return ElementBytes(dtype_) * static_cast<size_t>(NumElements());
}

StatusOr<Tensor> Tensor::Reshape(const TensorShape& shape) const {
  if (shape.num_elements() != NumElements())
    return errors::InvalidArgument("cannot reshape a tensor of shape ", shape_.DebugString(), " (", NumElements(),
                                   " elements) to ", shape.DebugString(), " (", shape.num_elements(), " elements)");
  Tensor t(*this);
  t.shape_ = shape;
  return t;
}

StatusOr<Tensor> Tensor::Slice(int64_t start, int64_t limit) const {
  if (dims() == 0) return errors::InvalidArgument("cannot slice a scalar");
  int64_t rows = dim_size(0);
  if (start < 0 || limit > rows || start > limit)
    return errors::InvalidArgument("slice [", start, ", ", limit, ") out of range for ", rows, " rows");
  Tensor t(*this);
  t.shape_.set_dim(0, limit - start);
  int64_t row_elems = rows == 0 ? 0 : NumElements() / rows;
  size_t elem = ElementBytes(dtype_);
  if (t.data_) t.data_ += static_cast<size_t>(start * row_elems) * elem;
  return t;
}

Tensor Tensor::SubSlice(int64_t index) const {
  TensorShape row = shape_;
  row.RemoveDim(0);
  const size_t bytes = ElementBytes(dtype_) * static_cast<size_t>(row.num_elements());
  if (buf_) buf_->Ref();
  return Tensor(dtype_, row, buf_, data_ == nullptr ? nullptr : data_ + static_cast<size_t>(index) * bytes);
}

Tensor Tensor::DeepCopy() const {
  StatusOr<Tensor> copy = DeepCopy(ProcessCpuAllocator());
  if (!copy.ok()) {
    std::fprintf(stderr, "flowvm: %s\n", copy.status().ToString().c_str());
    std::abort();
  }
  return std::move(copy).value();
}

StatusOr<Tensor> Tensor::DeepCopy(Allocator* allocator) const {
  if (!IsInitialized()) return Tensor();
  FLOWVM_ASSIGN_OR_RETURN(Tensor t, Allocate(allocator, dtype_, shape_));
  if (HasObjectElements(dtype_) || TotalBytes() > 0) CopyElements(dtype_, data_, t.data_, NumElements());
  return t;
}

}  // namespace flowvm
