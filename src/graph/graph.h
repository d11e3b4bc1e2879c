// Graph: the in-memory dataflow graph. Nodes carry a validated NodeDef (with
// attr defaults filled in) and their resolved input/output types; edges are
// data edges (src:output -> dst:input) or control edges (ordering only).
//
// A Graph owns its nodes and edges. Pointers to them stay valid until they
// are removed or the graph is destroyed. Not thread-safe for mutation;
// concurrent readers are fine.
#ifndef FLOWVM_GRAPH_GRAPH_H_
#define FLOWVM_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "flowvm/graph.pb.h"
#include "flowvm/status.h"
#include "graph/function_library.h"
#include "graph/node_def_util.h"
#include "graph/op_registry.h"

namespace flowvm {

class Node;

class Edge {
 public:
  static constexpr int kControlSlot = -1;
  Node* src() const { return src_; }
  Node* dst() const { return dst_; }
  int src_output() const { return src_output_; }
  int dst_input() const { return dst_input_; }
  bool IsControlEdge() const { return src_output_ == kControlSlot; }
  // NextIteration -> Merge: the edge that closes a loop (paper 4.4). Graph
  // orders and validation ignore it; the executor feeds it to the next
  // iteration.
  bool IsBackEdge() const;
  int id() const { return id_; }

 private:
  friend class Graph;
  Node* src_ = nullptr;
  Node* dst_ = nullptr;
  int src_output_ = 0;
  int dst_input_ = 0;
  int id_ = -1;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& op() const { return def_.op(); }
  // The NodeDef without its input list (see Graph::ToGraphDef for that).
  const NodeDef& def() const { return def_; }
  const OpDef& op_def() const { return *op_def_; }
  const OpRegistrationData& op_reg() const { return *op_reg_; }
  const std::string& requested_device() const { return def_.device(); }
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string d) { assigned_device_ = std::move(d); }

  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const DataTypeVector& input_types() const { return input_types_; }
  const DataTypeVector& output_types() const { return output_types_; }
  bool is_stateful() const { return op_def_->is_stateful(); }

  // Control-flow ops (paper 4.4), Ref forms included, and the transfer ops.
  bool IsSwitch() const { return class_ == kSwitch; }
  bool IsMerge() const { return class_ == kMerge; }
  bool IsEnter() const { return class_ == kEnter; }
  bool IsExit() const { return class_ == kExit; }
  bool IsNextIteration() const { return class_ == kNextIteration; }
  bool IsLoopCond() const { return class_ == kLoopCond; }
  bool IsControlTrigger() const { return class_ == kControlTrigger; }
  bool IsSend() const { return class_ == kSend; }
  bool IsRecv() const { return class_ == kRecv; }
  // Any of the ops that make frames, iterations or dead values.
  bool IsControlFlow() const { return class_ >= kSwitch && class_ <= kControlTrigger; }

  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The edge feeding data input `i`, or nullptr if none is connected yet.
  const Edge* input_edge(int i) const;

  // "node 'name' (Op)".
  std::string label() const { return NodeLabel(def_); }

 private:
  friend class Graph;
  enum Class { kOther, kSwitch, kMerge, kEnter, kExit, kNextIteration, kLoopCond, kControlTrigger, kSend, kRecv };
  static Class ClassOf(const std::string& op);
  int id_ = -1;
  Class class_ = kOther;
  NodeDef def_;
  const OpRegistrationData* op_reg_ = nullptr;
  const OpDef* op_def_ = nullptr;
  DataTypeVector input_types_, output_types_;
  std::vector<const Edge*> in_edges_, out_edges_;
  std::string assigned_device_;
};

class Graph {
 public:
  // A graph with an empty function library of its own.
  explicit Graph(const OpRegistry* registry = OpRegistry::Global());
  // A graph whose nodes may call the functions of `library` (shared: the
  // graph of a function body uses the library of the graph it came from).
  explicit Graph(std::shared_ptr<FunctionLibraryDefinition> library);
  ~Graph();
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Looks up the op (a registered op, else a function of the library),
  // fills attr defaults, validates attrs and input count
  // (the NodeDef's input strings count, but are not connected: callers add
  // edges). Fails on a duplicate name.
  StatusOr<Node*> AddNode(NodeDef def);
  // AddNode for a node whose data inputs the caller connects afterwards
  // with AddEdge (graph rewrites, function bodies): the NodeDef's input
  // list is ignored, everything else is validated.
  StatusOr<Node*> AddNodeToConnect(NodeDef def);
  // Type-checks the connection; a ref output may feed a non-ref input of its
  // base type (it is read), never the reverse.
  StatusOr<const Edge*> AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* e);
  void RemoveNode(Node* node);  // and its edges
  // Edits of a node already added, for clients that decide them afterwards
  // (the Python front-end's device functions and colocation): the
  // requested device, and an attr the op does not declare ("_class").
  void SetRequestedDevice(Node* node, std::string device);
  Status SetPrivateAttr(Node* node, const std::string& name, const AttrValue& value);

  Node* FindNode(const std::string& name) const;
  Node* FindNodeId(int id) const { return id >= 0 && id < static_cast<int>(nodes_.size()) ? nodes_[id].get() : nullptr; }
  // Upper bound on node ids (some ids may be free after RemoveNode).
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  int num_nodes() const { return num_nodes_; }
  // Live nodes in id order.
  std::vector<Node*> nodes() const;

  // Whether AddNode accepts names beginning with '_' (the runtime's own
  // nodes). Off by default: user graphs keep TensorFlow's naming rule.
  void set_allow_internal_names(bool allow) { allow_internal_names_ = allow; }
  bool allow_internal_names() const { return allow_internal_names_; }

  const VersionDef& versions() const { return versions_; }
  void set_versions(const VersionDef& v) { versions_ = v; }
  const OpRegistry* registry() const { return registry_; }

  // The functions nodes may call (GraphDef.library).
  const FunctionLibraryDefinition& library() const { return *library_; }
  FunctionLibraryDefinition* mutable_library() { return library_.get(); }
  const std::shared_ptr<FunctionLibraryDefinition>& shared_library() const { return library_; }
  // A registered op, else a function of the library; NotFound naming the
  // op otherwise.
  StatusOr<const OpRegistrationData*> LookUpOp(const std::string& op) const;

  // Nodes in id order, inputs rebuilt from the edges: data inputs by slot,
  // then control inputs; the library if it is not empty.
  void ToGraphDef(GraphDef* out) const;
  // Only the nodes with id >= first_id (what a client that extends a
  // session with the nodes added since has to send).
  void ToGraphDef(int first_id, GraphDef* out) const;
  // One node, its inputs rebuilt the same way.
  void ToNodeDef(const Node* node, NodeDef* def) const;

  // A topological order, back edges (Edge::IsBackEdge) left out; if the
  // graph has any other cycle, InvalidArgument naming the nodes on one.
  Status TopologicalOrder(std::vector<Node*>* order) const;

 private:
  // Creates and links an edge; callers have checked it.
  const Edge* NewEdge(Node* src, int src_output, Node* dst, int dst_input);

  const OpRegistry* registry_;
  std::shared_ptr<FunctionLibraryDefinition> library_;
  std::vector<std::unique_ptr<Node>> nodes_;  // index = id; null when removed
  std::vector<std::unique_ptr<Edge>> edges_;  // index = id; null when removed
  std::unordered_map<std::string, Node*> by_name_;
  int num_nodes_ = 0;
  bool allow_internal_names_ = false;
  VersionDef versions_;
};

// How a NodeDef names output `port` of `node` as an input: "a" for port 0,
// "a:1", and "^a" for a control input (port Edge::kControlSlot).
std::string InputName(const Node* node, int port);
// The same for the source of an edge.
inline std::string InputName(const Edge* e) { return InputName(e->src(), e->src_output()); }

// `base`, or `base_1`, `base_2`, ...: the first name no node of `graph` has.
std::string UniqueNodeName(const Graph& graph, const std::string& base);

// Builds `graph` (which must be empty) from `def`: adds def.library to the
// graph's library (InvalidArgument naming a function that is malformed or
// defined differently there already), validates every node
// (op, attrs, input count, types of every edge, dangling inputs, duplicate
// names; names beginning with '_' only if the graph allows internal names)
// and rejects cycles other than loops (graph/control_flow.h). Errors name
// the node involved.
Status ConvertGraphDefToGraph(const GraphDef& def, Graph* graph);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_GRAPH_H_
