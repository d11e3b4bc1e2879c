#include "distributed/graph_limits.h"

namespace flowvm {

Status GraphLimits::Check(int64_t nodes, int64_t bytes, const std::string& what, const std::string& task) const {
  if (nodes > max_nodes)
    return errors::ResourceExhausted(what, " has ", nodes, " nodes, more than the ", max_nodes, " task ", task,
                                     " accepts (its limit max_graph_nodes)");
  if (bytes > max_bytes)
    return errors::ResourceExhausted(what, " is ", bytes, " bytes as a GraphDef, more than the ", max_bytes,
                                     " task ", task, " accepts (its limit max_graph_bytes)");
  return Status::OK();
}

}  // namespace flowvm
