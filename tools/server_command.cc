// `flowvm server`: one task of a cluster, until SIGTERM/SIGINT or a
// cluster shutdown; then it stops cleanly (steps aborted, port released)
// and exits 0.
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "cli_args.h"
#include "credential_flags.h"
#include "commands.h"
#include "flowvm/server.h"

namespace flowvm::cli {

namespace {

int g_signal_pipe[2] = {-1, -1};

void OnSignal(int sig) {
  const unsigned char byte = static_cast<unsigned char>(sig);
  const int saved = errno;
  if (write(g_signal_pipe[1], &byte, 1) < 0) {
  }
  errno = saved;
}

}  // namespace

Status ServerCommand(const std::vector<std::string>& raw) {
  FLOWVM_ASSIGN_OR_RETURN(
      ParsedArgs args,
      ParseArgs(raw,
                WithCredentialFlags({"--cluster", "--job", "--task", "--cpu-devices", "--threads", "--max-message-bytes",
                                     "--max-graph-bytes", "--max-graph-nodes", "--max-step-memory-bytes",
                                     "--allow-dir"}),
                {"--insecure"}));
  if (!args.positional.empty())
    return errors::InvalidArgument("usage: flowvm server takes no positional arguments, got '", args.positional[0],
                                   "'");
  ServerOptions options;
  FLOWVM_ASSIGN_OR_RETURN(options.credentials, CredentialsFromFlags(args));
  const bool from_flags = !args.all("--cluster").empty() || !args.all("--job").empty() || !args.all("--task").empty();
  if (from_flags) {
    if (args.all("--cluster").empty() || args.all("--job").empty())
      return errors::InvalidArgument("usage: flowvm server --cluster CLUSTER.json --job NAME [--task I]");
    FLOWVM_ASSIGN_OR_RETURN(int64_t task, ParseCount("--task", args.last("--task", "0")));
    FLOWVM_ASSIGN_OR_RETURN(options.def, ServerDefFromClusterFile(args.last("--cluster", ""), args.last("--job", ""),
                                                                 static_cast<int>(task)));
  } else {
    FLOWVM_ASSIGN_OR_RETURN(options.def, ServerDefFromEnvironment());
  }
  FLOWVM_ASSIGN_OR_RETURN(int64_t cpu_devices, ParseCount("--cpu-devices", args.last("--cpu-devices", "1")));
  if (cpu_devices < 1) return errors::InvalidArgument("--cpu-devices must be at least 1");
  options.cpu_devices = static_cast<int>(cpu_devices);
  FLOWVM_ASSIGN_OR_RETURN(int64_t threads, ParseCount("--threads", args.last("--threads", "0")));
  options.num_threads = static_cast<int>(threads);
  options.insecure = args.has("--insecure");
  FLOWVM_ASSIGN_OR_RETURN(options.limits.max_message_bytes,
                          ParseCount("--max-message-bytes", args.last("--max-message-bytes", "0")));
  FLOWVM_ASSIGN_OR_RETURN(options.limits.max_graph_bytes,
                          ParseCount("--max-graph-bytes", args.last("--max-graph-bytes", "0")));
  FLOWVM_ASSIGN_OR_RETURN(options.limits.max_graph_nodes,
                          ParseCount("--max-graph-nodes", args.last("--max-graph-nodes", "0")));
  FLOWVM_ASSIGN_OR_RETURN(options.limits.max_step_memory_bytes,
                          ParseCount("--max-step-memory-bytes", args.last("--max-step-memory-bytes", "0")));
  options.allowed_dirs = args.all("--allow-dir");

  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(options));
  FLOWVM_RETURN_IF_ERROR(server->Start());
  const std::string task = options.def.task.Name();
  std::string dirs;
  for (const std::string& d : server->allowed_dirs()) dirs += (dirs.empty() ? "" : ", ") + d;
  std::printf("flowvm server: task %s serving at %s (%s); graphs may touch files only under %s\n", task.c_str(),
              server->target().c_str(), server->security_summary().c_str(), dirs.c_str());
  std::fflush(stdout);

  // SIGTERM and SIGINT write their number to a pipe (all a handler may
  // safely do); a thread reads it and asks the server to stop.
  if (pipe(g_signal_pipe) != 0) return errors::Internal("pipe: ", std::strerror(errno));
  struct sigaction action {};
  action.sa_handler = OnSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  Server* s = server.get();
  std::thread waiter([s] {
    unsigned char sig = 0;
    while (read(g_signal_pipe[0], &sig, 1) < 0 && errno == EINTR) {
    }
    if (sig != 0) s->RequestStop(std::string("signal ") + strsignal(sig));
  });
  server->Join();
  // Wake the reader if no signal came (a cluster shutdown).
  const unsigned char none = 0;
  if (write(g_signal_pipe[1], &none, 1) < 0) {
  }
  waiter.join();
  // The handlers stay: a SIGTERM that comes now (`cluster down` sends one
  // to a task that is already stopping) must not kill the process before
  // it has finished stopping and exits 0.
  server.reset();
  std::printf("flowvm server: task %s stopped\n", task.c_str());
  std::fflush(stdout);
  return Status::OK();
}

}  // namespace flowvm::cli
