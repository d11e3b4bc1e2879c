// `flowvm cluster up|down`: a local cluster of `flowvm server` processes on
// free loopback ports, for trying things out, tests and the demo.
//
//   flowvm cluster up --ps 1 --workers 2 [--dir DIR] [--cpu-devices N]
//     writes DIR/cluster.json, starts one server per task (each in its own
//     session, so it outlives this command; pid in DIR/<job>-<task>.pid, its
//     output in DIR/<job>-<task>.log), waits until every task answers and
//     prints the master's target (the chief: worker 0) on stdout.
//   flowvm cluster down --dir DIR
//     asks the cluster to shut down, waits for the processes, and kills
//     those that do not exit in time.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

#include "cli_args.h"
#include "commands.h"
#include "flowvm/cluster.h"
#include "flowvm/server.h"
#include "flowvm/session.h"

namespace flowvm::cli {

namespace {

constexpr auto kStopWait = std::chrono::seconds(10);

std::string PidFile(const std::string& dir, const TaskId& t) {
  return dir + "/" + t.job + "-" + std::to_string(t.index) + ".pid";
}
std::string LogFile(const std::string& dir, const TaskId& t) {
  return dir + "/" + t.job + "-" + std::to_string(t.index) + ".log";
}

Status WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return errors::Unavailable("cannot write '", path, "'");
  return Status::OK();
}

bool Alive(pid_t pid) {
  // Reap it if it is our child and has exited.
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) return false;
  if (kill(pid, 0) != 0) return false;
  // A server outlives `cluster up`, so its parent is init, which may reap
  // it a while after it exited: a zombie has stopped.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() ||
         (line[paren + 2] != 'Z' && line[paren + 2] != 'X');
}

// Starts `flowvm server` for one task, detached in a session of its own.
StatusOr<pid_t> Spawn(const std::string& dir, const TaskId& t, int64_t cpu_devices) {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return errors::Internal("cannot find the flowvm executable (/proc/self/exe)");
  self[n] = '\0';
  const std::string log = LogFile(dir, t);
  const std::string cluster = dir + "/cluster.json";
  const std::string task = std::to_string(t.index);
  const std::string devices = std::to_string(cpu_devices);
  pid_t pid = fork();
  if (pid < 0) return errors::Unavailable("fork: ", std::strerror(errno));
  if (pid == 0) {
    setsid();
    int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int null = open("/dev/null", O_RDONLY);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    if (null >= 0) dup2(null, 0);
    execl(self, self, "server", "--cluster", cluster.c_str(), "--job", t.job.c_str(), "--task", task.c_str(),
          "--cpu-devices", devices.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

std::string Tail(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.size() > 600) text = "..." + text.substr(text.size() - 600);
  return text;
}

// Stops the processes of the tasks listed in `dir`: ask nicely (SIGTERM),
// wait, then SIGKILL.
void StopProcesses(const std::string& dir, const ClusterSpec& spec, bool ask_first) {
  std::vector<std::pair<TaskId, pid_t>> pids;
  for (const TaskId& t : spec.Tasks()) {
    std::ifstream in(PidFile(dir, t));
    pid_t pid = 0;
    if (in >> pid && pid > 0) pids.emplace_back(t, pid);
  }
  if (ask_first)
    for (auto& [t, pid] : pids)
      if (Alive(pid)) kill(pid, SIGTERM);
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

Status Up(const ParsedArgs& args) {
  FLOWVM_ASSIGN_OR_RETURN(int64_t ps, ParseCount("--ps", args.last("--ps", "1")));
  FLOWVM_ASSIGN_OR_RETURN(int64_t workers, ParseCount("--workers", args.last("--workers", "2")));
  FLOWVM_ASSIGN_OR_RETURN(int64_t cpu_devices, ParseCount("--cpu-devices", args.last("--cpu-devices", "1")));
  FLOWVM_ASSIGN_OR_RETURN(int64_t timeout_ms, ParseCount("--timeout-ms", args.last("--timeout-ms", "30000")));
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
  if (auto old = ClusterSpec::FromFile(dir + "/cluster.json"); old.ok())
    for (const TaskId& t : old->Tasks()) {
      std::ifstream in(PidFile(dir, t));
      pid_t pid = 0;
      if (in >> pid && pid > 0 && kill(pid, 0) == 0)
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
  FLOWVM_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromJson(json));
  FLOWVM_RETURN_IF_ERROR(WriteFile(dir + "/cluster.json", json + "\n"));

  for (const TaskId& t : spec.Tasks()) {
    auto pid = Spawn(dir, t, cpu_devices);
    if (!pid.ok()) {
      StopProcesses(dir, spec, true);
      return pid.status();
    }
    FLOWVM_RETURN_IF_ERROR(WriteFile(PidFile(dir, t), std::to_string(*pid) + "\n"));
  }
  const std::string target = "grpc://" + *spec.Address({"worker", 0});
  // The chief's master answers once every task does.
  SessionOptions options;
  options.target = target;
  options.connect_timeout_ms = timeout_ms;
  auto session = Session::Create(options, GraphDef());
  if (!session.ok()) {
    std::string logs;
    for (const TaskId& t : spec.Tasks()) {
      std::ifstream in(PidFile(dir, t));
      pid_t pid = 0;
      if (in >> pid && !Alive(pid)) logs += "\n  " + t.Name() + " exited; its log: " + Tail(LogFile(dir, t));
    }
    StopProcesses(dir, spec, true);
    return session.status().WithContext("the cluster in '" + dir + "' did not come up" + logs);
  }
  (*session)->Close().IgnoreError();
  std::fprintf(stderr, "flowvm cluster: %d tasks up in %s (cluster.json, <job>-<task>.pid/.log)\n",
               static_cast<int>(spec.Tasks().size()), dir.c_str());
  std::printf("%s\n", target.c_str());
  std::fflush(stdout);
  return Status::OK();
}

Status Down(const ParsedArgs& args) {
  const std::string dir = args.last("--dir", "");
  if (dir.empty()) return errors::InvalidArgument("usage: flowvm cluster down --dir DIR");
  FLOWVM_ASSIGN_OR_RETURN(ClusterSpec spec, ClusterSpec::FromFile(dir + "/cluster.json"));
  const std::string target = "grpc://" + *spec.Address(spec.Tasks().front());
  std::vector<std::string> stopped, unreachable;
  Status s = ShutdownCluster(spec.HasTask({"worker", 0}) ? "grpc://" + *spec.Address({"worker", 0}) : target,
                             &stopped, &unreachable, 5000);
  if (!s.ok()) std::fprintf(stderr, "flowvm cluster: %s; stopping the processes with SIGTERM\n", s.ToString().c_str());
  for (const std::string& task : unreachable)
    std::fprintf(stderr, "flowvm cluster: %s did not answer the shutdown; stopping it with SIGTERM\n", task.c_str());
  // The tasks that were asked exit by themselves; the others get SIGTERM,
  // and whatever is left at the end SIGKILL.
  StopProcesses(dir, spec, /*ask_first=*/!s.ok() || !unreachable.empty());
  std::fprintf(stderr, "flowvm cluster: stopped %d tasks in %s\n", static_cast<int>(spec.Tasks().size()),
               dir.c_str());
  return Status::OK();
}

}  // namespace

Status ClusterCommand(const std::vector<std::string>& raw) {
  if (raw.empty() || (raw[0] != "up" && raw[0] != "down"))
    return errors::InvalidArgument("usage: flowvm cluster up [--ps N] [--workers N] [--dir DIR] | down --dir DIR");
  const std::string verb = raw[0];
  std::vector<std::string> rest(raw.begin() + 1, raw.end());
  FLOWVM_ASSIGN_OR_RETURN(ParsedArgs args,
                          ParseArgs(rest, {"--ps", "--workers", "--dir", "--cpu-devices", "--timeout-ms"}, {}));
  if (!args.positional.empty())
    return errors::InvalidArgument("usage: flowvm cluster ", verb, " takes no positional arguments");
  return verb == "up" ? Up(args) : Down(args);
}

}  // namespace flowvm::cli
