// One flowvm server as a process of its own, for bench/distributed/
// distributed_bench.cc (public API only: flowvm/server.h, flowvm/cluster.h):
//
//   dist_bench_server CLUSTER_JSON JOB INDEX [THREADS]
//
// Prints "ready grpc://host:port" once it listens, then serves until it is
// killed (or a master shuts the cluster down).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "flowvm/cluster.h"
#include "flowvm/server.h"

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
  std::printf("ready %s\n", (*server)->target().c_str());
  std::fflush(stdout);
  (*server)->Join();
  return 0;
}
