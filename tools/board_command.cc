// `flowvm board`: serves a log directory's event files (and graph and trace
// files) as a web board until SIGINT/SIGTERM, then exits 0.
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "board/board_server.h"
#include "cli_args.h"
#include "commands.h"

namespace flowvm::cli {

namespace {

int g_board_signal_pipe[2] = {-1, -1};

void OnBoardSignal(int sig) {
  const unsigned char byte = static_cast<unsigned char>(sig);
  const int saved = errno;
  if (write(g_board_signal_pipe[1], &byte, 1) < 0) {
  }
  errno = saved;
}

}  // namespace

Status BoardCommand(const std::vector<std::string>& raw) {
  FLOWVM_ASSIGN_OR_RETURN(ParsedArgs args,
                          ParseArgs(raw, {"--logdir", "--port", "--host", "--graph", "--trace", "--reload-ms"}, {}));
  if (!args.positional.empty() || args.all("--logdir").empty())
    return errors::InvalidArgument(
        "usage: flowvm board --logdir DIR [--port P] [--host H] [--graph FILE]... [--trace FILE]... "
        "[--reload-ms MS]");
  board::BoardOptions options;
  options.logdir = args.last("--logdir", "");
  options.host = args.last("--host", "127.0.0.1");
  FLOWVM_ASSIGN_OR_RETURN(int64_t port, ParseCount("--port", args.last("--port", "6006")));
  if (port > 65535) return errors::InvalidArgument("--port ", port, " is not a TCP port (0 to 65535)");
  options.port = static_cast<int>(port);
  FLOWVM_ASSIGN_OR_RETURN(int64_t reload_ms, ParseCount("--reload-ms", args.last("--reload-ms", "1000")));
  if (reload_ms < 1 || reload_ms > 3600 * 1000)
    return errors::InvalidArgument("--reload-ms ", reload_ms, " must be between 1 and 3600000");
  options.reload_ms = static_cast<int>(reload_ms);
  options.graph_files = args.all("--graph");
  options.trace_files = args.all("--trace");
  if (!board::IsLoopbackHost(options.host))
    std::fprintf(stderr,
                 "flowvm board: warning: listening on %s, which other machines may reach; the board has no "
                 "authentication, so anyone who can connect can read the logs\n",
                 options.host.c_str());

  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<board::BoardServer> server, board::BoardServer::Create(options));
  // Handlers before the line: whoever reads the line may signal at once.
  if (pipe(g_board_signal_pipe) != 0) return errors::Internal("pipe: ", std::strerror(errno));
  struct sigaction action {};
  action.sa_handler = OnBoardSignal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  server->Start();
  std::printf("flowvm board: serving %s at %s\n", options.logdir.c_str(), server->url().c_str());
  std::fflush(stdout);

  unsigned char sig = 0;
  while (read(g_board_signal_pipe[0], &sig, 1) < 0 && errno == EINTR) {
  }
  server->Stop();
  return Status::OK();
}

}  // namespace flowvm::cli
