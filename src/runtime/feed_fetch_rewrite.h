// Partial execution (paper section 4.2): rewrites a graph for one
// Run(feeds, fetches, targets) signature. Each fed tensor is replaced by an
// `_Arg` node, each fetch gets a `_Retval` node, and every node that neither
// a fetch nor a target needs is removed.
#ifndef FLOWVM_RUNTIME_FEED_FETCH_REWRITE_H_
#define FLOWVM_RUNTIME_FEED_FETCH_REWRITE_H_

#include <string>
#include <vector>

#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "flowvm/tensor_shape.h"
#include "graph/graph.h"

namespace flowvm {

struct FeedSpec {
  std::string name;            // canonical "node:port"
  DataType dtype = DT_INVALID;  // what the graph expects there
  PartialTensorShape shape;    // a Placeholder's declared shape, else unknown
  bool is_placeholder = false;
};

struct RewriteResult {
  std::vector<FeedSpec> feeds;
  std::vector<std::string> pruned;  // names of the removed nodes
};

// Errors: NotFound for a feed, fetch or target naming no node;
// InvalidArgument for a bad port, a duplicate feed, or a feed whose value a
// consumer the step needs takes by reference (consumers that are pruned do
// not matter).
// The fed values match what the graph expects there (dtype; a
// placeholder's shape). `feeds` are in the order of `specs`.
Status CheckFeedValues(const std::vector<FeedSpec>& specs,
                       const std::vector<std::pair<std::string, Tensor>>& feeds);

Status RewriteGraphForRun(Graph* graph, const std::vector<std::string>& feeds,
                          const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                          RewriteResult* result);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_FEED_FETCH_REWRITE_H_
