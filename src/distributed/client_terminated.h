// Feeds and fetches of a cluster step travel as client-terminated
// Send/Recv (paper 3.2), not through an in-memory call frame: in each
// partition the step's `_Arg` nodes become `_Recv`s and its `_Retval`s
// `_Send`s (client_terminated = true), under keys the master puts into
// RunGraph (feeds) and asks back from it (fetches). Both ends of such a key
// name the partition's own device, so no device-to-device transfer ever
// has the same key.
#ifndef FLOWVM_DISTRIBUTED_CLIENT_TERMINATED_H_
#define FLOWVM_DISTRIBUTED_CLIENT_TERMINATED_H_

#include <string>
#include <utility>
#include <vector>

#include "flowvm/graph.pb.h"
#include "flowvm/status.h"

namespace flowvm {

struct ClientKeys {
  // (feed or fetch index, rendezvous key)
  std::vector<std::pair<int, std::string>> feeds;
  std::vector<std::pair<int, std::string>> fetches;
};

// Rewrites `partition` (the nodes of `device`, whose incarnation is given)
// in place and appends its keys. InvalidArgument if an index is out of
// range of the names.
Status MakeClientTerminated(const std::string& device, uint64_t incarnation, const std::vector<std::string>& feeds,
                            const std::vector<std::string>& fetches, GraphDef* partition, ClientKeys* keys);

// Whether `graph` (the partitions of `task`, "/job:J/replica:0/task:I")
// sends a tensor to another task: only then may a peer ask `task` for a
// tensor of a step. A task whose graph does not keeps no state of a step
// after its RunGraph ends, and its master sends it no CleanupGraph for
// steps that succeeded (worker.h). Master and worker both decide from the
// registered graph with this function, so they agree.
bool SendsToOtherTasks(const GraphDef& graph, const std::string& task);

}  // namespace flowvm

#endif  // FLOWVM_DISTRIBUTED_CLIENT_TERMINATED_H_
