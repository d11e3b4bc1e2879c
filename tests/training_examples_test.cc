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
#include <map>
#include <set>
#include <random>
#include <regex>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/config.pb.h"
#include "flowvm/event_reader.h"
#include "flowvm/graph.pb.h"
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

// Every event of the one event file in `logdir`.
std::vector<Event> ReadEvents(const fs::path& logdir) {
  auto files = ListEventFiles(logdir.string());
  EXPECT_TRUE(files.ok()) << files.status().ToString();
  if (!files.ok()) return {};
  EXPECT_EQ(files->size(), 1u);
  if (files->empty()) return {};
  auto reader = EventFileReader::Open(files->front());
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  std::vector<Event> events;
  Event e;
  Status s;
  while ((s = (*reader)->Next(&e)).ok()) events.push_back(e);
  EXPECT_EQ(s.code(), Code::kOutOfRange) << s.ToString();
  return events;
}

// --logdir writes what the board shows: the graph, the scalars every step,
// weight histograms and input images every --histogram-every steps, a traced
// step's RunMetadata (with the Send/Recv of two devices) every --trace-every
// steps, and the test results. Training computes the same numbers with it.
TEST_F(TrainingExamplesTest, DigitsLogdirWritesWhatABoardShows) {
  const std::string common = "--no-progress --steps 40 --threads 2 --cpu-devices 2";
  CliResult plain = RunProgram(dir_, DigitsPath(), common);
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  CliResult r = RunProgram(dir_, DigitsPath(),
                           common + " --logdir " + (dir_ / "logs").string() + " --histogram-every 20 --trace-every 20");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Summary(r.out), Summary(plain.out));
  EXPECT_NE(r.out.find("flowvm board --logdir"), std::string::npos) << r.out;

  std::vector<Event> events = ReadEvents(dir_ / "logs");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events[0].file_version(), "brain.Event:2");
  std::map<std::string, std::vector<int64_t>> steps;  // tag -> steps
  std::vector<RunMetadata> traces;
  int graphs = 0;
  for (const Event& e : events) {
    if (e.has_summary()) {
      for (const Summary::Value& v : e.summary().value()) steps[v.tag()].push_back(e.step());
    } else if (!e.graph_def().empty()) {
      GraphDef g;
      ASSERT_TRUE(g.ParseFromString(e.graph_def()));
      std::set<std::string> ops;
      for (const NodeDef& n : g.node()) ops.insert(n.op());
      EXPECT_TRUE(ops.count("HistogramSummary") && ops.count("ImageSummary") && ops.count("MergeSummary"));
      ++graphs;
    } else if (e.has_tagged_run_metadata()) {
      EXPECT_EQ(e.tagged_run_metadata().tag(), "step_" + std::to_string(e.step()));
      RunMetadata md;
      ASSERT_TRUE(md.ParseFromString(e.tagged_run_metadata().run_metadata()));
      traces.push_back(md);
    }
  }
  EXPECT_EQ(graphs, 1);
  for (const char* tag : {"loss", "accuracy", "learning_rate"}) {
    ASSERT_EQ(steps[tag].size(), 40u) << tag;
    for (int64_t i = 0; i < 40; ++i) EXPECT_EQ(steps[tag][i], i) << tag;
  }
  // The first step and the traced ones are not timed.
  EXPECT_GE(steps["examples_per_sec"].size(), 30u);
  EXPECT_EQ(steps["weights/hidden1/weights"], (std::vector<int64_t>{0, 20}));
  EXPECT_EQ(steps["weights/logits/biases"], (std::vector<int64_t>{0, 20}));
  EXPECT_EQ(steps["inputs/image/0"], (std::vector<int64_t>{0, 20}));
  EXPECT_EQ(steps["inputs/image/2"], (std::vector<int64_t>{0, 20}));
  EXPECT_EQ(steps["test_accuracy"], (std::vector<int64_t>{40}));
  ASSERT_EQ(traces.size(), 1u);  // step 20 (step 0 prepares the graph: not traced)
  EXPECT_EQ(traces[0].step_stats().dev_stats_size(), 2);
  bool send = false;
  for (const GraphDef& g : traces[0].partition_graphs())
    for (const NodeDef& n : g.node()) send = send || n.op() == "_Send";
  EXPECT_TRUE(send);
}

TEST_F(TrainingExamplesTest, UnwritableLogdirIsAClearError) {
  std::ofstream(dir_ / "file") << "x";
  CliResult r = RunProgram(dir_, DigitsPath(), "--no-progress --steps 5 --logdir " + (dir_ / "file" / "logs").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find((dir_ / "file" / "logs").string()), std::string::npos) << r.err;
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
