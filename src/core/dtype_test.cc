// DataType names, sizes and predicates, and the half / bfloat16 conversions
// (round to nearest even, subnormals, infinities, NaN, overflow).
#include "flowvm/dtype.h"

#include <cmath>
#include <cstring>
#include <limits>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

float FromBits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}
uint32_t ToBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}
uint16_t H(float f) { return half(f).bits; }
uint16_t B(float f) { return bfloat16(f).bits; }
float HalfToFloat(uint16_t bits) {
  half h;
  h.bits = bits;
  return static_cast<float>(h);
}
float Bf16ToFloat(uint16_t bits) {
  bfloat16 b;
  b.bits = bits;
  return static_cast<float>(b);
}

// ---- half ----------------------------------------------------------------------

TEST(HalfTest, ExactValues) {
  EXPECT_EQ(H(0.0f), 0x0000);
  EXPECT_EQ(H(-0.0f), 0x8000);
  EXPECT_EQ(H(1.0f), 0x3c00);
  EXPECT_EQ(H(-2.0f), 0xc000);
  EXPECT_EQ(H(0.5f), 0x3800);
  EXPECT_EQ(H(65504.0f), 0x7bff);       // largest finite half
  EXPECT_EQ(H(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
}

TEST(HalfTest, RoundsToNearestEven) {
  const float ulp = std::ldexp(1.0f, -10);  // spacing of halves in [1, 2)
  EXPECT_EQ(H(1.0f + ulp / 2), 0x3c00);             // tie, rounds down to even
  EXPECT_EQ(H(1.0f + 3 * ulp / 2), 0x3c02);         // tie, rounds up to even
  EXPECT_EQ(H(1.0f + ulp / 2 + ulp / 1024), 0x3c01);  // just above the tie
  EXPECT_EQ(H(1.0f + ulp / 2 - ulp / 1024), 0x3c00);  // just below the tie
  EXPECT_EQ(H(2.0f - ulp / 4), 0x4000);             // carries into the exponent
}

TEST(HalfTest, Subnormals) {
  const float tiny = std::ldexp(1.0f, -24);  // smallest subnormal half
  EXPECT_EQ(H(tiny), 0x0001);
  EXPECT_EQ(H(-tiny), 0x8001);
  EXPECT_EQ(H(1023 * tiny), 0x03ff);         // largest subnormal
  EXPECT_EQ(H(tiny / 2), 0x0000);            // tie, rounds to even zero
  EXPECT_EQ(H(3 * tiny / 2), 0x0002);        // tie, rounds up to even
  EXPECT_EQ(H(tiny / 2 + tiny / 64), 0x0001);
  EXPECT_EQ(H(tiny / 4), 0x0000);            // underflows to zero
  EXPECT_EQ(H(-tiny / 4), 0x8000);           // keeps its sign
  EXPECT_EQ(H(1023.75f * tiny), 0x0400);     // rounds up into the normals
  EXPECT_EQ(H(std::numeric_limits<float>::denorm_min()), 0x0000);
  EXPECT_EQ(HalfToFloat(0x0001), tiny);
  EXPECT_EQ(HalfToFloat(0x8001), -tiny);
  EXPECT_EQ(HalfToFloat(0x03ff), 1023 * tiny);
}

TEST(HalfTest, OverflowInfinityAndNan) {
  EXPECT_EQ(H(65519.0f), 0x7bff);  // below the midpoint to 65536
  EXPECT_EQ(H(65520.0f), 0x7c00);  // the midpoint rounds to even: infinity
  EXPECT_EQ(H(1e10f), 0x7c00);
  EXPECT_EQ(H(-1e10f), 0xfc00);
  EXPECT_EQ(H(std::numeric_limits<float>::max()), 0x7c00);
  EXPECT_EQ(H(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(H(-std::numeric_limits<float>::infinity()), 0xfc00);
  uint16_t nan = H(std::numeric_limits<float>::quiet_NaN());
  EXPECT_EQ(nan & 0x7c00, 0x7c00);
  EXPECT_NE(nan & 0x03ff, 0);
  // A NaN whose payload lives only in the low bits must not become infinity.
  uint16_t snan = H(FromBits(0x7f800001u));
  EXPECT_EQ(snan & 0x7c00, 0x7c00);
  EXPECT_NE(snan & 0x03ff, 0);
  EXPECT_TRUE(std::isnan(HalfToFloat(0x7e00)));
  EXPECT_TRUE(std::isnan(HalfToFloat(0xfc01)));
  EXPECT_EQ(HalfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_EQ(HalfToFloat(0xfc00), -std::numeric_limits<float>::infinity());
}

TEST(HalfTest, EveryHalfRoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = HalfToFloat(static_cast<uint16_t>(b));
    if (std::isnan(f)) continue;
    ASSERT_EQ(H(f), b) << "half bits 0x" << std::hex << b;
  }
}

#ifdef __FLT16_MAX__
// The compiler's own _Float16 conversion is an independent reference.
TEST(HalfTest, MatchesCompilerFloat16) {
  auto check = [](uint32_t u) {
    float f = FromBits(u);
    if (std::isnan(f)) return;
    _Float16 ref = static_cast<_Float16>(f);
    uint16_t ref_bits;
    std::memcpy(&ref_bits, &ref, sizeof(ref_bits));
    ASSERT_EQ(H(f), ref_bits) << "float bits 0x" << std::hex << u;
    ASSERT_EQ(HalfToFloat(ref_bits), static_cast<float>(ref));
  };
  for (uint64_t u = 0; u <= 0xffffffffu; u += 65521) check(static_cast<uint32_t>(u));
  // Densely around the interesting exponents: subnormal, normal and overflow edges.
  for (uint32_t base : {0x33000000u, 0x38800000u, 0x477fe000u, 0x3f800000u})
    for (uint32_t d = 0; d < 0x20000; ++d) {
      check(base - 0x10000 + d);
      check((base - 0x10000 + d) | 0x80000000u);
    }
}
#endif

// ---- bfloat16 --------------------------------------------------------------------

TEST(Bfloat16Test, ExactValuesAndRounding) {
  EXPECT_EQ(B(1.0f), 0x3f80);
  EXPECT_EQ(B(-2.0f), 0xc000);
  EXPECT_EQ(B(-0.0f), 0x8000);
  EXPECT_EQ(B(FromBits(0x3f808000u)), 0x3f80);  // tie, even stays
  EXPECT_EQ(B(FromBits(0x3f818000u)), 0x3f82);  // tie, odd rounds up
  EXPECT_EQ(B(FromBits(0x3f808001u)), 0x3f81);  // above the tie
  EXPECT_EQ(B(FromBits(0x3f807fffu)), 0x3f80);  // below the tie
  EXPECT_EQ(B(FromBits(0x3fffffffu)), 0x4000);  // carries into the exponent
  EXPECT_EQ(Bf16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(Bf16ToFloat(0x4049), FromBits(0x40490000u));
}

TEST(Bfloat16Test, SubnormalsOverflowInfinityNan) {
  EXPECT_EQ(B(FromBits(0x00010000u)), 0x0001);  // smallest subnormal bfloat16
  EXPECT_EQ(B(FromBits(0x00008000u)), 0x0000);  // tie to even zero
  EXPECT_EQ(B(FromBits(0x00018000u)), 0x0002);
  EXPECT_EQ(Bf16ToFloat(0x0001), FromBits(0x00010000u));
  EXPECT_EQ(B(std::numeric_limits<float>::max()), 0x7f80);  // rounds up to infinity
  EXPECT_EQ(B(FromBits(0x7f7f7fffu)), 0x7f7f);              // largest finite stays finite
  EXPECT_EQ(B(std::numeric_limits<float>::infinity()), 0x7f80);
  EXPECT_EQ(B(-std::numeric_limits<float>::infinity()), 0xff80);
  // NaNs stay NaN, including one whose payload would be rounded or cut away.
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xff800001u, 0x7fffffffu}) {
    uint16_t b = B(FromBits(nan));
    EXPECT_EQ(b & 0x7f80, 0x7f80) << std::hex << nan;
    EXPECT_NE(b & 0x007f, 0) << std::hex << nan;
    EXPECT_EQ(b & 0x8000, (nan >> 16) & 0x8000) << std::hex << nan;
  }
}

TEST(Bfloat16Test, EveryBfloat16RoundTripsThroughFloat) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    float f = Bf16ToFloat(static_cast<uint16_t>(b));
    EXPECT_EQ(ToBits(f), b << 16);
    if (std::isnan(f)) continue;
    ASSERT_EQ(B(f), b) << "bfloat16 bits 0x" << std::hex << b;
  }
}

// ---- DataType ----------------------------------------------------------------------

struct TypeCase {
  DataType dtype;
  const char* name;
  size_t size;
};
const TypeCase kStorable[] = {
    {DT_FLOAT, "float", 4},       {DT_DOUBLE, "double", 8},       {DT_INT32, "int32", 4},
    {DT_UINT8, "uint8", 1},       {DT_INT16, "int16", 2},         {DT_INT8, "int8", 1},
    {DT_STRING, "string", 0},     {DT_COMPLEX64, "complex64", 8}, {DT_INT64, "int64", 8},
    {DT_BOOL, "bool", 1},         {DT_QINT8, "qint8", 1},         {DT_QUINT8, "quint8", 1},
    {DT_QINT32, "qint32", 4},     {DT_BFLOAT16, "bfloat16", 2},   {DT_QINT16, "qint16", 2},
    {DT_QUINT16, "quint16", 2},   {DT_UINT16, "uint16", 2},       {DT_COMPLEX128, "complex128", 16},
    {DT_HALF, "half", 2},         {DT_UINT32, "uint32", 4},       {DT_UINT64, "uint64", 8},
};

TEST(DataTypeTest, NamesSizesAndStorability) {
  for (const TypeCase& c : kStorable) {
    SCOPED_TRACE(c.name);
    EXPECT_EQ(DataTypeName(c.dtype), c.name);
    EXPECT_EQ(DataTypeName(MakeRefType(c.dtype)), std::string(c.name) + "_ref");
    EXPECT_EQ(DataTypeSize(c.dtype), c.size);
    EXPECT_EQ(DataTypeSize(MakeRefType(c.dtype)), c.size);
    EXPECT_TRUE(DataTypeIsStorable(c.dtype));
    // Every name parses back, with or without _ref, and as its enum name.
    EXPECT_EQ(*DataTypeFromName(c.name), c.dtype);
    EXPECT_EQ(*DataTypeFromName(std::string(c.name) + "_ref"), MakeRefType(c.dtype));
    EXPECT_EQ(*DataTypeFromName(DataType_Name(c.dtype)), c.dtype);
    EXPECT_EQ(*DataTypeFromName(DataType_Name(MakeRefType(c.dtype))), MakeRefType(c.dtype));
  }
  EXPECT_EQ(DataTypeName(DT_RESOURCE), "resource");
  EXPECT_EQ(DataTypeName(DT_VARIANT), "variant");
  EXPECT_EQ(DataTypeName(DT_INVALID), "invalid(0)");
  EXPECT_EQ(DataTypeName(static_cast<DataType>(77)), "invalid(77)");
  for (DataType d : {DT_INVALID, DT_RESOURCE, DT_VARIANT, static_cast<DataType>(77)}) {
    EXPECT_FALSE(DataTypeIsSerializable(d)) << DataTypeName(d);
    EXPECT_EQ(DataTypeSize(d), 0u) << DataTypeName(d);
  }
  EXPECT_FALSE(DataTypeIsStorable(DT_INVALID));
  EXPECT_TRUE(DataTypeIsStorable(DT_RESOURCE));
  EXPECT_TRUE(DataTypeIsStorable(DT_VARIANT));
}

TEST(DataTypeTest, FromNameAliasesAndErrors) {
  EXPECT_EQ(*DataTypeFromName("float32"), DT_FLOAT);
  EXPECT_EQ(*DataTypeFromName("float64"), DT_DOUBLE);
  EXPECT_EQ(*DataTypeFromName("float16"), DT_HALF);
  EXPECT_EQ(*DataTypeFromName("float32_ref"), DT_FLOAT_REF);
  EXPECT_EQ(*DataTypeFromName("resource"), DT_RESOURCE);
  for (const char* bad : {"", "bogus", "Float", "DT_INVALID", "invalid", "_ref", "int33", "float_ref_ref"}) {
    StatusOr<DataType> r = DataTypeFromName(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kInvalidArgument);
    EXPECT_NE(r.status().message().find("'" + std::string(bad) + "'"), std::string::npos) << r.status();
  }
}

TEST(DataTypeTest, RefTypes) {
  EXPECT_TRUE(IsRefType(DT_FLOAT_REF));
  EXPECT_FALSE(IsRefType(DT_FLOAT));
  EXPECT_EQ(BaseType(DT_INT32_REF), DT_INT32);
  EXPECT_EQ(BaseType(DT_INT32), DT_INT32);
  EXPECT_EQ(MakeRefType(DT_HALF), DT_HALF_REF);
  EXPECT_EQ(MakeRefType(DT_HALF_REF), DT_HALF_REF);
}

TEST(DataTypeTest, Predicates) {
  for (const TypeCase& c : kStorable) {
    DataType d = c.dtype;
    bool floating = d == DT_HALF || d == DT_BFLOAT16 || d == DT_FLOAT || d == DT_DOUBLE;
    bool integer = d == DT_INT8 || d == DT_INT16 || d == DT_INT32 || d == DT_INT64 || d == DT_UINT8 ||
                   d == DT_UINT16 || d == DT_UINT32 || d == DT_UINT64;
    bool quantized = d == DT_QINT8 || d == DT_QUINT8 || d == DT_QINT16 || d == DT_QUINT16 || d == DT_QINT32;
    bool complex = d == DT_COMPLEX64 || d == DT_COMPLEX128;
    SCOPED_TRACE(c.name);
    EXPECT_EQ(DataTypeIsFloating(d), floating);
    EXPECT_EQ(DataTypeIsInteger(d), integer);
    EXPECT_EQ(DataTypeIsQuantized(d), quantized);
    EXPECT_EQ(DataTypeIsComplex(d), complex);
    EXPECT_EQ(DataTypeIsFloating(MakeRefType(d)), floating);
  }
}

TEST(DataTypeTest, VisitMatchesSizesAndEnums) {
  for (const TypeCase& c : kStorable) {
    DataType seen = DT_INVALID;
    size_t size = 0;
    EXPECT_TRUE(VisitDataType(MakeRefType(c.dtype), [&](auto zero) {
      using T = decltype(zero);
      seen = DataTypeToEnum<T>::value;
      size = sizeof(T);
    }));
    EXPECT_EQ(seen, c.dtype) << c.name;
    if (c.dtype != DT_STRING) {
      EXPECT_EQ(size, c.size) << c.name;
    }
  }
  bool called = false;
  EXPECT_FALSE(VisitDataType(DT_RESOURCE, [&](auto) { called = true; }));
  EXPECT_FALSE(VisitDataType(DT_INVALID, [&](auto) { called = true; }));
  EXPECT_FALSE(called);
}

TEST(DataTypeTest, QuantizedWrappers) {
  EXPECT_EQ(qint8(-3).value, -3);
  EXPECT_EQ(quint16(7), quint16(7));
  EXPECT_FALSE(qint32(1) == qint32(2));
  EXPECT_EQ(qint32().value, 0);
}

}  // namespace
}  // namespace flowvm
