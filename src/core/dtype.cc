#include "flowvm/dtype.h"

#include <cstring>

namespace flowvm {

namespace {
uint32_t FloatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
float BitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
}  // namespace

// IEEE binary16, round to nearest even, with subnormals, Inf and NaN.
half::half(float f) {
  uint32_t x = FloatBits(f);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // Inf or NaN
    bits = static_cast<uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
    return;
  }
  if (abs >= 0x477ff000u) {  // rounds to >= 65520: overflow to Inf
    bits = static_cast<uint16_t>(sign | 0x7c00u);
    return;
  }
  if (abs < 0x38800000u) {  // below the smallest normal half: subnormal or zero
    // Scale so the result's integer part is the subnormal mantissa; the FPU
    // does the round-to-nearest-even for us.
    float scaled = BitsToFloat(abs) * 16777216.0f;  // 2^24
    uint32_t m = static_cast<uint32_t>(__builtin_nearbyintf(scaled));
    bits = static_cast<uint16_t>(sign | m);
    return;
  }
  uint32_t mant_odd = (abs >> 13) & 1u;
  abs += 0xc8000fffu + mant_odd;  // rebias exponent (-112 << 23) and round
  bits = static_cast<uint16_t>(sign | (abs >> 13));
}

half::operator float() const {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  uint32_t exp = (bits >> 10) & 0x1fu;
  uint32_t mant = bits & 0x3ffu;
  if (exp == 0x1f) return BitsToFloat(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);  // mant * 2^-24
    return sign ? -v : v;
  }
  return BitsToFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

bfloat16::bfloat16(float f) {
  uint32_t x = FloatBits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {  // NaN: keep it a quiet NaN
    bits = static_cast<uint16_t>((x >> 16) | 0x40u);
    return;
  }
  uint32_t rounding = 0x7fffu + ((x >> 16) & 1u);
  bits = static_cast<uint16_t>((x + rounding) >> 16);
}

bfloat16::operator float() const { return BitsToFloat(static_cast<uint32_t>(bits) << 16); }

namespace {
struct TypeInfo {
  DataType dtype;
  const char* name;
  size_t size;
};
constexpr TypeInfo kTypes[] = {
    {DT_FLOAT, "float", 4},         {DT_DOUBLE, "double", 8},
    {DT_INT32, "int32", 4},         {DT_UINT8, "uint8", 1},
    {DT_INT16, "int16", 2},         {DT_INT8, "int8", 1},
    {DT_STRING, "string", 0},       {DT_COMPLEX64, "complex64", 8},
    {DT_INT64, "int64", 8},         {DT_BOOL, "bool", 1},
    {DT_QINT8, "qint8", 1},         {DT_QUINT8, "quint8", 1},
    {DT_QINT32, "qint32", 4},       {DT_BFLOAT16, "bfloat16", 2},
    {DT_QINT16, "qint16", 2},       {DT_QUINT16, "quint16", 2},
    {DT_UINT16, "uint16", 2},       {DT_COMPLEX128, "complex128", 16},
    {DT_HALF, "half", 2},           {DT_RESOURCE, "resource", 0},
    {DT_VARIANT, "variant", 0},     {DT_UINT32, "uint32", 4},
    {DT_UINT64, "uint64", 8},
};
const TypeInfo* Find(DataType dtype) {
  for (const auto& t : kTypes)
    if (t.dtype == dtype) return &t;
  return nullptr;
}
}  // namespace

std::string DataTypeName(DataType dtype) {
  const TypeInfo* t = Find(BaseType(dtype));
  if (t == nullptr) return "invalid(" + std::to_string(static_cast<int>(dtype)) + ")";
  std::string name = t->name;
  if (IsRefType(dtype)) name += "_ref";
  return name;
}

StatusOr<DataType> DataTypeFromName(std::string_view name) {
  bool ref = false;
  std::string n(name);
  if (n.size() > 4 && n.compare(n.size() - 4, 4, "_ref") == 0) {
    ref = true;
    n.resize(n.size() - 4);
  }
  if (n == "float32") n = "float";
  if (n == "float64") n = "double";
  if (n == "float16") n = "half";
  for (const auto& t : kTypes) {
    if (n == t.name) return ref ? MakeRefType(t.dtype) : t.dtype;
  }
  DataType parsed;
  if (DataType_Parse(std::string(name), &parsed) && parsed != DT_INVALID) return parsed;
  return errors::InvalidArgument("unknown data type '", name, "'");
}

size_t DataTypeSize(DataType dtype) {
  const TypeInfo* t = Find(BaseType(dtype));
  return t == nullptr ? 0 : t->size;
}

bool DataTypeIsStorable(DataType dtype) {
  DataType b = BaseType(dtype);
  return b == DT_RESOURCE || b == DT_VARIANT || DataTypeIsSerializable(b);
}

bool DataTypeIsSerializable(DataType dtype) {
  DataType b = BaseType(dtype);
  return b == DT_STRING || DataTypeSize(b) > 0;
}

bool DataTypeIsFloating(DataType dtype) {
  switch (BaseType(dtype)) {
    case DT_HALF: case DT_BFLOAT16: case DT_FLOAT: case DT_DOUBLE: return true;
    default: return false;
  }
}

bool DataTypeIsInteger(DataType dtype) {
  switch (BaseType(dtype)) {
    case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_UINT32: case DT_UINT64: return true;
    default: return false;
  }
}

bool DataTypeIsQuantized(DataType dtype) {
  switch (BaseType(dtype)) {
    case DT_QINT8: case DT_QUINT8: case DT_QINT16: case DT_QUINT16: case DT_QINT32: return true;
    default: return false;
  }
}

bool DataTypeIsComplex(DataType dtype) {
  DataType b = BaseType(dtype);
  return b == DT_COMPLEX64 || b == DT_COMPLEX128;
}

}  // namespace flowvm
