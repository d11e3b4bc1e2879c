// GraphLimits: how large a graph a server accepts from one client
// (ServerLimits in flowvm/server.h), checked where graphs arrive: a
// session's graph at the master, a partition at a worker.
#ifndef FLOWVM_DISTRIBUTED_GRAPH_LIMITS_H_
#define FLOWVM_DISTRIBUTED_GRAPH_LIMITS_H_

#include <cstdint>
#include <string>

#include "flowvm/graph.pb.h"
#include "flowvm/status.h"

namespace flowvm {

struct GraphLimits {
  int64_t max_bytes = int64_t{1} << 30;
  int64_t max_nodes = int64_t{4} << 20;

  // ResourceExhausted naming `what` ("the graph of session 1a2b") and the
  // limit it exceeds, when `nodes` or `bytes` is over.
  Status Check(int64_t nodes, int64_t bytes, const std::string& what, const std::string& task) const;
  Status Check(const GraphDef& graph, const std::string& what, const std::string& task) const {
    return Check(graph.node_size(), static_cast<int64_t>(graph.ByteSizeLong()), what, task);
  }
};

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_GRAPH_LIMITS_H_
