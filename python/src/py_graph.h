// _flowvm.Graph: the graph under construction behind a Python tf.Graph.
//
// Python keeps the naming, the scopes, the device and control-dependency
// stacks and the collections (as TensorFlow's Python layer does); this
// object keeps the nodes, validated as each is added (op, attrs, input
// types: the graph layer's GraphScope), and their static shapes (the shape
// refiner, one node at a time). Nodes are referred to by id. Symbolic
// gradients and GraphDef import/export run here too. Not thread-safe: the
// Python Graph serializes access (the GIL is held throughout).
#ifndef FLOWVM_PYTHON_PY_GRAPH_H_
#define FLOWVM_PYTHON_PY_GRAPH_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "graph/attr_value_util.h"
#include "graph/gradients.h"
#include "graph/graph.h"
#include "graph/graph_to_function.h"
#include "graph/graph_scope.h"
#include "graph/shape_inference.h"
#include "graph/tensor_id.h"
#include "py_errors.h"
#include "py_tensor.h"

namespace flowvm::python {

namespace py = pybind11;

// Python values <-> attr values and shapes (py_graph.cc).
DataType ToDataType(const py::handle& v);
PartialTensorShape ToShape(const py::handle& v);  // None: unknown rank; None dims unknown
py::object FromShape(const PartialTensorShape& s);
// `where` ("node 'x' (Placeholder)") starts every error message.
void SetAttrFromPython(const std::string& name, const std::string& type, const py::handle& v, AttrValue* out,
                       const std::string& where);
std::string GuessAttrType(const py::handle& v);
py::object AttrToPython(const AttrValue& a);

class PyGraph {
 public:
  PyGraph() : graph_(std::make_unique<Graph>()), root_(graph_.get()) {
    VersionDef v;
    v.set_producer(27);  // TensorFlow 1.x's GraphDef version range
    v.set_min_consumer(12);
    graph_->set_versions(v);
    refiner_.set_function_library(&graph_->library());
  }

  // inputs: one entry per input argument, each (id, index) or a list of them.
  int AddOp(const std::string& op, const std::string& name, const py::list& inputs, const py::dict& attrs,
            const std::string& device, const std::vector<int>& control_inputs) {
    auto reg = graph_->LookUpOp(op);
    ThrowIfError(reg.status());
    const OpDef& def = (*reg)->op_def;
    AttrMap attr_map;
    for (const auto& [k, v] : attrs) {
      const std::string key = py::str(k);
      std::string type;
      for (const auto& a : def.attr())
        if (a.name() == key) type = a.type();
      if (type.empty()) {
        if (key.empty() || key[0] != '_')
          ThrowIfError(errors::InvalidArgument("node '", name, "' (", op, "): op ", op, " has no attr '", key, "'"));
        type = GuessAttrType(v);
      }
      SetAttrFromPython(key, type, v, &attr_map[key], "node '" + name + "' (" + op + ")");
    }
    return AddOpWithAttrs(op, name, inputs, attr_map, device, control_inputs);
  }

  // A node like `src_id` of `src` (its op and attrs, but not the attrs
  // starting with "_", which refer to that graph) with new inputs: a copy
  // made in C++, so a large constant is never converted through Python
  // (a function body capturing by value).
  int CopyOp(const PyGraph& src, int src_id, const std::string& name, const py::list& inputs,
             const std::vector<int>& control_inputs) {
    const Node* from = src.NodeAt(src_id);
    AttrMap attr_map;
    for (const auto& [key, value] : from->def().attr())
      if (key.empty() || key[0] != '_') attr_map[key] = value;
    return AddOpWithAttrs(from->op(), name, inputs, attr_map, "", control_inputs);
  }

  int AddOpWithAttrs(const std::string& op, const std::string& name, const py::list& inputs, const AttrMap& attr_map,
                     const std::string& device, const std::vector<int>& control_inputs) {
    std::vector<OpInput> op_inputs;
    for (const py::handle& arg : inputs) {
      if (py::isinstance<py::list>(arg)) {
        std::vector<NodeOut> ts;
        for (const py::handle& t : arg) ts.push_back(ToNodeOut(t));
        op_inputs.push_back(OpInput::List(std::move(ts)));
      } else {
        op_inputs.emplace_back(ToNodeOut(arg));
      }
    }
    std::vector<Node*> deps;
    for (int id : control_inputs) deps.push_back(NodeAt(id));
    GraphScope s = root_.WithOpName(name).WithDevice(device).WithNoControlDependencies().WithControlDependencies(deps);
    Node* node = s.AddNode(op, op_inputs, attr_map);
    if (node == nullptr) {
      Status st = root_.status();
      root_.ClearStatus();
      RaiseStatus(st);
    }
    Status shaped = refiner_.InferNode(node);
    if (!shaped.ok()) {
      graph_->RemoveNode(node);
      RaiseStatus(shaped);
    }
    return node->id();
  }

  // Adds d(sum ys*grad_ys)/d(xs) in the name scope `prefix` (the caller's
  // "gradients" scope, already unique); one entry per x: (id, index), or
  // None where no differentiable path leads to a y (zeros instead when
  // zeros_for_unconnected). All or nothing: on an error no node stays.
  // `custom_gradient`: None, or a Python callable (op id, gradient name,
  // [dy refs or None], name scope) -> [dx refs or None] or None (declined),
  // for nodes whose _gradient_op_type names a gradient registered in
  // Python (tf.RegisterGradient, Defun's python_grad_func).
  py::list Gradients(const py::list& ys, const py::list& xs, const py::list& grad_ys, const std::string& prefix,
                     const std::string& device, const std::vector<int>& control_inputs, bool zeros_for_unconnected,
                     const py::object& custom_gradient) {
    std::vector<NodeOut> y, x, gy, out;
    for (const py::handle& t : ys) y.push_back(ToNodeOut(t));
    for (const py::handle& t : xs) x.push_back(ToNodeOut(t));
    for (const py::handle& t : grad_ys) gy.push_back(ToNodeOut(t));
    std::vector<Node*> deps;
    for (int id : control_inputs) deps.push_back(NodeAt(id));
    const int first_new = graph_->num_node_ids();
    GraphScope s = root_.WithExactNamePrefix(prefix).WithDevice(device).WithNoControlDependencies().WithControlDependencies(deps);
    SymbolicGradientOptions options;
    options.zeros_for_unconnected = zeros_for_unconnected;
    options.name_scope.clear();
    std::optional<py::error_already_set> python_error;  // raised by a Python gradient: re-raised as is
    if (!custom_gradient.is_none()) {
      options.custom_gradient = [this, &custom_gradient, &python_error](const GraphScope& scope, const Node& op,
                                                         const std::string& name, const std::vector<NodeOut>& dy,
                                                         std::vector<NodeOut>* dx, bool* handled) -> Status {
        py::list dys;
        for (const NodeOut& t : dy) {
          if (t.valid()) dys.append(py::make_tuple(t.node->id(), t.index));
          else dys.append(py::none());
        }
        py::object result;
        try {
          result = custom_gradient(op.id(), name, dys, scope.name_prefix(), scope.device());
        } catch (py::error_already_set& e) {
          python_error.emplace(std::move(e));
          return errors::Internal(op.label(), ": the Python gradient '", name, "' raised");
        }
        if (result.is_none()) {
          *handled = false;
          return Status::OK();
        }
        *handled = true;
        dx->clear();
        for (const py::handle& r : result) {
          if (r.is_none()) dx->push_back(NodeOut());
          else dx->push_back(ToNodeOut(r));
        }
        if (static_cast<int>(dx->size()) != op.num_inputs())
          return errors::InvalidArgument(op.label(), ": the Python gradient '", name, "' returned ", dx->size(),
                                         " gradients for ", op.num_inputs(), " inputs");
        return Status::OK();
      };
    }
    Status st = AddSymbolicGradients(s, y, x, gy, &out, options);
    root_.ClearStatus();
    if (st.ok()) st = InferFrom(first_new);
    if (!st.ok()) {
      for (int id = graph_->num_node_ids() - 1; id >= first_new; --id)
        if (Node* n = graph_->FindNodeId(id)) graph_->RemoveNode(n);
      if (python_error) throw std::move(*python_error);
      RaiseStatus(st);
    }
    py::list result;
    for (const NodeOut& g : out) {
      if (g.valid()) result.append(py::make_tuple(g.node->id(), g.index));
      else result.append(py::none());
    }
    return result;
  }

  // Adds a serialized FunctionDefLibrary (functions and gradients) to the
  // graph's library; InvalidArgument if a function of the same name is
  // defined differently there.
  void AddFunctionLibrary(const py::bytes& data) {
    FunctionDefLibrary lib;
    if (!lib.ParseFromString(std::string(data)))
      RaiseStatus(errors::InvalidArgument("the bytes are not a FunctionDefLibrary"));
    ThrowIfError(graph_->mutable_library()->AddLibrary(lib));
  }
  // The graph's library, serialized.
  py::bytes Library() const {
    FunctionDefLibrary lib;
    graph_->library().ToProto(&lib);
    return py::bytes(lib.SerializeAsString());
  }
  // Defined or declared.
  bool HasFunction(const std::string& name) const { return graph_->library().LookUpFunctionOp(name) != nullptr; }
  // A function's signature (an OpDef), serialized.
  py::bytes FunctionSignature(const std::string& name) const {
    const OpRegistrationData* reg = graph_->library().LookUpFunctionOp(name);
    if (reg == nullptr) RaiseStatus(errors::NotFound("function '", name, "' is not in the graph's library"));
    return py::bytes(reg->op_def.SerializeAsString());
  }
  // Declares a function by its signature (a serialized OpDef).
  void DeclareFunction(const py::bytes& data) {
    OpDef sig;
    if (!sig.ParseFromString(std::string(data))) RaiseStatus(errors::InvalidArgument("the bytes are not an OpDef"));
    ThrowIfError(graph_->mutable_library()->AddDeclaration(sig));
  }
  // This graph as the body of a function (graph/graph_to_function.h), as a
  // serialized FunctionDef.
  py::bytes ToFunctionDef(const std::string& name, const py::list& inputs, const std::vector<std::string>& input_names,
                          const py::list& outputs, const std::vector<std::string>& output_names,
                          const std::vector<int>& control_outputs, const std::vector<std::string>& control_names,
                          bool is_stateful) const {
    FunctionSignatureSpec spec;
    spec.name = name;
    for (const py::handle& t : inputs) spec.inputs.push_back(ToNodeOut(t));
    spec.input_names = input_names;
    for (const py::handle& t : outputs) spec.outputs.push_back(ToNodeOut(t));
    spec.output_names = output_names;
    for (int id : control_outputs) spec.control_outputs.push_back(NodeAt(id));
    spec.control_output_names = control_names;
    spec.is_stateful = is_stateful;
    FunctionDef fdef;
    ThrowIfError(GraphToFunctionDef(*graph_, spec, &fdef));
    return py::bytes(fdef.SerializeAsString());
  }

  // Adds the nodes of a serialized GraphDef (names and inputs already
  // rewritten by the caller: prefixes and input_map). All or nothing.
  std::vector<int> ImportGraphDef(const py::bytes& data) {
    GraphDef def;
    if (!def.ParseFromString(std::string(data)))
      RaiseStatus(errors::InvalidArgument("import_graph_def: the bytes are not a GraphDef"));
    const int first_new = graph_->num_node_ids();
    std::vector<Node*> added;
    // The functions first (they stay even if a node is refused).
    Status st = graph_->mutable_library()->AddLibrary(def.library());
    if (st.ok()) st = ImportNodes(def, &added);
    if (st.ok()) {
      std::vector<Node*> order;
      st = graph_->TopologicalOrder(&order);
      if (st.ok()) {
        for (Node* n : order)
          if (n->id() >= first_new && st.ok()) st = refiner_.InferNode(n);
      }
    }
    if (!st.ok()) {
      for (Node* n : added) graph_->RemoveNode(n);
      RaiseStatus(st);
    }
    std::vector<int> ids;
    for (Node* n : added) ids.push_back(n->id());
    return ids;
  }

  // The nodes with id >= first_id (all: 0), as a serialized GraphDef.
  py::bytes ToGraphDef(int first_id) const { return py::bytes(ToGraphDefString(first_id)); }
  std::string ToGraphDefString(int first_id) const {
    GraphDef def;
    graph_->ToGraphDef(first_id, &def);
    return def.SerializeAsString();
  }

  py::bytes NodeDefBytes(int id) const {
    NodeDef def;
    graph_->ToNodeDef(NodeAt(id), &def);
    return py::bytes(def.SerializeAsString());
  }

  int Find(const std::string& name) const {
    Node* n = graph_->FindNode(name);
    return n == nullptr ? -1 : n->id();
  }
  int NumNodeIds() const { return graph_->num_node_ids(); }
  std::string Name(int id) const { return NodeAt(id)->name(); }
  std::string Type(int id) const { return NodeAt(id)->op(); }
  std::string Device(int id) const { return NodeAt(id)->requested_device(); }
  int NumOutputs(int id) const { return NodeAt(id)->num_outputs(); }
  std::vector<int> OutputTypes(int id) const {
    std::vector<int> out;
    for (DataType t : NodeAt(id)->output_types()) out.push_back(static_cast<int>(t));
    return out;
  }
  std::vector<int> InputTypes(int id) const {
    std::vector<int> out;
    for (DataType t : NodeAt(id)->input_types()) out.push_back(static_cast<int>(t));
    return out;
  }
  py::list Inputs(int id) const {
    Node* n = NodeAt(id);
    py::list out;
    for (int i = 0; i < n->num_inputs(); ++i) {
      const Edge* e = n->input_edge(i);
      if (e == nullptr) out.append(py::none());
      else out.append(py::make_tuple(e->src()->id(), e->src_output()));
    }
    return out;
  }
  std::vector<int> ControlInputs(int id) const {
    std::vector<int> out;
    for (const Edge* e : NodeAt(id)->in_edges())
      if (e->IsControlEdge()) out.push_back(e->src()->id());
    return out;
  }
  // (consumer id, input index) of output `index`; control consumers with index -1.
  py::list Consumers(int id, int index) const {
    py::list out;
    for (const Edge* e : NodeAt(id)->out_edges()) {
      if (e->IsControlEdge()) {
        if (index < 0) out.append(py::make_tuple(e->dst()->id(), -1));
      } else if (e->src_output() == index) {
        out.append(py::make_tuple(e->dst()->id(), e->dst_input()));
      }
    }
    return out;
  }
  py::object OutputShape(int id, int index) const {
    Node* n = NodeAt(id);
    if (index < 0 || index >= n->num_outputs())
      RaiseStatus(errors::InvalidArgument(n->label(), " has no output ", index));
    const auto& shapes = refiner_.OutputShapes(id);
    if (index >= static_cast<int>(shapes.size())) return py::none();
    return FromShape(shapes[index]);
  }
  void MergeOutputShape(int id, int index, const py::object& shape) {
    ThrowIfError(refiner_.MergeOutputShape(NodeAt(id), index, ToShape(shape)));
  }
  py::object Attr(int id, const std::string& name) const {
    Node* n = NodeAt(id);
    const AttrValue* a = FindNodeAttr(n->def(), name);
    if (a == nullptr) RaiseStatus(errors::InvalidArgument(n->label(), " has no attr named '", name, "'"));
    return AttrToPython(*a);
  }
  std::vector<std::string> AttrNames(int id) const {
    std::vector<std::string> out;
    for (const auto& [k, v] : NodeAt(id)->def().attr()) out.push_back(k);
    return out;
  }
  void SetDevice(int id, const std::string& device) { graph_->SetRequestedDevice(NodeAt(id), device); }
  void SetPrivateAttr(int id, const std::string& name, const py::object& value) {
    AttrValue a;
    SetAttrFromPython(name, GuessAttrType(value), value, &a, NodeAt(id)->label());
    ThrowIfError(graph_->SetPrivateAttr(NodeAt(id), name, a));
  }
  void AddControlInput(int id, int src) { graph_->AddControlEdge(NodeAt(src), NodeAt(id)); }
  // Replaces data input `input` of node `id` (a loop's Merge gets its
  // NextIteration this way).
  void UpdateInput(int id, int input, const py::tuple& src) {
    Node* n = NodeAt(id);
    NodeOut s = ToNodeOut(src);
    if (input < 0 || input >= n->num_inputs())
      RaiseStatus(errors::InvalidArgument(n->label(), " has no input ", input));
    if (const Edge* e = n->input_edge(input)) graph_->RemoveEdge(e);
    ThrowIfError(graph_->AddEdge(s.node, s.index, n, input).status());
  }
  bool IsStateful(int id) const { return NodeAt(id)->is_stateful(); }

 private:
  Node* NodeAt(int id) const {
    Node* n = graph_->FindNodeId(id);
    if (n == nullptr) RaiseStatus(errors::InvalidArgument("no node with id ", id, " in this graph"));
    return n;
  }
  NodeOut ToNodeOut(const py::handle& t) const {
    auto tup = t.cast<py::tuple>();
    if (tup.size() != 2) RaiseStatus(errors::InvalidArgument("a tensor reference is (node id, output index)"));
    Node* n = NodeAt(tup[0].cast<int>());
    const int index = tup[1].cast<int>();
    if (index < 0 || index >= n->num_outputs())
      RaiseStatus(errors::InvalidArgument(n->label(), " has no output ", index));
    return NodeOut(n, index);
  }

  Status InferFrom(int first_id) {
    for (int id = first_id; id < graph_->num_node_ids(); ++id) {
      Node* n = graph_->FindNodeId(id);
      if (n != nullptr) FLOWVM_RETURN_IF_ERROR(refiner_.InferNode(n));
    }
    return Status::OK();
  }

  Status ImportNodes(const GraphDef& def, std::vector<Node*>* added) {
    std::unordered_map<std::string, Node*> by_name;
    for (const NodeDef& nd : def.node()) {
      if (graph_->FindNode(nd.name()) != nullptr)
        return errors::InvalidArgument("import_graph_def: node '", nd.name(), "' is already in the graph");
      FLOWVM_ASSIGN_OR_RETURN(Node * n, graph_->AddNode(nd));
      added->push_back(n);
    }
    for (int i = 0; i < def.node_size(); ++i) {
      const NodeDef& nd = def.node(i);
      Node* dst = (*added)[i];
      int slot = 0;
      for (const std::string& input : nd.input()) {
        auto tid = ParseTensorName(input);
        if (!tid.ok()) return errors::InvalidArgument(dst->label(), ": bad input '", input, "'");
        Node* src = graph_->FindNode(tid->node);
        if (src == nullptr)
          return errors::InvalidArgument(dst->label(), ": input '", input, "' refers to node '", tid->node,
                                         "', which is not in the graph");
        if (tid->is_control()) {
          graph_->AddControlEdge(src, dst);
        } else {
          FLOWVM_RETURN_IF_ERROR(graph_->AddEdge(src, tid->port, dst, slot).status());
          ++slot;
        }
      }
    }
    return Status::OK();
  }

  std::unique_ptr<Graph> graph_;
  GraphScope root_;
  ShapeRefiner refiner_;
};


void RegisterGraph(py::module_& m);

}  // namespace flowvm::python

#endif  // FLOWVM_PYTHON_PY_GRAPH_H_
