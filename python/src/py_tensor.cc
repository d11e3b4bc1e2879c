#include "py_tensor.h"

#include <cstring>
#include <mutex>
#include <string>
#include <vector>

namespace py = pybind11;

namespace flowvm::python {
namespace {

// Arrays whose last tensor died on a thread without the GIL, released by
// the interpreter's main thread (Py_AddPendingCall) or by the next call
// into this module. Runtime threads never take the GIL: one that did while
// the interpreter finalizes would be ended by it in the middle of C++.
std::mutex g_released_mu;
std::vector<PyObject*>* g_released = new std::vector<PyObject*>();  // leaked: used until exit
bool g_release_scheduled = false;

int ReleaseArrays(void*) {
  std::vector<PyObject*> arrays;
  {
    std::lock_guard<std::mutex> lock(g_released_mu);
    arrays.swap(*g_released);
    g_release_scheduled = false;
  }
  for (PyObject* a : arrays) Py_DECREF(a);
  return 0;
}

// A Tensor buffer over a NumPy array's memory: holds the array.
class NumpyBuffer final : public TensorBuffer {
 public:
  NumpyBuffer(py::object array, void* data, size_t bytes) : TensorBuffer(data, bytes), array_(array.release().ptr()) {}
  // The array stays the caller's: kernels read it, never write it.
  bool OwnsMemory() const override { return false; }

 private:
  ~NumpyBuffer() override = default;
  void Destroy() const override {
    if (Py_IsInitialized() && PyGILState_Check()) {
      Py_DECREF(array_);
    } else {
      bool schedule = false;
      {
        std::lock_guard<std::mutex> lock(g_released_mu);
        g_released->push_back(array_);
        schedule = !g_release_scheduled;
        g_release_scheduled = true;
      }
      // Safe from any thread without the GIL; if the queue of pending calls
      // is full, the next call into the module releases them instead.
      if (schedule && Py_AddPendingCall(&ReleaseArrays, nullptr) != 0) {
        std::lock_guard<std::mutex> lock(g_released_mu);
        g_release_scheduled = false;
      }
    }
    delete this;
  }
  PyObject* array_;
};

struct NumpyTypeEntry {
  DataType dtype;
  const char* name;
};
constexpr NumpyTypeEntry kTypes[] = {
    {DT_FLOAT, "float32"},   {DT_DOUBLE, "float64"},     {DT_INT32, "int32"},   {DT_INT64, "int64"},
    {DT_UINT8, "uint8"},     {DT_INT8, "int8"},          {DT_INT16, "int16"},   {DT_UINT16, "uint16"},
    {DT_UINT32, "uint32"},   {DT_UINT64, "uint64"},      {DT_BOOL, "bool"},     {DT_HALF, "float16"},
    {DT_COMPLEX64, "complex64"}, {DT_COMPLEX128, "complex128"}, {DT_STRING, "object"},
};

StatusOr<TensorShape> ShapeOf(const py::array& a) {
  std::vector<int64_t> dims(a.shape(), a.shape() + a.ndim());
  return TensorShape::FromDims(dims);
}

// The bytes of one element of an object/bytes/str array.
Status ToBytes(const py::handle& item, std::string* out) {
  if (PyBytes_Check(item.ptr())) {
    char* data;
    Py_ssize_t len;
    PyBytes_AsStringAndSize(item.ptr(), &data, &len);
    out->assign(data, static_cast<size_t>(len));
    return Status::OK();
  }
  if (PyUnicode_Check(item.ptr())) {
    Py_ssize_t len;
    const char* data = PyUnicode_AsUTF8AndSize(item.ptr(), &len);
    if (data == nullptr) {
      PyErr_Clear();
      return errors::InvalidArgument("a string element is not valid Unicode");
    }
    out->assign(data, static_cast<size_t>(len));
    return Status::OK();
  }
  return errors::InvalidArgument("a string tensor's element is ", std::string(py::str(py::type::of(item))),
                                 ", not bytes or str");
}

}  // namespace

StatusOr<py::dtype> NumpyDtype(DataType dtype) {
  // Made once per type: building a dtype from its name costs microseconds,
  // a large part of fetching a small tensor. Never released (they must
  // outlive every call, and the interpreter tears numpy down itself).
  static PyObject* cache[64] = {};
  const int base = static_cast<int>(BaseType(dtype));
  if (base > 0 && base < 64 && cache[base] != nullptr) return py::reinterpret_borrow<py::dtype>(cache[base]);
  for (const auto& e : kTypes) {
    if (e.dtype == BaseType(dtype)) {
      py::dtype d(std::string(e.name));
      if (base > 0 && base < 64) cache[base] = d.inc_ref().ptr();
      return d;
    }
  }
  return errors::Unimplemented("NumPy has no type for ", DataTypeName(dtype), " tensors");
}

StatusOr<DataType> DataTypeOfNumpy(const py::dtype& dtype) {
  const char kind = dtype.kind();
  const auto size = dtype.itemsize();
  switch (kind) {
    case 'f':
      if (size == 4) return DT_FLOAT;
      if (size == 8) return DT_DOUBLE;
      if (size == 2) return DT_HALF;
      break;
    case 'i':
      if (size == 4) return DT_INT32;
      if (size == 8) return DT_INT64;
      if (size == 1) return DT_INT8;
      if (size == 2) return DT_INT16;
      break;
    case 'u':
      if (size == 1) return DT_UINT8;
      if (size == 2) return DT_UINT16;
      if (size == 4) return DT_UINT32;
      if (size == 8) return DT_UINT64;
      break;
    case 'b': return DT_BOOL;
    case 'c':
      if (size == 8) return DT_COMPLEX64;
      if (size == 16) return DT_COMPLEX128;
      break;
    case 'O':
    case 'S':
    case 'U': return DT_STRING;
    default: break;
  }
  return errors::InvalidArgument("NumPy dtype ", std::string(py::str(py::handle(dtype))), " has no flowvm type");
}

void ReleaseDeferredArrays() { ReleaseArrays(nullptr); }

StatusOr<Tensor> NumpyToTensor(const py::handle& value) {
  if (!py::isinstance<py::array>(value)) return errors::InvalidArgument("expected a numpy.ndarray");
  py::array array = py::reinterpret_borrow<py::array>(value);
  auto dtype = DataTypeOfNumpy(array.dtype());
  if (!dtype.ok()) return dtype.status();
  auto shape_or = ShapeOf(array);
  if (!shape_or.ok()) return shape_or.status();
  const TensorShape shape = *shape_or;
  if (*dtype == DT_STRING) {
    auto t = Tensor::Allocate(DT_STRING, shape);
    if (!t.ok()) return t.status();
    std::string* out = t->data<std::string>();
    // ravel() of a non-contiguous array copies; .flat iterates any layout.
    py::object flat = array.attr("ravel")();
    const int64_t n = shape.num_elements();
    const char kind = array.dtype().kind();
    for (int64_t i = 0; i < n; ++i) {
      py::object item = flat[py::int_(i)];
      if (kind != 'O') item = item.attr("item")();  // numpy.bytes_/str_ -> bytes/str
      Status s = ToBytes(item, &out[i]);
      if (!s.ok()) return errors::InvalidArgument(s.message(), " (element ", i, ")");
    }
    return std::move(*t);
  }
  const bool native = array.dtype().attr("isnative").cast<bool>();
  const int flags = py::detail::array_proxy(array.ptr())->flags;
  const bool contiguous = (flags & py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_) != 0;
  const bool aligned = (flags & py::detail::npy_api::NPY_ARRAY_ALIGNED_) != 0;
  if (native && contiguous && aligned && shape.num_elements() > 0) {
    void* data = const_cast<void*>(array.data());
    auto* buf = new NumpyBuffer(array, data, static_cast<size_t>(array.nbytes()));
    return Tensor::FromBuffer(*dtype, shape, buf);
  }
  auto t = Tensor::Allocate(*dtype, shape);
  if (!t.ok()) return t.status();
  if (shape.num_elements() == 0) return std::move(*t);
  // A contiguous native copy made by NumPy, then one memcpy.
  py::dtype native_dtype = array.dtype().attr("newbyteorder")("=");
  py::object copy = py::module_::import("numpy").attr("ascontiguousarray")(array, native_dtype);
  py::array c = py::reinterpret_borrow<py::array>(copy);
  std::memcpy(t->raw_data(), c.data(), static_cast<size_t>(c.nbytes()));
  return std::move(*t);
}

StatusOr<py::object> TensorToNumpy(const Tensor& tensor) {
  auto np_dtype = NumpyDtype(tensor.dtype());
  if (!np_dtype.ok()) return np_dtype.status();
  std::vector<py::ssize_t> dims(tensor.shape().dim_sizes().begin(), tensor.shape().dim_sizes().end());
  const DataType base = BaseType(tensor.dtype());
  if (base == DT_STRING) {
    py::array out(*np_dtype, dims);
    const int64_t n = tensor.NumElements();
    const std::string* in = tensor.data<std::string>();
    auto** slots = reinterpret_cast<PyObject**>(out.mutable_data());
    for (int64_t i = 0; i < n; ++i) {
      PyObject* b = PyBytes_FromStringAndSize(in[i].data(), static_cast<Py_ssize_t>(in[i].size()));
      if (b == nullptr) throw py::error_already_set();
      Py_XDECREF(slots[i]);
      slots[i] = b;
    }
    if (dims.empty()) return py::reinterpret_borrow<py::object>(slots[0]);
    return py::object(std::move(out));
  }
  py::array out;
  // Small tensors are copied: cheaper than keeping a Tensor alive for them.
  constexpr size_t kShareAtLeast = 1024;
  if (tensor.BufferRefCountIsOne() && tensor.TotalBytes() >= kShareAtLeast) {
    // Share: the capsule keeps a Tensor (one buffer reference) alive as long
    // as the array (or a view of it) lives.
    auto* keep = new Tensor(tensor);
    py::capsule owner(keep, [](void* p) { delete static_cast<Tensor*>(p); });
    out = py::array(*np_dtype, dims, {}, tensor.raw_data(), owner);
  } else {
    out = py::array(*np_dtype, dims);
    if (tensor.NumElements() > 0) std::memcpy(out.mutable_data(), tensor.raw_data(), tensor.TotalBytes());
  }
  if (dims.empty()) return py::object(out[py::tuple()]);
  return py::object(std::move(out));
}

}  // namespace flowvm::python
