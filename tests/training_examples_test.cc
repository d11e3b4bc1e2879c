// The training examples end to end: accuracy, checkpoints surviving kills at
// arbitrary moments, resuming to the same result, and corrupt checkpoints
// reported instead of silently ignored. (The Fashion-MNIST accuracy runs take
// minutes; they are ctest entries labelled "slow" in tests/CMakeLists.txt.)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm::testing {
namespace {

namespace fs = std::filesystem;

std::string DigitsPath() { return std::string(FLOWVM_BINARY_DIR) + "/examples/flowvm_digits"; }

class TrainingExamplesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("flowvm_examples_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The "test accuracy: ..." line of a finished run.
  static std::string Summary(const std::string& out) {
    std::smatch m;
    return std::regex_search(out, m, std::regex("test accuracy: [^\\n]*")) ? m.str() : "";
  }

  fs::path dir_;
};

TEST_F(TrainingExamplesTest, DigitsReachesNinetyFivePercent) {
  CliResult r = RunProgram(dir_, DigitsPath(), "--no-progress --min-accuracy 0.95");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("test accuracy: ([0-9.]+)%"))) << r.out;
  EXPECT_GE(std::stod(m[1]), 95.0) << r.out;
}

// The placer spreads the model over several devices; training computes the
// same numbers as on one (same thread count, so the same kernel shards).
TEST_F(TrainingExamplesTest, DigitsOnSeveralDevicesMatchesOneDevice) {
  std::string last;
  for (int devices : {1, 2, 4}) {
    CliResult r = RunProgram(dir_, DigitsPath(),
                             "--no-progress --steps 200 --threads 2 --cpu-devices " + std::to_string(devices));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.out, m, std::regex("test accuracy: .*"))) << r.out;
    if (!last.empty()) EXPECT_EQ(m[0].str(), last) << devices << " devices";
    last = m[0].str();
  }
}

// Starts `program args` in `dir`, kills it with SIGKILL once `ready()` holds
// (or it exits), and returns whether it was killed.
bool RunAndKill(const fs::path& dir, const std::string& program, const std::vector<std::string>& args,
                const std::function<bool()>& ready, std::chrono::microseconds extra_delay) {
  pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) _exit(127);
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(program.c_str()));
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(program.c_str(), argv.data());
    _exit(127);
  }
  int status = 0;
  while (!ready()) {
    if (::waitpid(pid, &status, WNOHANG) == pid) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  std::this_thread::sleep_for(extra_delay);
  ::kill(pid, SIGKILL);
  ::waitpid(pid, &status, 0);
  return WIFSIGNALED(status);
}

TEST_F(TrainingExamplesTest, KilledAndResumedRunEndsWhereAnUninterruptedOneDoes) {
  const std::string flags = "--no-progress --steps 3000 --save-every 50 --threads 2";
  fs::create_directories(dir_ / "straight");
  CliResult straight = RunProgram(dir_ / "straight", DigitsPath(), flags + " --checkpoint-dir ckpt");
  ASSERT_EQ(straight.exit_code, 0) << straight.err;
  ASSERT_FALSE(Summary(straight.out).empty()) << straight.out;

  // Kill a run at several moments: right after a checkpoint appears, and at
  // random delays after, so some kills land in the middle of a save.
  fs::path killed = dir_ / "killed";
  fs::create_directories(killed);
  std::vector<std::string> args = {"--no-progress", "--steps", "3000", "--save-every", "50",
                                   "--threads", "2", "--checkpoint-dir", "ckpt"};
  std::mt19937 rng(7);
  int kills = 0;
  for (int round = 0; round < 6; ++round) {
    std::string before = ReadFileBytes((killed / "ckpt" / "checkpoint").string());
    auto ready = [&] {
      std::string now = ReadFileBytes((killed / "ckpt" / "checkpoint").string());
      return !now.empty() && now != before;  // a new checkpoint was listed
    };
    if (RunAndKill(killed, DigitsPath(), args, ready, std::chrono::microseconds(rng() % 20000))) ++kills;
  }
  EXPECT_GT(kills, 0);
  CliResult resumed = RunProgram(killed, DigitsPath(), flags + " --checkpoint-dir ckpt");
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resumed from step"), std::string::npos) << resumed.out;
  // Same batches, same restored state: the same weights, so the same test loss to 8 digits.
  EXPECT_EQ(Summary(resumed.out), Summary(straight.out));
  // Only the last few checkpoints are kept.
  int index_files = 0;
  for (const auto& e : fs::directory_iterator(killed / "ckpt")) index_files += e.path().extension() == ".index";
  EXPECT_LE(index_files, 3);
}

TEST_F(TrainingExamplesTest, CorruptCheckpointIsAnErrorNotAFreshStart) {
  CliResult first = RunProgram(dir_, DigitsPath(), "--no-progress --steps 200 --checkpoint-dir ckpt");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  fs::path data;
  for (const auto& e : fs::directory_iterator(dir_ / "ckpt"))
    if (e.path().filename().string().rfind("ckpt-200.data", 0) == 0) data = e.path();
  ASSERT_FALSE(data.empty());
  {
    std::fstream f(data, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(data) / 2));
    f.put('\x5a');
  }
  CliResult second = RunProgram(dir_, DigitsPath(), "--no-progress --steps 400 --checkpoint-dir ckpt");
  EXPECT_EQ(second.exit_code, 1);
  EXPECT_NE(second.err.find("DataLoss"), std::string::npos) << second.err;
  EXPECT_NE(second.err.find("ckpt-200"), std::string::npos) << second.err;
}

TEST_F(TrainingExamplesTest, BadFlagsAndMissingDataAreClearErrors) {
  CliResult r = RunProgram(dir_, DigitsPath(), "--steps abc");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--steps: 'abc' is not an integer"), std::string::npos) << r.err;
  r = RunProgram(dir_, DigitsPath(), "--data /nonexistent/digits.csv.gz");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/nonexistent/digits.csv.gz"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("setup.sh"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flowvm::testing
