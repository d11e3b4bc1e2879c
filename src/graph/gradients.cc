#include "graph/gradients.h"

#include <deque>
#include <map>
#include <set>
#include <unordered_map>

#include "graph/attr_value_util.h"
#include "graph/control_flow.h"
#include "graph/function_body.h"
#include "graph/function_gradient.h"
#include "graph/gradient_registry.h"
#include "graph/while_gradients.h"

namespace flowvm {

bool IsDifferentiableType(DataType dtype) {
  DataType t = BaseType(dtype);
  return DataTypeIsFloating(t) || DataTypeIsComplex(t);
}

namespace {

class SymbolicGradientBuilder {
 public:
  SymbolicGradientBuilder(const GraphScope& scope, const std::vector<NodeOut>& ys, const std::vector<NodeOut>& xs,
                          const std::vector<NodeOut>& grad_ys, const SymbolicGradientOptions& options)
      : scope_(options.name_scope.empty() ? scope : scope.NewSubScope(options.name_scope)),
        ys_(ys),
        xs_(xs),
        grad_ys_(grad_ys),
        custom_(options.custom_gradient) {}

  Status Run(std::vector<NodeOut>* grad_xs, bool zeros_for_unconnected);

 private:
  Status Validate() const;
  void MarkPath();
  // The sum of the partial gradients of `t` (invalid if there are none).
  NodeOut SumPartials(const NodeOut& t);
  Status Backprop(Node* node);
  // A loop (a frame below the root) is differentiated as one unit: its
  // Exits' gradients in, its Enters' gradients out (graph/while_gradients.h).
  Status BackpropLoop(int frame);
  // The node id, or for a node inside a loop, the id of that loop's unit.
  int Owner(int id) const { return top_.empty() || top_[id] == 0 ? id : num_ids_ + top_[id]; }
  void Done(int owner);
  void AddPartial(const NodeOut& t, const NodeOut& grad) { partials_[Key(t)].push_back(grad); }
  static std::pair<int, int> Key(const NodeOut& t) { return {t.node->id(), t.index}; }

  GraphScope scope_;
  CustomGradientFn custom_;
  const std::vector<NodeOut>& ys_;
  const std::vector<NodeOut>& xs_;
  const std::vector<NodeOut>& grad_ys_;
  std::vector<bool> on_path_;   // by node id
  std::vector<int> pending_;    // by node id: on-path consumers not yet processed
  std::map<std::pair<int, int>, std::vector<NodeOut>> partials_;
  std::map<std::pair<int, int>, NodeOut> x_grads_;  // the summed gradient of each x
  std::deque<Node*> ready_;
  std::deque<int> ready_loops_;  // frames
  ControlFlowInfo cf_;
  std::vector<int> top_;  // by node id: the loop below the root it is in (0: none)
  int num_ids_ = 0;
};

Status SymbolicGradientBuilder::Validate() const {
  if (ys_.empty()) return errors::InvalidArgument("AddSymbolicGradients: no ys given");
  if (!grad_ys_.empty() && grad_ys_.size() != ys_.size())
    return errors::InvalidArgument("AddSymbolicGradients: ", ys_.size(), " ys but ", grad_ys_.size(), " grad_ys");
  for (size_t i = 0; i < ys_.size(); ++i) {
    if (!ys_[i].valid()) return errors::InvalidArgument("AddSymbolicGradients: ys[", i, "] is not set");
    if (!IsDifferentiableType(ys_[i].dtype()))
      return errors::InvalidArgument("AddSymbolicGradients: y '", ys_[i].name(), "' is ",
                                     DataTypeName(ys_[i].dtype()),
                                     "; only floating-point and complex tensors have gradients");
    if (!grad_ys_.empty()) {
      if (!grad_ys_[i].valid()) return errors::InvalidArgument("AddSymbolicGradients: grad_ys[", i, "] is not set");
      if (BaseType(grad_ys_[i].dtype()) != BaseType(ys_[i].dtype()))
        return errors::InvalidArgument("AddSymbolicGradients: grad_ys[", i, "] '", grad_ys_[i].name(), "' is ",
                                       DataTypeName(grad_ys_[i].dtype()), " but y '", ys_[i].name(), "' is ",
                                       DataTypeName(ys_[i].dtype()));
    }
  }
  for (size_t i = 0; i < xs_.size(); ++i) {
    if (!xs_[i].valid()) return errors::InvalidArgument("AddSymbolicGradients: xs[", i, "] is not set");
    if (!IsDifferentiableType(xs_[i].dtype()))
      return errors::InvalidArgument("AddSymbolicGradients: x '", xs_[i].name(), "' is ",
                                     DataTypeName(xs_[i].dtype()),
                                     "; only floating-point and complex tensors have gradients");
  }
  return Status::OK();
}

void SymbolicGradientBuilder::MarkPath() {
  Graph* g = scope_.graph();
  int n = g->num_node_ids();
  std::vector<bool> from_xs(n, false), to_ys(n, false);
  std::vector<Node*> stack;
  for (const NodeOut& x : xs_)
    if (!from_xs[x.node->id()]) from_xs[x.node->id()] = true, stack.push_back(x.node);
  while (!stack.empty()) {
    Node* v = stack.back();
    stack.pop_back();
    for (const Edge* e : v->out_edges())
      if (!e->IsControlEdge() && !from_xs[e->dst()->id()]) from_xs[e->dst()->id()] = true, stack.push_back(e->dst());
  }
  for (const NodeOut& y : ys_)
    if (!to_ys[y.node->id()]) to_ys[y.node->id()] = true, stack.push_back(y.node);
  while (!stack.empty()) {
    Node* v = stack.back();
    stack.pop_back();
    for (const Edge* e : v->in_edges())
      if (!e->IsControlEdge() && !to_ys[e->src()->id()]) to_ys[e->src()->id()] = true, stack.push_back(e->src());
  }
  on_path_.assign(n, false);
  for (int i = 0; i < n; ++i) on_path_[i] = from_xs[i] && to_ys[i];
  num_ids_ = n;
  pending_.assign(n + cf_.frames.size(), 0);
  for (int i = 0; i < n; ++i) {
    if (!on_path_[i]) continue;
    for (const Edge* e : g->FindNodeId(i)->out_edges())
      if (!e->IsControlEdge() && on_path_[e->dst()->id()] && Owner(e->dst()->id()) != Owner(i)) ++pending_[Owner(i)];
  }
}

NodeOut SymbolicGradientBuilder::SumPartials(const NodeOut& t) {
  auto it = partials_.find(Key(t));
  if (it == partials_.end() || it->second.empty()) return NodeOut();
  const std::vector<NodeOut>& parts = it->second;
  if (parts.size() == 1) return parts[0];
  return scope_.NewSubScope(t.node->name() + "_grad_sum").Op("AddN", {OpInput::List(parts)});
}

Status SymbolicGradientBuilder::Backprop(Node* node) {
  std::vector<NodeOut> dy(node->num_outputs());
  bool any = false;
  for (int k = 0; k < node->num_outputs(); ++k) {
    dy[k] = SumPartials(NodeOut(node, k));
    any = any || dy[k].valid();
  }
  for (const NodeOut& x : xs_)
    if (x.node == node) x_grads_[Key(x)] = dy[x.index];

  bool has_path_inputs = false;
  for (const Edge* e : node->in_edges())
    if (!e->IsControlEdge() && on_path_[e->src()->id()]) has_path_inputs = true;

  std::vector<NodeOut> dx;
  if (any && has_path_inputs && node->IsEnter()) {
    dx = {dy[0]};  // the loop's unit gave the gradient of what entered it
  } else if (any && has_path_inputs) {
    // Which gradient: one named by the node (_gradient_op_type), the
    // gradient of a function it calls, or its op's.
    std::string override_name;
    const bool has_override = GetNodeAttr(node->def(), "_gradient_op_type", &override_name).ok();
    const FunctionLibraryDefinition& library = scope_.graph()->library();
    NameAttrList func;
    bool calls_function = false;
    if (!has_override && library.Contains(node->op())) {
      func = CallAttrs(node->def(), node->op());
      calls_function = true;
    }
    bool no_gradient = false;
    const GradFunc* fn = nullptr;
    if (has_override) {
      fn = GradientRegistry::Global()->LookUp(override_name, &no_gradient);
    } else if (!calls_function) {
      fn = GradientRegistry::Global()->LookUp(node->op(), &no_gradient);
    }
    // Gradients the C++ registry lacks may come from the client's own
    // registry (Python's tf.RegisterGradient), by override name or op type.
    const bool custom = fn == nullptr && !no_gradient && !calls_function && custom_;
    const std::string custom_name = has_override ? override_name : node->op();
    if (fn == nullptr && !no_gradient && !calls_function && !custom) {
      if (has_override)
        return errors::NotFound(node->label(), ": its _gradient_op_type attr names gradient '", override_name,
                                "', which is not registered");
      return errors::NotFound(node->label(), ": no gradient is defined for op '", node->op(),
                              "', which lies on the path from the xs to the ys");
    }
    if (fn != nullptr || calls_function || custom) {
      // The gradient functions follow TensorFlow's formulas for real types;
      // complex ones need conjugates (Conj), which flowvm does not have yet.
      // Refuse rather than return a silently wrong gradient.
      for (DataType t : node->input_types())
        if (DataTypeIsComplex(BaseType(t)))
          return errors::Unimplemented(node->label(), ": gradients of complex tensors are not supported yet");
      for (DataType t : node->output_types())
        if (DataTypeIsComplex(BaseType(t)))
          return errors::Unimplemented(node->label(), ": gradients of complex tensors are not supported yet");
      GraphScope op_scope = scope_.NewSubScope(node->name() + "_grad").WithDevice(node->requested_device());
      for (int k = 0; k < node->num_outputs(); ++k) {
        if (dy[k].valid() || !IsDifferentiableType(node->output_type(k))) continue;
        dy[k] = op_scope.Op("ZerosLike", {NodeOut(node, k)});
      }
      FLOWVM_RETURN_IF_ERROR(scope_.status());
      Status s;
      if (fn != nullptr) {
        s = (*fn)(op_scope, *node, dy, &dx);
      } else if (calls_function) {
        s = AddFunctionCallGradient(op_scope, *node, func, dy, &dx);
      } else {
        bool handled = false;
        s = custom_(op_scope, *node, custom_name, dy, &dx, &handled);
        if (s.ok() && !handled)
          s = has_override ? errors::NotFound(node->label(), ": its _gradient_op_type attr names gradient '",
                                              override_name, "', which is not registered")
                           : errors::NotFound(node->label(), ": no gradient is defined for op '", node->op(),
                                              "', which lies on the path from the xs to the ys");
      }
      if (s.ok()) s = scope_.status();
      if (!s.ok()) return AttachNode(s, node->def());
      if (static_cast<int>(dx.size()) != node->num_inputs())
        return errors::Internal(node->label(), ": its gradient function returned ", dx.size(),
                                " gradients for ", node->num_inputs(), " inputs");
    }
  }
  for (const Edge* e : node->in_edges()) {
    if (e->IsControlEdge()) continue;
    Node* src = e->src();
    if (!on_path_[src->id()]) continue;
    if (e->dst_input() < static_cast<int>(dx.size())) {
      const NodeOut& grad = dx[e->dst_input()];
      DataType src_type = src->output_type(e->src_output());
      if (grad.valid() && IsDifferentiableType(src_type)) {
        if (BaseType(grad.dtype()) != BaseType(src_type))
          return errors::Internal(node->label(), ": the gradient of input ", e->dst_input(), " is ",
                                  DataTypeName(grad.dtype()), " but the input is ", DataTypeName(src_type));
        AddPartial(NodeOut(src, e->src_output()), grad);
      }
    }
    if (Owner(src->id()) != Owner(node->id()) && --pending_[Owner(src->id())] == 0) Done(Owner(src->id()));
  }
  return Status::OK();
}

void SymbolicGradientBuilder::Done(int owner) {
  if (owner < num_ids_) ready_.push_back(scope_.graph()->FindNodeId(owner));
  else ready_loops_.push_back(owner - num_ids_);
}

Status SymbolicGradientBuilder::BackpropLoop(int frame) {
  Graph* g = scope_.graph();
  std::map<const Node*, NodeOut> exit_grads, enter_grads;
  std::vector<Node*> members;
  for (int i = 0; i < num_ids_; ++i) {
    if (!on_path_[i] || top_[i] != frame) continue;
    Node* n = g->FindNodeId(i);
    members.push_back(n);
    if (n->IsExit()) exit_grads[n] = SumPartials(NodeOut(n, 0));
  }
  // A loop none of whose outputs got a gradient (cut by StopGradient,
  // integer outputs) passes none back: its inputs are not connected
  // through it, rather than connected with zeros.
  bool any_exit_grad = false;
  for (const auto& [exit, grad] : exit_grads) any_exit_grad |= grad.valid();
  if (any_exit_grad) FLOWVM_RETURN_IF_ERROR(AddWhileLoopGradient(scope_, cf_, frame, exit_grads, &enter_grads));
  for (auto& [enter, grad] : enter_grads)
    if (grad.valid() && on_path_[enter->id()]) AddPartial(NodeOut(const_cast<Node*>(enter), 0), grad);
  for (Node* n : members)
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge() || e->src()->id() >= num_ids_ || !on_path_[e->src()->id()]) continue;
      const int o = Owner(e->src()->id());
      if (o != Owner(n->id()) && --pending_[o] == 0) Done(o);
    }
  return scope_.status();
}

Status SymbolicGradientBuilder::Run(std::vector<NodeOut>* grad_xs, bool zeros_for_unconnected) {
  FLOWVM_RETURN_IF_ERROR(scope_.status());
  FLOWVM_RETURN_IF_ERROR(Validate());
  if (HasControlFlow(*scope_.graph())) {
    FLOWVM_RETURN_IF_ERROR(BuildControlFlowInfo(*scope_.graph(), &cf_));
    top_.assign(cf_.frame_of.size(), 0);
    for (size_t i = 0; i < cf_.frame_of.size(); ++i) {
      int f = cf_.frame_of[i];
      while (f > 0 && cf_.frames[f].parent > 0) f = cf_.frames[f].parent;
      top_[i] = f < 0 ? 0 : f;
    }
    for (const NodeOut& y : ys_)
      if (top_[y.node->id()] != 0 && !(y.node->IsExit() && cf_.frames[cf_.frame_of[y.node->id()]].parent == 0))
        return errors::Unimplemented("AddSymbolicGradients: y '", y.name(), "' is inside loop '",
                                     cf_.frames[top_[y.node->id()]].name, "'; differentiate the loop's outputs");
  }
  MarkPath();
  for (size_t i = 0; i < ys_.size(); ++i) {
    const NodeOut& y = ys_[i];
    if (!on_path_[y.node->id()]) continue;
    NodeOut seed = grad_ys_.empty() ? scope_.Op("OnesLike", {y}) : grad_ys_[i];
    AddPartial(y, seed);
  }
  FLOWVM_RETURN_IF_ERROR(scope_.status());
  std::set<int> started;
  for (int i = 0; i < static_cast<int>(on_path_.size()); ++i)
    if (on_path_[i] && pending_[Owner(i)] == 0 && started.insert(Owner(i)).second) Done(Owner(i));
  while (!ready_.empty() || !ready_loops_.empty()) {
    if (!ready_.empty()) {
      Node* node = ready_.front();
      ready_.pop_front();
      FLOWVM_RETURN_IF_ERROR(Backprop(node));
    } else {
      const int frame = ready_loops_.front();
      ready_loops_.pop_front();
      FLOWVM_RETURN_IF_ERROR(BackpropLoop(frame));
    }
  }
  grad_xs->clear();
  for (const NodeOut& x : xs_) {
    auto it = x_grads_.find(Key(x));
    NodeOut g = it == x_grads_.end() ? NodeOut() : it->second;
    if (!g.valid() && zeros_for_unconnected)
      g = scope_.NewSubScope(x.node->name() + "_grad").Op("ZerosLike", {x});
    grad_xs->push_back(g);
  }
  return scope_.status();
}

}  // namespace

Status AddSymbolicGradients(const GraphScope& scope, const std::vector<NodeOut>& ys, const std::vector<NodeOut>& xs,
                            const std::vector<NodeOut>& grad_ys, std::vector<NodeOut>* grad_xs,
                            const SymbolicGradientOptions& options) {
  SymbolicGradientBuilder builder(scope, ys, xs, grad_ys, options);
  return builder.Run(grad_xs, options.zeros_for_unconnected);
}

}  // namespace flowvm
