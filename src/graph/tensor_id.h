// Parsing the names by which NodeDef inputs and Run() feeds/fetches refer to
// tensors: "node:port", "node" (port 0) and "^node" (a control input).
#ifndef FLOWVM_GRAPH_TENSOR_ID_H_
#define FLOWVM_GRAPH_TENSOR_ID_H_

#include <string>
#include <string_view>

#include "flowvm/status.h"

namespace flowvm {

struct TensorId {
  std::string node;
  int port = 0;  // kControlPort for "^node"
  static constexpr int kControlPort = -1;

  bool is_control() const { return port == kControlPort; }
  std::string ToString() const;  // "node:1", "^node"
  bool operator==(const TensorId& o) const { return node == o.node && port == o.port; }
};

// Parses "node", "node:3" or "^node". A trailing ":digits" is a port only if
// it parses as a non-negative int; names may themselves contain ':' otherwise.
StatusOr<TensorId> ParseTensorName(std::string_view name);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_TENSOR_ID_H_
