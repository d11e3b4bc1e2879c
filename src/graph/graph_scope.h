// GraphScope: adds nodes to a Graph under a name scope, a device and a set
// of control dependencies, the way TensorFlow's cc/ Scope does. It is the
// one node-building mechanism below the client API: gradient functions
// (ops/) and the C++ client API (cc/) both build through it.
//
//   GraphScope root(&graph);
//   GraphScope g = root.NewSubScope("gradients");
//   NodeOut y = g.Op("Mul", {a, b});              // T inferred from a and b
//   NodeOut s = g.Op("Sum", {y, axes}, {{"keep_dims", MakeAttrValue(true)}});
//
// Type attrs (T, N, type lists) are inferred from the inputs; every other
// attr without a default must be given. Errors are sticky: the first failure
// is recorded in the scope (shared by all scopes derived from the same root)
// and later adds return invalid outputs, so builders check status() once at
// the end. A GraphScope is a cheap value; scopes derived from one root share
// the graph, the status and the name counters, and are not thread-safe.
#ifndef FLOWVM_GRAPH_GRAPH_SCOPE_H_
#define FLOWVM_GRAPH_GRAPH_SCOPE_H_

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "flowvm/attr_value.pb.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "graph/attr_value_util.h"
#include "graph/graph.h"

namespace flowvm {

// One output of a node. A default NodeOut is "no tensor" (e.g. an input
// that has no gradient).
struct NodeOut {
  Node* node = nullptr;
  int index = 0;

  NodeOut() = default;
  NodeOut(Node* n, int i = 0) : node(n), index(i) {}  // NOLINT: implicit
  bool valid() const { return node != nullptr; }
  DataType dtype() const;  // the output's type, ref types included
  std::string name() const;  // "node:index"
  bool operator==(const NodeOut& o) const { return node == o.node && index == o.index; }
};

// One input argument of an op: a single tensor, or a list for "N * T" and
// type-list arguments.
struct OpInput {
  OpInput(NodeOut t) : tensors{t} {}  // NOLINT: implicit
  OpInput(Node* n) : tensors{NodeOut(n)} {}  // NOLINT: implicit
  static OpInput List(std::vector<NodeOut> ts) {
    OpInput in(NodeOut{});
    in.tensors = std::move(ts);
    in.is_list = true;
    return in;
  }
  std::vector<NodeOut> tensors;
  bool is_list = false;
};

using AttrMap = std::map<std::string, AttrValue>;

class GraphScope {
 public:
  // The root scope of `graph`, which must outlive every derived scope.
  explicit GraphScope(Graph* graph);

  Graph* graph() const;
  bool ok() const;
  Status status() const;
  // Records `s` if it is the first error.
  void UpdateStatus(const Status& s) const;
  // Forgets the recorded error, for a client that reports each failed add
  // as it happens and goes on building (the Python front-end).
  void ClearStatus() const;

  // A child name scope "<prefix>/<name>", made unique ("name_1", ...) when
  // the same child was opened before or a node already has that name.
  GraphScope NewSubScope(std::string_view name) const;
  // A name scope of exactly `prefix` (not made unique), for nodes that
  // belong to an existing node, such as a variable's "w/Assign".
  GraphScope WithExactNamePrefix(std::string_view prefix) const;
  // The next node added through the returned scope gets exactly this name
  // (under the name scope); a clash is an error.
  GraphScope WithOpName(std::string_view name) const;
  GraphScope WithDevice(std::string_view device) const;
  // Every node added through the returned scope gets control inputs from
  // `deps`, in addition to the ones already in scope.
  GraphScope WithControlDependencies(const std::vector<Node*>& deps) const;
  GraphScope WithNoControlDependencies() const;

  const std::string& name_prefix() const { return prefix_; }
  const std::string& device() const { return device_; }
  const std::vector<Node*>& control_deps() const { return control_deps_; }

  // The name the next node would get: the WithOpName name, else a unique
  // name made from `default_name`, under the name scope.
  std::string UniqueNodeName(std::string_view default_name) const;

  // Adds a node of `op` with these inputs and attrs (see the file comment).
  // Returns null (recording the error, which names the node) on failure or
  // when the scope already has an error.
  Node* AddNode(std::string_view op, const std::vector<OpInput>& inputs, const AttrMap& attrs = {}) const;
  // AddNode, then its output 0 (an invalid NodeOut on failure).
  NodeOut Op(std::string_view op, const std::vector<OpInput>& inputs, const AttrMap& attrs = {}) const;

 private:
  struct Shared;
  GraphScope() = default;
  std::string MakeUnique(const std::string& base) const;

  std::shared_ptr<Shared> shared_;
  std::string prefix_;    // "" or "a/b"
  std::string op_name_;   // from WithOpName; empty when not set
  std::string device_;
  std::vector<Node*> control_deps_;
};

// A Const node holding `value` (its dtype attr from the tensor).
NodeOut ConstOp(const GraphScope& scope, const Tensor& value);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_GRAPH_SCOPE_H_
