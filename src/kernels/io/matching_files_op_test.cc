// MatchingFiles kernel: glob patterns (one or several) against files made
// here, sorted and de-duplicated results, no match, and bad input.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::TestNode;

class MatchingFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/matching_files_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    for (const char* name : {"b.rec", "a.rec", "c.txt", "sub/d.rec"}) {
      std::filesystem::create_directories(std::filesystem::path(dir_ + "/" + name).parent_path());
      std::ofstream(dir_ + "/" + name) << name;
    }
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  static StatusOr<std::vector<std::string>> Match(const Tensor& patterns) {
    FLOWVM_ASSIGN_OR_RETURN(std::vector<Tensor> out,
                            testing::RunOpKernel(TestNode("m", "MatchingFiles").Input("p"), {patterns}));
    EXPECT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].dims(), 1);
    std::vector<std::string> names;
    for (int64_t i = 0; i < out[0].NumElements(); ++i) names.push_back(out[0].flat<std::string>()[i]);
    return names;
  }

  std::string dir_;
};

TEST_F(MatchingFilesTest, MatchesSortedAndOnce) {
  auto m = Match(Tensor::Scalar<std::string>(dir_ + "/*.rec"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*m, (std::vector<std::string>{dir_ + "/a.rec", dir_ + "/b.rec"}));

  Tensor two(DT_STRING, TensorShape({3}));
  two.flat<std::string>()[0] = dir_ + "/*/?.rec";
  two.flat<std::string>()[1] = dir_ + "/[bc].*";
  two.flat<std::string>()[2] = dir_ + "/b.rec";  // again: listed once
  m = Match(two);
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(*m, (std::vector<std::string>{dir_ + "/b.rec", dir_ + "/c.txt", dir_ + "/sub/d.rec"}));
}

TEST_F(MatchingFilesTest, NoMatchIsEmptyAndAMatrixIsRefused) {
  auto m = Match(Tensor::Scalar<std::string>(dir_ + "/*.none"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->empty());
  m = Match(Tensor::Scalar<std::string>(dir_ + "/no_dir/*"));
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_TRUE(m->empty());
  auto bad = testing::RunOpKernel(TestNode("m", "MatchingFiles").Input("p"),
                                  {Tensor(DT_STRING, TensorShape({1, 1}))});
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument) << bad.status();
}

}  // namespace
}  // namespace flowvm
