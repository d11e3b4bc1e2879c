// Session: runs steps of a graph (paper sections 2, 3 and 4.2).
//
//   flowvm::SessionOptions options;
//   options.cpu_devices = 2;                 // two devices in this process
//   auto session = flowvm::Session::Create(options, graph_def);
//   std::vector<flowvm::Tensor> out;
//   Status s = (*session)->Run({{"x", x}}, {"y:0"}, {}, &out);
//
// Run(feeds, fetches, targets) is partial execution: each fed tensor replaces
// its producer's output, each fetch gets a fetch node, and the graph is pruned
// to what the fetches and targets need, optimized (common subexpressions,
// constant folding, Identity/NoOp relays), placed on the session's devices
// and cut into one partition per device with Send/Recv pairs. The prepared
// step is cached per (feeds, fetches, targets) signature, so repeating a
// signature does no graph work. Many threads may call Run on one session at
// once (concurrent steps).
//
// A session is made from a target: "" (or "local") is an in-process session
// that owns its devices, so its variables (VariableV2, in the containers of
// its devices' resource managers) are its own and die with it, as in
// TensorFlow's DirectSession. State is shared between clients by connecting
// them to the same server ("grpc://host:port", registered by the
// distributed layer).
#ifndef FLOWVM_SESSION_H_
#define FLOWVM_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flowvm/allocator.h"
#include "flowvm/config.pb.h"
#include "flowvm/credentials.h"
#include "flowvm/graph.pb.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"

namespace flowvm {

// Graph optimization passes run on each step's pruned graph (paper 5.1);
// each can be turned off.
struct OptimizerOptions {
  bool common_subexpression_elimination = true;
  bool constant_folding = true;
  bool remove_identity_chains = true;       // Identity and NoOp relays nothing needs
  int64_t max_folded_constant_bytes = 10 << 20;  // larger results are not folded
};

struct SessionOptions {
  // "" or "local": in-process. Other targets ("grpc://host:port") need the
  // factory that registered them.
  std::string target;
  // Size of the session's one thread pool (counting the thread that calls
  // Run). It runs independent nodes of a step in parallel and also the
  // shards of one large kernel (MatMul, Conv2D, a big element-wise op), so
  // the two kinds of parallelism never oversubscribe the machine; every
  // device of the session shares it.
  // 0: one per hardware thread. 1: everything runs on the calling thread.
  int num_threads = 0;
  // CPU devices of an in-process session (/job:localhost/replica:0/task:0/
  // device:CPU:0 ... N-1), each with its own allocator and resource manager.
  int cpu_devices = 1;
  // A node whose requested device does not exist (or cannot run it) goes
  // where it can instead of failing the step.
  bool allow_soft_placement = false;
  OptimizerOptions optimizer;
  // Tensor bytes one step may hold at once (in each process of a cluster),
  // so that one step cannot take the machine's memory; an allocation past
  // it fails the step with ResourceExhausted naming the node and this
  // limit. 0: no limit (a server's --max-step-memory-bytes still applies).
  int64_t max_step_memory_bytes = 0;
  // Delay each Recv until just before its consumers need it (paper 5.2).
  bool schedule_recvs = true;

  // Cluster sessions ("grpc://host:port") only:
  // TLS files and cluster token (flowvm/credentials.h); what is left empty
  // comes from FLOWVM_CLUSTER_TOKEN and FLOWVM_TLS_CA/_CERT/_KEY.
  ClusterCredentials credentials;
  // Only these tasks take part (TensorFlow's device filters), e.g.
  // {"/job:ps", "/job:worker/task:1"}; empty: every task of the cluster.
  std::vector<std::string> device_filters;
  // How long creating the session waits for every task to answer; the
  // error lists the tasks that did not.
  int64_t connect_timeout_ms = 30000;
  // Float32 tensors that cross processes travel as bfloat16 (paper 5.5):
  // half the bytes, about 3 significant digits.
  bool compress_float_transfers = false;
  // The same for these tensors only ("node:port"; "node" is port 0).
  std::vector<std::string> compressed_tensors;
  // While steps run, the master asks every task for its status this
  // often; a task that does not answer within the timeout (hung, or cut
  // off) or answers as a new incarnation (restarted) fails the running
  // steps with an error naming it. A dead task is found sooner, when its
  // connection closes.
  int64_t health_check_interval_ms = 2000;
  int64_t health_check_timeout_ms = 4000;
};

// What the runtime decided for one Run, for `flowvm run -v` and tests.
struct RunStats {
  int64_t step_id = 0;
  bool cache_hit = false;        // the prepared step was reused
  int graph_nodes = 0;           // nodes in the session's graph
  int executed_nodes = 0;        // nodes the step ran, in all partitions
  std::vector<std::string> pruned;  // graph nodes the step does not need
  int num_threads = 0;           // size of the pool the step could use
  int partitions = 0;            // devices the step ran on
  double prepare_ms = 0;         // graph work (0 on a cache hit)
  double run_ms = 0;
  // Cluster sessions: bytes of feeds and fetches that travelled beside the
  // step's messages, in chunks, because they did not fit in one (1 GiB by
  // default), summed over every hop (client, master, workers).
  int64_t out_of_band_bytes = 0;
  // Filled when the step was prepared (not on a cache hit):
  std::vector<std::string> optimizations;  // what each optimization pass did
  std::vector<std::string> placement;      // "node -> device (why)"
  std::vector<std::string> transfers;      // "a:0 CPU:0 -> CPU:1 (1 consumer)"
  std::vector<std::string> scheduled_recvs;  // Recvs delayed by scheduling
};

// One device of a session, with its allocator's statistics.
struct DeviceInfo {
  std::string name;  // /job:localhost/replica:0/task:0/device:CPU:0
  std::string type;  // CPU
  uint64_t incarnation = 0;
  AllocatorStats memory;
};

class Session {
 public:
  virtual ~Session() = default;

  // Validates the graph (ops, attrs, types, edges, cycles, static shapes,
  // and that some device of the session can run every node), then makes a
  // session for options.target.
  static StatusOr<std::unique_ptr<Session>> Create(const SessionOptions& options, const GraphDef& graph);

  // Adds nodes; they may refer to existing nodes. Cached steps stay valid.
  virtual Status Extend(const GraphDef& graph) = 0;

  // Feeds are "node:port" (or "node") -> tensor; fetches are "node:port";
  // targets are node names run for their effects. `outputs` receives one
  // tensor per fetch, in order (it may be null when there are no fetches).
  // `stats` may be null.
  virtual Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds, const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                     RunStats* stats = nullptr);
  // The same with TensorFlow's RunOptions: timeout_in_ms (the step is
  // cancelled everywhere with DeadlineExceeded naming what was still
  // running), trace_level (per-node step statistics of every device in
  // metadata->step_stats), output_partition_graphs. `metadata` may be null.
  virtual Status Run(const RunOptions& run_options, const std::vector<std::pair<std::string, Tensor>>& feeds,
                     const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                     std::vector<Tensor>* outputs, RunMetadata* metadata, RunStats* stats = nullptr) = 0;

  // The session's devices.
  virtual Status ListDevices(std::vector<DeviceInfo>* devices) = 0;

  // Drops every resource (variable values, ...) in the named containers of
  // every device of the session; "" is the default container. Steps running
  // meanwhile keep what they hold until they finish.
  virtual Status ResetContainers(const std::vector<std::string>& containers) = 0;

  // Cancels running steps (a step blocked in a Recv fails with Cancelled),
  // waits for them, then releases the graph. Later calls fail with
  // FailedPrecondition.
  virtual Status Close() = 0;

  // The session's current graph.
  virtual GraphDef graph_def() const = 0;
};

}  // namespace flowvm

#endif  // FLOWVM_SESSION_H_
