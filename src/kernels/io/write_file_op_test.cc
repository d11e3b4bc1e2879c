// WriteFile kernel: writes a whole file, creating missing parent directories,
// replaces an existing one without leaving temporary files behind, and fails
// clearly on bad inputs.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::TestNode;

class WriteFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/write_file_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  static Status Write(const Tensor& filename, const Tensor& contents) {
    auto out = testing::RunOpKernel(TestNode("w", "WriteFile").Input("f").Input("c"), {filename, contents});
    if (out.ok()) {
      EXPECT_TRUE(out->empty());
    }
    return out.status();
  }
  static Status Write(const std::string& path, const std::string& contents) {
    return Write(Tensor::Scalar<std::string>(path), Tensor::Scalar<std::string>(contents));
  }
  static std::string Contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  int Entries(const std::string& dir) {
    int n = 0;
    for (auto it = std::filesystem::directory_iterator(dir); it != std::filesystem::directory_iterator(); ++it) ++n;
    return n;
  }
  std::string dir_;
};

TEST_F(WriteFileTest, WritesTheWholeFile) {
  const std::string binary("a\0b\xff\n\0", 6);
  FLOWVM_ASSERT_OK(Write(dir_ + "/out.bin", binary));
  EXPECT_EQ(Contents(dir_ + "/out.bin"), binary);
  FLOWVM_ASSERT_OK(Write(dir_ + "/empty", ""));
  EXPECT_TRUE(std::filesystem::exists(dir_ + "/empty"));
  EXPECT_EQ(std::filesystem::file_size(dir_ + "/empty"), 0u);
}

TEST_F(WriteFileTest, CreatesMissingParentDirectories) {
  FLOWVM_ASSERT_OK(Write(dir_ + "/a/b/c/out.txt", "deep"));
  EXPECT_EQ(Contents(dir_ + "/a/b/c/out.txt"), "deep");
}

TEST_F(WriteFileTest, ReplacesAnExistingFileAndLeavesNoTemporaryFiles) {
  FLOWVM_ASSERT_OK(Write(dir_ + "/f", "a much longer first version"));
  FLOWVM_ASSERT_OK(Write(dir_ + "/f", "short"));
  EXPECT_EQ(Contents(dir_ + "/f"), "short");
  EXPECT_EQ(Entries(dir_), 1);
}

TEST_F(WriteFileTest, FailsClearly) {
  Status s = Write(Tensor::FromVector<std::string>({"a", "b"}), Tensor::Scalar<std::string>("x"));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("filename must be a scalar"), std::string::npos) << s;
  s = Write(Tensor::Scalar<std::string>(dir_ + "/x"), Tensor::FromVector<std::string>({"a"}));
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("contents must be a scalar"), std::string::npos) << s;
  s = Write("", "x");
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  // A directory where the file should go: the rename fails, naming it.
  std::filesystem::create_directories(dir_ + "/taken/inner");
  s = Write(dir_ + "/taken", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir_ + "/taken"), std::string::npos) << s;
  EXPECT_EQ(Entries(dir_), 1) << "a temporary file was left behind";
  // A regular file where a parent directory should go.
  FLOWVM_ASSERT_OK(Write(dir_ + "/plain", "x"));
  s = Write(dir_ + "/plain/child", "x");
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find(dir_ + "/plain"), std::string::npos) << s;
}

}  // namespace
}  // namespace flowvm
