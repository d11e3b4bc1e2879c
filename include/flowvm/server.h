// Server: one task of a cluster (paper 3.2): its devices, a worker service
// that runs the partitions masters register, and a master service that
// clients reach with a "grpc://host:port" session target.
//
//   auto def = flowvm::ServerDefFromClusterFile("cluster.json", "worker", 0);
//   auto server = flowvm::Server::Create({*def});
//   (*server)->Start();   // listens on the task's address
//   (*server)->Join();    // until Stop(), a signal handler's RequestStop(),
//                         // or a master's ShutdownCluster
//
// Every session connected to a server shares its devices' variables and
// containers, so state outlives a client (paper 4.7). Stop aborts the steps
// in flight (their clients get an error naming this task), releases the
// port and returns once nothing of the server runs. Thread-safe.
#ifndef FLOWVM_SERVER_H_
#define FLOWVM_SERVER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "flowvm/cluster.h"
#include "flowvm/credentials.h"
#include "flowvm/status.h"

namespace flowvm {

// What one client may ask of a server; exceeding a limit is
// ResourceExhausted naming it, and the server stays up.
struct ServerLimits {
  // The largest message a call may send (gRPC's receive limit). 0: 2 GiB - 1,
  // gRPC's own ceiling. Tensors travel in chunks that fit.
  int64_t max_message_bytes = 0;
  // A session's graph (CreateSession plus every ExtendSession), and each
  // partition a master registers here: as GraphDef bytes (0: 1 GiB) and
  // nodes (0: 4 million).
  int64_t max_graph_bytes = 0;
  int64_t max_graph_nodes = 0;
  // Tensor bytes one step may hold on this task at once (0: no limit). A
  // session's own SessionOptions::max_step_memory_bytes can only be lower.
  int64_t max_step_memory_bytes = 0;
};

struct ServerOptions {
  ServerDef def;
  // TLS files and cluster token (flowvm/credentials.h). Fields left empty
  // are filled from FLOWVM_CLUSTER_TOKEN and FLOWVM_TLS_CA/_CERT/_KEY. The
  // same credentials authenticate this task to the others.
  ClusterCredentials credentials;
  // Listening on an address that is not loopback needs TLS, or this (for a
  // trusted network): without either, Start fails.
  bool insecure = false;
  ServerLimits limits;
  // CPU devices of this task (/job:J/replica:0/task:T/device:CPU:0 ...).
  int cpu_devices = 1;
  // Size of the task's thread pool (0: one per hardware thread).
  int num_threads = 0;
  // The most tensor bytes one message carries (0: 1 GiB; at most 1 GiB, so
  // gRPC messages stay far from their 2 GiB limit whatever the tensors'
  // sizes): a larger tensor between tasks travels in several RecvTensor
  // responses, and feeds and fetches beyond it travel beside the step's
  // messages, in chunks of this size.
  uint64_t recv_chunk_bytes = 0;
  // The directories graphs on this server may read and write files in
  // (ReadFile, WriteFile, SaveV2, RestoreV2, record readers, summaries), and
  // everything under them; a path outside, also through `..` or a symbolic
  // link, fails the step with PermissionDenied naming the node and the path.
  // Empty: the server's working directory when it is created. Create fails
  // with InvalidArgument if one does not exist or is not a directory.
  std::vector<std::string> allowed_dirs;
};

class Server {
 public:
  // Fails on a bad ServerDef or options; does not listen yet.
  static StatusOr<std::unique_ptr<Server>> Create(const ServerOptions& options);
  virtual ~Server() = default;

  // Listens on the task's address from the cluster (and only there).
  // Unavailable naming the address if it cannot be bound (in use, not this
  // host's); FailedPrecondition for an address other than loopback without
  // TLS unless options.insecure.
  virtual Status Start() = 0;
  // Blocks until the server has stopped (Stop, RequestStop or a cluster
  // shutdown), then returns.
  virtual void Join() = 0;
  // Stops now and waits until everything has stopped. Idempotent.
  virtual void Stop() = 0;
  // Asks the server to stop without waiting; safe from a signal handler's
  // helper thread (not from the handler itself: use flowvm server's loop).
  virtual void RequestStop(const std::string& reason) = 0;

  // "grpc://host:port" of this task's master.
  virtual std::string target() const = 0;
  virtual const ServerDef& def() const = 0;
  // How callers are checked ("TLS, ..., cluster token required"), and a
  // warning when anyone who reaches a non-loopback address can run graphs.
  virtual std::string security_summary() const = 0;
  // The directories of ServerOptions::allowed_dirs, canonical (absolute, with
  // links resolved).
  virtual const std::vector<std::string>& allowed_dirs() const = 0;
};

// Asks the master at `target` ("grpc://host:port") to stop every task of
// its cluster: each aborts its steps, releases its port and (as `flowvm
// server`) exits 0. Fills the tasks that stopped and those that could not
// be reached. Waits at most `timeout_ms`.
// `credentials` as a session's (empty fields from the environment).
Status ShutdownCluster(const std::string& target, std::vector<std::string>* stopped,
                       std::vector<std::string>* unreachable, int64_t timeout_ms = 15000,
                       const ClusterCredentials& credentials = ClusterCredentials());

}  // namespace flowvm

#endif  // FLOWVM_SERVER_H_
