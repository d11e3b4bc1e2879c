// The command line on a cluster of processes: `flowvm cluster up/down`,
// `flowvm server` (cluster file and TF_CONFIG; SIGTERM), `flowvm run
// --target-server`, and what a client sees when a task dies mid-step or
// never comes up.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "flowvm/npy.h"
#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

using testing::CliResult;
using testing::ReadFileBytes;
using testing::ShellQuote;

std::string MakeTempDir() {
  char templ[] = "/tmp/flowvm_cluster_cli_XXXXXX";
  return mkdtemp(templ);
}

// c = (a * a on worker 1) + a on worker 0, a on ps; x fed on worker 1.
const char kAcrossTasks[] = R"(
node { name: "a" op: "Const" device: "/job:ps/task:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: "x" op: "Placeholder" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "b" op: "Mul" input: "a" input: "x" device: "/job:worker/task:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Add" input: "b" input: "a" device: "/job:worker/task:0" attr { key: "T" value { type: DT_FLOAT } } }
)";

// Seconds of MatMuls on worker 1, summed on worker 0.
std::string SlowGraph(int matmuls) {
  std::string g = R"(
node { name: "shape" op: "Const" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1500 int_val: 1500 } } } }
node { name: "m0" op: "RandomUniform" input: "shape" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "T" value { type: DT_INT32 } } }
)";
  for (int i = 1; i <= matmuls; ++i)
    g += "node { name: \"m" + std::to_string(i) + "\" op: \"MatMul\" input: \"m" + std::to_string(i - 1) +
         "\" input: \"m0\" device: \"/job:worker/task:1\" attr { key: \"T\" value { type: DT_FLOAT } } }\n";
  g += R"(node { name: "axes" op: "Const" device: "/job:worker/task:0"
       attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 0 int_val: 1 } } } }
node { name: "total" op: "Sum" input: "m)" + std::to_string(matmuls) + R"(" input: "axes" device: "/job:worker/task:0"
       attr { key: "T" value { type: DT_FLOAT } } attr { key: "Tidx" value { type: DT_INT32 } } }
)";
  return g;
}

void WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

int PidOf(const std::string& dir, const std::string& task) {
  return std::atoi(ReadFileBytes(dir + "/" + task + ".pid").c_str());
}

// A local cluster for the test's life.
class ClusterCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    CliResult r = testing::RunCli(dir_, "cluster up --ps 1 --workers 2 --dir " + ShellQuote(dir_ + "/cluster"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    target_ = r.out.substr(0, r.out.find('\n'));
    ASSERT_EQ(target_.rfind("grpc://127.0.0.1:", 0), 0u) << r.out;
  }
  void TearDown() override {
    CliResult r = testing::RunCli(dir_, "cluster down --dir " + ShellQuote(dir_ + "/cluster"));
    EXPECT_EQ(r.exit_code, 0) << r.err;
    // Every server stopped on the cluster's shutdown request, cleanly.
    for (const char* task : {"ps-0", "worker-0", "worker-1"})
      if (killed_ != task) EXPECT_NE(ReadFileBytes(cluster_dir() + "/" + task + ".log").find("stopped"), std::string::npos) << task;
    EXPECT_EQ(r.err.find("killing"), std::string::npos) << r.err;
    std::system(("rm -rf " + ShellQuote(dir_)).c_str());
  }
  std::string cluster_dir() const { return dir_ + "/cluster"; }

  std::string dir_, target_;
  std::string killed_;  // a task the test killed
};

TEST_F(ClusterCliTest, UpRunDown) {
  // The files the issue names.
  auto spec = nlohmann::json::parse(ReadFileBytes(cluster_dir() + "/cluster.json"));
  EXPECT_EQ(spec["ps"].size(), 1u);
  EXPECT_EQ(spec["worker"].size(), 2u);
  for (const char* task : {"ps-0", "worker-0", "worker-1"}) {
    EXPECT_GT(PidOf(cluster_dir(), task), 0) << task;
    EXPECT_NE(ReadFileBytes(cluster_dir() + "/" + task + ".log").find("serving at grpc://"), std::string::npos);
  }
  WriteText(dir_ + "/g.pbtxt", kAcrossTasks);
  ASSERT_TRUE(WriteNpyFile(dir_ + "/x.npy", Tensor::FromVector<float>({3, 4})).ok());
  CliResult r = testing::RunCli(dir_, "run g.pbtxt --fetch c --feed x=x.npy --target-server " + target_ + " -v");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("c:0 float [2] [4 10]"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("/job:worker/replica:0/task:1"), std::string::npos) << r.err;  // placement
}

TEST_F(ClusterCliTest, KillingAWorkerMidStepNamesIt) {
  WriteText(dir_ + "/slow.pbtxt", SlowGraph(300));  // ~10 s here
  const int victim = PidOf(cluster_dir(), "worker-1");
  ASSERT_GT(victim, 0);
  killed_ = "worker-1";
  // Start the step, kill worker 1 while it computes, wait for the client.
  const std::string cmd = "cd " + ShellQuote(dir_) + " && (" + ShellQuote(testing::CliPath()) +
                          " run slow.pbtxt --fetch total --target-server " + target_ +
                          " --health-check-interval-ms 500 --health-check-timeout-ms 1000 >run.out 2>run.err; echo $? >run.rc) & sleep 1.5; kill -9 " + std::to_string(victim) +
                          "; wait";
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string err = ReadFileBytes(dir_ + "/run.err");
  EXPECT_EQ(ReadFileBytes(dir_ + "/run.rc"), "1\n") << err;
  EXPECT_NE(err.find("Unavailable"), std::string::npos) << err;
  EXPECT_NE(err.find("/job:worker/replica:0/task:1"), std::string::npos) << err;
  EXPECT_EQ(err.find("Cancelled"), std::string::npos) << err;
  std::printf("client saw the death after %.1f s (the step started 1.5 s before the kill): %s", secs, err.c_str());
}

// SIGTERM during a step: the task aborts it (the client hears why), releases
// its port and exits 0.
TEST_F(ClusterCliTest, SigtermMidStepAbortsItAndExitsCleanly) {
  WriteText(dir_ + "/slow.pbtxt", SlowGraph(300));
  const int victim = PidOf(cluster_dir(), "worker-1");
  ASSERT_GT(victim, 0);
  const std::string cmd = "cd " + ShellQuote(dir_) + " && (" + ShellQuote(testing::CliPath()) +
                          " run slow.pbtxt --fetch total --target-server " + target_ +
                          " --health-check-interval-ms 500 --health-check-timeout-ms 1000 >run.out 2>run.err; echo $? >run.rc) & sleep 1.5; kill -TERM " + std::to_string(victim) +
                          "; wait";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string err = ReadFileBytes(dir_ + "/run.err");
  EXPECT_EQ(ReadFileBytes(dir_ + "/run.rc"), "1\n") << err;
  EXPECT_NE(err.find("Unavailable"), std::string::npos) << err;
  EXPECT_NE(err.find("/job:worker/replica:0/task:1"), std::string::npos) << err;
  for (int i = 0; i < 500 && kill(victim, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::string log = ReadFileBytes(cluster_dir() + "/worker-1.log");
  EXPECT_NE(log.find("stopped"), std::string::npos) << log;
  killed_ = "none";  // it stopped by itself, cleanly
}

// A deadline stops the step on every task and says what was running.
TEST_F(ClusterCliTest, ADeadlineStopsTheStepEverywhere) {
  WriteText(dir_ + "/slow.pbtxt", SlowGraph(300));
  CliResult r = testing::RunCli(dir_, "run slow.pbtxt --fetch total --timeout-ms 1000 --target-server " + target_);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("DeadlineExceeded"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1000 ms"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/job:worker/replica:0/task:1"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("MatMul"), std::string::npos) << r.err;  // what was still running
  // The cluster is fine afterwards.
  WriteText(dir_ + "/g.pbtxt", kAcrossTasks);
  ASSERT_TRUE(WriteNpyFile(dir_ + "/x.npy", Tensor::FromVector<float>({3, 4})).ok());
  r = testing::RunCli(dir_, "run g.pbtxt --fetch c --feed x=x.npy --target-server " + target_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A task that hangs (SIGSTOP: its sockets stay open, nothing answers) is
// found by the master's health checks (here every 0.5 s, 1 s to answer)
// and gRPC keepalives.
TEST_F(ClusterCliTest, AHungWorkerFailsTheStepNamingIt) {
  WriteText(dir_ + "/slow.pbtxt", SlowGraph(300));
  const int victim = PidOf(cluster_dir(), "worker-1");
  ASSERT_GT(victim, 0);
  const std::string cmd = "cd " + ShellQuote(dir_) + " && (" + ShellQuote(testing::CliPath()) +
                          " run slow.pbtxt --fetch total --target-server " + target_ +
                          " --health-check-interval-ms 500 --health-check-timeout-ms 1000 >run.out 2>run.err; echo $? >run.rc) & sleep 1.5; kill -STOP " + std::to_string(victim) +
                          "; wait; kill -CONT " + std::to_string(victim);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const std::string err = ReadFileBytes(dir_ + "/run.err");
  EXPECT_EQ(ReadFileBytes(dir_ + "/run.rc"), "1\n") << err;
  EXPECT_NE(err.find("Unavailable"), std::string::npos) << err;
  EXPECT_NE(err.find("/job:worker/replica:0/task:1"), std::string::npos) << err;
  // The health check's own words, unless a keepalive found it first.
  if (err.find("health check") != std::string::npos)
    EXPECT_NE(err.find("within 1000 ms"), std::string::npos) << err;
  std::printf("client saw the hang after %.1f s (stopped 1.5 s after the start): %s", secs, err.c_str());
}

TEST(ServerCliTest, SigtermStopsCleanlyAndReleasesThePort) {
  const std::string dir = MakeTempDir();
  // A port, from a cluster that `cluster up` would write.
  CliResult up = testing::RunCli(dir, "cluster up --ps 0 --workers 1 --dir c");
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const int pid = PidOf(dir + "/c", "worker-0");
  ASSERT_GT(pid, 0);
  ASSERT_EQ(kill(pid, SIGTERM), 0);
  for (int i = 0; i < 500 && kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_NE(kill(pid, 0), 0) << "the server did not exit";
  EXPECT_NE(ReadFileBytes(dir + "/c/worker-0.log").find("stopped"), std::string::npos);
  // The same address serves again at once: the port was released. Run a
  // server from TF_CONFIG on it, stop it with SIGINT, and check its exit.
  auto spec = nlohmann::json::parse(ReadFileBytes(dir + "/c/cluster.json"));
  const std::string address = spec["worker"][0];
  const std::string tf_config = R"({"cluster": {"worker": [")" + address + R"("]}, "task": {"type": "worker", "index": 0}})";
  const std::string cmd = "cd " + ShellQuote(dir) + " && TF_CONFIG=" + ShellQuote(tf_config) + " " +
                          ShellQuote(testing::CliPath()) + " server >tf.out 2>tf.err & p=$!; sleep 1; kill -INT $p; wait $p";
  const int rc = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 0) << ReadFileBytes(dir + "/tf.err");
  const std::string out = ReadFileBytes(dir + "/tf.out");
  EXPECT_NE(out.find("serving at grpc://" + address), std::string::npos) << out << ReadFileBytes(dir + "/tf.err");
  // By default its graphs may touch files only in its working directory.
  EXPECT_NE(out.find("graphs may touch files only under /"), std::string::npos) << out;
  EXPECT_NE(out.find("stopped"), std::string::npos) << out;
  testing::RunCli(dir, "cluster down --dir c");
  std::system(("rm -rf " + ShellQuote(dir)).c_str());
}

TEST(ServerCliTest, AMissingTaskIsNamedAtStartup) {
  const std::string dir = MakeTempDir();
  CliResult up = testing::RunCli(dir, "cluster up --ps 1 --workers 2 --dir c");
  ASSERT_EQ(up.exit_code, 0) << up.err;
  const std::string target = up.out.substr(0, up.out.find('\n'));
  // worker 1 goes away before the client comes.
  const int pid = PidOf(dir + "/c", "worker-1");
  kill(pid, SIGKILL);
  WriteText(dir + "/g.pbtxt", kAcrossTasks);
  CliResult r = testing::RunCli(dir, "run g.pbtxt --fetch c --target-server " + target + " --connect-timeout-ms 1000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Unavailable"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("1 of 3 tasks"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("/job:worker/replica:0/task:1"), std::string::npos) << r.err;
  testing::RunCli(dir, "cluster down --dir c");
  std::system(("rm -rf " + ShellQuote(dir)).c_str());
}

TEST(ServerCliTest, BadFlagsAndFilesAreClearErrors) {
  const std::string dir = MakeTempDir();
  CliResult r = testing::RunCli(dir, "server --cluster missing.json --job worker --task 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
  WriteText(dir + "/c.json", R"({"worker": ["127.0.0.1:1"]})");
  r = testing::RunCli(dir, "server --cluster c.json --job ps --task 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("/job:ps/replica:0/task:0"), std::string::npos) << r.err;
  // An allowed directory that does not exist: the server does not start.
  WriteText(dir + "/w.json", R"({"worker": ["127.0.0.1:1"]})");
  r = testing::RunCli(dir, "server --cluster w.json --job worker --task 0 --allow-dir . --allow-dir nowhere");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("InvalidArgument"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'nowhere'"), std::string::npos) << r.err;
  r = testing::RunCli(dir, "cluster down --dir nowhere");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nowhere/cluster.json"), std::string::npos) << r.err;
  std::system(("rm -rf " + ShellQuote(dir)).c_str());
}

}  // namespace
}  // namespace flowvm
