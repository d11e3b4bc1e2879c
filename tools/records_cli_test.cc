// `flowvm records`: listing and checking a record file written through the
// library, and a damaged one failing with one line naming file and offset.
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "flowvm/record_io.h"
#include "util/cli_runner.h"

namespace flowvm {
namespace {

using testing::CliResult;

class RecordsCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/records_cli_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    auto w = RecordWriter::Create(dir_ + "/data.tfrecord");
    ASSERT_TRUE(w.ok()) << w.status();
    for (const char* r : {"hello", "", "a\nb"}) ASSERT_TRUE((*w)->Write(r).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  CliResult Run(const std::string& args) { return testing::RunCli(dir_, args); }
  std::string dir_;
};

TEST_F(RecordsCliTest, ListsRecordsAfterCheckingThem) {
  CliResult r = Run("records data.tfrecord -v");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "offset 0: 5 bytes  hello\n"
            "offset 21: 0 bytes  \n"
            "offset 37: 3 bytes  a\\x0ab\n"
            "3 records, 8 bytes of data in data.tfrecord, checksums verified\n");
  r = Run("records data.tfrecord --check");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3 records, 8 bytes of data in data.tfrecord, checksums verified\n");
}

TEST_F(RecordsCliTest, ADamagedRecordIsNamedByFileAndOffset) {
  {
    std::fstream f(dir_ + "/data.tfrecord", std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(40);  // inside the third record's header
    f.put('X');
  }
  CliResult r = Run("records data.tfrecord");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("DataLoss: ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("data.tfrecord"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("offset 37"), std::string::npos) << r.err;
  r = Run("records missing.tfrecord");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.rfind("NotFound: ", 0), 0u) << r.err;
}

}  // namespace
}  // namespace flowvm
