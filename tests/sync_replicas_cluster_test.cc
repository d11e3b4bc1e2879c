// Synchronous training with backup workers on a local cluster of processes
// (flowvm server: 1 ps, 3 workers; flowvm_sync_replicas: one client per
// worker task, 2 gradients per step). One worker task, its server and its
// client, is stopped with SIGSTOP: the global step keeps advancing with the
// other two. After SIGCONT it rejoins at the current step, and everything
// stops cleanly. No timing assertions: every wait is for progress, bounded.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kWorkers = 3, kAggregate = 2, kVictim = 2;

std::string ProgramPath() { return std::string(FLOWVM_BINARY_DIR) + "/examples/flowvm_sync_replicas"; }

// One "worker I: applied at step L, next step M, ..." line.
struct StepLine {
  int64_t applied = -1, next = -1;
};

std::vector<StepLine> ParseSteps(const std::string& out) {
  std::vector<StepLine> lines;
  static const std::regex re("applied at step ([0-9]+), next step ([0-9]+)");
  for (auto it = std::sregex_iterator(out.begin(), out.end(), re); it != std::sregex_iterator(); ++it)
    lines.push_back({std::stoll((*it)[1]), std::stoll((*it)[2])});
  return lines;
}

class SyncReplicasClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/flowvm_sync_replicas_XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    dir_ = templ;
    CliResult r = RunCli(dir_, "cluster up --dir cluster --ps 1 --workers " + std::to_string(kWorkers));
    cluster_up_ = true;  // down also cleans up a half-started cluster
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }

  void TearDown() override {
    // Nothing stays stopped or running, also when the test failed.
    for (int pid : stopped_) ::kill(pid, SIGCONT);
    for (int& pid : clients_) {
      if (pid <= 0) continue;
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      pid = -1;
    }
    if (cluster_up_) {
      CliResult r = RunCli(dir_, "cluster down --dir cluster");
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  std::string WorkerAddress(int i) const {
    auto spec = nlohmann::json::parse(ReadFileBytes(dir_ + "/cluster/cluster.json"));
    return spec["worker"][i].get<std::string>();
  }
  int ServerPid(int i) const {
    return std::atoi(ReadFileBytes(dir_ + "/cluster/worker-" + std::to_string(i) + ".pid").c_str());
  }
  std::string Out(int i) const { return ReadFileBytes(dir_ + "/w" + std::to_string(i) + ".out"); }
  std::string Err(int i) const { return ReadFileBytes(dir_ + "/w" + std::to_string(i) + ".err"); }
  // The global step as worker 0 (the chief) last saw it.
  int64_t ChiefStep() const {
    auto lines = ParseSteps(Out(0));
    return lines.empty() ? -1 : lines.back().next;
  }

  void StartClient(int i) {
    const std::string program = ProgramPath();
    std::vector<std::string> args = {program,
                                     "--target", "grpc://" + WorkerAddress(i),
                                     "--task", std::to_string(i),
                                     "--workers", std::to_string(kWorkers),
                                     "--replicas-to-aggregate", std::to_string(kAggregate),
                                     "--steps", "1000000000",
                                     "--stop-file", dir_ + "/stop",
                                     "--poll-ms", "300",
                                     "--step-timeout-ms", "30000"};
    const std::string out = dir_ + "/w" + std::to_string(i) + ".out", err = dir_ + "/w" + std::to_string(i) + ".err";
    pid_t pid = ::fork();
    if (pid == 0) {
      if (!std::freopen(out.c_str(), "w", stdout) || !std::freopen(err.c_str(), "w", stderr)) _exit(127);
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(program.c_str(), argv.data());
      _exit(127);
    }
    clients_.push_back(pid);
  }

  // Waits (at most `seconds`) until `done` holds; false if it did not, or
  // if a client exited meanwhile.
  bool WaitFor(const std::function<bool()>& done, int seconds) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
      if (done()) return true;
      for (int pid : clients_)
        if (pid > 0 && ::waitpid(pid, nullptr, WNOHANG) == pid) {
          ADD_FAILURE() << "a client exited early";
          return false;
        }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return done();
  }

  void Stop(int pid) {
    ASSERT_EQ(::kill(pid, SIGSTOP), 0);
    stopped_.push_back(pid);
  }
  void Continue() {
    for (int pid : stopped_) ::kill(pid, SIGCONT);
    stopped_.clear();
  }

  std::string dir_;
  bool cluster_up_ = false;
  std::vector<int> clients_;
  std::vector<int> stopped_;
};

TEST_F(SyncReplicasClusterTest, StepsGoOnWhileAWorkerIsStoppedAndItRejoins) {
  for (int i = 0; i < kWorkers; ++i) StartClient(i);
  // Everyone trains.
  ASSERT_TRUE(WaitFor([&] {
    for (int i = 0; i < kWorkers; ++i)
      if (ParseSteps(Out(i)).size() < 5) return false;
    return true;
  }, 120)) << Err(0) << Err(1) << Err(2);

  // Stop the victim's server and client: a hung machine.
  const size_t victim_lines = ParseSteps(Out(kVictim)).size();
  Stop(ServerPid(kVictim));
  Stop(clients_[kVictim]);
  const int64_t stopped_at = ChiefStep();
  constexpr int64_t kProgress = 100;
  ASSERT_TRUE(WaitFor([&] { return ChiefStep() >= stopped_at + kProgress; }, 120))
      << "the global step went from " << stopped_at << " to " << ChiefStep() << " while worker " << kVictim
      << " was stopped\n" << Err(0) << Err(1);
  const int64_t resumed_at = ChiefStep();
  // The victim did nothing meanwhile (it printed at most the line it was writing).
  EXPECT_LE(ParseSteps(Out(kVictim)).size(), victim_lines + 1);
  std::printf("while worker %d was stopped the global step went from %lld to %lld\n", kVictim,
              static_cast<long long>(stopped_at), static_cast<long long>(resumed_at));

  // It rejoins: its next steps are at the current global step.
  Continue();
  ASSERT_TRUE(WaitFor([&] {
    for (const StepLine& l : ParseSteps(Out(kVictim)))
      if (l.applied >= resumed_at) return true;
    return false;
  }, 120)) << Out(kVictim).substr(Out(kVictim).size() > 2000 ? Out(kVictim).size() - 2000 : 0) << Err(kVictim);
  auto lines = ParseSteps(Out(kVictim));
  // Its first line after SIGCONT ends the step it was in when stopped; a
  // later one applied at a step older than resumed_at began after SIGCONT
  // with a stale local step: the accumulators, at resumed_at or later,
  // dropped that gradient.
  for (size_t i = victim_lines; i < lines.size() && lines[i].applied < resumed_at; ++i)
    std::printf("worker %d after SIGCONT: %s of step %lld (global step >= %lld)%s\n", kVictim,
                i == victim_lines ? "the step it was in ended: gradient" : "a stale gradient",
                static_cast<long long>(lines[i].applied), static_cast<long long>(resumed_at),
                i == victim_lines ? "" : ", dropped");
  EXPECT_GE(lines.back().next, resumed_at);

  // Everyone stops cleanly.
  std::ofstream(dir_ + "/stop") << "stop\n";
  for (int i = 0; i < kWorkers; ++i) {
    int status = -1;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (::waitpid(clients_[i], &status, WNOHANG) != clients_[i] && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    ASSERT_TRUE(WIFEXITED(status)) << "worker " << i << " did not stop\n" << Err(i);
    clients_[i] = -1;
    EXPECT_EQ(WEXITSTATUS(status), 0) << "worker " << i << ": " << Err(i);
    EXPECT_NE(Out(i).find("worker " + std::to_string(i) + ": done at global step"), std::string::npos) << Out(i);
  }
}

}  // namespace
}  // namespace flowvm::testing
