#include "cluster_processes.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace flowvm::cli {

namespace {

std::string Base(const std::string& dir, const TaskId& t) {
  return dir + "/" + t.job + "-" + std::to_string(t.index);
}

}  // namespace

std::string PidFile(const std::string& dir, const TaskId& t) { return Base(dir, t) + ".pid"; }
std::string LogFile(const std::string& dir, const TaskId& t) { return Base(dir, t) + ".log"; }
std::string RestartRequestFile(const std::string& dir, const TaskId& t) { return Base(dir, t) + ".restart"; }
std::string ManagerPidFile(const std::string& dir) { return dir + "/manager.pid"; }
std::string ManagerLogFile(const std::string& dir) { return dir + "/manager.log"; }

Status WriteFileAtomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      return errors::Unavailable("cannot write '", path, "'");
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return errors::Unavailable("cannot write '", path, "': ", std::strerror(err));
  }
  return Status::OK();
}

pid_t ReadPid(const std::string& path) {
  std::ifstream in(path);
  long pid = 0;
  if (!(in >> pid) || pid <= 0) return 0;
  return static_cast<pid_t>(pid);
}

bool Alive(pid_t pid) {
  if (pid <= 0) return false;
  // Reap it if it is our child and has exited.
  int status = 0;
  if (waitpid(pid, &status, WNOHANG) == pid) return false;
  if (kill(pid, 0) != 0) return false;
  // A server outlives `cluster up`, so its parent is init (or the
  // manager), which may reap it a while after it exited: a zombie has
  // stopped.
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t paren = line.rfind(')');
  return paren == std::string::npos || paren + 2 >= line.size() ||
         (line[paren + 2] != 'Z' && line[paren + 2] != 'X');
}

StatusOr<TaskId> ParseTask(const ClusterSpec& spec, const std::string& text) {
  if (!text.empty() && text[0] == '/') return spec.TaskByName(text);
  const size_t dash = text.rfind('-');
  if (dash != std::string::npos && dash > 0 && dash + 1 < text.size()) {
    const std::string index = text.substr(dash + 1);
    if (index.find_first_not_of("0123456789") == std::string::npos && index.size() < 6) {
      TaskId t{text.substr(0, dash), std::atoi(index.c_str())};
      if (spec.HasTask(t)) return t;
    }
  }
  return errors::NotFound("no task '", text, "' in the cluster (tasks are named like worker-1 or ",
                          "/job:worker/task:1): ", spec.Describe());
}

StatusOr<std::string> SelfExecutable() {
  char self[4096];
  const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  if (n <= 0) return errors::Internal("cannot find the flowvm executable (/proc/self/exe)");
  self[n] = '\0';
  return std::string(self);
}

StatusOr<pid_t> SpawnServer(const std::string& dir, const TaskId& t, const std::vector<std::string>& server_flags,
                            bool append_log, bool die_with_parent) {
  FLOWVM_ASSIGN_OR_RETURN(std::string self, SelfExecutable());
  const std::string log = LogFile(dir, t);
  const std::string cluster = dir + "/cluster.json";
  std::vector<std::string> argv_strings = {self, "server", "--cluster", cluster, "--job", t.job, "--task",
                                           std::to_string(t.index)};
  argv_strings.insert(argv_strings.end(), server_flags.begin(), server_flags.end());
  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> argv;
  for (std::string& s : argv_strings) argv.push_back(s.data());
  argv.push_back(nullptr);
  const int flags = O_WRONLY | O_CREAT | O_CLOEXEC | (append_log ? O_APPEND : O_TRUNC);
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) return errors::Unavailable("fork: ", std::strerror(errno));
  if (pid == 0) {
    setsid();
    if (die_with_parent) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(1);  // it ended before prctl
    }
    // The manager's handlers and mask must not reach the server.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int sig : {SIGTERM, SIGINT, SIGCHLD, SIGUSR1, SIGPIPE, SIGHUP}) signal(sig, SIG_DFL);
    int fd = open(log.c_str(), flags, 0644);
    int null = open("/dev/null", O_RDONLY);
    if (fd >= 0) {
      dup2(fd, 1);
      dup2(fd, 2);
    }
    if (null >= 0) dup2(null, 0);
    execv(argv[0], argv.data());
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

}  // namespace flowvm::cli
