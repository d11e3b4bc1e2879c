// `flowvm run` on a GraphDef with a dataset and an iterator
// (tests/data/datasets/range_batch.pbtxt): --init runs MakeIterator once,
// each --repeat step takes the next batch, and the CLI prints the last one.
#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

using testing::RunCli;
using testing::ShellQuote;

class DatasetCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/dataset_cli_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  testing::CliResult RunRepeat(int k) {
    return RunCli(dir_, "run " + ShellQuote(testing::SourcePath("tests/data/datasets/range_batch.pbtxt")) +
                            " --init init --fetch next --repeat " + std::to_string(k));
  }
  std::string dir_;
};

TEST_F(DatasetCliTest, EachRepeatTakesTheNextBatch) {
  auto r = RunRepeat(1);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("next:0 int64 [4] [0 1 2 3]"), std::string::npos) << r.out;
  r = RunRepeat(3);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("next:0 int64 [2] [8 9]"), std::string::npos) << r.out;
}

TEST_F(DatasetCliTest, PastTheEndIsOutOfRange) {
  auto r = RunRepeat(4);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("OutOfRange"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("End of sequence"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flowvm
