// The envelope tensors travel in (distributed/wire.h): round trips of every
// storable type, zero-copy slices that keep their tensor alive, bfloat16
// rounding, chunked tensors, and malformed input, which must be an error
// (never a crash, never a huge allocation before the sizes are checked).
#include "distributed/wire.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/allocator.h"
#include "flowvm/master.pb.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using runtime_testing::HasError;

// ---- helpers ----------------------------------------------------------------

std::string Bytes(const grpc::ByteBuffer& b) {
  std::vector<grpc::Slice> slices;
  EXPECT_TRUE(b.Dump(&slices).ok());
  std::string out;
  for (const grpc::Slice& s : slices) out.append(reinterpret_cast<const char*>(s.begin()), s.size());
  return out;
}

grpc::ByteBuffer BufferOf(const std::string& bytes) {
  grpc::Slice slice(bytes.data(), bytes.size());
  return grpc::ByteBuffer(&slice, 1);
}

// The same bytes, one slice per byte: reads cross every slice boundary.
grpc::ByteBuffer OneBytePerSlice(const std::string& bytes) {
  std::vector<grpc::Slice> slices;
  for (char c : bytes) slices.emplace_back(&c, 1);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

std::string LittleEndian32(uint32_t n) {
  std::string out(4, '\0');
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xff);
  return out;
}

// An envelope from its parts, as a peer might send it, right or wrong.
std::string RawEnvelope(const google::protobuf::Message& header, const std::string& payload) {
  const std::string head = header.SerializeAsString();
  return LittleEndian32(static_cast<uint32_t>(head.size())) + head + payload;
}

// A tensor of `dtype` whose bytes follow a pattern (bools 0/1).
Tensor Patterned(DataType dtype, const TensorShape& shape, int seed = 0) {
  Tensor t(dtype, shape);
  if (dtype == DT_STRING) {
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<std::string>()[i] = std::string(i % 5, 'a' + (i + seed) % 26);
    return t;
  }
  auto* p = static_cast<unsigned char*>(t.raw_data());
  for (size_t i = 0; i < t.TotalBytes(); ++i)
    p[i] = dtype == DT_BOOL ? (i + seed) % 2 : static_cast<unsigned char>(i * 31 + 7 + seed);
  return t;
}

::testing::AssertionResult SameTensor(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype())
    return ::testing::AssertionFailure() << DataTypeName(a.dtype()) << " vs " << DataTypeName(b.dtype());
  if (a.shape() != b.shape())
    return ::testing::AssertionFailure() << a.shape().DebugString() << " vs " << b.shape().DebugString();
  if (a.dtype() == DT_STRING) {
    for (int64_t i = 0; i < a.NumElements(); ++i)
      if (a.data<std::string>()[i] != b.data<std::string>()[i])
        return ::testing::AssertionFailure() << "string " << i << " differs";
  } else if (a.TotalBytes() > 0 && std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) != 0) {
    return ::testing::AssertionFailure() << "bytes differ: " << a.DebugString() << " vs " << b.DebugString();
  }
  return ::testing::AssertionSuccess();
}

// Sends `tensors` in one RunGraphRequest envelope and reads them back, with
// the envelope whole and cut into one-byte slices.
std::vector<Tensor> RoundTrip(const std::vector<Tensor>& tensors, bool bfloat16 = false,
                              const std::vector<bool>& dead = {}) {
  std::vector<Tensor> out;
  for (bool sliced : {false, true}) {
    WirePayload payload;
    RunGraphRequest request;
    for (size_t i = 0; i < tensors.size(); ++i) {
      NamedTensorMeta* m = request.add_send();
      m->set_name("t" + std::to_string(i));
      payload.AddTensor(tensors[i], i < dead.size() && dead[i], bfloat16, m->mutable_meta());
    }
    grpc::ByteBuffer sealed = payload.Seal(request);
    EXPECT_EQ(payload.bytes(), 0u) << "Seal leaves the payload empty";
    grpc::ByteBuffer message = sliced ? OneBytePerSlice(Bytes(sealed)) : std::move(sealed);
    WireReader reader;
    RunGraphRequest got;
    Status s = reader.Open(message, &got);
    EXPECT_TRUE(s.ok()) << s;
    EXPECT_EQ(got.send_size(), static_cast<int>(tensors.size()));
    out.clear();
    for (int i = 0; s.ok() && i < got.send_size(); ++i) {
      Tensor t;
      s = reader.ReadTensor(got.send(i).meta(), got.send(i).name(), &t);
      EXPECT_TRUE(s.ok()) << s;
      out.push_back(t);
    }
    EXPECT_EQ(reader.remaining(), 0u);
  }
  return out;
}

Tensor RoundTripOne(const Tensor& t, bool bfloat16 = false) {
  std::vector<Tensor> out = RoundTrip({t}, bfloat16);
  return out.empty() ? Tensor() : out[0];
}

const std::vector<DataType>& AllStorableTypes() {
  static const std::vector<DataType> types = {
      DT_FLOAT,  DT_DOUBLE,  DT_INT8,      DT_INT16,      DT_INT32,  DT_INT64, DT_UINT8,   DT_UINT16,
      DT_UINT32, DT_UINT64,  DT_BOOL,      DT_HALF,       DT_BFLOAT16, DT_COMPLEX64, DT_COMPLEX128,
      DT_QINT8,  DT_QUINT8,  DT_QINT16,    DT_QUINT16,    DT_QINT32, DT_STRING};
  return types;
}

// ---- round trips ---------------------------------------------------------------

TEST(WireTest, RoundTripsEveryStorableType) {
  for (DataType dtype : AllStorableTypes()) {
    ASSERT_TRUE(DataTypeIsStorable(dtype)) << DataTypeName(dtype);
    // Small (copied into the envelope) and large (pointed to) tensors.
    for (const TensorShape& shape : {TensorShape({3, 5}), TensorShape({40, 17})}) {
      Tensor t = Patterned(dtype, shape);
      EXPECT_TRUE(SameTensor(RoundTripOne(t), t)) << DataTypeName(dtype) << " " << shape.DebugString();
      // Only float32 is affected by bfloat16.
      if (dtype != DT_FLOAT) {
        EXPECT_TRUE(SameTensor(RoundTripOne(t, /*bfloat16=*/true), t)) << DataTypeName(dtype);
      }
    }
  }
}

TEST(WireTest, RoundTripsStrings) {
  const std::vector<std::string> values = {"",
                                           "a",
                                           std::string("\0", 1),
                                           std::string("x\0y\0", 4),
                                           std::string(127, 'q'),    // one-byte length
                                           std::string(128, 'r'),    // two-byte length
                                           std::string(20000, 's'),  // three-byte length
                                           "\xff\xfe not utf-8"};
  Tensor t = Tensor::FromVector<std::string>(values, TensorShape({2, 4}));
  Tensor back = RoundTripOne(t);
  ASSERT_TRUE(SameTensor(back, t));
  EXPECT_EQ(back.data<std::string>()[3].size(), 4u);
  // Only empty strings: one length byte each.
  Tensor empties = Tensor::FromVector<std::string>({"", "", ""});
  EXPECT_EQ(EncodedSize(empties, false), 3u);
  EXPECT_TRUE(SameTensor(RoundTripOne(empties), empties));
}

TEST(WireTest, RoundTripsScalars) {
  for (const Tensor& t : {Tensor::Scalar<float>(-2.5f), Tensor::Scalar<int64_t>(-(int64_t{1} << 40)),
                          Tensor::Scalar<bool>(true), Tensor::Scalar<std::string>(std::string("a\0b", 3)),
                          Tensor::Scalar<complex128>({1.5, -2})}) {
    Tensor back = RoundTripOne(t);
    EXPECT_EQ(back.dims(), 0);
    EXPECT_TRUE(SameTensor(back, t)) << t.DebugString();
  }
  EXPECT_EQ(RoundTripOne(Tensor::Scalar<float>(1.0f), /*bfloat16=*/true).scalar<float>(), 1.0f);
}

TEST(WireTest, RoundTripsEmptyTensors) {
  for (DataType dtype : {DT_FLOAT, DT_INT64, DT_STRING, DT_BOOL}) {
    for (const TensorShape& shape : {TensorShape({0}), TensorShape({3, 0}), TensorShape({0, 0, 7})}) {
      Tensor t(dtype, shape);
      WirePayload payload;
      TensorMeta meta;
      payload.AddTensor(t, false, false, &meta);
      EXPECT_EQ(meta.byte_size(), 0u);
      Tensor back = RoundTripOne(t);
      EXPECT_TRUE(back.IsInitialized());
      EXPECT_TRUE(SameTensor(back, t)) << DataTypeName(dtype) << shape.DebugString();
    }
  }
}

TEST(WireTest, DeadTensorsCarryNoBytes) {
  Tensor live = Patterned(DT_INT32, TensorShape({4}));
  WirePayload payload;
  TensorMeta meta;
  payload.AddTensor(live, /*is_dead=*/true, false, &meta);
  EXPECT_TRUE(meta.is_dead());
  EXPECT_EQ(meta.byte_size(), 0u);
  EXPECT_EQ(payload.bytes(), 0u);

  // Between live tensors, dead ones (with a value or without) read back as
  // uninitialized tensors and do not disturb the others.
  Tensor a = Patterned(DT_FLOAT, TensorShape({300}));
  Tensor b = Tensor::FromVector<std::string>({"x", ""});
  std::vector<Tensor> out = RoundTrip({a, live, Tensor(), b}, false, {false, true, true, false});
  ASSERT_EQ(out.size(), 4u);
  EXPECT_TRUE(SameTensor(out[0], a));
  EXPECT_FALSE(out[1].IsInitialized());
  EXPECT_FALSE(out[2].IsInitialized());
  EXPECT_TRUE(SameTensor(out[3], b));
}

TEST(WireTest, SeveralTensorsInOneEnvelope) {
  std::vector<Tensor> in;
  for (size_t i = 0; i < AllStorableTypes().size(); ++i)
    in.push_back(Patterned(AllStorableTypes()[i], TensorShape({static_cast<int64_t>(i % 4), 33}), static_cast<int>(i)));
  in.push_back(Tensor::Scalar<float>(3));
  std::vector<Tensor> out = RoundTrip(in);
  ASSERT_EQ(out.size(), in.size());
  for (size_t i = 0; i < in.size(); ++i) EXPECT_TRUE(SameTensor(out[i], in[i])) << i;
}

TEST(WireTest, HeaderOnlyMessages) {
  // Every service message is an envelope, most with no tensors at all.
  CreateSessionResponse response;
  response.set_session_handle("abc");
  WirePayload payload;
  grpc::ByteBuffer b = payload.Seal(response);
  EXPECT_EQ(Bytes(b), RawEnvelope(response, ""));
  WireReader reader;
  CreateSessionResponse got;
  FLOWVM_ASSERT_OK(reader.Open(b, &got));
  EXPECT_EQ(got.session_handle(), "abc");
  EXPECT_EQ(reader.remaining(), 0u);
  // An empty header is four zero bytes.
  GetStatusRequest empty;
  EXPECT_EQ(Bytes(WirePayload().Seal(empty)), std::string(4, '\0'));
  FLOWVM_ASSERT_OK(reader.Open(BufferOf(std::string(4, '\0')), &empty));
}

// ---- zero copy ---------------------------------------------------------------------

TEST(WireTest, LargeTensorsTravelFromTheirOwnMemory) {
  TrackingAllocator* allocator = TrackingAllocator::New("wire_test");
  std::vector<float> values(4096);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.25f * static_cast<float>(i);
  grpc::ByteBuffer message;
  const void* data = nullptr;
  {
    auto t = Tensor::Allocate(allocator, DT_FLOAT, TensorShape({64, 64}));
    ASSERT_TRUE(t.ok());
    std::memcpy(t->raw_data(), values.data(), values.size() * sizeof(float));
    data = t->raw_data();
    WirePayload payload;
    RunGraphRequest request;
    payload.AddTensor(*t, false, false, request.add_send()->mutable_meta());
    message = payload.Seal(request);
    // Here the Tensor object goes away; its buffer must not.
  }
  EXPECT_GT(allocator->GetStats().bytes_in_use, 0) << "the envelope keeps the tensor's buffer";
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(message.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(static_cast<const void*>(slices[1].begin()), data) << "the tensor's bytes were copied";
  EXPECT_EQ(slices[1].size(), values.size() * sizeof(float));

  WireReader reader;
  RunGraphRequest request;
  FLOWVM_ASSERT_OK(reader.Open(message, &request));
  Tensor back;
  FLOWVM_ASSERT_OK(reader.ReadTensor(request.send(0).meta(), "t", &back));
  // The receiver's copy is its own, aligned.
  EXPECT_NE(back.raw_data(), data);
  EXPECT_TRUE(back.IsAligned());
  EXPECT_EQ(std::memcmp(back.raw_data(), values.data(), values.size() * sizeof(float)), 0);

  // Once gRPC (here: the message, the dump and the reader) lets go, so does
  // the envelope.
  slices.clear();
  message.Clear();
  reader = WireReader();
  EXPECT_EQ(allocator->GetStats().bytes_in_use, 0);
  allocator->Release();
}

TEST(WireTest, ChunksOfLargeTensorsPointIntoThem) {
  Tensor t = Patterned(DT_INT64, TensorShape({1000}));
  WirePayload payload;
  TensorMeta meta;
  payload.AddTensorChunk(t, false, false, 800, 1024, &meta);
  grpc::ByteBuffer message = payload.Seal(RecvTensorResponse());
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(message.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_EQ(static_cast<const void*>(slices[1].begin()), static_cast<const char*>(t.raw_data()) + 800);
  EXPECT_EQ(meta.byte_size(), 1024u);
  EXPECT_EQ(meta.total_byte_size(), 8000u);
}

TEST(WireTest, SmallTensorsAreCopied) {
  // Below a few hundred bytes a copy is cheaper than a reference; the
  // envelope then does not hold the tensor.
  Tensor t = Patterned(DT_INT32, TensorShape({8}));
  WirePayload payload;
  TensorMeta meta;
  payload.AddTensor(t, false, false, &meta);
  grpc::ByteBuffer message = payload.Seal(RunGraphRequest());
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(message.Dump(&slices).ok());
  ASSERT_EQ(slices.size(), 2u);
  EXPECT_NE(static_cast<const void*>(slices[1].begin()), t.raw_data());
  EXPECT_TRUE(t.RefCountIsOne());
}

// ---- bfloat16 ------------------------------------------------------------------------

float FromBits(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

TEST(WireTest, Bfloat16RoundsToNearestEven) {
  EXPECT_EQ(FloatToBfloat16(1.0f), 0x3f80);
  EXPECT_EQ(FloatToBfloat16(-2.0f), 0xc000);
  EXPECT_EQ(FloatToBfloat16(0.0f), 0x0000);
  EXPECT_EQ(FloatToBfloat16(-0.0f), 0x8000);
  // Halfway between two bfloat16 values: to the even one.
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f808000)), 0x3f80);  // 0x3f80 is even
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f818000)), 0x3f82);  // 0x3f81 is odd
  EXPECT_EQ(FloatToBfloat16(FromBits(0xbf818000)), 0xbf82);
  // Off the midpoint: to the nearer one.
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f808001)), 0x3f81);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f807fff)), 0x3f80);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3f81ffff)), 0x3f82);
  // A carry into the exponent.
  EXPECT_EQ(FloatToBfloat16(FromBits(0x3fffffff)), 0x4000);
  // Infinities stay infinite; the largest floats round up to infinity, as
  // they are nearer to 2^128 than to the largest bfloat16 (0x7f7f).
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(FloatToBfloat16(inf), 0x7f80);
  EXPECT_EQ(FloatToBfloat16(-inf), 0xff80);
  EXPECT_EQ(FloatToBfloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(FloatToBfloat16(-std::numeric_limits<float>::max()), 0xff80);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x7f7f0000)), 0x7f7f);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x7f7f7fff)), 0x7f7f);
  // Denormals round like any other value.
  EXPECT_EQ(FloatToBfloat16(FromBits(0x00000001)), 0x0000);
  EXPECT_EQ(FloatToBfloat16(FromBits(0x00018000)), 0x0002);
  // NaN stays NaN, even one whose payload is all in the dropped bits (plain
  // truncation would turn it into infinity, rounding too).
  for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0x7fffffffu, 0xff800001u, 0x7f80ffffu}) {
    const uint16_t b = FloatToBfloat16(FromBits(nan));
    EXPECT_TRUE(std::isnan(Bfloat16ToFloat(b))) << std::hex << nan << " -> " << b;
    EXPECT_EQ(b & 0x8000, (nan >> 16) & 0x8000) << "sign kept";
  }
  EXPECT_EQ(Bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(Bfloat16ToFloat(0x7f80), inf);
}

TEST(WireTest, Bfloat16RelativeError) {
  // bfloat16 keeps 8 significant bits, so rounding to nearest errs by at
  // most half a unit in the last place, 2^-8 of the value (a bound of 2^-9
  // holds only near the top of each binade), and bfloat16 values are kept.
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> mantissa(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-120, 120);
  double worst = 0;
  for (int i = 0; i < 100000; ++i) {
    const float f = std::ldexp(mantissa(rng), exponent(rng)) * (i % 2 ? -1.0f : 1.0f);
    const float g = Bfloat16ToFloat(FloatToBfloat16(f));
    const double rel = std::fabs((static_cast<double>(g) - f) / f);
    ASSERT_LE(rel, std::ldexp(1.0, -8)) << f << " -> " << g;
    worst = std::max(worst, rel);
    EXPECT_EQ(Bfloat16ToFloat(FloatToBfloat16(g)), g) << "bfloat16 values are exact";
  }
  // The bound is tight: just below the midpoint above 1, the error is
  // nearly 2^-8 of the value.
  EXPECT_GT(worst, std::ldexp(1.0, -9));
  const float above_one = FromBits(0x3f807fff);
  EXPECT_EQ(Bfloat16ToFloat(FloatToBfloat16(above_one)), 1.0f);
  EXPECT_GT((above_one - 1.0) / above_one, std::ldexp(0.99, -8));
}

TEST(WireTest, Bfloat16HalvesTheBytesOfFloats) {
  std::vector<float> values;
  for (int i = 0; i < 1000; ++i) values.push_back(std::sin(0.01f * i) * 1000.0f);
  Tensor t = Tensor::FromVector<float>(values, TensorShape({10, 100}));
  EXPECT_EQ(EncodedSize(t, false), 4000u);
  EXPECT_EQ(EncodedSize(t, true), 2000u);
  WirePayload payload;
  TensorMeta meta;
  payload.AddTensor(t, false, /*bfloat16=*/true, &meta);
  EXPECT_TRUE(meta.bfloat16_compressed());
  EXPECT_EQ(meta.dtype(), DT_FLOAT);
  EXPECT_EQ(meta.byte_size(), 2000u);
  EXPECT_EQ(payload.bytes(), 2000u);

  Tensor back = RoundTripOne(t, /*bfloat16=*/true);
  ASSERT_EQ(back.dtype(), DT_FLOAT);
  ASSERT_EQ(back.shape(), t.shape());
  for (int i = 0; i < 1000; ++i)
    ASSERT_EQ(back.data<float>()[i], Bfloat16ToFloat(FloatToBfloat16(values[i]))) << i;

  // Other types ignore the request.
  Tensor ints = Patterned(DT_INT32, TensorShape({100}));
  TensorMeta int_meta;
  WirePayload().AddTensor(ints, false, true, &int_meta);
  EXPECT_FALSE(int_meta.bfloat16_compressed());
  EXPECT_EQ(int_meta.byte_size(), 400u);
  EXPECT_EQ(EncodedSize(ints, true), 400u);
}

// ---- chunks ------------------------------------------------------------------------------

// Sends `t` in chunks of at most `chunk` bytes, each in an envelope of its
// own, and reassembles it; `chunks` gets how many it took.
StatusOr<Tensor> SendInChunks(const Tensor& t, bool bfloat16, uint64_t chunk, int* chunks) {
  ChunkedTensor assembled;
  uint64_t offset = 0;
  *chunks = 0;
  do {
    WirePayload payload;
    RecvTensorResponse response;
    response.set_offset(offset);
    payload.AddTensorChunk(t, false, bfloat16, offset, chunk, response.mutable_meta());
    grpc::ByteBuffer message = payload.Seal(response);
    WireReader reader;
    RecvTensorResponse got;
    FLOWVM_RETURN_IF_ERROR(reader.Open(message, &got));
    if (offset == 0) FLOWVM_RETURN_IF_ERROR(assembled.Start(got.meta(), "chunked"));
    FLOWVM_RETURN_IF_ERROR(assembled.Add(got.meta(), got.offset(), &reader, "chunked"));
    if (reader.remaining() != 0) return errors::Internal("bytes left in a chunk's envelope");
    offset = assembled.received();
    if (++*chunks > 1000) return errors::Internal("too many chunks");
  } while (!assembled.complete());
  Tensor out;
  FLOWVM_RETURN_IF_ERROR(assembled.Finish(&out));
  return out;
}

TEST(WireTest, ChunkedTensorsReassemble) {
  const Tensor numeric = Patterned(DT_INT32, TensorShape({5, 2}));  // 40 bytes
  const Tensor strings = Tensor::FromVector<std::string>(
      {"", "ab", std::string("\0\0", 2), std::string(130, 'z'), "last"});  // 1+3+3+132+5 = 144 bytes
  std::vector<float> fv;
  for (int i = 0; i < 9; ++i) fv.push_back(1.0f + i / 3.0f);
  const Tensor floats = Tensor::FromVector<float>(fv);  // 18 bytes as bfloat16
  Tensor widened = floats.DeepCopy();
  for (int i = 0; i < 9; ++i) widened.data<float>()[i] = Bfloat16ToFloat(FloatToBfloat16(fv[i]));

  struct Case {
    const char* name;
    Tensor in;
    bool bfloat16;
    uint64_t total;
    Tensor expect;
  };
  for (const Case& c : {Case{"int32", numeric, false, 40, numeric}, Case{"string", strings, false, 144, strings},
                        Case{"bfloat16", floats, true, 18, widened}, Case{"float", floats, false, 36, floats}}) {
    EXPECT_EQ(EncodedSize(c.in, c.bfloat16), c.total) << c.name;
    for (uint64_t chunk : {1, 2, 3, 7, 1000}) {
      int chunks = 0;
      auto out = SendInChunks(c.in, c.bfloat16, chunk, &chunks);
      ASSERT_TRUE(out.ok()) << c.name << " in chunks of " << chunk << ": " << out.status();
      EXPECT_TRUE(SameTensor(*out, c.expect)) << c.name << " in chunks of " << chunk;
      // bfloat16 chunks hold whole values: at least 2 bytes, an even count.
      const uint64_t per = c.bfloat16 ? std::max<uint64_t>(2, chunk & ~uint64_t{1}) : chunk;
      EXPECT_EQ(chunks, static_cast<int>((c.total + per - 1) / per)) << c.name << " in chunks of " << chunk;
    }
  }
}

TEST(WireTest, ChunkMetaDescribesTheWholeTensor) {
  Tensor t = Patterned(DT_DOUBLE, TensorShape({4, 3}));  // 96 bytes
  WirePayload payload;
  TensorMeta meta;
  payload.AddTensorChunk(t, false, false, 90, 50, &meta);
  EXPECT_EQ(meta.byte_size(), 6u);
  EXPECT_EQ(meta.total_byte_size(), 96u);
  EXPECT_EQ(meta.dtype(), DT_DOUBLE);
  EXPECT_EQ(TensorShape::FromProto(meta.shape())->DebugString(), "[4,3]");
  // Past the end, and for a dead tensor: nothing.
  TensorMeta past;
  payload.AddTensorChunk(t, false, false, 96, 50, &past);
  EXPECT_EQ(past.byte_size(), 0u);
  TensorMeta dead;
  payload.AddTensorChunk(t, true, false, 0, 50, &dead);
  EXPECT_TRUE(dead.is_dead());
  EXPECT_EQ(dead.byte_size(), 0u);
  EXPECT_EQ(dead.total_byte_size(), 0u);
  EXPECT_EQ(payload.bytes(), 6u);
}

// ---- malformed envelopes ----------------------------------------------------------------

Status OpenBytes(const std::string& bytes) {
  WireReader reader;
  RunGraphRequest header;
  return reader.Open(BufferOf(bytes), &header);
}

TEST(WireTest, MalformedEnvelopes) {
  WireReader reader;
  RunGraphRequest header;
  EXPECT_TRUE(HasError(reader.Open(grpc::ByteBuffer(), &header), Code::kInvalidArgument, {"empty message"}));
  EXPECT_TRUE(HasError(OpenBytes(""), Code::kInvalidArgument, {"no header length"}));
  EXPECT_TRUE(HasError(OpenBytes(std::string("\x01\x00\x00", 3)), Code::kInvalidArgument, {"3 bytes", "no header length"}));
  EXPECT_TRUE(HasError(OpenBytes(LittleEndian32(100) + std::string(10, '\0')), Code::kInvalidArgument,
                       {"claims 100 bytes", "10 remain"}));
  EXPECT_TRUE(HasError(OpenBytes(LittleEndian32(0xffffffffu) + "abc"), Code::kInvalidArgument,
                       {"claims 4294967295 bytes"}));
  EXPECT_TRUE(HasError(OpenBytes(LittleEndian32(0x80000000u) + "abc"), Code::kInvalidArgument, {"claims"}));
  // A header that is not the message the method takes.
  EXPECT_TRUE(HasError(OpenBytes(LittleEndian32(3) + "\xff\xff\xff"), Code::kInvalidArgument,
                       {"does not parse as flowvm.RunGraphRequest"}));
  EXPECT_TRUE(HasError(OpenBytes(LittleEndian32(2) + "\x0a\x05"), Code::kInvalidArgument, {"does not parse"}));
  // The same in one-byte slices.
  EXPECT_TRUE(HasError(reader.Open(OneBytePerSlice(LittleEndian32(3) + "\xff\xff\xff"), &header),
                       Code::kInvalidArgument, {"does not parse"}));
  // A reader is reusable after an error.
  RunGraphRequest good;
  good.set_step_id(7);
  FLOWVM_ASSERT_OK(reader.Open(BufferOf(RawEnvelope(good, "xyz")), &header));
  EXPECT_EQ(header.step_id(), 7);
  EXPECT_EQ(reader.remaining(), 3u);
}

// Reads one tensor described by `meta` from an envelope whose payload is
// `payload`.
Status ReadWith(const TensorMeta& meta, const std::string& payload, Tensor* out = nullptr) {
  WireReader reader;
  GetStatusRequest header;
  FLOWVM_RETURN_IF_ERROR(reader.Open(BufferOf(RawEnvelope(header, payload)), &header));
  Tensor t;
  return reader.ReadTensor(meta, "feed 'x'", out != nullptr ? out : &t);
}

TensorMeta Meta(DataType dtype, const std::vector<int64_t>& dims, uint64_t byte_size) {
  TensorMeta meta;
  meta.set_dtype(dtype);
  for (int64_t d : dims) meta.mutable_shape()->add_dim()->set_size(d);
  meta.set_byte_size(byte_size);
  return meta;
}

TEST(WireTest, MetaThatDoesNotDescribeATensor) {
  const std::string eight(8, '\0');
  // Types no tensor travels as.
  for (int dtype : {0, 20, 21, 77, 101, 119, -1, 1000})
    EXPECT_TRUE(HasError(ReadWith(Meta(static_cast<DataType>(dtype), {2}, 8), eight), Code::kInvalidArgument,
                         {"feed 'x'", "data type " + std::to_string(dtype)}))
        << dtype;
  // Shapes.
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_FLOAT, {-2}, 8), eight), Code::kInvalidArgument, {"feed 'x'"}));
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_FLOAT, {int64_t{1} << 40, int64_t{1} << 40}, 8), eight),
                       Code::kInvalidArgument, {"feed 'x'"}));
  TensorMeta deep = Meta(DT_FLOAT, {}, 4);
  for (int i = 0; i < 300; ++i) deep.mutable_shape()->add_dim()->set_size(1);
  EXPECT_TRUE(HasError(ReadWith(deep, eight), Code::kInvalidArgument, {"feed 'x'"}));
  // bfloat16 is for float32 only.
  for (DataType dtype : {DT_INT32, DT_DOUBLE, DT_BFLOAT16, DT_HALF, DT_STRING}) {
    TensorMeta meta = Meta(dtype, {2}, dtype == DT_STRING ? 2 : 4);
    meta.set_bfloat16_compressed(true);
    EXPECT_TRUE(HasError(ReadWith(meta, std::string(4, '\0')), Code::kInvalidArgument,
                         {"feed 'x'", "only float32 travels as bfloat16"}))
        << DataTypeName(dtype);
  }
}

TEST(WireTest, MetaWhoseSizesDisagree) {
  // byte_size must be what the shape takes.
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_FLOAT, {3}, 8), std::string(8, '\0')), Code::kInvalidArgument,
                       {"feed 'x'", "[3]", "12 bytes", "8 were announced"}));
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_FLOAT, {3}, 16), std::string(16, '\0')), Code::kInvalidArgument,
                       {"12 bytes", "16 were announced"}));
  TensorMeta bf = Meta(DT_FLOAT, {3}, 12);
  bf.set_bfloat16_compressed(true);
  EXPECT_TRUE(HasError(ReadWith(bf, std::string(12, '\0')), Code::kInvalidArgument, {"6 bytes", "12 were"}));
  // ... and no more than the message holds.
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_FLOAT, {3}, 12), std::string(11, '\0')), Code::kInvalidArgument,
                       {"feed 'x'", "announces 12 bytes", "11 left"}));
  TensorMeta dead = Meta(DT_FLOAT, {3}, 12);
  dead.set_is_dead(true);
  EXPECT_TRUE(HasError(ReadWith(dead, std::string(4, '\0')), Code::kInvalidArgument, {"announces 12 bytes"}));
  // Huge shapes are refused from their sizes, before anything is allocated.
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_FLOAT, {int64_t{1} << 31, int64_t{1} << 31}, 8), std::string(8, '\0')),
                       Code::kInvalidArgument, {"too large"}));
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_COMPLEX128, {int64_t{1} << 40}, 16), std::string(16, '\0')),
                       Code::kInvalidArgument, {"16 were announced"}));
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_FLOAT, {int64_t{1} << 60}, uint64_t{1} << 62), std::string(8, '\0')),
                       Code::kInvalidArgument, {"announces 4611686018427387904 bytes"}));
  EXPECT_TRUE(HasError(ReadWith(Meta(DT_STRING, {int64_t{1} << 60}, 8), std::string(8, '\0')),
                       Code::kInvalidArgument, {"strings cannot fit in 8 bytes"}));
  // A chunk where a whole tensor was expected, or a total that disagrees.
  TensorMeta chunk = Meta(DT_FLOAT, {4}, 8);
  chunk.set_total_byte_size(16);
  EXPECT_TRUE(HasError(ReadWith(chunk, std::string(16, '\0')), Code::kInvalidArgument, {"a chunk"}));
  TensorMeta short_total = Meta(DT_FLOAT, {1}, 8);
  short_total.set_total_byte_size(4);
  EXPECT_TRUE(HasError(ReadWith(short_total, std::string(8, '\0')), Code::kInvalidArgument, {"feed 'x'"}));
  // total == byte_size is a whole tensor (a single chunk).
  TensorMeta whole = Meta(DT_FLOAT, {2}, 8);
  whole.set_total_byte_size(8);
  FLOWVM_EXPECT_OK(ReadWith(whole, std::string(8, '\0')));
}

TEST(WireTest, MalformedStrings) {
  auto strings = [](int64_t n, const std::string& bytes) { return Meta(DT_STRING, {n}, bytes.size()); };
  // A length whose varint never ends.
  const std::string unterminated("\x80", 1);
  EXPECT_TRUE(HasError(ReadWith(strings(1, unterminated), unterminated), Code::kInvalidArgument,
                       {"feed 'x'", "truncated"}));
  const std::string overlong(11, '\xff');
  EXPECT_TRUE(HasError(ReadWith(strings(1, overlong), overlong), Code::kInvalidArgument, {"truncated"}));
  // A length past the end.
  EXPECT_TRUE(HasError(ReadWith(strings(1, "\x05" "ab"), "\x05" "ab"), Code::kInvalidArgument,
                       {"feed 'x'", "element 0 claims 5 bytes but 2 remain"}));
  const std::string huge_len = "\x01" "a" "\xff\xff\xff\xff\xff\xff\xff\xff\x7f";
  EXPECT_TRUE(HasError(ReadWith(strings(2, huge_len), huge_len), Code::kInvalidArgument, {"element 1 claims"}));
  // Bytes left over after the last string.
  EXPECT_TRUE(HasError(ReadWith(strings(1, "\x01" "azz"), "\x01" "azz"), Code::kInvalidArgument,
                       {"feed 'x'", "2 bytes left over"}));
  // Fewer strings than the shape says.
  const std::string two_of_three("\x01" "a" "\x00", 3);
  EXPECT_TRUE(HasError(ReadWith(strings(3, two_of_three), two_of_three), Code::kInvalidArgument, {"truncated"}));
  // Good ones, for contrast: NUL bytes are data.
  Tensor t;
  const std::string good("\x03" "a\0b" "\x00", 5);
  FLOWVM_ASSERT_OK(ReadWith(strings(2, good), good, &t));
  EXPECT_EQ(t.data<std::string>()[0], std::string("a\0b", 3));
  EXPECT_EQ(t.data<std::string>()[1], "");
}

TEST(WireTest, ReadBytesNeverReadsPastTheEnd) {
  WireReader reader;
  GetStatusRequest header;
  FLOWVM_ASSERT_OK(reader.Open(OneBytePerSlice(RawEnvelope(header, "abcdef")), &header));
  char buf[8] = {};
  FLOWVM_ASSERT_OK(reader.ReadBytes(buf, 4));
  EXPECT_EQ(std::string(buf, 4), "abcd");
  EXPECT_TRUE(HasError(reader.ReadBytes(buf, 3), Code::kInvalidArgument, {"3 payload bytes", "2 remain"}));
  FLOWVM_ASSERT_OK(reader.ReadBytes(buf, 2));
  EXPECT_EQ(std::string(buf, 2), "ef");
  EXPECT_EQ(reader.remaining(), 0u);
  FLOWVM_EXPECT_OK(reader.ReadBytes(buf, 0));
}

// ---- malformed chunks ----------------------------------------------------------------------

// A chunk envelope: `bytes` after a RecvTensorResponse header.
struct Chunk {
  TensorMeta meta;
  grpc::ByteBuffer message;
  WireReader reader;
  Chunk(TensorMeta m, const std::string& bytes) : meta(std::move(m)) {
    RecvTensorResponse header;
    message = BufferOf(RawEnvelope(header, bytes));
    EXPECT_TRUE(reader.Open(message, &header).ok());
  }
};

TensorMeta ChunkMeta(DataType dtype, const std::vector<int64_t>& dims, uint64_t byte_size, uint64_t total) {
  TensorMeta meta = Meta(dtype, dims, byte_size);
  meta.set_total_byte_size(total);
  return meta;
}

TEST(WireTest, ChunksOutOfOrderOrDisagreeing) {
  ChunkedTensor t;
  FLOWVM_ASSERT_OK(t.Start(ChunkMeta(DT_INT32, {4}, 8, 16), "chunked"));
  {
    Chunk c(ChunkMeta(DT_INT32, {4}, 8, 16), std::string(8, '\1'));
    EXPECT_TRUE(HasError(t.Add(c.meta, 8, &c.reader, "chunked"), Code::kInvalidArgument,
                         {"chunked", "offset 8", "does not follow 0 of 16"}));
  }
  {
    Chunk c(ChunkMeta(DT_FLOAT, {4}, 8, 16), std::string(8, '\1'));
    EXPECT_TRUE(HasError(t.Add(c.meta, 0, &c.reader, "chunked"), Code::kInvalidArgument, {"disagrees"}));
  }
  {
    Chunk c(ChunkMeta(DT_INT32, {4}, 8, 24), std::string(8, '\1'));
    EXPECT_TRUE(HasError(t.Add(c.meta, 0, &c.reader, "chunked"), Code::kInvalidArgument, {"disagrees"}));
  }
  {
    Chunk c(ChunkMeta(DT_INT32, {4}, 0, 16), "");
    EXPECT_TRUE(HasError(t.Add(c.meta, 0, &c.reader, "chunked"), Code::kInvalidArgument, {"of 0 bytes"}));
  }
  {
    Chunk c(ChunkMeta(DT_INT32, {4}, 20, 16), std::string(20, '\1'));
    EXPECT_TRUE(HasError(t.Add(c.meta, 0, &c.reader, "chunked"), Code::kInvalidArgument, {"20 bytes"}));
  }
  {
    // The meta promises more than the envelope holds.
    Chunk c(ChunkMeta(DT_INT32, {4}, 8, 16), std::string(5, '\1'));
    EXPECT_TRUE(HasError(t.Add(c.meta, 0, &c.reader, "chunked"), Code::kInvalidArgument, {"5 remain"}));
  }
  EXPECT_EQ(t.received(), 0u);
  EXPECT_TRUE(HasError(t.Finish(nullptr), Code::kInternal, {"incomplete", "0 of 16"}));
  // Good chunks still complete it after all that.
  for (uint64_t offset : {0, 8}) {
    Chunk c(ChunkMeta(DT_INT32, {4}, 8, 16), std::string(8, '\2'));
    FLOWVM_ASSERT_OK(t.Add(c.meta, offset, &c.reader, "chunked"));
  }
  ASSERT_TRUE(t.complete());
  Tensor out;
  FLOWVM_ASSERT_OK(t.Finish(&out));
  EXPECT_EQ(out.data<int32_t>()[3], 0x02020202);
}

TEST(WireTest, FirstChunksThatDoNotDescribeATensor) {
  ChunkedTensor t;
  EXPECT_TRUE(HasError(t.Start(ChunkMeta(DT_INT32, {4}, 8, 12), "chunked"), Code::kInvalidArgument,
                       {"chunked", "16 bytes", "12 were announced"}));
  EXPECT_TRUE(HasError(t.Start(ChunkMeta(static_cast<DataType>(101), {4}, 8, 16), "chunked"),
                       Code::kInvalidArgument, {"data type 101"}));
  EXPECT_TRUE(HasError(t.Start(ChunkMeta(DT_STRING, {100}, 8, 50), "chunked"), Code::kInvalidArgument,
                       {"100 strings cannot fit in 50 bytes"}));
  TensorMeta bf = ChunkMeta(DT_INT64, {4}, 8, 32);
  bf.set_bfloat16_compressed(true);
  EXPECT_TRUE(HasError(t.Start(bf, "chunked"), Code::kInvalidArgument, {"bfloat16"}));
}

TEST(WireTest, HugeChunkedTensorsAreRefusedOrNotAllocatedUpFront) {
  // A numeric tensor must be allocated before its chunks arrive: an
  // impossible size is ResourceExhausted.
  ChunkedTensor numeric;
  EXPECT_TRUE(HasError(numeric.Start(ChunkMeta(DT_FLOAT, {int64_t{1} << 59}, 8, uint64_t{1} << 61), "chunked"),
                       Code::kResourceExhausted, {"chunked"}));
  // Strings are staged as their bytes arrive: a claimed total (up to 2^64
  // bytes) costs nothing until the bytes come, and their tensor is made
  // once they all did.
  for (uint64_t total : {uint64_t{1} << 40, uint64_t{1} << 62, ~uint64_t{0}}) {
    ChunkedTensor strings;
    FLOWVM_ASSERT_OK(strings.Start(ChunkMeta(DT_STRING, {1}, 3, total), "chunked"));
    Chunk c(ChunkMeta(DT_STRING, {1}, 3, total), "\x02" "ab");
    FLOWVM_ASSERT_OK(strings.Add(c.meta, 0, &c.reader, "chunked"));
    EXPECT_FALSE(strings.complete());
  }
  // A string chunk that breaks the encoding is found when it completes.
  ChunkedTensor bad;
  FLOWVM_ASSERT_OK(bad.Start(ChunkMeta(DT_STRING, {2}, 2, 4), "chunked"));
  for (uint64_t offset : {0, 2}) {
    Chunk c(ChunkMeta(DT_STRING, {2}, 2, 4), "\x05" "a");
    FLOWVM_ASSERT_OK(bad.Add(c.meta, offset, &c.reader, "chunked"));
  }
  Tensor out;
  EXPECT_TRUE(HasError(bad.Finish(&out), Code::kInvalidArgument, {"claims 5 bytes"}));
}

}  // namespace
}  // namespace flowvm
