// Tensor <-> TensorProto: TensorFlow's rules for tensor_content and the typed
// value fields, every dtype's field, and the errors for malformed protos.
#include <cstring>

#include <gtest/gtest.h>

#include "flowvm/tensor.h"

namespace flowvm {
namespace {

TensorProto Proto(DataType dtype, std::initializer_list<int64_t> dims) {
  TensorProto p;
  p.set_dtype(dtype);
  for (int64_t d : dims) p.mutable_tensor_shape()->add_dim()->set_size(d);
  return p;
}

std::string Values(const TensorProto& p) {
  StatusOr<Tensor> t = Tensor::FromProto(p);
  if (!t.ok()) return t.status().ToString();
  return t->DebugString(100);
}

void ExpectInvalid(const TensorProto& p, const std::string& fragment) {
  StatusOr<Tensor> t = Tensor::FromProto(p);
  ASSERT_FALSE(t.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(t.status().code(), Code::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find(fragment), std::string::npos) << t.status();
}

TEST(TensorProtoTest, TensorContentWinsOverTypedFields) {
  TensorProto p = Proto(DT_FLOAT, {2});
  float v[2] = {1.5f, -2.0f};
  p.set_tensor_content(std::string(reinterpret_cast<const char*>(v), sizeof(v)));
  p.add_float_val(9);
  EXPECT_EQ(Values(p), "float [2] [1.5 -2]");
}

TEST(TensorProtoTest, ShortFieldRepeatsItsLastValue) {
  TensorProto p = Proto(DT_INT32, {2, 3});
  p.add_int_val(1);
  p.add_int_val(2);
  EXPECT_EQ(Values(p), "int32 [2,3] [[1 2 2] [2 2 2]]");
  TensorProto c = Proto(DT_COMPLEX64, {3});
  c.add_scomplex_val(1);
  c.add_scomplex_val(2);
  EXPECT_EQ(Values(c), "complex64 [3] [(1+2j) (1+2j) (1+2j)]");
  TensorProto s = Proto(DT_STRING, {3});
  s.add_string_val("a");
  s.add_string_val("b");
  EXPECT_EQ(Values(s), "string [3] [\"a\" \"b\" \"b\"]");
}

TEST(TensorProtoTest, EmptyFieldMeansZeros) {
  EXPECT_EQ(Values(Proto(DT_DOUBLE, {3})), "double [3] [0 0 0]");
  EXPECT_EQ(Values(Proto(DT_BOOL, {2})), "bool [2] [False False]");
  EXPECT_EQ(Values(Proto(DT_HALF, {1})), "half [1] [0]");
  EXPECT_EQ(Values(Proto(DT_COMPLEX128, {1})), "complex128 [1] [(0+0j)]");
  EXPECT_EQ(Values(Proto(DT_STRING, {2})), "string [2] [\"\" \"\"]");
  EXPECT_EQ(Values(Proto(DT_FLOAT, {0})), "float [0] []");
  EXPECT_EQ(Values(Proto(DT_FLOAT, {})), "float [] 0");
}

TEST(TensorProtoTest, TooManyValuesIsAnError) {
  TensorProto p = Proto(DT_FLOAT, {2});
  for (int i = 0; i < 3; ++i) p.add_float_val(i);
  ExpectInvalid(p, "3 values in float_val but its shape holds only 2");
  TensorProto e = Proto(DT_INT64, {0});
  e.add_int64_val(1);
  ExpectInvalid(e, "1 values in int64_val");
  TensorProto s = Proto(DT_STRING, {1});
  s.add_string_val("a");
  s.add_string_val("b");
  ExpectInvalid(s, "2 values in string_val");
  TensorProto c = Proto(DT_COMPLEX64, {1});
  for (int i = 0; i < 3; ++i) c.add_scomplex_val(i);
  ExpectInvalid(c, "scomplex_val has 3 entries, not a multiple of 2");
}

TEST(TensorProtoTest, WrongTensorContentLengthIsAnError) {
  TensorProto p = Proto(DT_INT32, {2});
  p.set_tensor_content(std::string(7, '\0'));
  ExpectInvalid(p, "tensor_content has 7 bytes, but a int32 tensor of shape [2] needs 8");
  TensorProto e = Proto(DT_INT32, {0});
  e.set_tensor_content("x");
  ExpectInvalid(e, "needs 0");
}

TEST(TensorProtoTest, BadDtypeOrShape) {
  ExpectInvalid(Proto(DT_FLOAT_REF, {1}), "float_ref");
  ExpectInvalid(Proto(DT_RESOURCE, {1}), "resource");
  ExpectInvalid(Proto(DT_INVALID, {1}), "invalid");
  ExpectInvalid(Proto(DT_FLOAT, {-1}), "unknown dimension");
  TensorProto u = Proto(DT_FLOAT, {});
  u.mutable_tensor_shape()->set_unknown_rank(true);
  ExpectInvalid(u, "unknown rank");
  // A proto may not describe a huge tensor it does not carry.
  ExpectInvalid(Proto(DT_FLOAT, {int64_t{1} << 40}), "too large");
  ExpectInvalid(Proto(DT_FLOAT, {int64_t{1} << 62, 4}), "more than 2^62");
}

// One case per dtype: its field, filled with two values, on a shape of 3.
struct FieldCase {
  DataType dtype;
  void (*fill)(TensorProto*);
  const char* expected;
};

TEST(TensorProtoTest, EveryDtypeReadsItsField) {
  const FieldCase cases[] = {
      {DT_FLOAT, [](TensorProto* p) { p->add_float_val(1.5f); p->add_float_val(-2); }, "[1.5 -2 -2]"},
      {DT_DOUBLE, [](TensorProto* p) { p->add_double_val(0.1); p->add_double_val(3); }, "[0.1 3 3]"},
      {DT_INT32, [](TensorProto* p) { p->add_int_val(-7); p->add_int_val(8); }, "[-7 8 8]"},
      {DT_INT16, [](TensorProto* p) { p->add_int_val(-300); p->add_int_val(300); }, "[-300 300 300]"},
      {DT_INT8, [](TensorProto* p) { p->add_int_val(-128); p->add_int_val(127); }, "[-128 127 127]"},
      {DT_UINT8, [](TensorProto* p) { p->add_int_val(0); p->add_int_val(255); }, "[0 255 255]"},
      {DT_UINT16, [](TensorProto* p) { p->add_int_val(1); p->add_int_val(65535); }, "[1 65535 65535]"},
      {DT_INT64, [](TensorProto* p) { p->add_int64_val(int64_t{1} << 40); p->add_int64_val(-1); },
       "[1099511627776 -1 -1]"},
      {DT_UINT32, [](TensorProto* p) { p->add_uint32_val(4000000000u); p->add_uint32_val(1); },
       "[4000000000 1 1]"},
      {DT_UINT64, [](TensorProto* p) { p->add_uint64_val(UINT64_MAX); p->add_uint64_val(2); },
       "[18446744073709551615 2 2]"},
      {DT_BOOL, [](TensorProto* p) { p->add_bool_val(true); p->add_bool_val(false); }, "[True False False]"},
      {DT_QINT8, [](TensorProto* p) { p->add_int_val(-1); p->add_int_val(2); }, "[-1 2 2]"},
      {DT_QUINT8, [](TensorProto* p) { p->add_int_val(200); p->add_int_val(3); }, "[200 3 3]"},
      {DT_QINT16, [](TensorProto* p) { p->add_int_val(-1000); p->add_int_val(4); }, "[-1000 4 4]"},
      {DT_QUINT16, [](TensorProto* p) { p->add_int_val(60000); p->add_int_val(5); }, "[60000 5 5]"},
      {DT_QINT32, [](TensorProto* p) { p->add_int_val(-100000); p->add_int_val(6); }, "[-100000 6 6]"},
      // half_val holds the raw 16 bits, for half and for bfloat16.
      {DT_HALF, [](TensorProto* p) { p->add_half_val(0x3c00); p->add_half_val(0xc100); }, "[1 -2.5 -2.5]"},
      {DT_BFLOAT16, [](TensorProto* p) { p->add_half_val(0x3f80); p->add_half_val(0xc020); }, "[1 -2.5 -2.5]"},
      {DT_COMPLEX64, [](TensorProto* p) { for (float f : {1.f, 2.f, 3.f, -4.f}) p->add_scomplex_val(f); },
       "[(1+2j) (3-4j) (3-4j)]"},
      {DT_COMPLEX128, [](TensorProto* p) { for (double d : {0.5, 0.0, -1.0, 1.0}) p->add_dcomplex_val(d); },
       "[(0.5+0j) (-1+1j) (-1+1j)]"},
      {DT_STRING, [](TensorProto* p) { p->add_string_val("x"); p->add_string_val(""); }, "[\"x\" \"\" \"\"]"},
  };
  for (const FieldCase& c : cases) {
    TensorProto p = Proto(c.dtype, {3});
    c.fill(&p);
    EXPECT_EQ(Values(p), DataTypeName(c.dtype) + " [3] " + c.expected);
  }
}

TEST(TensorProtoTest, RoundTripThroughTensorContent) {
  for (DataType d : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_STRING, DT_COMPLEX64, DT_INT64,
                     DT_BOOL, DT_QINT8, DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16,
                     DT_COMPLEX128, DT_HALF, DT_UINT32, DT_UINT64}) {
    for (const TensorShape& shape : {TensorShape(), TensorShape({0}), TensorShape({2, 3})}) {
      Tensor t(d, shape);
      SCOPED_TRACE(DataTypeName(d) + " " + shape.DebugString());
      if (d == DT_STRING) {
        for (int64_t i = 0; i < t.NumElements(); ++i) t.data<std::string>()[i] = std::string(i, 'a' + i);
      } else {
        auto* p = static_cast<unsigned char*>(t.raw_data());
        for (size_t i = 0; i < t.TotalBytes(); ++i)
          p[i] = d == DT_BOOL ? i % 2 : static_cast<unsigned char>(i * 29 + 3);
      }
      TensorProto proto;
      proto.add_float_val(1);  // cleared by AsProtoTensorContent
      t.AsProtoTensorContent(&proto);
      EXPECT_EQ(proto.dtype(), d);
      EXPECT_EQ(proto.float_val_size(), 0);
      EXPECT_EQ(proto.tensor_content().size(), d == DT_STRING ? 0 : t.TotalBytes());
      // Through the wire format, too.
      TensorProto parsed;
      ASSERT_TRUE(parsed.ParseFromString(proto.SerializeAsString()));
      StatusOr<Tensor> back = Tensor::FromProto(parsed);
      ASSERT_TRUE(back.ok()) << back.status();
      EXPECT_EQ(back->dtype(), d);
      EXPECT_EQ(back->shape(), shape);
      if (d == DT_STRING) {
        for (int64_t i = 0; i < t.NumElements(); ++i) EXPECT_EQ(back->data<std::string>()[i], t.data<std::string>()[i]);
      } else {
        EXPECT_EQ(std::memcmp(back->raw_data(), t.raw_data(), t.TotalBytes()), 0);
      }
    }
  }
}

}  // namespace
}  // namespace flowvm
