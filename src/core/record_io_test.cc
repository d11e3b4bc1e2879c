// TFRecord files: the exact bytes of a record, round trips, and every way a
// file can be damaged.
#include "flowvm/record_io.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "core/crc32c.h"

namespace flowvm {
namespace {

class RecordIoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/record_io_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string Write(const std::string& name, const std::vector<std::string>& records) {
    std::string path = dir_ + "/" + name;
    auto w = RecordWriter::Create(path);
    EXPECT_TRUE(w.ok()) << w.status();
    for (const auto& r : records) EXPECT_TRUE((*w)->Write(r).ok());
    EXPECT_TRUE((*w)->Close().ok());
    return path;
  }
  std::string Bytes(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  std::vector<std::string> ReadAll(const std::string& path, Status* status) {
    std::vector<std::string> out;
    auto r = RecordReader::Open(path);
    if (!r.ok()) {
      *status = r.status();
      return out;
    }
    uint64_t offset = 0;
    std::string record;
    for (;;) {
      Status s = (*r)->ReadRecord(&offset, &record);
      if (s.code() == Code::kOutOfRange) break;
      if (!s.ok()) {
        *status = s;
        return out;
      }
      out.push_back(record);
    }
    *status = Status::OK();
    return out;
  }
  std::string dir_;
};

uint32_t Fixed32(const std::string& b, size_t at) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(b[at + i]);
  return v;
}

TEST_F(RecordIoTest, TheFramingIsTensorFlows) {
  std::string bytes = Bytes(Write("one", {"hello"}));
  ASSERT_EQ(bytes.size(), 8u + 4 + 5 + 4);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x05\0\0\0\0\0\0\0", 8));
  EXPECT_EQ(Fixed32(bytes, 8), Crc32cMask(Crc32c(bytes.data(), 8)));
  EXPECT_EQ(bytes.substr(12, 5), "hello");
  EXPECT_EQ(Fixed32(bytes, 17), Crc32cMask(Crc32c("hello", 5)));
  // The mask is TensorFlow's: rotate right 15, add 0xa282ead8.
  EXPECT_EQ(Crc32cMask(0), 0xa282ead8u);
  EXPECT_EQ(Crc32cUnmask(Crc32cMask(0x12345678u)), 0x12345678u);
}

TEST_F(RecordIoTest, RoundTripsEmptyAndLargeRecords) {
  std::vector<std::string> records = {"", "x", std::string(1 << 20, 'z'), std::string(3, '\0')};
  for (int i = 0; i < 1000; ++i) records.push_back("record " + std::to_string(i));
  Status s;
  EXPECT_EQ(ReadAll(Write("many", records), &s), records);
  EXPECT_TRUE(s.ok()) << s;
  EXPECT_TRUE(ReadAll(Write("none", {}), &s).empty());
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(RecordIoTest, DamageIsDataLossNamingFileAndOffset) {
  const std::string path = Write("damaged", {"first", "second"});
  std::string bytes = Bytes(path);
  const size_t second = 8 + 4 + 5 + 4;
  for (size_t at : {second + 14, second + 3, second + 9}) {  // data, length, length CRC
    std::string copy = bytes;
    copy[at] ^= 0x40;
    std::string p = dir_ + "/d" + std::to_string(at);
    std::ofstream(p, std::ios::binary) << copy;
    Status s;
    std::vector<std::string> got = ReadAll(p, &s);
    EXPECT_EQ(got, std::vector<std::string>{"first"});
    EXPECT_EQ(s.code(), Code::kDataLoss) << s;
    EXPECT_NE(s.message().find(p), std::string::npos) << s;
    EXPECT_NE(s.message().find("offset " + std::to_string(second)), std::string::npos) << s;
  }
  // Cut short inside the second record.
  std::string p = dir_ + "/truncated";
  std::ofstream(p, std::ios::binary) << bytes.substr(0, bytes.size() - 3);
  Status s;
  EXPECT_EQ(ReadAll(p, &s), std::vector<std::string>{"first"});
  EXPECT_EQ(s.code(), Code::kDataLoss) << s;
  EXPECT_EQ(RecordReader::Open(dir_ + "/missing").status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace flowvm
