// TFRecordDataset, TextLineDataset and FixedLengthRecordDataset(V2) over
// files written here: TFRecords with flowvm's RecordWriter, compressed
// copies with zlib itself.
#include <stdlib.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/record_framing.h"
#include "core/path_policy.h"
#include "flowvm/record_io.h"
#include "kernels/data/dataset_test_util.h"

namespace flowvm::data::testing {
namespace {

std::string Compress(const std::string& data, bool gzip) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, MAX_WBITS + (gzip ? 16 : 0), 8, Z_DEFAULT_STRATEGY),
            Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

class FileDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/file_dataset_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string WriteRecords(const std::string& name, const std::vector<std::string>& records) {
    const std::string path = dir_ + "/" + name;
    auto w = RecordWriter::Create(path);
    EXPECT_TRUE(w.ok()) << w.status();
    for (const auto& r : records) EXPECT_TRUE((*w)->Write(r).ok());
    EXPECT_TRUE((*w)->Close().ok());
    return path;
  }
  std::string WriteBytes(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  std::string ReadBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  // A compressed copy of `path`.
  std::string CompressedCopy(const std::string& path, bool gzip) {
    return WriteBytes(std::filesystem::path(path).filename().string() + (gzip ? ".gz" : ".zlib"),
                      Compress(ReadBytes(path), gzip));
  }

  // `op` over `files` with compression; every element's string.
  StatusOr<std::vector<std::string>> ReadAll(const std::string& op, const std::vector<std::string>& files,
                                             const std::string& compression = "", int64_t buffer_size = 0) {
    Pipeline p;
    p.Const("files", Tensor::FromVector<std::string>(files));
    p.Const("compression", Tensor::Scalar<std::string>(compression));
    p.Const("buffer", Tensor::Scalar<int64_t>(buffer_size));
    p.Add("reader", op, {"files", "compression", "buffer"});
    p.Iterate("reader", {DT_STRING}, {ScalarShape()});
    auto s = p.NewSession();
    FLOWVM_ASSIGN_OR_RETURN(std::vector<Element> got, Drain(s.get(), p.NextFetches()));
    return Scalars<std::string>(got);
  }
  StatusOr<std::vector<std::string>> ReadFixed(const std::vector<std::string>& files, int64_t header, int64_t record,
                                               int64_t footer, const std::string& compression = "") {
    Pipeline p;
    p.Const("files", Tensor::FromVector<std::string>(files));
    p.Const("header", Tensor::Scalar<int64_t>(header));
    p.Const("record", Tensor::Scalar<int64_t>(record));
    p.Const("footer", Tensor::Scalar<int64_t>(footer));
    p.Const("buffer", Tensor::Scalar<int64_t>(3));  // tiny: records cross buffer boundaries
    p.Const("compression", Tensor::Scalar<std::string>(compression));
    p.Add("reader", "FixedLengthRecordDatasetV2", {"files", "header", "record", "footer", "buffer", "compression"});
    p.Iterate("reader", {DT_STRING}, {ScalarShape()});
    auto s = p.NewSession();
    FLOWVM_ASSIGN_OR_RETURN(std::vector<Element> got, Drain(s.get(), p.NextFetches()));
    return Scalars<std::string>(got);
  }

  std::string dir_;
};

using Strings = std::vector<std::string>;

TEST_F(FileDatasetTest, TFRecordDatasetReadsEveryFileInOrder) {
  const std::string a = WriteRecords("a.tfrecord", {"a0", "a1", std::string(100000, 'x')});
  const std::string b = WriteRecords("b.tfrecord", {});
  const std::string c = WriteRecords("c.tfrecord", {"c0"});
  auto got = ReadAll("TFRecordDataset", {a, b, c});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (Strings{"a0", "a1", std::string(100000, 'x'), "c0"}));
  // A buffer smaller than a record.
  got = ReadAll("TFRecordDataset", {a, c}, "", 7);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 4u);
}

TEST_F(FileDatasetTest, TFRecordDatasetReadsGzipAndZlibFiles) {
  const Strings records = {"first", "", "third record", std::string(300000, 'y')};
  const std::string plain = WriteRecords("r.tfrecord", records);
  for (bool gzip : {true, false}) {
    const std::string compressed = CompressedCopy(plain, gzip);
    auto got = ReadAll("TFRecordDataset", {compressed}, gzip ? "GZIP" : "ZLIB", 1000);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, records) << (gzip ? "GZIP" : "ZLIB");
  }
}

TEST_F(FileDatasetTest, ACorruptTFRecordIsDataLossNamingTheFileAndOffset) {
  const std::string path = WriteRecords("bad.tfrecord", {"good", "damaged", "after"});
  std::string bytes = ReadBytes(path);
  // The second record starts at 12 + 4 + 4 = 20; its data at 32.
  bytes[32] ^= 0x40;
  WriteBytes("bad.tfrecord", bytes);
  Pipeline p;
  p.Const("files", Tensor::FromVector<std::string>({path}));
  p.Const("compression", Tensor::Scalar<std::string>(""));
  p.Const("buffer", Tensor::Scalar<int64_t>(0));
  p.Add("reader", "TFRecordDataset", {"files", "compression", "buffer"});
  p.Iterate("reader", {DT_STRING}, {ScalarShape()});
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({}, {"next:0"}, {}, &out));
  EXPECT_EQ(out[0].scalar<std::string>(), "good");
  Status st = s->Run({}, {"next:0"}, {}, &out);
  EXPECT_EQ(st.code(), Code::kDataLoss) << st;
  EXPECT_NE(st.message().find(path), std::string::npos) << st;
  EXPECT_NE(st.message().find("offset 20"), std::string::npos) << st;
}

TEST_F(FileDatasetTest, ATruncatedTFRecordIsDataLoss) {
  const std::string path = WriteRecords("cut.tfrecord", {"whole", "cut short"});
  std::string bytes = ReadBytes(path);
  WriteBytes("cut.tfrecord", bytes.substr(0, bytes.size() - 6));
  auto got = ReadAll("TFRecordDataset", {path});
  EXPECT_EQ(got.status().code(), Code::kDataLoss) << got.status();
  EXPECT_NE(got.status().message().find("offset 21"), std::string::npos) << got.status();
}

TEST_F(FileDatasetTest, AMissingFileIsNotFoundNamingIt) {
  auto got = ReadAll("TFRecordDataset", {dir_ + "/nope.tfrecord"});
  EXPECT_EQ(got.status().code(), Code::kNotFound) << got.status();
  EXPECT_NE(got.status().message().find("nope.tfrecord"), std::string::npos) << got.status();
}

TEST_F(FileDatasetTest, AnUnknownCompressionTypeIsRefused) {
  const std::string path = WriteRecords("r.tfrecord", {"x"});
  auto got = ReadAll("TFRecordDataset", {path}, "LZ4");
  EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << got.status();
  EXPECT_NE(got.status().message().find("Unsupported compression_type: LZ4"), std::string::npos) << got.status();
}

TEST_F(FileDatasetTest, ACorruptGzipStreamIsDataLoss) {
  const std::string plain = WriteRecords("r.tfrecord", {std::string(5000, 'z'), "b"});
  std::string gz = Compress(ReadBytes(plain), true);
  gz[gz.size() / 2] ^= 0xff;
  const std::string path = WriteBytes("bad.gz", gz);
  auto got = ReadAll("TFRecordDataset", {path}, "GZIP");
  EXPECT_EQ(got.status().code(), Code::kDataLoss) << got.status();
  EXPECT_NE(got.status().message().find("bad.gz"), std::string::npos) << got.status();
}

TEST_F(FileDatasetTest, TextLineDatasetSplitsLinesPlainAndCompressed) {
  const std::string text = "first line\nsecond\r\n\nlast without newline";
  const Strings want = {"first line", "second", "", "last without newline"};
  const std::string path = WriteBytes("t.txt", text);
  auto got = ReadAll("TextLineDataset", {path}, "", 4);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, want);
  const std::string two = WriteBytes("u.txt", "x\ny\n");
  got = ReadAll("TextLineDataset", {two, path});
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 6u);
  EXPECT_EQ((*got)[1], "y");
  for (bool gzip : {true, false}) {
    got = ReadAll("TextLineDataset", {CompressedCopy(path, gzip)}, gzip ? "GZIP" : "ZLIB");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, want);
  }
}

TEST_F(FileDatasetTest, FixedLengthRecordDatasetSkipsHeaderAndFooter) {
  const std::string path = WriteBytes("f.bin", "HDRaaaabbbbccccFT");
  auto got = ReadFixed({path, path}, 3, 4, 2);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (Strings{"aaaa", "bbbb", "cccc", "aaaa", "bbbb", "cccc"}));
  for (bool gzip : {true, false}) {
    got = ReadFixed({CompressedCopy(path, gzip)}, 3, 4, 2, gzip ? "GZIP" : "ZLIB");
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, (Strings{"aaaa", "bbbb", "cccc"}));
  }
  // The V1 op: no compression input.
  Pipeline p;
  p.Const("files", Tensor::FromVector<std::string>({path}));
  p.Const("header", Tensor::Scalar<int64_t>(3));
  p.Const("record", Tensor::Scalar<int64_t>(4));
  p.Const("footer", Tensor::Scalar<int64_t>(2));
  p.Const("buffer", Tensor::Scalar<int64_t>(0));
  p.Add("reader", "FixedLengthRecordDataset", {"files", "header", "record", "footer", "buffer"});
  p.Iterate("reader", {DT_STRING}, {ScalarShape()});
  auto s = p.NewSession();
  auto v1 = Drain(s.get(), p.NextFetches());
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(Scalars<std::string>(*v1), (Strings{"aaaa", "bbbb", "cccc"}));
}

TEST_F(FileDatasetTest, FixedLengthRecordBodyNotAMultipleOfTheRecordIsRefused) {
  const std::string path = WriteBytes("f.bin", "HDRaaaabbbFT");
  auto got = ReadFixed({path}, 3, 4, 2);
  EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << got.status();
  EXPECT_NE(got.status().message().find("has body length 7 bytes"), std::string::npos) << got.status();
}

TEST_F(FileDatasetTest, FilesOutsideTheDevicesAllowedDirectoriesAreRefused) {
  const std::string allowed = dir_ + "/allowed";
  std::filesystem::create_directories(allowed);
  const std::string inside = WriteRecords("allowed/in.tfrecord", {"fine"});
  const std::string outside = WriteRecords("out.tfrecord", {"secret"});
  auto policy = PathPolicy::Create({allowed});
  ASSERT_TRUE(policy.ok()) << policy.status();
  KernelRunner runner(nullptr);
  runner.device()->set_path_policy(*policy);
  auto read = [&](const std::string& path) -> StatusOr<std::vector<Element>> {
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr d, runner.Dataset(MakeNode("records", "TFRecordDataset", 3, {}),
                                                         {Tensor::FromVector<std::string>({path}),
                                                          Tensor::Scalar<std::string>(""), Tensor::Scalar<int64_t>(0)}));
    return Collect(d);
  };
  auto ok = read(inside);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(Scalars<std::string>(*ok), (Strings{"fine"}));
  auto refused = read(outside);
  EXPECT_EQ(refused.status().code(), Code::kPermissionDenied) << refused.status();
  EXPECT_NE(refused.status().message().find("node 'records'"), std::string::npos) << refused.status();
  EXPECT_NE(refused.status().message().find("out.tfrecord"), std::string::npos) << refused.status();
}

}  // namespace
}  // namespace flowvm::data::testing
