// `flowvm board` as a process: it prints its one line, answers /api/runs,
// and exits 0 on SIGTERM; bad flags and files are clear errors.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "board/board_test_util.h"
#include "util/cli_runner.h"
#include "util/test_paths.h"

namespace flowvm::board {
namespace {

using ::flowvm::testing::CliPath;
using ::flowvm::testing::CliResult;
using ::flowvm::testing::RunCli;
using ::flowvm::testing::ShellQuote;
using testing::EventFileForTest;
using testing::TempDir;

// `flowvm ARGS...` with stdout on a pipe; killed (SIGKILL) and reaped when
// the test ends, whatever happened.
class BoardProcess {
 public:
  explicit BoardProcess(const std::vector<std::string>& args) {
    int fds[2];
    if (pipe(fds) != 0) return;
    pid_ = fork();
    if (pid_ == 0) {
      dup2(fds[1], STDOUT_FILENO);
      close(fds[0]);
      close(fds[1]);
      std::vector<char*> argv;
      const std::string cli = CliPath();
      argv.push_back(const_cast<char*>(cli.c_str()));
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      execv(cli.c_str(), argv.data());
      _exit(127);
    }
    close(fds[1]);
    out_ = fds[0];
  }
  ~BoardProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_ >= 0) close(out_);
  }

  // The first line of stdout, waiting at most `timeout`; "" if none came.
  std::string FirstLine(std::chrono::milliseconds timeout) {
    std::string line;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (line.find('\n') == std::string::npos) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return "";
      pollfd p{out_, POLLIN, 0};
      if (poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
      char buf[256];
      const ssize_t n = read(out_, buf, sizeof(buf));
      if (n <= 0) return "";
      line.append(buf, static_cast<size_t>(n));
    }
    return line.substr(0, line.find('\n'));
  }

  // Sends `sig` and waits (bounded) for the exit; the exit status, or -1.
  int SignalAndWait(int sig, std::chrono::milliseconds timeout) {
    if (pid_ <= 0) return -1;
    kill(pid_, sig);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  bool reaped_ = false;
};

TEST(BoardCliTest, ServesALogdirAndStopsOnSigterm) {
  TempDir tmp;
  const std::string logdir = tmp.path() + "/logs";
  std::filesystem::create_directories(logdir + "/train");
  {
    EventFileForTest f(logdir + "/train");
    f.Scalar("loss", 3, 0.5f);
  }
  BoardProcess board({"board", "--logdir", logdir, "--port", "0", "--reload-ms", "20"});
  const std::string line = board.FirstLine(std::chrono::seconds(30));
  std::smatch m;
  ASSERT_TRUE(std::regex_match(line, m, std::regex("flowvm board: serving (.*) at http://127\\.0\\.0\\.1:([0-9]+)/")))
      << "'" << line << "'";
  EXPECT_EQ(m[1], logdir);
  const int port = std::stoi(m[2]);

  httplib::Client client("127.0.0.1", port);
  client.set_connection_timeout(5);
  client.set_read_timeout(10);
  nlohmann::json runs;
  for (int i = 0; i < 500; ++i) {
    auto res = client.Get("/api/runs");
    ASSERT_TRUE(res) << "no answer from the board";
    ASSERT_EQ(res->status, 200) << res->body;
    runs = nlohmann::json::parse(res->body);
    if (runs["runs"].size() == 1 && runs["runs"][0]["last_step"] == 3) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(runs["runs"].size(), 1u) << runs.dump();
  EXPECT_EQ(runs["runs"][0]["name"], "train");
  EXPECT_EQ(runs["runs"][0]["scalar_tags"], nlohmann::json({"loss"}));

  EXPECT_EQ(board.SignalAndWait(SIGTERM, std::chrono::seconds(30)), 0);
  // The port is released.
  auto after = client.Get("/api/runs");
  EXPECT_FALSE(after);
}

TEST(BoardCliTest, SigintStopsItToo) {
  TempDir tmp;
  BoardProcess board({"board", "--logdir", tmp.path(), "--port", "0"});
  ASSERT_NE(board.FirstLine(std::chrono::seconds(30)), "");
  EXPECT_EQ(board.SignalAndWait(SIGINT, std::chrono::seconds(30)), 0);
}

TEST(BoardCliTest, BadFlagsAndFilesAreClearErrors) {
  TempDir tmp;
  CliResult r = RunCli(tmp.path(), "board");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("usage: flowvm board --logdir"), std::string::npos) << r.err;

  r = RunCli(tmp.path(), "board --logdir . --port 70000");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("--port"), std::string::npos) << r.err;

  std::ofstream(tmp.path() + "/bad.pbtxt") << "node {";
  r = RunCli(tmp.path(), "board --logdir . --port 0 --graph bad.pbtxt");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("bad.pbtxt"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");

  // Any address but loopback: a warning first (here the start fails later,
  // on the missing trace file, so nothing listens).
  r = RunCli(tmp.path(), "board --logdir . --host 0.0.0.0 --trace missing.json");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no authentication"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("missing.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace flowvm::board
