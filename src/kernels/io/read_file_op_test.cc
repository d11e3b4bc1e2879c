// ReadFile kernel: whole files (empty, binary with NUL bytes, larger than a
// read buffer) and each way it fails, with the code and the file's name.
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::TestNode;

class ReadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/read_file_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }

  static StatusOr<std::string> Read(const Tensor& filename) {
    FLOWVM_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                            testing::RunOpKernel(TestNode("r", "ReadFile").Input("f"), {filename}));
    EXPECT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dtype(), DT_STRING);
    EXPECT_EQ(out[0].dims(), 0);
    return out[0].scalar<std::string>();
  }
  static StatusOr<std::string> Read(const std::string& path) { return Read(Tensor::Scalar<std::string>(path)); }

  std::string dir_;
};

TEST_F(ReadFileTest, ReadsTheWholeFile) {
  auto s = Read(Write("words.txt", "the quick brown fox\njumps over the lazy dog\n"));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "the quick brown fox\njumps over the lazy dog\n");

  s = Read(Write("empty", ""));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, "");

  const std::string binary("a\0b\xff\n\0", 6);
  s = Read(Write("binary", binary));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, binary);

  std::string big(3 << 20, 'x');
  for (size_t i = 0; i < big.size(); i += 4093) big[i] = static_cast<char>('a' + i % 26);
  s = Read(Write("big", big));
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ(*s, big);
}

TEST_F(ReadFileTest, MissingFileIsNotFoundNamingIt) {
  const std::string path = dir_ + "/no_such_file.txt";
  auto s = Read(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kNotFound) << s.status();
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status();
  // A missing directory on the way too.
  s = Read(dir_ + "/no_dir/file");
  EXPECT_EQ(s.status().code(), Code::kNotFound) << s.status();
  s = Read("");
  EXPECT_EQ(s.status().code(), Code::kNotFound) << s.status();
}

TEST_F(ReadFileTest, DirectoryIsAnErrorNamingIt) {
  auto s = Read(dir_);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
  EXPECT_NE(s.status().message().find(dir_), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find("directory"), std::string::npos) << s.status();
}

TEST_F(ReadFileTest, UnreadableFileIsPermissionDenied) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads files whatever their mode";
  const std::string path = Write("secret", "x");
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  auto s = Read(path);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kPermissionDenied) << s.status();
  EXPECT_NE(s.status().message().find(path), std::string::npos) << s.status();
}

TEST_F(ReadFileTest, FilenameMustBeAScalar) {
  const std::string path = Write("f", "x");
  auto s = Read(Tensor::FromVector<std::string>({path}));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
  EXPECT_NE(s.status().message().find("filename must be a scalar"), std::string::npos) << s.status();
}

}  // namespace
}  // namespace flowvm
