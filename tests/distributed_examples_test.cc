// The distributed examples end to end, each on a local cluster of server
// processes (`flowvm cluster up`, stopped by the fixture's TearDown even when
// a test fails):
//
//   flowvm_distributed_digits --mode sync: the loss after K steps equals the
//     same model's in one process (--mode local) within float tolerance, and
//     the test accuracy reaches the digits target;
//   --mode async: two worker programs share the variables on the ps, the
//     second waits for the chief to initialize them, and the chief's test
//     accuracy reaches the target; a worker without a chief gives up within
//     its bound;
//   --mode model-parallel: three layers on three tasks, same losses and
//     accuracy as in one process;
//   flowvm_word_count: the counts of a generated corpus (every kind of ASCII
//     whitespace, an empty file, non-ASCII bytes, files of very different
//     sizes) equal a direct count, on 3 and 2 of a cluster's workers and in
//     one process.
// No test asserts on time. Each takes a few seconds.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "flowvm/config.pb.h"
#include "flowvm/event_reader.h"
#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm::testing {
namespace {

namespace fs = std::filesystem;

std::string DistributedDigitsPath() { return std::string(FLOWVM_BINARY_DIR) + "/examples/flowvm_distributed_digits"; }
std::string WordCountPath() { return std::string(FLOWVM_BINARY_DIR) + "/examples/flowvm_word_count"; }

// A fresh directory per test, and a local cluster in it for the test's life.
class DistributedExamplesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/flowvm_dist_examples_XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    if (cluster_up_) {
      CliResult r = RunCli(dir_, "cluster down --dir cluster");
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // Starts `flowvm cluster up --ps P --workers W`; returns the chief's target.
  std::string StartCluster(int ps, int workers) {
    CliResult r = RunCli(dir_, "cluster up --dir cluster --ps " + std::to_string(ps) + " --workers " +
                                   std::to_string(workers));
    cluster_up_ = true;  // down also cleans up a half-started cluster
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string target = r.out.substr(0, r.out.find('\n'));
    EXPECT_EQ(target.rfind("grpc://127.0.0.1:", 0), 0u) << r.out;
    return target;
  }
  // The master of worker task `i` (each task of a cluster runs one).
  std::string WorkerTarget(int i) const {
    auto spec = nlohmann::json::parse(ReadFileBytes(dir_ + "/cluster/cluster.json"));
    return "grpc://" + spec["worker"][i].get<std::string>();
  }
  // A subdirectory for one program's stdout.txt and stderr.txt.
  std::string Subdir(const std::string& name) const {
    fs::create_directories(dir_ + "/" + name);
    return dir_ + "/" + name;
  }

  std::string dir_;
  bool cluster_up_ = false;
};

// What a digits run printed last.
struct DigitsRun {
  int64_t step = -1;
  double train_loss = NAN;
  double accuracy = NAN;  // percent
  int64_t examples = 0;
  double test_loss = NAN;
  int64_t own_steps = -1;  // async: "worker I: N steps of its own"
};

DigitsRun ParseDigits(const std::string& out) {
  DigitsRun r;
  std::smatch m;
  if (std::regex_search(out, m, std::regex("training loss at step ([0-9]+): ([0-9.]+)"))) {
    r.step = std::stoll(m[1]);
    r.train_loss = std::stod(m[2]);
  }
  if (std::regex_search(out, m,
                        std::regex("test accuracy: ([0-9.]+)% \\(([0-9]+) examples\\), test loss ([0-9.]+)"))) {
    r.accuracy = std::stod(m[1]);
    r.examples = std::stoll(m[2]);
    r.test_loss = std::stod(m[3]);
  }
  if (std::regex_search(out, m, std::regex("worker [0-9]+: ([0-9]+) steps of its own"))) r.own_steps = std::stoll(m[1]);
  return r;
}

// |a - b| <= rel * |b|.
void ExpectClose(double a, double b, double rel, const std::string& what) {
  EXPECT_LE(std::fabs(a - b), rel * std::fabs(b)) << what << ": " << a << " vs " << b;
}

// The same model, flags and data in one process and on the cluster: the
// distributed run must compute the same numbers up to float rounding.
void ExpectSameAsLocal(const DigitsRun& dist, const DigitsRun& local) {
  ASSERT_EQ(dist.step, local.step);
  // Sync sums each gradient as two 32-example halves averaged on the ps
  // instead of one 64-example sum; model parallelism runs the same kernels
  // on other processes. Either way only the last bits differ: after 200-300
  // Adam steps we measured relative gaps of about 1e-7 (the cluster's runs
  // are deterministic: the updates wait for every gradient). Adam divides
  // by the root of small second moments, which magnifies such gaps as a run
  // goes on (1500 steps: 2e-4), so the bound is for these step counts.
  ExpectClose(dist.train_loss, local.train_loss, 1e-4, "training loss at the last step");
  ExpectClose(dist.test_loss, local.test_loss, 1e-4, "test loss");
  // Rounding could move one borderline example at most.
  EXPECT_LE(std::fabs(dist.accuracy - local.accuracy), 100.0 / local.examples + 1e-9)
      << dist.accuracy << "% vs " << local.accuracy << "%";
}

TEST_F(DistributedExamplesTest, DigitsHelpAndBadFlags) {
  const std::string d = Subdir("flags");
  CliResult r = RunProgram(d, DistributedDigitsPath(), "--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* s : {"--mode local|sync|async|model-parallel", "--target grpc://HOST:PORT", "--worker-index",
                        "--init-timeout-ms", "/job:ps/task:0", "--checkpoint-dir DIR", "--save-every-secs S",
                        "--cluster-wait-ms MS", "--health-check-timeout-ms"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  struct Case {
    std::string args, error;
  };
  for (const Case& c : std::vector<Case>{
           {"--mode paralel", "--mode: 'paralel' is not one of local, sync, async, model-parallel"},
           {"--mode sync", "--mode sync needs --target grpc://HOST:PORT"},
           {"--mode sync --target grpc://127.0.0.1:1 --workers 3", "--batch 32 is not divisible by --workers 3"},
           {"--mode async --target grpc://127.0.0.1:1 --workers 2", "needs --workers N and --worker-index I"},
           {"--mode async --target grpc://127.0.0.1:1 --workers 2 --worker-index 2",
            "--worker-index 2 is not below --workers 2"},
           {"--target grpc://127.0.0.1:1", "--mode local runs in this process"},
           {"--mode sync --target grpc://127.0.0.1:1 --threads 2", "--threads and --cpu-devices are for --mode local"},
           {"--hidden 128,x", "--hidden: 'x' is not an integer"},
           {"--checkpoint-dir ckpt", "--checkpoint-dir is for --mode sync"},
           {"--mode async --target grpc://127.0.0.1:1 --workers 2 --worker-index 0 --checkpoint-dir ckpt",
            "--checkpoint-dir is for --mode sync"},
           {"--mode sync --target grpc://127.0.0.1:1 --save-every 10", "--save-every and --save-every-secs need "
                                                                       "--checkpoint-dir"},
           {"--mode sync --target grpc://127.0.0.1:1 --health-check-timeout-ms 0", "must be >= 1"},
       }) {
    r = RunProgram(d, DistributedDigitsPath(), c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find("InvalidArgument: "), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.args << "\n" << r.err;
  }
}

TEST_F(DistributedExamplesTest, SyncReplicasMatchOneProcessAndReachTheTarget) {
  const std::string target = StartCluster(1, 2);
  const std::string flags = "--no-progress --steps 300 --batch 64 --min-accuracy 0.95";
  CliResult local = RunProgram(Subdir("local"), DistributedDigitsPath(), "--mode local " + flags);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  // With summaries (they change no number): the trace of a step covers
  // every task it ran on.
  const std::string logdir = Subdir("sync") + "/logs";
  CliResult sync = RunProgram(Subdir("sync"), DistributedDigitsPath(),
                              "--mode sync --workers 2 --target " + target + " " + flags + " --logdir " + logdir +
                                  " --trace-every 100 --histogram-every 100");
  ASSERT_EQ(sync.exit_code, 0) << sync.out << sync.err;
  std::set<std::string> traced_devices, tags;
  auto files = ListEventFiles(logdir);
  ASSERT_TRUE(files.ok() && files->size() == 1) << files.status().ToString();
  auto reader = EventFileReader::Open(files->front());
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  Event event;
  while ((*reader)->Next(&event).ok()) {
    for (const Summary::Value& v : event.summary().value()) tags.insert(v.tag());
    if (!event.has_tagged_run_metadata()) continue;
    RunMetadata md;
    ASSERT_TRUE(md.ParseFromString(event.tagged_run_metadata().run_metadata()));
    for (const DeviceStepStats& d : md.step_stats().dev_stats()) traced_devices.insert(d.device());
  }
  for (const char* task : {"/job:worker/replica:0/task:0", "/job:worker/replica:0/task:1", "/job:ps/replica:0/task:0"}) {
    EXPECT_TRUE(std::any_of(traced_devices.begin(), traced_devices.end(),
                            [&](const std::string& d) { return d.rfind(task, 0) == 0; }))
        << task << " is not in the trace";
  }
  for (const char* tag : {"loss", "accuracy", "examples_per_sec", "weights/hidden1/weights", "test_accuracy"})
    EXPECT_TRUE(tags.count(tag)) << tag;
  EXPECT_NE(sync.out.find("mode sync: 2 workers, 32 examples each per step"), std::string::npos) << sync.out;
  const DigitsRun s = ParseDigits(sync.out), l = ParseDigits(local.out);
  EXPECT_EQ(s.step, 300);
  EXPECT_GE(s.accuracy, 95.0) << sync.out;
  ExpectSameAsLocal(s, l);
  std::printf("sync: %s  local: %s", sync.out.c_str(), local.out.c_str());
}

TEST_F(DistributedExamplesTest, ModelParallelLayersMatchOneProcess) {
  const std::string target = StartCluster(0, 3);
  // Three layers (64-128-64-10), layer k on /job:worker/task:k.
  const std::string flags = "--no-progress --steps 200 --batch 64 --hidden 128,64 --min-accuracy 0.95";
  CliResult local = RunProgram(Subdir("local"), DistributedDigitsPath(), "--mode local " + flags);
  ASSERT_EQ(local.exit_code, 0) << local.err;
  CliResult mp = RunProgram(Subdir("mp"), DistributedDigitsPath(),
                            "--mode model-parallel --workers 3 --target " + target + " " + flags);
  ASSERT_EQ(mp.exit_code, 0) << mp.out << mp.err;
  EXPECT_NE(mp.out.find("3 layers over 3 workers"), std::string::npos) << mp.out;
  const DigitsRun m = ParseDigits(mp.out), l = ParseDigits(local.out);
  EXPECT_EQ(m.step, 200);
  EXPECT_GE(m.accuracy, 95.0) << mp.out;
  ExpectSameAsLocal(m, l);
  std::printf("model-parallel: %s  local: %s", mp.out.c_str(), local.out.c_str());
}

TEST_F(DistributedExamplesTest, AsyncWorkersShareTheVariablesOnThePs) {
  const std::string target = StartCluster(1, 2);
  // Without a chief, a worker waits for the variables up to its bound.
  CliResult alone = RunProgram(Subdir("alone"), DistributedDigitsPath(),
                               "--mode async --workers 2 --worker-index 1 --init-timeout-ms 200 --no-progress "
                               "--target " + WorkerTarget(1));
  EXPECT_EQ(alone.exit_code, 1) << alone.out << alone.err;
  EXPECT_NE(alone.err.find("DeadlineExceeded: worker 1: the chief (worker 0) did not initialize the variables on "
                           "/job:ps/task:0 within 200 ms"),
            std::string::npos)
      << alone.err;

  // Worker 1 starts first, each program talks to its own task's master, and
  // worker 1 waits until the chief has initialized the variables.
  const std::string flags = " --mode async --workers 2 --no-progress --steps 600 --batch 64";
  const std::string w1_dir = Subdir("w1");
  std::atomic<bool> w1_done{false};
  CliResult w1;
  std::thread worker1([&] {
    w1 = RunProgram(w1_dir, DistributedDigitsPath(),
                    "--worker-index 1 --init-timeout-ms 60000 --target " + WorkerTarget(1) + flags +
                        " --logdir " + w1_dir + "/logs");
    w1_done = true;
  });
  // Start the chief once worker 1 is waiting (no time limit asserted: a
  // worker that never says so is reported below).
  while (!w1_done && ReadFileBytes(w1_dir + "/stderr.txt").find("waiting for the chief") == std::string::npos)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CliResult chief = RunProgram(Subdir("w0"), DistributedDigitsPath(),
                               "--worker-index 0 --min-accuracy 0.95 --target " + target + flags +
                                   " --logdir " + Subdir("w0") + "/logs");
  worker1.join();
  // Only the chief writes summaries, though both were given --logdir.
  auto chief_files = ListEventFiles(Subdir("w0") + "/logs");
  ASSERT_TRUE(chief_files.ok()) << chief_files.status().ToString();
  EXPECT_EQ(chief_files->size(), 1u);
  auto w1_files = ListEventFiles(w1_dir + "/logs");
  EXPECT_TRUE(!w1_files.ok() || w1_files->empty());
  ASSERT_EQ(chief.exit_code, 0) << chief.out << chief.err;
  ASSERT_EQ(w1.exit_code, 0) << w1.out << w1.err;
  EXPECT_NE(w1.err.find("worker 1: waiting for the chief to initialize the variables"), std::string::npos) << w1.err;
  EXPECT_NE(chief.out.find("worker 0 of 2 (chief)"), std::string::npos) << chief.out;
  const DigitsRun c = ParseDigits(chief.out), o = ParseDigits(w1.out);
  EXPECT_GE(c.accuracy, 95.0) << chief.out;
  EXPECT_TRUE(std::isnan(o.accuracy)) << "only the chief evaluates: " << w1.out;
  // Both trained, on one shared global step that reached --steps.
  EXPECT_GT(c.own_steps, 0) << chief.out;
  EXPECT_GT(o.own_steps, 0) << w1.out;
  EXPECT_GE(c.own_steps + o.own_steps, 600);
  EXPECT_GE(c.step, 600) << chief.out;
  EXPECT_LE(c.step, c.own_steps + o.own_steps);
  std::printf("chief: %s worker 1: %s", chief.out.c_str(), w1.out.c_str());
}

// The direct count: words are runs of bytes other than ASCII whitespace
// (' ', \t, \n, \v, \f, \r), as StringSplitV2 splits them.
std::map<std::string, int64_t> CountDirectly(const std::vector<std::string>& texts) {
  std::map<std::string, int64_t> counts;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; };
  for (const std::string& t : texts) {
    size_t i = 0;
    while (i < t.size()) {
      while (i < t.size() && space(t[i])) ++i;
      size_t j = i;
      while (j < t.size() && !space(t[j])) ++j;
      if (j > i) ++counts[t.substr(i, j - i)];
      i = j;
    }
  }
  return counts;
}

// A corpus of files of very different sizes (so some mappers run out of
// files before others), every kind of whitespace, runs of it at both ends,
// an empty file, a file of whitespace only, UTF-8 and other bytes >= 0x80.
std::vector<std::string> Corpus() {
  const char* seps[] = {" ", "  ", "\t", "\n", "\r\n", " \v ", "\f", "\n\n\t "};
  const char* extra[] = {"caf\xc3\xa9", "\xe6\x97\xa5\xe6\x9c\xac", "x\x80y", "a,b", "-", "A", "a"};
  std::vector<std::string> texts;
  uint32_t r = 12345;
  auto next = [&r] { return r = r * 1664525u + 1013904223u; };
  const int sizes[] = {60000, 400, 9000, 0, 25000, 1, 3000};
  for (int words : sizes) {
    std::string t = words > 0 ? "\n \t" : "";
    for (int i = 0; i < words; ++i) {
      // Zipf-like ranks: the product of two uniforms.
      const uint32_t a = (next() >> 8) % 2000, b = (next() >> 8) % 2000;
      t += (i % 97 == 0) ? extra[(next() >> 8) % 7] : "w" + std::to_string(a * b / 2000);
      t += seps[(next() >> 8) % 8];
    }
    texts.push_back(t);
  }
  texts.push_back(" \t\r\n\v\f  \n");  // whitespace only
  texts.push_back("last-word-without-newline");
  return texts;
}

std::map<std::string, int64_t> ReadCounts(const std::string& path, std::vector<std::string>* order = nullptr) {
  std::map<std::string, int64_t> counts;
  std::istringstream in(ReadFileBytes(path));
  for (std::string line; std::getline(in, line);) {
    const size_t tab = line.rfind('\t');
    if (tab == std::string::npos) {
      ADD_FAILURE() << "bad line in " << path << ": " << line;
      continue;
    }
    const std::string word = line.substr(0, tab);
    EXPECT_TRUE(counts.emplace(word, std::stoll(line.substr(tab + 1))).second) << "listed twice: " << word;
    if (order != nullptr) order->push_back(word);
  }
  return counts;
}

TEST_F(DistributedExamplesTest, WordCountOnAClusterEqualsADirectCount) {
  const std::vector<std::string> texts = Corpus();
  fs::create_directories(dir_ + "/corpus");
  std::vector<std::string> paths;
  for (size_t i = 0; i < texts.size(); ++i) {
    paths.push_back(dir_ + "/corpus/part-" + std::to_string(i));
    std::ofstream(paths.back(), std::ios::binary) << texts[i];
  }
  fs::create_directories(dir_ + "/corpus/a-subdirectory");  // not a file: skipped by --dir
  const std::map<std::string, int64_t> expected = CountDirectly(texts);
  ASSERT_GT(expected.size(), 1000u);

  const std::string target = StartCluster(0, 3);
  // Every worker task maps (3), the files from --dir.
  CliResult r = RunProgram(Subdir("all"), WordCountPath(),
                           "--target " + target + " --dir ../corpus --top 3 --output counts.tsv --no-progress");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  std::vector<std::string> order;
  EXPECT_EQ(ReadCounts(dir_ + "/all/counts.tsv", &order), expected);
  // Most common first, ties by word; --top prints the head of that list.
  std::vector<std::pair<int64_t, std::string>> ranked;
  for (const auto& [w, n] : expected) ranked.emplace_back(-n, w);
  std::sort(ranked.begin(), ranked.end());
  ASSERT_EQ(order.size(), ranked.size());
  for (size_t i = 0; i < ranked.size(); ++i) ASSERT_EQ(order[i], ranked[i].second) << "rank " << i;
  int64_t total = 0;
  for (const auto& [w, n] : expected) total += n;
  std::string top;
  char line[256];
  for (int i = 0; i < 3; ++i) {
    std::snprintf(line, sizeof(line), "%10lld  %s\n", static_cast<long long>(-ranked[i].first),
                  ranked[i].second.c_str());
    top += line;
  }
  EXPECT_NE(r.out.find(top), std::string::npos) << r.out << "expected:\n" << top;
  EXPECT_NE(r.out.find("(3 mappers, reducer on /job:worker/task:0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("in " + std::to_string(texts.size()) + " files"), std::string::npos) << r.out;
  std::printf("%s", r.out.c_str());

  // Two of the three workers, three files named with --files (a mapper runs
  // out of files while the other still reads).
  r = RunProgram(Subdir("two"), WordCountPath(),
                 "--target " + target + " --workers 2 --output counts.tsv --no-progress --files " + paths[0] + " " +
                     paths[1] + " " + paths[5]);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReadCounts(dir_ + "/two/counts.tsv"), CountDirectly({texts[0], texts[1], texts[5]}));
  EXPECT_NE(r.out.find("(2 mappers,"), std::string::npos) << r.out;

  // More workers than files: the idle mappers are skipped.
  r = RunProgram(Subdir("idle"), WordCountPath(),
                 "--target " + target + " --output counts.tsv --no-progress --files " + paths[2]);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReadCounts(dir_ + "/idle/counts.tsv"), CountDirectly({texts[2]}));

  // In this process, with a progress line per round.
  r = RunProgram(Subdir("local"), WordCountPath(), "--dir ../corpus --top 0 --output counts.tsv --workers 2");
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(ReadCounts(dir_ + "/local/counts.tsv"), expected);
  EXPECT_NE(r.err.find("files " + std::to_string(texts.size()) + "/" + std::to_string(texts.size()) + " (100%)"),
            std::string::npos)
      << r.err;
}

TEST_F(DistributedExamplesTest, WordCountHelpAndErrors) {
  const std::string d = Subdir("wc");
  CliResult r = RunProgram(d, WordCountPath(), "--help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* s : {"--files FILE...", "--dir DIR", "--target grpc://HOST:PORT", "--top K", "--output FILE"})
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  struct Case {
    std::string args;
    int exit_code;
    std::string error;
  };
  std::ofstream(d + "/a.txt") << "a b a\n";
  for (const Case& c : std::vector<Case>{
           {"", 2, "InvalidArgument: give the input as either --files FILE... or --dir DIR"},
           {"--files a.txt --dir .", 2, "InvalidArgument: give the input as either"},
           {"--files --top 3", 2, "InvalidArgument: --files: no files follow it"},
           {"--files a.txt --top -1", 2, "InvalidArgument: --top: must be >= 0"},
           {"--files a.txt --bogus 1", 2, "InvalidArgument: unknown flag '--bogus'"},
           {"--files a.txt missing.txt", 1, "NotFound: 'missing.txt' does not exist"},
           {"--dir nowhere", 1, "NotFound: --dir: 'nowhere' is not a directory"},
       }) {
    r = RunProgram(d, WordCountPath(), c.args);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.error), std::string::npos) << c.args << "\n" << r.err;
  }
  r = RunProgram(d, WordCountPath(), "--files a.txt --top 1 --no-progress");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("words: 3 (2 distinct) in 1 files"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("         2  a\n"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace flowvm::testing
