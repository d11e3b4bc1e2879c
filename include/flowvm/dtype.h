// Element types of tensors: the DataType enum (TensorFlow's numbering, from
// types.proto), the C++ type behind each value, and helpers to name them.
//
// half and bfloat16 are 16-bit storage types with exact conversions to and
// from float (round to nearest even); kernels may reinterpret them as the
// math library's own 16-bit types, which have the same layout. The quantized
// types wrap their underlying integer so that overloads can tell them apart.
#ifndef FLOWVM_DTYPE_H_
#define FLOWVM_DTYPE_H_

#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "flowvm/status.h"
#include "flowvm/types.pb.h"

namespace flowvm {

struct half {
  uint16_t bits = 0;
  half() = default;
  explicit half(float f);
  explicit operator float() const;
};

struct bfloat16 {
  uint16_t bits = 0;
  bfloat16() = default;
  explicit bfloat16(float f);
  explicit operator float() const;
};

using complex64 = std::complex<float>;
using complex128 = std::complex<double>;

#define FLOWVM_QUANTIZED_TYPE(Name, Rep)                      \
  struct Name {                                               \
    Rep value = 0;                                            \
    Name() = default;                                         \
    constexpr explicit Name(Rep v) : value(v) {}              \
    bool operator==(const Name& o) const { return value == o.value; } \
  };
FLOWVM_QUANTIZED_TYPE(qint8, int8_t)
FLOWVM_QUANTIZED_TYPE(quint8, uint8_t)
FLOWVM_QUANTIZED_TYPE(qint16, int16_t)
FLOWVM_QUANTIZED_TYPE(quint16, uint16_t)
FLOWVM_QUANTIZED_TYPE(qint32, int32_t)
#undef FLOWVM_QUANTIZED_TYPE

// "float", "int32", "float_ref", ...: TensorFlow's short names.
std::string DataTypeName(DataType dtype);
// Parses a short name ("float", "int64") or an enum name ("DT_FLOAT").
StatusOr<DataType> DataTypeFromName(std::string_view name);

inline bool IsRefType(DataType dtype) { return static_cast<int>(dtype) > 100; }
inline DataType BaseType(DataType dtype) {
  return IsRefType(dtype) ? static_cast<DataType>(static_cast<int>(dtype) - 100) : dtype;
}
inline DataType MakeRefType(DataType dtype) {
  return IsRefType(dtype) ? dtype : static_cast<DataType>(static_cast<int>(dtype) + 100);
}

// Bytes per element; 0 for DT_STRING (variable length), DT_INVALID and the
// types a Tensor cannot hold (resource, variant).
size_t DataTypeSize(DataType dtype);
// True for every type a Tensor can hold: all numeric types, bool, string,
// resource (flowvm/resource_handle.h) and variant (flowvm/variant.h).
bool DataTypeIsStorable(DataType dtype);
// The storable types whose values can be written out (protos, the wire,
// checkpoints): all but resource and variant, which live in one process.
bool DataTypeIsSerializable(DataType dtype);
bool DataTypeIsFloating(DataType dtype);   // half, bfloat16, float, double
bool DataTypeIsInteger(DataType dtype);    // signed and unsigned, not quantized
bool DataTypeIsQuantized(DataType dtype);
bool DataTypeIsComplex(DataType dtype);

// DataTypeToEnum<T>::value is the DataType of the C++ type T.
template <typename T> struct DataTypeToEnum;
#define FLOWVM_MATCH_TYPE_AND_ENUM(TYPE, ENUM)                   \
  template <> struct DataTypeToEnum<TYPE> {                       \
    static constexpr DataType value = ENUM;                       \
  };
FLOWVM_MATCH_TYPE_AND_ENUM(float, DT_FLOAT)
FLOWVM_MATCH_TYPE_AND_ENUM(double, DT_DOUBLE)
FLOWVM_MATCH_TYPE_AND_ENUM(int32_t, DT_INT32)
FLOWVM_MATCH_TYPE_AND_ENUM(uint32_t, DT_UINT32)
FLOWVM_MATCH_TYPE_AND_ENUM(uint16_t, DT_UINT16)
FLOWVM_MATCH_TYPE_AND_ENUM(uint8_t, DT_UINT8)
FLOWVM_MATCH_TYPE_AND_ENUM(int16_t, DT_INT16)
FLOWVM_MATCH_TYPE_AND_ENUM(int8_t, DT_INT8)
FLOWVM_MATCH_TYPE_AND_ENUM(std::string, DT_STRING)
FLOWVM_MATCH_TYPE_AND_ENUM(complex64, DT_COMPLEX64)
FLOWVM_MATCH_TYPE_AND_ENUM(complex128, DT_COMPLEX128)
FLOWVM_MATCH_TYPE_AND_ENUM(int64_t, DT_INT64)
FLOWVM_MATCH_TYPE_AND_ENUM(uint64_t, DT_UINT64)
FLOWVM_MATCH_TYPE_AND_ENUM(bool, DT_BOOL)
FLOWVM_MATCH_TYPE_AND_ENUM(qint8, DT_QINT8)
FLOWVM_MATCH_TYPE_AND_ENUM(quint8, DT_QUINT8)
FLOWVM_MATCH_TYPE_AND_ENUM(qint16, DT_QINT16)
FLOWVM_MATCH_TYPE_AND_ENUM(quint16, DT_QUINT16)
FLOWVM_MATCH_TYPE_AND_ENUM(qint32, DT_QINT32)
FLOWVM_MATCH_TYPE_AND_ENUM(bfloat16, DT_BFLOAT16)
FLOWVM_MATCH_TYPE_AND_ENUM(half, DT_HALF)
#undef FLOWVM_MATCH_TYPE_AND_ENUM

// Calls f(T{}) with a value of the C++ type of `dtype` (every storable type).
// Returns false, without calling f, for a type a Tensor cannot hold.
template <typename F>
bool VisitDataType(DataType dtype, F&& f) {
  switch (BaseType(dtype)) {
#define FLOWVM_VISIT_CASE(TYPE, ENUM) \
  case ENUM: f(TYPE{}); return true;
    FLOWVM_VISIT_CASE(float, DT_FLOAT)
    FLOWVM_VISIT_CASE(double, DT_DOUBLE)
    FLOWVM_VISIT_CASE(int32_t, DT_INT32)
    FLOWVM_VISIT_CASE(uint32_t, DT_UINT32)
    FLOWVM_VISIT_CASE(uint16_t, DT_UINT16)
    FLOWVM_VISIT_CASE(uint8_t, DT_UINT8)
    FLOWVM_VISIT_CASE(int16_t, DT_INT16)
    FLOWVM_VISIT_CASE(int8_t, DT_INT8)
    FLOWVM_VISIT_CASE(std::string, DT_STRING)
    FLOWVM_VISIT_CASE(complex64, DT_COMPLEX64)
    FLOWVM_VISIT_CASE(complex128, DT_COMPLEX128)
    FLOWVM_VISIT_CASE(int64_t, DT_INT64)
    FLOWVM_VISIT_CASE(uint64_t, DT_UINT64)
    FLOWVM_VISIT_CASE(bool, DT_BOOL)
    FLOWVM_VISIT_CASE(qint8, DT_QINT8)
    FLOWVM_VISIT_CASE(quint8, DT_QUINT8)
    FLOWVM_VISIT_CASE(qint16, DT_QINT16)
    FLOWVM_VISIT_CASE(quint16, DT_QUINT16)
    FLOWVM_VISIT_CASE(qint32, DT_QINT32)
    FLOWVM_VISIT_CASE(bfloat16, DT_BFLOAT16)
    FLOWVM_VISIT_CASE(half, DT_HALF)
#undef FLOWVM_VISIT_CASE
    default:
      return false;
  }
}

}  // namespace flowvm

#endif  // FLOWVM_DTYPE_H_
