// One flowvm server as a process of its own, for bench/distributed/
// distributed_bench.cc (public API only: flowvm/server.h, flowvm/cluster.h):
//
//   dist_bench_server CLUSTER_JSON JOB INDEX [THREADS]
//
// Prints "ready grpc://host:port" once it listens, then serves until
// SIGTERM or SIGINT (it then stops the server and exits) or a master shuts
// the cluster down.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "flowvm/cluster.h"
#include "flowvm/server.h"

namespace {

int stop_pipe[2];

void OnStopSignal(int sig) {
  const char c = static_cast<char>(sig);
  if (write(stop_pipe[1], &c, 1) < 0) _exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s CLUSTER_JSON JOB INDEX [THREADS]\n", argv[0]);
    return 2;
  }
  auto def = flowvm::ServerDefFromClusterFile(argv[1], argv[2], std::atoi(argv[3]));
  if (!def.ok()) {
    std::fprintf(stderr, "dist_bench_server: %s\n", def.status().ToString().c_str());
    return 1;
  }
  // The handler tells a thread of ours, which stops the server (threads the
  // libraries started may take the signal: no sigwait).
  if (pipe(stop_pipe) != 0) return 1;
  struct sigaction action {};
  action.sa_handler = OnStopSignal;
  sigaction(SIGTERM, &action, nullptr);
  sigaction(SIGINT, &action, nullptr);
  flowvm::ServerOptions options;
  options.def = *def;
  if (argc > 4) options.num_threads = std::atoi(argv[4]);
  auto server = flowvm::Server::Create(options);
  if (!server.ok()) {
    std::fprintf(stderr, "dist_bench_server: %s\n", server.status().ToString().c_str());
    return 1;
  }
  flowvm::Status s = (*server)->Start();
  if (!s.ok()) {
    std::fprintf(stderr, "dist_bench_server: %s\n", s.ToString().c_str());
    return 1;
  }
  flowvm::Server* running = server->get();
  std::thread([running] {
    char sig = 0;
    while (read(stop_pipe[0], &sig, 1) < 0) {
    }
    running->RequestStop("signal " + std::to_string(sig));
  }).detach();
  std::printf("ready %s\n", (*server)->target().c_str());
  std::fflush(stdout);
  (*server)->Join();
  return 0;
}
