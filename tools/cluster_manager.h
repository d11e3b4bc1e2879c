// The manager of `flowvm cluster up --restart` (`flowvm cluster manage`,
// started by `cluster up` in a session of its own): it starts one `flowvm
// server` per task of DIR/cluster.json as its children and restarts a task
// whose process dies abnormally (killed by a signal, or a non-zero exit),
// as a cluster manager would:
//
//   - on the same address, after a back-off that doubles from backoff_ms
//     (at most max_backoff_ms), at most max_restarts times in a row; a
//     task that stays up for stable_ms (10 s) starts counting afresh;
//   - the restarted server is a new process, so it has a new incarnation;
//     its pid replaces the old one in DIR/<job>-<task>.pid and its output
//     is appended to DIR/<job>-<task>.log;
//   - a task that exits 0 (a cluster shutdown, or SIGTERM) is not restarted;
//     a stopped task (SIGSTOP) is not dead and is left alone;
//   - a restart asked for with `flowvm cluster restart` (a file
//     DIR/<job>-<task>.restart and SIGUSR1) stops the task with SIGTERM
//     (SIGKILL after 10 s) and starts it again at once, without counting it.
//
// Every start, death (and why) and restart goes to its stderr with the
// time, one line each (DIR/manager.log). SIGTERM or SIGINT stops every task
// (SIGTERM and SIGCONT, SIGKILL after 10 s), removes the pid files and
// ends the manager; so does every task having ended. Its servers get
// SIGTERM if the manager itself is killed. Single-threaded; blocks until
// it ends.
#ifndef FLOWVM_TOOLS_CLUSTER_MANAGER_H_
#define FLOWVM_TOOLS_CLUSTER_MANAGER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "flowvm/status.h"

namespace flowvm::cli {

struct ClusterManagerOptions {
  std::string dir;                        // holds cluster.json
  std::vector<std::string> server_flags;  // added to every `flowvm server`
  int64_t max_restarts = 5;
  int64_t backoff_ms = 500;
  int64_t max_backoff_ms = 30000;
  int64_t stable_ms = 10000;
  // Where to write "ready\n" once every task has been started (then it is
  // closed); -1: nowhere.
  int ready_fd = -1;
};

Status RunClusterManager(const ClusterManagerOptions& options);

}  // namespace flowvm::cli

#endif  // FLOWVM_TOOLS_CLUSTER_MANAGER_H_
