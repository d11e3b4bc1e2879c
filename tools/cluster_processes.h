// The files and processes of a local cluster (`flowvm cluster`): where a
// task's pid and log live in the cluster's directory, starting a task's
// `flowvm server`, and telling whether a pid still runs. Used by `cluster
// up/down/restart` and by the manager of `cluster up --restart`.
#ifndef FLOWVM_TOOLS_CLUSTER_PROCESSES_H_
#define FLOWVM_TOOLS_CLUSTER_PROCESSES_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "flowvm/cluster.h"
#include "flowvm/status.h"

namespace flowvm::cli {

// DIR/<job>-<task>.pid, .log and .restart (a restart request to the manager).
std::string PidFile(const std::string& dir, const TaskId& t);
std::string LogFile(const std::string& dir, const TaskId& t);
std::string RestartRequestFile(const std::string& dir, const TaskId& t);
// DIR/manager.pid and DIR/manager.log: the manager of `cluster up --restart`.
std::string ManagerPidFile(const std::string& dir);
std::string ManagerLogFile(const std::string& dir);

// Writes `text` to a temporary file beside `path` and renames it over
// `path`, so a reader never sees half a file. Unavailable naming the path.
Status WriteFileAtomically(const std::string& path, const std::string& text);
// The pid in a pid file, or 0 if there is none (missing, empty, garbage).
pid_t ReadPid(const std::string& path);

// Whether `pid` runs: not reaped, not a zombie. Reaps it if it is our
// child and has exited (so do not use it where the caller reaps).
bool Alive(pid_t pid);

// "worker-1" or "/job:worker/replica:0/task:1" (or "/job:worker/task:1");
// NotFound listing the cluster's tasks if it is not one of them.
StatusOr<TaskId> ParseTask(const ClusterSpec& spec, const std::string& text);

// The `flowvm` executable that runs this code (/proc/self/exe).
StatusOr<std::string> SelfExecutable();

// Starts `flowvm server` for task `t` of DIR/cluster.json in a session of
// its own, its stdin /dev/null and its output in its log (truncated first
// unless `append_log`), with `server_flags` added. With `die_with_parent`
// the server gets SIGTERM when the calling process ends (a manager that is
// killed leaves no server behind). Returns its pid; the caller is its
// parent and must reap it.
StatusOr<pid_t> SpawnServer(const std::string& dir, const TaskId& t, const std::vector<std::string>& server_flags,
                            bool append_log, bool die_with_parent);

// The last ~600 bytes of a file, for error messages.
std::string Tail(const std::string& path);

}  // namespace flowvm::cli

#endif  // FLOWVM_TOOLS_CLUSTER_PROCESSES_H_
