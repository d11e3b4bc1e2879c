// `flowvm cluster up --restart`: the manager restarts a task whose process
// dies (a new pid and a new incarnation, on the same address), does not
// restart one that exited 0, gives up after --max-restarts, leaves a
// stopped task alone, restarts one on request (`cluster restart`), and
// `cluster down` leaves no process behind.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/npy.h"
#include "flowvm/session.h"
#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

using testing::CliResult;
using testing::ReadFileBytes;
using testing::ShellQuote;

// c = (a * x on worker 1) + a on worker 0, a on ps.
const char kAcrossTasks[] = R"(
node { name: "a" op: "Const" device: "/job:ps/task:0"
       attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 2 } } float_val: 1 float_val: 2 } } } }
node { name: "x" op: "Placeholder" device: "/job:worker/task:1"
       attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "b" op: "Mul" input: "a" input: "x" device: "/job:worker/task:1" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "c" op: "Add" input: "b" input: "a" device: "/job:worker/task:0" attr { key: "T" value { type: DT_FLOAT } } }
)";

// Whether `pid` runs (not gone, not a zombie).
bool Runs(int pid) {
  if (pid <= 0 || kill(pid, 0) != 0) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() || (line[paren + 2] != 'Z' && line[paren + 2] != 'X');
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Waits (bounded: 30 s) until `done` holds.
template <typename Done>
bool WaitFor(Done done) {
  for (int i = 0; i < 1500; ++i) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done();
}

class ClusterRestartTest : public ::testing::Test {
 protected:
  void TearDown() override {
    if (!up_) return;
    // Every process the cluster ever had, gathered before it goes.
    Remember();
    CliResult r = testing::RunCli(dir_, "cluster down --dir c");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    for (int pid : pids_) {
      // The manager exits once its servers have; init reaps it.
      EXPECT_TRUE(WaitFor([&] { return !Runs(pid); })) << "pid " << pid << " is still there\n" << ManagerLog();
      if (Runs(pid)) kill(pid, SIGKILL);
    }
    EXPECT_FALSE(std::ifstream(cluster_dir() + "/manager.pid").good());
    std::system(("rm -rf " + ShellQuote(dir_)).c_str());
  }

  // Starts a managed cluster of 1 ps and 2 workers with these flags.
  void Up(const std::string& flags) {
    char templ[] = "/tmp/flowvm_cluster_restart_XXXXXX";
    dir_ = mkdtemp(templ);
    CliResult r = testing::RunCli(dir_, "cluster up --ps 1 --workers 2 --dir c --restart " + flags);
    ASSERT_EQ(r.exit_code, 0) << r.err << ManagerLog();
    up_ = true;
    target_ = r.out.substr(0, r.out.find('\n'));
    ASSERT_EQ(target_.rfind("grpc://127.0.0.1:", 0), 0u) << r.out;
    ASSERT_GT(Pid("manager"), 0);
    Remember();
  }
  std::string cluster_dir() const { return dir_ + "/c"; }
  int Pid(const std::string& task) { return std::atoi(ReadFileBytes(cluster_dir() + "/" + task + ".pid").c_str()); }
  std::string ManagerLog() { return ReadFileBytes(cluster_dir() + "/manager.log"); }
  void Remember() {
    for (const char* name : {"manager", "ps-0", "worker-0", "worker-1"})
      if (int pid = Pid(name); pid > 0) pids_.insert(pid);
  }
  // Waits for worker-1 to be a process other than `old` (bounded).
  int WaitForNewPid(const std::string& task, int old) {
    int pid = 0;
    WaitFor([&] {
      pid = Pid(task);
      return pid > 0 && pid != old && Runs(pid);
    });
    Remember();
    return pid != old ? pid : 0;
  }
  // The incarnation of the task's CPU:0, from a new session's ListDevices.
  uint64_t Incarnation(const std::string& task_name) {
    SessionOptions options;
    options.target = target_;
    options.connect_timeout_ms = 30000;
    auto session = Session::Create(options, GraphDef());
    EXPECT_TRUE(session.ok()) << session.status().ToString();
    if (!session.ok()) return 0;
    std::vector<DeviceInfo> devices;
    Status s = (*session)->ListDevices(&devices);
    EXPECT_TRUE(s.ok()) << s.ToString();
    (*session)->Close().IgnoreError();
    for (const DeviceInfo& d : devices)
      if (d.name == task_name + "/device:CPU:0") return d.incarnation;
    ADD_FAILURE() << "no " << task_name << " among the devices";
    return 0;
  }
  // Runs kAcrossTasks on the cluster with `flowvm run`.
  CliResult RunAcrossTasks() {
    std::ofstream(dir_ + "/g.pbtxt") << kAcrossTasks;
    EXPECT_TRUE(WriteNpyFile(dir_ + "/x.npy", Tensor::FromVector<float>({3, 4})).ok());
    return testing::RunCli(dir_, "run g.pbtxt --fetch c --feed x=x.npy --target-server " + target_ +
                                     " --connect-timeout-ms 30000");
  }

  std::string dir_, target_;
  bool up_ = false;
  std::set<int> pids_;
};

TEST_F(ClusterRestartTest, AKilledTaskComesBackWithANewIncarnation) {
  ASSERT_NO_FATAL_FAILURE(Up("--restart-backoff-ms 100"));
  const std::string worker1 = "/job:worker/replica:0/task:1";
  const uint64_t before = Incarnation(worker1);
  ASSERT_NE(before, 0u);
  const int old_pid = Pid("worker-1");
  ASSERT_EQ(kill(old_pid, SIGKILL), 0);
  const int new_pid = WaitForNewPid("worker-1", old_pid);
  ASSERT_GT(new_pid, 0) << ManagerLog();
  // A new process: a new incarnation, on the same address, and the cluster
  // runs steps across it again.
  const uint64_t after = Incarnation(worker1);
  EXPECT_NE(after, 0u);
  EXPECT_NE(after, before);
  CliResult r = RunAcrossTasks();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("c:0 float [2] [4 10]"), std::string::npos) << r.out;
  // The manager says what happened; the task's log has both lives.
  const std::string log = ManagerLog();
  EXPECT_NE(log.find("worker-1 (pid " + std::to_string(old_pid) + ") was killed by SIGKILL"), std::string::npos)
      << log;
  EXPECT_NE(log.find("restarted worker-1: pid " + std::to_string(new_pid)), std::string::npos) << log;
  EXPECT_EQ(Count(ReadFileBytes(cluster_dir() + "/worker-1.log"), "serving at grpc://"), 2u);
  // Nobody else was touched.
  EXPECT_EQ(Count(log, "restarted"), 1u) << log;
}

TEST_F(ClusterRestartTest, ATaskThatExitsZeroIsNotRestarted) {
  ASSERT_NO_FATAL_FAILURE(Up("--restart-backoff-ms 50"));
  const int pid = Pid("worker-1");
  ASSERT_EQ(kill(pid, SIGTERM), 0);  // a server stops cleanly and exits 0
  EXPECT_TRUE(WaitFor([&] { return ManagerLog().find("not restarting it") != std::string::npos; })) << ManagerLog();
  const std::string log = ManagerLog();
  EXPECT_NE(log.find("worker-1 (pid " + std::to_string(pid) + ") exited 0"), std::string::npos) << log;
  EXPECT_EQ(log.find("restarted worker-1"), std::string::npos) << log;
  EXPECT_FALSE(std::ifstream(cluster_dir() + "/worker-1.pid").good());
  EXPECT_EQ(Count(ReadFileBytes(cluster_dir() + "/worker-1.log"), "serving at grpc://"), 1u);
}

TEST_F(ClusterRestartTest, TheManagerGivesUpAfterMaxRestarts) {
  ASSERT_NO_FATAL_FAILURE(Up("--restart-backoff-ms 20 --max-restarts 2"));
  int pid = Pid("worker-1");
  for (int restart = 1; restart <= 2; ++restart) {
    ASSERT_EQ(kill(pid, SIGKILL), 0);
    pid = WaitForNewPid("worker-1", pid);
    ASSERT_GT(pid, 0) << "restart " << restart << "\n" << ManagerLog();
  }
  ASSERT_EQ(kill(pid, SIGKILL), 0);
  EXPECT_TRUE(WaitFor([&] { return ManagerLog().find("giving up") != std::string::npos; })) << ManagerLog();
  const std::string log = ManagerLog();
  EXPECT_NE(log.find("worker-1 (pid " + std::to_string(pid) + ") was killed by SIGKILL (9); giving up on it: "
                     "restarted 2 times in a row (--max-restarts 2)"),
            std::string::npos)
      << log;
  // The back-off doubled.
  EXPECT_NE(log.find("restarting it in 20 ms (1 of at most 2"), std::string::npos) << log;
  EXPECT_NE(log.find("restarting it in 40 ms (2 of at most 2"), std::string::npos) << log;
  EXPECT_FALSE(std::ifstream(cluster_dir() + "/worker-1.pid").good());
  // The others still serve.
  EXPECT_TRUE(Runs(Pid("ps-0")));
  EXPECT_TRUE(Runs(Pid("worker-0")));
}

TEST_F(ClusterRestartTest, AStoppedTaskIsLeftAloneAndARequestedRestartStartsIt) {
  ASSERT_NO_FATAL_FAILURE(Up("--restart-backoff-ms 50"));
  const int pid = Pid("worker-1");
  ASSERT_EQ(kill(pid, SIGSTOP), 0);
  // Many back-offs long: time enough for a wrong restart.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(Pid("worker-1"), pid);
  // `cluster restart` on a stopped task: it is continued, stopped and
  // started again; the command returns once the new process answers.
  CliResult r = testing::RunCli(dir_, "cluster restart --dir c --task worker-1");
  ASSERT_EQ(r.exit_code, 0) << r.err << ManagerLog();
  const int new_pid = std::atoi(r.out.c_str());
  EXPECT_GT(new_pid, 0);
  EXPECT_NE(new_pid, pid);
  EXPECT_EQ(Pid("worker-1"), new_pid);
  Remember();
  const std::string log = ManagerLog();
  EXPECT_NE(log.find("restart of worker-1 (pid " + std::to_string(pid) + ") requested"), std::string::npos) << log;
  EXPECT_NE(log.find("restarting it as requested"), std::string::npos) << log;
  // Until then nothing had restarted it: a stopped process is not dead.
  EXPECT_EQ(log.find("restarting it in"), std::string::npos) << log;
  EXPECT_EQ(RunAcrossTasks().exit_code, 0);
  // By the other name too, and a task that is not there is named.
  r = testing::RunCli(dir_, "cluster restart --dir c --task /job:ps/task:0");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  Remember();
  r = testing::RunCli(dir_, "cluster restart --dir c --task worker-7");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("NotFound"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("worker-7"), std::string::npos) << r.err;
}

// `cluster down` while one task waits out its back-off and another is
// stopped (SIGSTOP): nothing is restarted and no process is left
// (TearDown checks every pid the cluster had).
TEST_F(ClusterRestartTest, DownStopsEverythingWhateverStateTasksAreIn) {
  ASSERT_NO_FATAL_FAILURE(Up("--restart-backoff-ms 60000"));
  const int w1 = Pid("worker-1");
  ASSERT_EQ(kill(w1, SIGKILL), 0);
  EXPECT_TRUE(WaitFor([&] { return ManagerLog().find("restarting it in 60000 ms") != std::string::npos; }));
  ASSERT_EQ(kill(Pid("worker-0"), SIGSTOP), 0);
  Remember();
  CliResult r = testing::RunCli(dir_, "cluster down --dir c");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (int pid : pids_) EXPECT_FALSE(Runs(pid)) << pid;
  const std::string log = ManagerLog();
  EXPECT_EQ(log.find("restarted"), std::string::npos) << log;
  EXPECT_NE(log.find("worker-0 (pid"), std::string::npos) << log;  // it stopped when continued
  EXPECT_EQ(log.find("killing"), std::string::npos) << log;
  EXPECT_NE(ReadFileBytes(cluster_dir() + "/worker-0.log").find("stopped"), std::string::npos);
}

// Without a manager there is nobody to restart a task.
TEST(ClusterRestartCliTest, RestartNeedsAManagedCluster) {
  char templ[] = "/tmp/flowvm_cluster_restart_XXXXXX";
  const std::string dir = mkdtemp(templ);
  CliResult up = testing::RunCli(dir, "cluster up --ps 0 --workers 1 --dir c");
  ASSERT_EQ(up.exit_code, 0) << up.err;
  CliResult r = testing::RunCli(dir, "cluster restart --dir c --task worker-0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("FailedPrecondition"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--restart"), std::string::npos) << r.err;
  r = testing::RunCli(dir, "cluster up --ps 0 --workers 1 --dir d --max-restarts 3");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("need --restart"), std::string::npos) << r.err;
  EXPECT_EQ(testing::RunCli(dir, "cluster down --dir c").exit_code, 0);
  std::system(("rm -rf " + ShellQuote(dir)).c_str());
}

}  // namespace
}  // namespace flowvm
