// `flowvm cluster up|down|restart`: a local cluster of `flowvm server`
// processes on free loopback ports, for trying things out, tests and the
// demo.
//
//   flowvm cluster up --ps 1 --workers 2 [--dir DIR] [--cpu-devices N]
//                     [--restart [--max-restarts N] [--restart-backoff-ms MS]]
//     writes DIR/cluster.json, starts one server per task (each in its own
//     session, so it outlives this command; pid in DIR/<job>-<task>.pid, its
//     output in DIR/<job>-<task>.log), waits until every task answers and
//     prints the master's target (the chief: worker 0) on stdout. With
//     --restart the servers are the children of a manager (DIR/manager.pid,
//     DIR/manager.log; tools/cluster_manager.h) that restarts a task whose
//     process dies.
//   flowvm cluster down --dir DIR
//     stops the manager (which stops its tasks), asks the cluster to shut
//     down, waits for the processes, and kills those that do not exit in
//     time.
//   flowvm cluster restart --dir DIR --task worker-1
//     a managed cluster: the manager stops the task and starts it again;
//     returns once the new process answers, and prints its pid.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli_args.h"
#include "credential_flags.h"
#include "cluster_manager.h"
#include "cluster_processes.h"
#include "commands.h"
#include "flowvm/cluster.h"
#include "flowvm/server.h"
#include "flowvm/session.h"

namespace flowvm::cli {

namespace {

constexpr auto kStopWait = std::chrono::seconds(10);

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return errors::Unavailable("cannot write '", path, "'");
  return Status::OK();
}

// Stops the processes of the tasks listed in `dir`: ask nicely (SIGTERM,
// and SIGCONT for a stopped one), wait, then SIGKILL.
void StopProcesses(const std::string& dir, const ClusterSpec& spec, bool ask_first) {
  std::vector<std::pair<TaskId, pid_t>> pids;
  for (const TaskId& t : spec.Tasks())
    if (pid_t pid = ReadPid(PidFile(dir, t)); pid > 0) pids.emplace_back(t, pid);
  if (ask_first)
    for (auto& [t, pid] : pids)
      if (Alive(pid)) {
        kill(pid, SIGTERM);
        kill(pid, SIGCONT);
      }
  const auto deadline = std::chrono::steady_clock::now() + kStopWait;
  for (auto& [t, pid] : pids) {
    while (Alive(pid) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (Alive(pid)) {
      std::fprintf(stderr, "flowvm cluster: %s (pid %d) did not stop in time; killing it\n", t.Name().c_str(), pid);
      kill(pid, SIGKILL);
    }
    std::remove(PidFile(dir, t).c_str());
  }
}

// Stops the manager of a --restart cluster, if there is one: it stops its
// tasks first (so none is restarted meanwhile) and removes their pid files.
void StopManager(const std::string& dir) {
  const pid_t manager = ReadPid(ManagerPidFile(dir));
  if (manager <= 0) return;
  if (Alive(manager)) {
    kill(manager, SIGTERM);
    kill(manager, SIGCONT);
    // It gives its tasks kStopWait, then kills them: wait a little longer.
    const auto deadline = std::chrono::steady_clock::now() + kStopWait + std::chrono::seconds(5);
    while (Alive(manager) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (Alive(manager)) {
      std::fprintf(stderr, "flowvm cluster: the manager (pid %d) did not stop in time; killing it\n", manager);
      kill(manager, SIGKILL);
      for (int i = 0; i < 250 && Alive(manager); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  std::remove(ManagerPidFile(dir).c_str());
}

// Starts the manager (`flowvm cluster manage`) in a session of its own and
// waits until it has started every task.
Status StartManager(const std::string& dir, const std::vector<std::string>& server_flags, int64_t max_restarts,
                    int64_t backoff_ms, int64_t timeout_ms) {
  FLOWVM_ASSIGN_OR_RETURN(std::string self, SelfExecutable());
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) return errors::Internal("pipe: ", std::strerror(errno));
  std::vector<std::string> argv_strings = {self,
                                           "cluster",
                                           "manage",
                                           "--dir",
                                           dir,
                                           "--max-restarts",
                                           std::to_string(max_restarts),
                                           "--restart-backoff-ms",
                                           std::to_string(backoff_ms),
                                           "--ready-fd",
                                           std::to_string(ready[1])};
  for (const std::string& f : server_flags) {
    argv_strings.push_back("--server-arg");
    argv_strings.push_back(f);
  }
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const std::string log = ManagerLogFile(dir);
  pid_t pid = fork();
  if (pid < 0) {
    close(ready[0]);
    close(ready[1]);
    return errors::Unavailable("fork: ", std::strerror(errno));
  }
  if (pid == 0) {
    setsid();
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = open("/dev/null", O_RDWR);
    if (fd >= 0) dup2(fd, 2);
    if (null >= 0) {
      dup2(null, 0);
      dup2(null, 1);
    }
    fcntl(ready[1], F_SETFD, 0);  // the manager writes to it
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(ready[1]);
  // "ready\n", or nothing if the manager failed (it closes the pipe).
  std::string got;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (got.find('\n') == std::string::npos) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    pollfd pfd{ready[0], POLLIN, 0};
    if (poll(&pfd, 1, static_cast<int>(left)) <= 0) continue;
    char buf[16];
    const ssize_t n = read(ready[0], buf, sizeof(buf));
    if (n <= 0) break;
    got.append(buf, n);
  }
  close(ready[0]);
  if (got != "ready\n") {
    kill(pid, SIGTERM);
    for (int i = 0; i < 500 && Alive(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (Alive(pid)) kill(pid, SIGKILL);
    Alive(pid);  // reaps it
    return errors::Unavailable("the cluster manager did not start its tasks; its log (", log, "): ", Tail(log));
  }
  // The manager outlives this command; init reaps it when it ends.
  return Status::OK();
}

Status Up(const ParsedArgs& args) {
  // This command checks the cluster with the servers' own credentials.
  FLOWVM_ASSIGN_OR_RETURN(ClusterCredentials credentials, CredentialsFromFlags(args));
  FLOWVM_ASSIGN_OR_RETURN(int64_t ps, ParseCount("--ps", args.last("--ps", "1")));
  FLOWVM_ASSIGN_OR_RETURN(int64_t workers, ParseCount("--workers", args.last("--workers", "2")));
  FLOWVM_ASSIGN_OR_RETURN(int64_t cpu_devices, ParseCount("--cpu-devices", args.last("--cpu-devices", "1")));
  FLOWVM_ASSIGN_OR_RETURN(int64_t timeout_ms, ParseCount("--timeout-ms", args.last("--timeout-ms", "30000")));
  const bool restart = args.has("--restart");
  FLOWVM_ASSIGN_OR_RETURN(int64_t max_restarts, ParseCount("--max-restarts", args.last("--max-restarts", "5")));
  FLOWVM_ASSIGN_OR_RETURN(int64_t backoff_ms,
                          ParseCount("--restart-backoff-ms", args.last("--restart-backoff-ms", "500")));
  if (!restart && (!args.all("--max-restarts").empty() || !args.all("--restart-backoff-ms").empty()))
    return errors::InvalidArgument("--max-restarts and --restart-backoff-ms need --restart");
  if (workers < 1) return errors::InvalidArgument("--workers must be at least 1 (worker 0 is the chief)");
  if (ps + workers > 64) return errors::InvalidArgument("a local cluster has at most 64 tasks");
  std::string dir = args.last("--dir", "");
  if (dir.empty()) {
    char templ[] = "/tmp/flowvm-cluster-XXXXXX";
    if (mkdtemp(templ) == nullptr) return errors::Unavailable("mkdtemp: ", std::strerror(errno));
    dir = templ;
  } else if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
    return errors::Unavailable("cannot create --dir '", dir, "': ", std::strerror(errno));
  }
  // A cluster already running there must be stopped first.
  if (pid_t manager = ReadPid(ManagerPidFile(dir)); manager > 0 && kill(manager, 0) == 0)
    return errors::AlreadyExists("a cluster is already running in '", dir, "' (its manager is pid ", manager,
                                 "): flowvm cluster down --dir ", dir);
  if (auto old = ClusterSpec::FromFile(dir + "/cluster.json"); old.ok())
    for (const TaskId& t : old->Tasks()) {
      pid_t pid = ReadPid(PidFile(dir, t));
      if (pid > 0 && kill(pid, 0) == 0)
        return errors::AlreadyExists("a cluster is already running in '", dir, "' (", t.Name(), " is pid ", pid,
                                     "): flowvm cluster down --dir ", dir);
    }

  std::string json = "{";
  auto add_job = [&](const std::string& job, int64_t n) -> Status {
    if (n == 0) return Status::OK();
    if (json.size() > 1) json += ", ";
    json += "\"" + job + "\": [";
    for (int64_t i = 0; i < n; ++i) {
      FLOWVM_ASSIGN_OR_RETURN(int port, PickUnusedLoopbackPort());
      json += std::string(i ? ", " : "") + "\"127.0.0.1:" + std::to_string(port) + "\"";
    }
    json += "]";
    return Status::OK();
  };
  FLOWVM_RETURN_IF_ERROR(add_job("ps", ps));
  FLOWVM_RETURN_IF_ERROR(add_job("worker", workers));
  json += "}";
  // What each server is given: devices, credentials, allowed directories
  // (absolute: a server's working directory is this command's, but a
  // restarted one must find them too).
  std::vector<std::string> server_flags = {"--cpu-devices", std::to_string(cpu_devices)};
  for (const std::string& f : CredentialFlagsFor(args)) server_flags.push_back(f);
  for (const std::string& d : args.all("--allow-dir")) {
    server_flags.push_back("--allow-dir");
    server_flags.push_back(Absolute(d));
  }
  FLOWVM_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromJson(json));
  FLOWVM_RETURN_IF_ERROR(WriteFile(dir + "/cluster.json", json + "\n"));

  if (restart) {
    FLOWVM_RETURN_IF_ERROR(StartManager(dir, server_flags, max_restarts, backoff_ms, timeout_ms));
  } else {
    for (const TaskId& t : spec.Tasks()) {
      auto pid = SpawnServer(dir, t, server_flags, /*append_log=*/false, /*die_with_parent=*/false);
      if (!pid.ok()) {
        StopProcesses(dir, spec, true);
        return pid.status();
      }
      FLOWVM_RETURN_IF_ERROR(WriteFile(PidFile(dir, t), std::to_string(*pid) + "\n"));
    }
  }
  const std::string target = "grpc://" + *spec.Address({"worker", 0});
  // The chief's master answers once every task does.
  SessionOptions options;
  options.target = target;
  options.connect_timeout_ms = timeout_ms;
  options.credentials = credentials;
  auto session = Session::Create(options, GraphDef());
  if (!session.ok()) {
    std::string logs;
    for (const TaskId& t : spec.Tasks()) {
      pid_t pid = ReadPid(PidFile(dir, t));
      if (pid == 0 || !Alive(pid)) logs += "\n  " + t.Name() + " exited; its log: " + Tail(LogFile(dir, t));
    }
    StopManager(dir);
    StopProcesses(dir, spec, true);
    return session.status().WithContext("the cluster in '" + dir + "' did not come up" + logs);
  }
  (*session)->Close().IgnoreError();
  std::fprintf(stderr, "flowvm cluster: %d tasks up in %s (cluster.json, <job>-<task>.pid/.log%s)\n",
               static_cast<int>(spec.Tasks().size()), dir.c_str(),
               restart ? "; restarted when they die, see manager.log" : "");
  std::printf("%s\n", target.c_str());
  std::fflush(stdout);
  return Status::OK();
}

Status Down(const ParsedArgs& args) {
  const std::string dir = args.last("--dir", "");
  if (dir.empty()) return errors::InvalidArgument("usage: flowvm cluster down --dir DIR");
  FLOWVM_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromFile(dir + "/cluster.json"));
  // First the manager, so that nothing is restarted while the rest stops.
  StopManager(dir);
  bool any_alive = false;
  for (const TaskId& t : spec.Tasks()) any_alive = any_alive || Alive(ReadPid(PidFile(dir, t)));
  if (any_alive) {
    const std::string target = "grpc://" + *spec.Address(spec.Tasks().front());
    std::vector<std::string> stopped, unreachable;
    FLOWVM_ASSIGN_OR_RETURN(ClusterCredentials credentials, CredentialsFromFlags(args));
    Status s = ShutdownCluster(spec.HasTask({"worker", 0}) ? "grpc://" + *spec.Address({"worker", 0}) : target,
                               &stopped, &unreachable, 5000, credentials);
    if (!s.ok())
      std::fprintf(stderr, "flowvm cluster: %s; stopping the processes with SIGTERM\n", s.ToString().c_str());
    for (const std::string& task : unreachable)
      std::fprintf(stderr, "flowvm cluster: %s did not answer the shutdown; stopping it with SIGTERM\n",
                   task.c_str());
    // The tasks that were asked exit by themselves; the others get SIGTERM,
    // and whatever is left at the end SIGKILL.
    StopProcesses(dir, spec, /*ask_first=*/!s.ok() || !unreachable.empty());
  } else {
    for (const TaskId& t : spec.Tasks()) std::remove(PidFile(dir, t).c_str());
  }
  std::fprintf(stderr, "flowvm cluster: stopped %d tasks in %s\n", static_cast<int>(spec.Tasks().size()),
               dir.c_str());
  return Status::OK();
}

Status Restart(const ParsedArgs& args) {
  const std::string dir = args.last("--dir", "");
  const std::string task_text = args.last("--task", "");
  if (dir.empty() || task_text.empty())
    return errors::InvalidArgument("usage: flowvm cluster restart --dir DIR --task JOB-I (e.g. worker-1)");
  FLOWVM_ASSIGN_OR_RETURN(int64_t timeout_ms, ParseCount("--timeout-ms", args.last("--timeout-ms", "30000")));
  FLOWVM_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromFile(dir + "/cluster.json"));
  FLOWVM_ASSIGN_OR_RETURN(TaskId task, ParseTask(spec, task_text));
  const pid_t manager = ReadPid(ManagerPidFile(dir));
  if (manager <= 0 || !Alive(manager))
    return errors::FailedPrecondition("the cluster in '", dir,
                                      "' has no manager to restart tasks (start it with flowvm cluster up --restart)");
  const pid_t old_pid = ReadPid(PidFile(dir, task));
  FLOWVM_RETURN_IF_ERROR(WriteFile(RestartRequestFile(dir, task), ""));
  if (kill(manager, SIGUSR1) != 0)
    return errors::Unavailable("cannot signal the cluster manager (pid ", manager, "): ", std::strerror(errno));
  // Wait for the new process, then for it to answer.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  pid_t new_pid = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    new_pid = ReadPid(PidFile(dir, task));
    if (new_pid > 0 && new_pid != old_pid && Alive(new_pid)) break;
    new_pid = 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (new_pid == 0)
    return errors::DeadlineExceeded(task.Name(), " was not restarted within ", timeout_ms, " ms; see ",
                                    ManagerLogFile(dir), ": ", Tail(ManagerLogFile(dir)));
  SessionOptions options;
  options.target = "grpc://" + *spec.Address(task);
  options.device_filters = {task.Name()};
  FLOWVM_ASSIGN_OR_RETURN(options.credentials, CredentialsFromFlags(args));
  options.connect_timeout_ms = std::max<int64_t>(
      1, std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count());
  auto session = Session::Create(options, GraphDef());
  if (!session.ok())
    return session.status().WithContext(task.Name() + " (pid " + std::to_string(new_pid) +
                                        ") was restarted but does not answer");
  (*session)->Close().IgnoreError();
  std::fprintf(stderr, "flowvm cluster: restarted %s: pid %d (was %d)\n", task.Name().c_str(), new_pid, old_pid);
  std::printf("%d\n", new_pid);
  std::fflush(stdout);
  return Status::OK();
}

Status Manage(const ParsedArgs& args) {
  ClusterManagerOptions options;
  options.dir = args.last("--dir", "");
  if (options.dir.empty()) return errors::InvalidArgument("usage: flowvm cluster manage --dir DIR (internal)");
  FLOWVM_ASSIGN_OR_RETURN(int64_t cpu_devices, ParseCount("--cpu-devices", args.last("--cpu-devices", "1")));
  options.server_flags = {"--cpu-devices", std::to_string(cpu_devices)};
  for (const std::string& f : args.all("--server-arg")) options.server_flags.push_back(f);
  FLOWVM_ASSIGN_OR_RETURN(options.max_restarts, ParseCount("--max-restarts", args.last("--max-restarts", "5")));
  FLOWVM_ASSIGN_OR_RETURN(options.backoff_ms,
                          ParseCount("--restart-backoff-ms", args.last("--restart-backoff-ms", "500")));
  options.max_backoff_ms = std::max<int64_t>(options.backoff_ms, options.max_backoff_ms);
  FLOWVM_ASSIGN_OR_RETURN(int64_t ready_fd, ParseCount("--ready-fd", args.last("--ready-fd", "0")));
  options.ready_fd = args.all("--ready-fd").empty() ? -1 : static_cast<int>(ready_fd);
  return RunClusterManager(options);
}

}  // namespace

Status ClusterCommand(const std::vector<std::string>& raw) {
  const char kUsage[] =
      "usage: flowvm cluster up [--ps N] [--workers N] [--dir DIR] [--restart [--max-restarts N] "
      "[--restart-backoff-ms MS]] [--allow-dir DIR]... [--token-file F] [--tls-ca F --tls-cert F --tls-key F] | "
      "down --dir DIR | restart --dir DIR --task JOB-I";
  if (raw.empty() || (raw[0] != "up" && raw[0] != "down" && raw[0] != "restart" && raw[0] != "manage"))
    return errors::InvalidArgument(kUsage);
  const std::string verb = raw[0];
  std::vector<std::string> rest(raw.begin() + 1, raw.end());
  FLOWVM_ASSIGN_OR_RETURN(ParsedArgs args,
                          ParseArgs(rest,
                                    WithCredentialFlags({"--ps", "--workers", "--dir", "--cpu-devices", "--timeout-ms",
                                                         "--max-restarts", "--restart-backoff-ms", "--task",
                                                         "--ready-fd", "--allow-dir", "--server-arg"}),
                                    {"--restart"}));
  if (!args.positional.empty())
    return errors::InvalidArgument("usage: flowvm cluster ", verb, " takes no positional arguments");
  if (verb == "up") return Up(args);
  if (verb == "down") return Down(args);
  if (verb == "restart") return Restart(args);
  return Manage(args);
}

}  // namespace flowvm::cli
