// Tensor: a typed, n-dimensional array with a reference-counted buffer.
//
// Copying a Tensor shares its buffer (no data is copied); the buffer is freed
// when the last Tensor that refers to it goes away. Buffers are 64-byte
// aligned. Reshape and Slice (of the outermost dimension) share the buffer.
// A Tensor object is thread-compatible; the buffer's reference count is
// atomic, so Tensors sharing a buffer may live on different threads. Writing
// elements that another thread reads is the caller's business to order.
#ifndef FLOWVM_TENSOR_H_
#define FLOWVM_TENSOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "flowvm/allocator.h"
#include "flowvm/dtype.h"
#include "flowvm/status.h"
#include "flowvm/tensor.pb.h"
#include "flowvm/tensor_shape.h"

namespace flowvm {

// A contiguous run of elements; does not own them.
template <typename T>
struct Span {
  T* ptr = nullptr;
  int64_t len = 0;
  T* data() const { return ptr; }
  int64_t size() const { return len; }
  T& operator[](int64_t i) const { return ptr[i]; }
  T* begin() const { return ptr; }
  T* end() const { return ptr + len; }
};

// The storage behind one or more Tensors.
class TensorBuffer {
 public:
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  void Ref() const { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() const {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) Destroy();
  }
  // Whether the holder of the only reference may write the memory in place
  // or adopt it (input forwarding, Assign): never for memory lent by
  // someone else (OwnsMemory() false), such as a fed NumPy array.
  bool RefCountIsOne() const { return OwnsMemory() && refs_.load(std::memory_order_acquire) == 1; }
  // False for a buffer over memory the runtime only borrows.
  virtual bool OwnsMemory() const { return true; }

 protected:
  TensorBuffer(void* data, size_t bytes) : data_(data), bytes_(bytes) {}
  virtual ~TensorBuffer() = default;
  // Releases the memory; called once, when the last reference goes.
  virtual void Destroy() const = 0;

 private:
  void* data_;
  size_t bytes_;
  mutable std::atomic<int32_t> refs_{1};
};

class Tensor {
 public:
  static constexpr size_t kAlignment = 64;

  // An uninitialized tensor: DT_INVALID, no buffer.
  Tensor() = default;
  // Allocates an uninitialized buffer (strings are empty) from the process
  // CPU allocator. REQUIRES: DataTypeIsStorable(dtype). Aborts only if
  // memory runs out; use Tensor::Allocate to get an error instead.
  Tensor(DataType dtype, const TensorShape& shape);
  static StatusOr<Tensor> Allocate(DataType dtype, const TensorShape& shape);
  // The same from `allocator` (a device's); ResourceExhausted naming the
  // allocator when memory runs out.
  static StatusOr<Tensor> Allocate(Allocator* allocator, DataType dtype, const TensorShape& shape);

  Tensor(const Tensor& other);
  Tensor(Tensor&& other) noexcept;
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;
  ~Tensor();

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    *t.data<T>() = std::move(value);
    return t;
  }
  // REQUIRES: values.size() == shape.num_elements().
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, const TensorShape& shape) {
    Tensor t(DataTypeToEnum<T>::value, shape);
    T* out = t.data<T>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
    return t;
  }
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values, TensorShape({static_cast<int64_t>(values.size())}));
  }

  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int dims() const { return shape_.dims(); }
  int64_t dim_size(int i) const { return shape_.dim_size(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  bool IsInitialized() const { return buf_ != nullptr || (dtype_ != DT_INVALID && NumElements() == 0); }
  // Bytes of element storage (for strings: the std::string objects).
  size_t TotalBytes() const;
  bool IsAligned() const { return (reinterpret_cast<uintptr_t>(data_) % kAlignment) == 0; }

  // REQUIRES: DataTypeToEnum<T>::value == BaseType(dtype()).
  template <typename T>
  T* data() const { return reinterpret_cast<T*>(data_); }
  template <typename T>
  Span<T> flat() const { return Span<T>{data<T>(), NumElements()}; }
  template <typename T>
  T& scalar() const { return *data<T>(); }
  void* raw_data() const { return data_; }

  // A tensor sharing this buffer with another shape of the same element count.
  StatusOr<Tensor> Reshape(const TensorShape& shape) const;
  // Rows [start, limit) of the outermost dimension, sharing the buffer.
  StatusOr<Tensor> Slice(int64_t start, int64_t limit) const;
  // Element `index` of dimension 0 without that dimension (row i of a
  // matrix is a vector), sharing the buffer. REQUIRES: dims() >= 1 and
  // 0 <= index < dim_size(0).
  Tensor SubSlice(int64_t index) const;
  // A new buffer holding a copy of the elements (from the process allocator;
  // aborts if memory runs out).
  Tensor DeepCopy() const;
  // The same from `allocator`, with an error when memory runs out.
  StatusOr<Tensor> DeepCopy(Allocator* allocator) const;

  bool SharesBufferWith(const Tensor& other) const { return buf_ != nullptr && buf_ == other.buf_; }
  // Whether this Tensor is the only one referring to its buffer (so handing
  // the buffer to someone else cannot let a kernel write under them).
  bool BufferRefCountIsOne() const { return buf_ != nullptr && buf_->RefCountIsOne(); }

  // A tensor over memory someone else owns (a NumPy array's, a mapped
  // file's): `buf` is a TensorBuffer subclass whose Destroy releases that
  // memory; the tensor takes over the caller's one reference. Element
  // storage need only be aligned for the element type. REQUIRES:
  // dtype is numeric (not DT_STRING) and buf->bytes() covers the shape.
  static StatusOr<Tensor> FromBuffer(DataType dtype, const TensorShape& shape, TensorBuffer* buf);
  // True if no other Tensor shares the buffer: it may be updated in place.
  bool RefCountIsOne() const { return buf_ != nullptr && buf_->RefCountIsOne(); }

  // Serialises into `proto` (tensor_content for numeric types, string_val
  // for strings).
  void AsProtoTensorContent(TensorProto* proto) const;
  // Parses a TensorProto the way TensorFlow does: tensor_content wins over
  // the typed fields; a short typed field repeats its last value; an empty one
  // means zeros. Errors name what is wrong (dtype, shape, byte count).
  static StatusOr<Tensor> FromProto(const TensorProto& proto);

  // "dtype [shape] values", with at most `max_values` values shown.
  std::string DebugString(int max_values = 16) const;
  // Just the values, e.g. "[1 2 3]" or "[[1 2] [3 4]]", at most max_values.
  std::string ValuesString(int max_values = 16) const;

 private:
  Tensor(DataType dtype, const TensorShape& shape, TensorBuffer* buf, char* data)
      : dtype_(dtype), shape_(shape), buf_(buf), data_(data) {}
  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  TensorBuffer* buf_ = nullptr;  // owns one reference
  char* data_ = nullptr;
};

}  // namespace flowvm

#endif  // FLOWVM_TENSOR_H_
