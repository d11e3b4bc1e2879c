#include "cluster_manager.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "cluster_processes.h"

namespace flowvm::cli {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kStopWait = std::chrono::seconds(10);

int g_wake_pipe[2] = {-1, -1};

// Writes the signal's number to the pipe the main loop polls (all a
// handler may safely do).
void OnSignal(int sig) {
  const int saved = errno;
  const unsigned char byte = static_cast<unsigned char>(sig);
  if (write(g_wake_pipe[1], &byte, 1) < 0) {
  }
  errno = saved;
}

// One line on stderr, with the wall-clock time to the millisecond, so the
// manager's log lines up with other logs (the chaos test's fault injector).
void Log(const char* format, ...) {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  tm local{};
  localtime_r(&now.tv_sec, &local);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &local);
  std::fprintf(stderr, "%s.%03ld flowvm cluster manager: ", stamp, now.tv_nsec / 1000000);
  va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::fflush(stderr);
}

std::string DescribeExit(int status) {
  if (WIFEXITED(status))
    return WEXITSTATUS(status) == 0 ? "exited 0" : "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    const char* name = sigabbrev_np(WTERMSIG(status));
    return std::string("was killed by SIG") + (name ? name : "?") + " (" + std::to_string(WTERMSIG(status)) + ")";
  }
  return "ended (status " + std::to_string(status) + ")";
}

struct Task {
  TaskId id;
  std::string name;  // worker-1
  enum State { kRunning, kWaiting, kEnded, kGaveUp } state = kWaiting;
  pid_t pid = 0;
  bool started_before = false;
  int64_t restarts_in_a_row = 0;
  int64_t restarts = 0;
  Clock::time_point started, next_start;
  bool restart_requested = false;
  Clock::time_point kill_at;  // a requested restart's SIGTERM becomes SIGKILL
};

class Manager {
 public:
  Manager(ClusterManagerOptions options, const ClusterSpec& spec) : options_(std::move(options)) {
    for (const TaskId& t : spec.Tasks()) {
      Task task;
      task.id = t;
      task.name = t.job + "-" + std::to_string(t.index);
      tasks_.push_back(task);
    }
  }

  Status Run() {
    Log("managing %zu tasks in %s (pid %d; at most %lld restarts in a row, back-off from %lld ms)", tasks_.size(),
        options_.dir.c_str(), static_cast<int>(getpid()), static_cast<long long>(options_.max_restarts),
        static_cast<long long>(options_.backoff_ms));
    for (Task& t : tasks_) Start(t, "started");
    if (options_.ready_fd >= 0) {
      const char ready[] = "ready\n";
      if (write(options_.ready_fd, ready, sizeof(ready) - 1) < 0) {
      }
      close(options_.ready_fd);
    }
    bool stop = false;
    while (!stop) {
      pollfd pfd{g_wake_pipe[0], POLLIN, 0};
      poll(&pfd, 1, NextTimeoutMs());
      bool requests = false;
      unsigned char sig = 0;
      while (read(g_wake_pipe[0], &sig, 1) == 1) {
        if (sig == SIGTERM || sig == SIGINT) {
          Log("asked to stop (SIG%s)", sigabbrev_np(sig));
          stop = true;
        }
        if (sig == SIGUSR1) requests = true;
      }
      if (stop) break;
      Reap();
      if (requests) HandleRequests();
      const auto now = Clock::now();
      for (Task& t : tasks_) {
        if (t.state == Task::kWaiting && now >= t.next_start) Start(t, "restarted");
        if (t.state == Task::kRunning && t.restart_requested && now >= t.kill_at) {
          Log("%s (pid %d) did not stop within %lld s for its restart; killing it", t.name.c_str(), t.pid,
              static_cast<long long>(std::chrono::duration_cast<std::chrono::seconds>(kStopWait).count()));
          kill(t.pid, SIGKILL);
          t.kill_at = now + kStopWait;
        }
      }
      if (std::none_of(tasks_.begin(), tasks_.end(),
                       [](const Task& t) { return t.state == Task::kRunning || t.state == Task::kWaiting; })) {
        Log("no task is left to run; the manager ends");
        break;
      }
    }
    StopAll();
    return Status::OK();
  }

 private:
  int NextTimeoutMs() const {
    auto next = Clock::now() + std::chrono::seconds(1);
    for (const Task& t : tasks_) {
      if (t.state == Task::kWaiting) next = std::min(next, t.next_start);
      if (t.state == Task::kRunning && t.restart_requested) next = std::min(next, t.kill_at);
    }
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    return static_cast<int>(std::max<int64_t>(ms, 0) + 1);
  }

  void Start(Task& t, const char* verb) {
    if (t.started_before) {
      // A marker in the task's log between its lives.
      if (FILE* log = std::fopen(LogFile(options_.dir, t.id).c_str(), "a")) {
        std::fprintf(log, "---- flowvm cluster manager: %s restarts (restart %lld) ----\n", t.name.c_str(),
                     static_cast<long long>(t.restarts + 1));
        std::fclose(log);
      }
    }
    auto pid = SpawnServer(options_.dir, t.id, options_.server_flags, /*append_log=*/t.started_before,
                           /*die_with_parent=*/true);
    if (!pid.ok()) {
      // Counted like a death: retried after a back-off, within the limit.
      Log("cannot start %s: %s", t.name.c_str(), pid.status().ToString().c_str());
      t.started = Clock::now();
      Died(t, "could not be started", /*clean=*/false);
      return;
    }
    if (t.started_before) ++t.restarts;
    t.started_before = true;
    t.pid = *pid;
    t.state = Task::kRunning;
    t.started = Clock::now();
    Status s = WriteFileAtomically(PidFile(options_.dir, t.id), std::to_string(t.pid) + "\n");
    if (!s.ok()) Log("%s", s.ToString().c_str());
    if (t.restarts == 0)
      Log("%s %s: pid %d", verb, t.name.c_str(), t.pid);
    else
      Log("%s %s: pid %d (restart %lld; %lld in a row)", verb, t.name.c_str(), t.pid,
          static_cast<long long>(t.restarts), static_cast<long long>(t.restarts_in_a_row));
  }

  void Reap() {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
      for (Task& t : tasks_) {
        if (t.state != Task::kRunning || t.pid != pid) continue;
        std::remove(PidFile(options_.dir, t.id).c_str());
        const std::string why = "(pid " + std::to_string(pid) + ") " + DescribeExit(status);
        t.pid = 0;
        if (t.restart_requested) {
          t.restart_requested = false;
          Log("%s %s; restarting it as requested", t.name.c_str(), why.c_str());
          t.restarts_in_a_row = 0;
          Start(t, "restarted");
        } else {
          Died(t, why, WIFEXITED(status) && WEXITSTATUS(status) == 0);
        }
        break;
      }
    }
  }

  void Died(Task& t, const std::string& why, bool clean) {
    if (clean) {
      Log("%s %s (a cluster shutdown or a stop): not restarting it", t.name.c_str(), why.c_str());
      t.state = Task::kEnded;
      return;
    }
    const auto now = Clock::now();
    if (now - t.started >= std::chrono::milliseconds(options_.stable_ms)) t.restarts_in_a_row = 0;
    if (t.restarts_in_a_row >= options_.max_restarts) {
      Log("%s %s; giving up on it: restarted %lld times in a row (--max-restarts %lld)", t.name.c_str(), why.c_str(),
          static_cast<long long>(t.restarts_in_a_row), static_cast<long long>(options_.max_restarts));
      t.state = Task::kGaveUp;
      return;
    }
    ++t.restarts_in_a_row;
    int64_t delay = options_.backoff_ms;
    for (int64_t i = 1; i < t.restarts_in_a_row && delay < options_.max_backoff_ms; ++i) delay *= 2;
    delay = std::min(delay, options_.max_backoff_ms);
    Log("%s %s; restarting it in %lld ms (%lld of at most %lld restarts in a row)", t.name.c_str(), why.c_str(),
        static_cast<long long>(delay), static_cast<long long>(t.restarts_in_a_row),
        static_cast<long long>(options_.max_restarts));
    t.state = Task::kWaiting;
    t.next_start = now + std::chrono::milliseconds(delay);
  }

  void HandleRequests() {
    for (Task& t : tasks_) {
      const std::string request = RestartRequestFile(options_.dir, t.id);
      if (access(request.c_str(), F_OK) != 0) continue;
      std::remove(request.c_str());
      if (t.state == Task::kRunning) {
        if (t.restart_requested) continue;
        Log("restart of %s (pid %d) requested: stopping it (SIGTERM)", t.name.c_str(), t.pid);
        t.restart_requested = true;
        t.kill_at = Clock::now() + kStopWait;
        kill(t.pid, SIGTERM);
        kill(t.pid, SIGCONT);  // a stopped task must run to stop
      } else {
        Log("restart of %s requested: it is not running; starting it", t.name.c_str());
        t.restarts_in_a_row = 0;
        Start(t, "restarted");
      }
    }
  }

  void StopAll() {
    int running = 0;
    for (Task& t : tasks_)
      if (t.state == Task::kRunning) {
        ++running;
        kill(t.pid, SIGTERM);
        kill(t.pid, SIGCONT);
      }
    if (running > 0) Log("stopping %d tasks (SIGTERM)", running);
    const auto deadline = Clock::now() + kStopWait;
    auto any_running = [this] {
      return std::any_of(tasks_.begin(), tasks_.end(), [](const Task& t) { return t.state == Task::kRunning; });
    };
    while (any_running() && Clock::now() < deadline) {
      ReapStopped();
      if (any_running()) {
        pollfd pfd{g_wake_pipe[0], POLLIN, 0};
        poll(&pfd, 1, 20);
        unsigned char sig;
        while (read(g_wake_pipe[0], &sig, 1) == 1) {
        }
      }
    }
    for (Task& t : tasks_)
      if (t.state == Task::kRunning) {
        Log("%s (pid %d) did not stop in time; killing it", t.name.c_str(), t.pid);
        kill(t.pid, SIGKILL);
      }
    // SIGKILL ends a process soon, but not at once: wait a bounded while.
    for (int i = 0; i < 500 && any_running(); ++i) {
      ReapStopped();
      if (any_running()) usleep(10000);
    }
    for (Task& t : tasks_) {
      if (t.state == Task::kRunning) Log("%s (pid %d) is still there after SIGKILL", t.name.c_str(), t.pid);
      std::remove(PidFile(options_.dir, t.id).c_str());
      std::remove(RestartRequestFile(options_.dir, t.id).c_str());
    }
    Log("stopped");
  }

  void ReapStopped() {
    int status = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
      for (Task& t : tasks_)
        if (t.state == Task::kRunning && t.pid == pid) {
          Log("%s (pid %d) %s", t.name.c_str(), pid, DescribeExit(status).c_str());
          t.state = Task::kEnded;
          t.pid = 0;
        }
  }

  ClusterManagerOptions options_;
  std::vector<Task> tasks_;
};

}  // namespace

Status RunClusterManager(const ClusterManagerOptions& options) {
  if (options.ready_fd >= 0) fcntl(options.ready_fd, F_SETFD, FD_CLOEXEC);  // not for the servers
  FLOWVM_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromFile(options.dir + "/cluster.json"));
  if (pipe2(g_wake_pipe, O_CLOEXEC | O_NONBLOCK) != 0) return errors::Internal("pipe: ", std::strerror(errno));
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESTART;
  for (int sig : {SIGTERM, SIGINT, SIGCHLD, SIGUSR1}) sigaction(sig, &action, nullptr);
  signal(SIGPIPE, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  FLOWVM_RETURN_IF_ERROR(
      WriteFileAtomically(ManagerPidFile(options.dir), std::to_string(static_cast<int>(getpid())) + "\n"));
  Manager manager(options, spec);
  Status s = manager.Run();
  std::remove(ManagerPidFile(options.dir).c_str());
  return s;
}

}  // namespace flowvm::cli
