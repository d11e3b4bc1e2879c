// .npy reading and writing: round trips of every dtype, fixtures written by
// NumPy (tests/data/npy/make_fixtures.py), and every way a file can be bad.
#include "flowvm/npy.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "util/test_paths.h"

namespace flowvm {
namespace {

std::string Fixture(const std::string& name) { return testing::SourcePath("tests/data/npy/" + name); }

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A fresh directory for one test's files.
std::string TempDir() {
  std::string tmpl = ::testing::TempDir() + "/npy_test_XXXXXX";
  char* dir = ::mkdtemp(tmpl.data());
  EXPECT_NE(dir, nullptr);
  return tmpl;
}

// A whole .npy file with the given dict text and data, padded as NumPy does.
std::string Npy(const std::string& dict, const std::string& data, int major = 1) {
  size_t prefix = major == 1 ? 10 : 12;
  size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
  size_t len = total - prefix;
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += static_cast<char>((len >> (8 * i)) & 0xff);
  out += dict;
  out.append(len - dict.size() - 1, ' ');
  return out + "\n" + data;
}

std::string Dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + shape +
         ", }";
}

template <typename T>
std::string Raw(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) out.append(reinterpret_cast<const char*>(&v), sizeof(T));
  return out;
}

void ExpectInvalid(const StatusOr<Tensor>& r, const std::string& fragment) {
  ASSERT_FALSE(r.ok()) << "expected an error containing: " << fragment;
  EXPECT_EQ(r.status().code(), Code::kInvalidArgument) << r.status();
  EXPECT_NE(r.status().message().find(fragment), std::string::npos) << r.status();
}

std::string Bytes(const Tensor& t) { return std::string(static_cast<const char*>(t.raw_data()), t.TotalBytes()); }

// ---- round trips ----------------------------------------------------------------

struct RoundTripCase {
  DataType in;
  DataType out;  // what reading it back yields
  const char* descr;
};

class NpyRoundTripTest : public ::testing::TestWithParam<RoundTripCase> {};

TEST_P(NpyRoundTripTest, EveryShape) {
  const RoundTripCase& c = GetParam();
  for (const TensorShape& shape : {TensorShape(), TensorShape({5}), TensorShape({2, 3}), TensorShape({0}),
                                   TensorShape({2, 0, 3}), TensorShape({1, 2, 1, 3})}) {
    SCOPED_TRACE(DataTypeName(c.in) + " " + shape.DebugString());
    Tensor t(c.in, shape);
    auto* p = static_cast<unsigned char*>(t.raw_data());
    for (size_t i = 0; i < t.TotalBytes(); ++i)
      p[i] = c.in == DT_BOOL ? i % 3 == 0 : static_cast<unsigned char>(i * 37 + 11);
    StatusOr<std::string> bytes = SerializeNpy(t);
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    EXPECT_NE(bytes->find(std::string("'descr': '") + c.descr + "'"), std::string::npos) << *bytes;
    size_t header_end = bytes->find('\n');
    ASSERT_NE(header_end, std::string::npos);
    EXPECT_EQ((header_end + 1) % 64, 0u) << "header not padded to 64 bytes";
    EXPECT_EQ(bytes->size(), header_end + 1 + t.TotalBytes());
    StatusOr<Tensor> back = ParseNpy(*bytes);
    ASSERT_TRUE(back.ok()) << back.status();
    EXPECT_EQ(back->dtype(), c.out);
    EXPECT_EQ(back->shape(), shape);
    EXPECT_EQ(Bytes(*back), Bytes(t));
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllTypes, NpyRoundTripTest,
    ::testing::Values(RoundTripCase{DT_FLOAT, DT_FLOAT, "<f4"}, RoundTripCase{DT_DOUBLE, DT_DOUBLE, "<f8"},
                      RoundTripCase{DT_HALF, DT_HALF, "<f2"}, RoundTripCase{DT_INT8, DT_INT8, "|i1"},
                      RoundTripCase{DT_INT16, DT_INT16, "<i2"}, RoundTripCase{DT_INT32, DT_INT32, "<i4"},
                      RoundTripCase{DT_INT64, DT_INT64, "<i8"}, RoundTripCase{DT_UINT8, DT_UINT8, "|u1"},
                      RoundTripCase{DT_UINT16, DT_UINT16, "<u2"}, RoundTripCase{DT_UINT32, DT_UINT32, "<u4"},
                      RoundTripCase{DT_UINT64, DT_UINT64, "<u8"}, RoundTripCase{DT_BOOL, DT_BOOL, "|b1"},
                      RoundTripCase{DT_COMPLEX64, DT_COMPLEX64, "<c8"},
                      RoundTripCase{DT_COMPLEX128, DT_COMPLEX128, "<c16"},
                      RoundTripCase{DT_QINT8, DT_INT8, "|i1"}, RoundTripCase{DT_QUINT8, DT_UINT8, "|u1"},
                      RoundTripCase{DT_QINT16, DT_INT16, "<i2"}, RoundTripCase{DT_QUINT16, DT_UINT16, "<u2"},
                      RoundTripCase{DT_QINT32, DT_INT32, "<i4"}, RoundTripCase{DT_BFLOAT16, DT_UINT16, "<u2"}),
    [](const auto& info) { return DataTypeName(info.param.in); });

TEST(NpyTest, FileRoundTripLeavesNoTemporaryFiles) {
  std::string dir = TempDir();
  std::string path = dir + "/x.npy";
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  ASSERT_TRUE(WriteNpyFile(path, t).ok());
  // Overwriting an existing file works too.
  Tensor u = Tensor::FromVector<int64_t>({7, 8});
  ASSERT_TRUE(WriteNpyFile(path, u).ok());
  StatusOr<Tensor> back = ReadNpyFile(path);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->DebugString(), "int64 [2] [7 8]");
  DIR* d = ::opendir(dir.c_str());
  ASSERT_NE(d, nullptr);
  int entries = 0;
  while (dirent* e = ::readdir(d))
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) ++entries;
  ::closedir(d);
  EXPECT_EQ(entries, 1);
}

TEST(NpyTest, WritesWhatNumPyWrites) {
  for (const char* name : {"f32_2x3.npy", "i64.npy", "bool.npy", "c64.npy", "f16.npy", "f8_scalar.npy",
                           "f4_empty.npy"}) {
    SCOPED_TRACE(name);
    std::string numpy_bytes = ReadBytes(Fixture(name));
    StatusOr<Tensor> t = ParseNpy(numpy_bytes);
    ASSERT_TRUE(t.ok()) << t.status();
    StatusOr<std::string> ours = SerializeNpy(*t);
    ASSERT_TRUE(ours.ok()) << ours.status();
    EXPECT_EQ(*ours, numpy_bytes);
  }
}

// ---- fixtures written by NumPy ---------------------------------------------------

StatusOr<Tensor> ReadFixture(const std::string& name) { return ReadNpyFile(Fixture(name)); }

TEST(NpyFixtureTest, Float32Matrix) {
  StatusOr<Tensor> t = ReadFixture("f32_2x3.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "float [2,3] [[1.5 -2 3] [4 0.25 -6.5]]");
}

TEST(NpyFixtureTest, Int64) {
  StatusOr<Tensor> t = ReadFixture("i64.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->dtype(), DT_INT64);
  ASSERT_EQ(t->NumElements(), 4);
  EXPECT_EQ(t->data<int64_t>()[2], int64_t{1} << 40);
  EXPECT_EQ(t->data<int64_t>()[3], -(int64_t{1} << 62));
}

TEST(NpyFixtureTest, Bool) {
  StatusOr<Tensor> t = ReadFixture("bool.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "bool [5] [True False True True False]");
}

TEST(NpyFixtureTest, Complex64) {
  StatusOr<Tensor> t = ReadFixture("c64.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->dtype(), DT_COMPLEX64);
  EXPECT_EQ(t->data<complex64>()[0], complex64(1, 2));
  EXPECT_EQ(t->data<complex64>()[1], complex64(-3.5f, -0.5f));
}

TEST(NpyFixtureTest, Float16) {
  StatusOr<Tensor> t = ReadFixture("f16.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->dtype(), DT_HALF);
  const half* h = t->data<half>();
  EXPECT_EQ(h[0].bits, 0x3c00);  // 1.0
  EXPECT_EQ(h[1].bits, 0xc100);  // -2.5
  EXPECT_EQ(h[2].bits, 0x7bff);  // 65504, the largest half
  EXPECT_EQ(h[3].bits, 0x0001);  // 6e-8 rounds to the smallest subnormal
  EXPECT_EQ(h[4].bits, 0x7c00);  // inf
}

TEST(NpyFixtureTest, BigEndianDoubleIsSwapped) {
  StatusOr<Tensor> t = ReadFixture("f8_big.npy");
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->dtype(), DT_DOUBLE);
  EXPECT_EQ(t->data<double>()[0], 1.0);
  EXPECT_EQ(t->data<double>()[1], -0.1);
  EXPECT_EQ(t->data<double>()[2], 1e300);
}

TEST(NpyFixtureTest, FortranOrderIsTransposed) {
  StatusOr<Tensor> t = ReadFixture("i32_fortran.npy");  // arange(24).reshape(2, 3, 4), column-major
  ASSERT_TRUE(t.ok()) << t.status();
  ASSERT_EQ(t->shape(), TensorShape({2, 3, 4}));
  for (int i = 0; i < 24; ++i) EXPECT_EQ(t->data<int32_t>()[i], i);
}

TEST(NpyFixtureTest, ScalarAndEmpty) {
  StatusOr<Tensor> s = ReadFixture("f8_scalar.npy");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(s->DebugString(), "double [] 3.25");
  StatusOr<Tensor> e = ReadFixture("f4_empty.npy");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(e->dtype(), DT_FLOAT);
  EXPECT_EQ(e->shape(), TensorShape({0, 3}));
}

TEST(NpyFixtureTest, Versions2And3) {
  StatusOr<Tensor> v2 = ReadFixture("u16_v2.npy");
  ASSERT_TRUE(v2.ok()) << v2.status();
  EXPECT_EQ(v2->DebugString(), "uint16 [3] [1 2 65535]");
  StatusOr<Tensor> v3 = ReadFixture("i16_v3.npy");
  ASSERT_TRUE(v3.ok()) << v3.status();
  EXPECT_EQ(v3->DebugString(), "int16 [2,2] [[-1 2] [3 -32768]]");
}

// ---- header variants NumPy accepts -------------------------------------------------

TEST(NpyTest, ByteOrderMarkers) {
  std::string le = Raw<int32_t>({1, -2});
  for (const char* descr : {"<i4", "=i4", "|i4", "i4"}) {
    StatusOr<Tensor> t = ParseNpy(Npy(Dict(descr, "(2,)"), le));
    ASSERT_TRUE(t.ok()) << descr << ": " << t.status();
    EXPECT_EQ(t->DebugString(), "int32 [2] [1 -2]") << descr;
  }
  StatusOr<Tensor> be = ParseNpy(Npy(Dict(">i4", "(2,)"), std::string("\0\0\0\1\xff\xff\xff\xfe", 8)));
  ASSERT_TRUE(be.ok()) << be.status();
  EXPECT_EQ(be->DebugString(), "int32 [2] [1 -2]");
  // Each half of a big-endian complex is swapped on its own.
  std::string c = Raw<float>({1.5f, -2.0f});
  std::reverse(c.begin(), c.begin() + 4);
  std::reverse(c.begin() + 4, c.end());
  StatusOr<Tensor> bc = ParseNpy(Npy(Dict(">c8", "()"), c));
  ASSERT_TRUE(bc.ok()) << bc.status();
  EXPECT_EQ(bc->scalar<complex64>(), complex64(1.5f, -2.0f));
  StatusOr<Tensor> bb = ParseNpy(Npy(Dict(">b1", "(1,)"), std::string("\1", 1)));
  ASSERT_TRUE(bb.ok()) << bb.status();
}

TEST(NpyTest, LenientButFaithfulHeaderSyntax) {
  // Double quotes, other key order, no trailing comma, Python 2 longs, '?'.
  StatusOr<Tensor> t = ParseNpy(Npy("{\"shape\": (2L, 1L), \"fortran_order\": False, \"descr\": \"?\"}",
                                    std::string("\1\0", 2)));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->DebugString(), "bool [2,1] [[True] [False]]");
}

TEST(NpyTest, NonCanonicalBoolsBecomeTrue) {
  StatusOr<Tensor> t = ParseNpy(Npy(Dict("|b1", "(3,)"), std::string("\0\2\xff", 3)));
  ASSERT_TRUE(t.ok()) << t.status();
  const auto* p = static_cast<const unsigned char*>(t->raw_data());
  EXPECT_EQ(p[0], 0);
  EXPECT_EQ(p[1], 1);
  EXPECT_EQ(p[2], 1);
}

TEST(NpyTest, FortranOrderMatrix) {
  // [[1 2 3] [4 5 6]] stored column by column.
  StatusOr<Tensor> t = ParseNpy(Npy(Dict("<i2", "(2, 3)", true), Raw<int16_t>({1, 4, 2, 5, 3, 6})));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->ValuesString(), "[[1 2 3] [4 5 6]]");
}

// ---- errors ---------------------------------------------------------------------------

TEST(NpyErrorTest, BadMagic) {
  ExpectInvalid(ParseNpy("PK\3\4 this is a zip file, not an npy file"), "bad magic");
  ExpectInvalid(ParseNpy(std::string("\x93NUMPZ\1\0\0\0", 10)), "bad magic");
  std::string dir = TempDir();
  WriteBytes(dir + "/bad.npy", "hello");
  ExpectInvalid(ReadNpyFile(dir + "/bad.npy"), "npy file '" + dir + "/bad.npy': bad magic");
}

TEST(NpyErrorTest, TruncatedHeader) {
  std::string good = ReadBytes(Fixture("f32_2x3.npy"));
  for (size_t n : {0, 4, 7, 9, 40}) ExpectInvalid(ParseNpy(good.substr(0, n)), "truncated header");
  std::string v2 = ReadBytes(Fixture("u16_v2.npy"));
  ExpectInvalid(ParseNpy(v2.substr(0, 11)), "truncated header");
  std::string dir = TempDir();
  WriteBytes(dir + "/short.npy", good.substr(0, 50));
  ExpectInvalid(ReadNpyFile(dir + "/short.npy"), "short.npy': truncated header");
}

TEST(NpyErrorTest, UnsupportedVersion) {
  std::string bytes = ReadBytes(Fixture("f32_2x3.npy"));
  bytes[6] = 4;
  ExpectInvalid(ParseNpy(bytes), "unsupported npy format version 4.0");
  bytes[6] = 1;
  bytes[7] = 1;
  ExpectInvalid(ParseNpy(bytes), "version 1.1");
}

TEST(NpyErrorTest, HugeHeaderLengthIsRefusedBeforeReading) {
  std::string bytes("\x93NUMPY\2\0\xff\xff\xff\xff", 12);
  ExpectInvalid(ParseNpy(bytes), "exceeds the limit");
}

TEST(NpyErrorTest, MalformedHeader) {
  std::string data = Raw<float>({1, 2});
  const char* cases[] = {
      "",                                                                    // empty
      "not a dict",                                                          //
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)",              // no '}'
      "{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }",            // missing ','
      "{'descr': '<f4', 'fortran_order': False}",                            // missing shape
      "{'fortran_order': False, 'shape': (2,)}",                             // missing descr
      "{'descr': '<f4', 'shape': (2,)}",                                     // missing fortran_order
      "{'descr': '<f4', 'fortran_order': 0, 'shape': (2,)}",                 // not a bool
      "{'descr': '<f4', 'fortran_order': False, 'shape': 2}",                // not a tuple
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2)}",              // (2) is an int
      "{'descr': '<f4', 'fortran_order': False, 'shape': [2]}",              // a list
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x)}",           //
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", // unknown key
      "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
      "{'descr': <f4, 'fortran_order': False, 'shape': (2,)}",               // unquoted
      "{'descr: '<f4', 'fortran_order': False, 'shape': (2,)}",              // bad quoting
      "{'descr': '<f4', 'fortran_order': False, 'shape': (2,)} trailing",
  };
  for (const char* dict : cases) {
    SCOPED_TRACE(dict);
    ExpectInvalid(ParseNpy(Npy(dict, data)), "malformed header");
  }
}

TEST(NpyErrorTest, UnsupportedDescr) {
  ExpectInvalid(ReadFixture("str_u3.npy"), "unsupported descr '<U3': string arrays");
  ExpectInvalid(ReadFixture("str_u3.npy"), Fixture("str_u3.npy"));
  ExpectInvalid(ParseNpy(Npy(Dict("|O", "(1,)"), std::string(8, '\0'))), "unsupported descr '|O': object arrays");
  ExpectInvalid(ParseNpy(Npy(Dict("|S4", "(1,)"), "abcd")), "unsupported descr '|S4'");
  ExpectInvalid(ParseNpy(Npy(Dict("<M8[ns]", "(1,)"), std::string(8, '\0'))), "datetime");
  ExpectInvalid(ParseNpy(Npy(Dict("<f16", "(1,)"), std::string(16, '\0'))), "unsupported descr '<f16'");
  ExpectInvalid(ParseNpy(Npy(Dict("<i3", "(1,)"), std::string(3, '\0'))), "unsupported descr '<i3'");
  ExpectInvalid(ParseNpy(Npy(Dict("", "(1,)"), std::string(4, '\0'))), "unsupported descr ''");
  ExpectInvalid(ParseNpy(Npy("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}", "abcd")),
                "structured");
}

TEST(NpyErrorTest, DataLengthMustMatchShape) {
  std::string dict = Dict("<f4", "(2, 3)");
  ExpectInvalid(ParseNpy(Npy(dict, std::string(23, 'x'))),
                "data is truncated: 23 bytes, but a float array of shape [2,3] needs 24");
  ExpectInvalid(ParseNpy(Npy(dict, std::string(25, 'x'))), "data is too long: 25 bytes");
  ExpectInvalid(ParseNpy(Npy(Dict("<f4", "()"), "")), "data is truncated");
  ExpectInvalid(ParseNpy(Npy(Dict("<f4", "(0,)"), "x")), "data is too long");
  std::string dir = TempDir();
  WriteBytes(dir + "/t.npy", Npy(dict, std::string(20, 'x')));
  ExpectInvalid(ReadNpyFile(dir + "/t.npy"), "t.npy': data is truncated");
}

TEST(NpyErrorTest, BadDimensions) {
  ExpectInvalid(ParseNpy(Npy(Dict("<f4", "(-1, 3)"), "")), "dimension 0 is negative (-1)");
  ExpectInvalid(ParseNpy(Npy(Dict("<f4", "(2, 99999999999999999999)"), "")), "dimension 1 is too large");
  // Products past 2^62 elements are refused by the shape itself.
  ExpectInvalid(ParseNpy(Npy(Dict("<f4", "(4611686018427387904, 2)"), "")), "invalid shape");
  // Large shapes with no data behind them: refused without allocating.
  ExpectInvalid(ParseNpy(Npy(Dict("<f8", "(9223372036854775807,)"), "")), "invalid shape");
  ExpectInvalid(ParseNpy(Npy(Dict("<c16", "(4611686018427387904,)"), "")), "needs more than 2^64");
  ExpectInvalid(ParseNpy(Npy(Dict("<f8", "(1000000000000,)"), "abcdefgh")), "needs 8000000000000");
  // A zero dimension makes any other one harmless.
  StatusOr<Tensor> t = ParseNpy(Npy(Dict("<f8", "(0, 4611686018427387904)"), ""));
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->NumElements(), 0);
}

TEST(NpyErrorTest, MissingFileIsNotFound) {
  std::string path = TempDir() + "/nope.npy";
  StatusOr<Tensor> t = ReadNpyFile(path);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), Code::kNotFound);
  EXPECT_NE(t.status().message().find(path), std::string::npos) << t.status();
}

TEST(NpyErrorTest, DirectoryIsNotAnNpyFile) {
  std::string dir = TempDir();
  ExpectInvalid(ReadNpyFile(dir), "is a directory");
}

TEST(NpyErrorTest, WriteFailuresNameThePath) {
  std::string path = TempDir() + "/no/such/dir/x.npy";
  Status s = WriteNpyFile(path, Tensor::Scalar<float>(1));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kNotFound);
  EXPECT_NE(s.message().find(path), std::string::npos) << s;
  // Renaming over a directory fails; the temporary file is removed.
  std::string dir = TempDir();
  ASSERT_EQ(::mkdir((dir + "/d").c_str(), 0755), 0);
  s = WriteNpyFile(dir + "/d", Tensor::Scalar<float>(1));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir + "/d"), std::string::npos) << s;
  DIR* d = ::opendir(dir.c_str());
  int entries = 0;
  while (dirent* e = ::readdir(d))
    if (e->d_name[0] != '.') ++entries;
  ::closedir(d);
  EXPECT_EQ(entries, 1);
}

TEST(NpyErrorTest, StringAndUninitializedTensorsCannotBeWritten) {
  Tensor s = Tensor::FromVector<std::string>({"a", "b"});
  StatusOr<std::string> bytes = SerializeNpy(s);
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bytes.status().message().find("string"), std::string::npos);
  std::string path = TempDir() + "/s.npy";
  Status w = WriteNpyFile(path, s);
  EXPECT_EQ(w.code(), Code::kInvalidArgument);
  EXPECT_NE(w.message().find(path), std::string::npos) << w;
  EXPECT_NE(::access(path.c_str(), F_OK), 0);
  EXPECT_EQ(SerializeNpy(Tensor()).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(WriteNpyFile(path, Tensor()).code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace flowvm
