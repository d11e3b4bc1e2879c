#include "runtime/passes/lower_functional_ops.h"

#include "graph/attr_value_util.h"
#include "graph/function_body.h"
#include "graph/function_library.h"
#include "runtime/passes/inline_body.h"

namespace flowvm {

namespace {

using Attrs = std::map<std::string, AttrValue>;

Attrs TypeAttr(DataType t) { return {{"T", MakeAttrValue(BaseType(t))}}; }

class Lowering {
 public:
  Lowering(Graph* graph, Node* node)
      : g_(graph), n_(node), prefix_(node->name()), device_(node->requested_device()) {
    const auto& callers = node->def().experimental_debug_info().original_func_names();
    callers_.assign(callers.begin(), callers.end());
  }

  Status Run() {
    Status s;
    const std::string& op = n_->op();
    if (op == "If" || op == "StatelessIf") s = LowerIf();
    else if (op == "Case" || op == "StatelessCase") s = LowerCase();
    else s = LowerWhile();
    if (!s.ok()) return AttachNode(s, n_->def());
    return Rewire();
  }

 private:
  StatusOr<Node*> Glue(const std::string& name, const std::string& op, const std::vector<NodeOut>& inputs,
                       const Attrs& attrs) {
    FLOWVM_ASSIGN_OR_RETURN(Node * made, AddGlueNode(g_, prefix_ + "/" + name, op, inputs, attrs, device_));
    // The node's own control inputs hold back everything the lowering
    // starts from.
    if (op == "Switch" || op == "Enter")
      for (Node* c : control_inputs_) g_->AddControlEdge(c, made);
    return made;
  }

  StatusOr<std::unique_ptr<FunctionBody>> Body(const NameAttrList& f) {
    return InstantiateFunction(g_->shared_library(), f);
  }

  Status CheckArity(const FunctionBody& body, const std::vector<NodeOut>& args, size_t results,
                    const std::string& role) {
    if (body.arg_types.size() != args.size() || body.ret_types.size() != results)
      return errors::InvalidArgument(role, " function '", body.name, "' takes ", body.arg_types.size(),
                                     " arguments and returns ", body.ret_types.size(), " results, but the node gives ",
                                     args.size(), " and needs ", results);
    for (size_t i = 0; i < args.size(); ++i)
      if (BaseType(args[i].dtype()) != body.arg_types[i])
        return errors::InvalidArgument(role, " function '", body.name, "': argument ", body.arg_names[i], " is ",
                                       DataTypeName(body.arg_types[i]), " but the node passes ",
                                       DataTypeName(args[i].dtype()));
    return Status::OK();
  }

  Status Inline(const FunctionBody& body, const std::string& name, const std::vector<NodeOut>& args,
                Node* control, InlinedBody* out) {
    InlineSite site;
    site.prefix = prefix_ + "/" + name;
    site.device = device_;
    site.caller_functions = callers_;
    site.args = args;
    site.input_control = control;
    return CopyBodyInto(g_, body, site, out);
  }

  // A node that is live exactly when `branch` ran, after its side effects.
  StatusOr<Node*> BranchDone(const std::string& name, Node* pivot, const InlinedBody& body) {
    FLOWVM_ASSIGN_OR_RETURN(Node * done, Glue(name, "Identity", {NodeOut(pivot, 0)}, TypeAttr(DT_BOOL)));
    for (const NodeOut& r : body.results) g_->AddControlEdge(r.node, done);
    for (Node* c : body.control_results) g_->AddControlEdge(c, done);
    for (Node* n : body.nodes)
      if (n->is_stateful()) g_->AddControlEdge(n, done);
    return done;
  }

  // One level of a conditional: `then_f` on the first `then_inputs` of
  // `inputs` if pred is true, else `else_side`, which builds the false side
  // from all of them (Case passes its index down that way).
  using ElseFn = std::function<Status(const std::vector<NodeOut>& inputs, Node* pivot, std::vector<NodeOut>* results,
                                      Node** done)>;
  Status Conditional(const std::string& level, NodeOut pred, const std::vector<NodeOut>& inputs, size_t then_inputs,
                     const NameAttrList& then_f, const std::string& then_name, const ElseFn& else_side,
                     std::vector<NodeOut>* results, Node** done) {
    FLOWVM_ASSIGN_OR_RETURN(Node * sw_pred, Glue(level + "switch_pred", "Switch", {pred, pred}, TypeAttr(DT_BOOL)));
    FLOWVM_ASSIGN_OR_RETURN(Node * pivot_f, Glue(level + "pivot_f", "Identity", {NodeOut(sw_pred, 0)}, TypeAttr(DT_BOOL)));
    FLOWVM_ASSIGN_OR_RETURN(Node * pivot_t, Glue(level + "pivot_t", "Identity", {NodeOut(sw_pred, 1)}, TypeAttr(DT_BOOL)));
    std::vector<NodeOut> ins_t, ins_f;
    for (size_t i = 0; i < inputs.size(); ++i) {
      FLOWVM_ASSIGN_OR_RETURN(Node * sw, Glue(level + "switch_" + std::to_string(i), "Switch", {inputs[i], pred},
                                              TypeAttr(inputs[i].dtype())));
      ins_f.push_back(NodeOut(sw, 0));
      if (i < then_inputs) ins_t.push_back(NodeOut(sw, 1));
    }
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> then_body, Body(then_f));
    FLOWVM_RETURN_IF_ERROR(CheckArity(*then_body, ins_t, n_->num_outputs(), then_name));
    InlinedBody then_inlined;
    FLOWVM_RETURN_IF_ERROR(Inline(*then_body, level + then_name, ins_t, pivot_t, &then_inlined));
    FLOWVM_ASSIGN_OR_RETURN(Node * then_done, BranchDone(level + then_name + "_done", pivot_t, then_inlined));
    std::vector<NodeOut> else_results;
    Node* else_done = nullptr;
    FLOWVM_RETURN_IF_ERROR(else_side(ins_f, pivot_f, &else_results, &else_done));
    return MergeResults(level, then_inlined.results, else_results, then_done, else_done, results, done);
  }

  Status Connect(const NodeOut& from, Node* to, int slot) {
    auto e = g_->AddEdge(from.node, from.index, to, slot);
    return e.ok() ? Status::OK() : e.status();
  }

  StatusOr<NodeOut> Predicate(NodeOut cond) {
    const DataType t = BaseType(cond.dtype());
    if (t == DT_BOOL) return cond;
    if (t == DT_STRING || t == DT_RESOURCE || t == DT_VARIANT)
      return errors::InvalidArgument("the condition is ", DataTypeName(t), "; it must be a bool or a number");
    Attrs attrs{{"SrcT", MakeAttrValue(t)}, {"DstT", MakeAttrValue(DT_BOOL)}};
    FLOWVM_ASSIGN_OR_RETURN(Node * cast, Glue("cond_as_bool", "Cast", {cond}, attrs));
    return NodeOut(cast, 0);
  }

  void TakeControlInputs() {
    for (const Edge* e : n_->in_edges())
      if (e->IsControlEdge()) control_inputs_.push_back(e->src());
  }

  std::vector<NodeOut> DataInputs(int from) const {
    std::vector<NodeOut> out;
    for (int i = from; i < n_->num_inputs(); ++i) {
      const Edge* e = n_->input_edge(i);
      out.push_back(NodeOut(e->src(), e->src_output()));
    }
    return out;
  }

  Status LowerIf() {
    TakeControlInputs();
    NameAttrList then_f, else_f;
    FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(n_->def(), "then_branch", &then_f));
    FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(n_->def(), "else_branch", &else_f));
    const Edge* c = n_->input_edge(0);
    FLOWVM_ASSIGN_OR_RETURN(NodeOut pred, Predicate(NodeOut(c->src(), c->src_output())));
    ElseFn else_side = [&](const std::vector<NodeOut>& ins, Node* pivot, std::vector<NodeOut>* results,
                           Node** done) -> Status {
      FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body, Body(else_f));
      FLOWVM_RETURN_IF_ERROR(CheckArity(*body, ins, n_->num_outputs(), "else"));
      InlinedBody inlined;
      FLOWVM_RETURN_IF_ERROR(Inline(*body, "else", ins, pivot, &inlined));
      *results = inlined.results;
      FLOWVM_ASSIGN_OR_RETURN(*done, BranchDone("else_done", pivot, inlined));
      return Status::OK();
    };
    const std::vector<NodeOut> inputs = DataInputs(1);
    return Conditional("", pred, inputs, inputs.size(), then_f, "then", else_side, &outputs_, &done_);
  }

  // Level k: branch k if index == k, else level k + 1; the last level
  // runs the last branch on whatever reaches it.
  Status CaseLevel(size_t k, const std::vector<NameAttrList>& branches, NodeOut index,
                   const std::vector<NodeOut>& inputs, Node* pivot, std::vector<NodeOut>* results, Node** done) {
    const std::string level = "case_" + std::to_string(k) + "/";
    if (k + 1 == branches.size()) {
      FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> body, Body(branches[k]));
      FLOWVM_RETURN_IF_ERROR(CheckArity(*body, inputs, n_->num_outputs(), "branch " + std::to_string(k)));
      InlinedBody inlined;
      FLOWVM_RETURN_IF_ERROR(Inline(*body, level + "branch", inputs, pivot, &inlined));
      *results = inlined.results;
      if (pivot == nullptr) {
        FLOWVM_ASSIGN_OR_RETURN(*done, Glue(level + "done", "NoOp", {}, {}));
        for (const NodeOut& r : inlined.results) g_->AddControlEdge(r.node, *done);
        for (Node* n : inlined.nodes)
          if (n->is_stateful()) g_->AddControlEdge(n, *done);
      } else {
        FLOWVM_ASSIGN_OR_RETURN(*done, BranchDone(level + "done", pivot, inlined));
      }
      return Status::OK();
    }
    Attrs attrs = TypeAttr(DT_INT32);
    FLOWVM_ASSIGN_OR_RETURN(Node * k_const,
                            Glue(level + "k", "Const", {},
                                 {{"dtype", MakeAttrValue(DT_INT32)},
                                  {"value", MakeAttrValue(Tensor::Scalar<int32_t>(static_cast<int32_t>(k)))}}));
    // In the index's frame and branch (a Case may sit in a loop's body).
    g_->AddControlEdge(index.node, k_const);
    FLOWVM_ASSIGN_OR_RETURN(Node * eq, Glue(level + "is_k", "Equal", {index, NodeOut(k_const, 0)}, attrs));
    // The index itself goes down the false side for the next levels.
    std::vector<NodeOut> with_index = inputs;
    with_index.push_back(index);
    ElseFn else_side = [&](const std::vector<NodeOut>& ins, Node* next_pivot, std::vector<NodeOut>* r,
                           Node** d) -> Status {
      std::vector<NodeOut> rest(ins.begin(), ins.end() - 1);
      return CaseLevel(k + 1, branches, ins.back(), rest, next_pivot, r, d);
    };
    return Conditional(level, NodeOut(eq, 0), with_index, inputs.size(), branches[k], "branch", else_side, results,
                       done);
  }

  Status MergeResults(const std::string& level, const std::vector<NodeOut>& a, const std::vector<NodeOut>& b,
                      Node* a_done, Node* b_done, std::vector<NodeOut>* results, Node** done) {
    results->clear();
    for (int j = 0; j < n_->num_outputs(); ++j) {
      const DataType t = n_->output_type(j);
      if (a[j].dtype() != t || b[j].dtype() != t)
        return errors::InvalidArgument("result ", j, " of the branches is ", DataTypeName(a[j].dtype()), " / ",
                                       DataTypeName(b[j].dtype()), " but the node's output is ", DataTypeName(t));
      Attrs attrs = TypeAttr(t);
      attrs["N"] = MakeAttrValue(int64_t{2});
      FLOWVM_ASSIGN_OR_RETURN(Node * merge, AddGlueNode(g_, prefix_ + "/" + level + "merge_" + std::to_string(j),
                                                        "Merge", {}, attrs, device_));
      FLOWVM_RETURN_IF_ERROR(Connect(a[j], merge, 0));
      FLOWVM_RETURN_IF_ERROR(Connect(b[j], merge, 1));
      results->push_back(NodeOut(merge, 0));
    }
    Attrs attrs = TypeAttr(DT_BOOL);
    attrs["N"] = MakeAttrValue(int64_t{2});
    FLOWVM_ASSIGN_OR_RETURN(*done, AddGlueNode(g_, prefix_ + "/" + level + "done", "Merge", {}, attrs, device_));
    FLOWVM_RETURN_IF_ERROR(Connect(NodeOut(a_done, 0), *done, 0));
    return Connect(NodeOut(b_done, 0), *done, 1);
  }

  Status LowerCase() {
    TakeControlInputs();
    std::vector<NameAttrList> branches;
    FLOWVM_RETURN_IF_ERROR(GetFunctionListAttr(n_->def(), "branches", &branches));
    if (branches.empty()) return errors::InvalidArgument("Case needs at least one branch");
    const Edge* c = n_->input_edge(0);
    const NodeOut index(c->src(), c->src_output());
    if (branches.size() == 1) {
      // One branch runs whatever the index; its control inputs still hold
      // it back.
      FLOWVM_ASSIGN_OR_RETURN(Node * start, Glue("start", "NoOp", {}, {}));
      g_->AddControlEdge(index.node, start);
      for (Node* ci : control_inputs_) g_->AddControlEdge(ci, start);
      for (const NodeOut& in : DataInputs(1)) g_->AddControlEdge(in.node, start);
      return CaseLevel(0, branches, index, DataInputs(1), start, &outputs_, &done_);
    }
    return CaseLevel(0, branches, index, DataInputs(1), nullptr, &outputs_, &done_);
  }

  Status LowerWhile() {
    TakeControlInputs();
    NameAttrList cond_f, body_f;
    FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(n_->def(), "cond", &cond_f));
    FLOWVM_RETURN_IF_ERROR(GetFunctionAttr(n_->def(), "body", &body_f));
    int64_t parallel = 10;
    (void)GetNodeAttr(n_->def(), "parallel_iterations", &parallel);
    const std::vector<NodeOut> inputs = DataInputs(0);
    if (inputs.empty()) return errors::InvalidArgument("a While needs at least one loop variable");
    const std::string frame = prefix_ + "/while_frame";
    std::vector<Node*> merges;
    std::vector<NodeOut> merged;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Attrs attrs = TypeAttr(inputs[i].dtype());
      attrs["frame_name"] = MakeAttrValue(frame);
      attrs["is_constant"] = MakeAttrValue(false);
      attrs["parallel_iterations"] = MakeAttrValue(parallel);
      FLOWVM_ASSIGN_OR_RETURN(Node * enter, Glue("enter_" + std::to_string(i), "Enter", {inputs[i]}, attrs));
      Attrs m = TypeAttr(inputs[i].dtype());
      m["N"] = MakeAttrValue(int64_t{2});
      FLOWVM_ASSIGN_OR_RETURN(Node * merge, AddGlueNode(g_, prefix_ + "/merge_" + std::to_string(i), "Merge", {}, m,
                                                        device_));
      FLOWVM_RETURN_IF_ERROR(Connect(NodeOut(enter, 0), merge, 0));
      merges.push_back(merge);
      merged.push_back(NodeOut(merge, 0));
    }
    // Nodes of the cond and body functions without inputs must run in the
    // loop's frame, every iteration: they wait for a node that does.
    FLOWVM_ASSIGN_OR_RETURN(Node * cond_start, Glue("cond_start", "NoOp", {}, {}));
    for (Node* m : merges) g_->AddControlEdge(m, cond_start);
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> cond_body, Body(cond_f));
    FLOWVM_RETURN_IF_ERROR(CheckArity(*cond_body, merged, 1, "cond"));
    InlinedBody cond;
    FLOWVM_RETURN_IF_ERROR(Inline(*cond_body, "cond", merged, cond_start, &cond));
    FLOWVM_ASSIGN_OR_RETURN(NodeOut pred, Predicate(cond.results[0]));
    FLOWVM_ASSIGN_OR_RETURN(Node * loop_cond, Glue("loop_cond", "LoopCond", {pred}, {}));
    std::vector<NodeOut> in_body;
    std::vector<Node*> exits;
    for (size_t i = 0; i < inputs.size(); ++i) {
      FLOWVM_ASSIGN_OR_RETURN(Node * sw, Glue("switch_" + std::to_string(i), "Switch",
                                              {merged[i], NodeOut(loop_cond, 0)}, TypeAttr(inputs[i].dtype())));
      FLOWVM_ASSIGN_OR_RETURN(Node * exit,
                              Glue("exit_" + std::to_string(i), "Exit", {NodeOut(sw, 0)}, TypeAttr(inputs[i].dtype())));
      FLOWVM_ASSIGN_OR_RETURN(Node * ident, Glue("body_in_" + std::to_string(i), "Identity", {NodeOut(sw, 1)},
                                                 TypeAttr(inputs[i].dtype())));
      exits.push_back(exit);
      in_body.push_back(NodeOut(ident, 0));
    }
    FLOWVM_ASSIGN_OR_RETURN(Node * body_start, Glue("body_start", "NoOp", {}, {}));
    for (const NodeOut& t : in_body) g_->AddControlEdge(t.node, body_start);
    FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<FunctionBody> loop_body, Body(body_f));
    FLOWVM_RETURN_IF_ERROR(CheckArity(*loop_body, in_body, inputs.size(), "body"));
    InlinedBody body;
    FLOWVM_RETURN_IF_ERROR(Inline(*loop_body, "body", in_body, body_start, &body));
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (body.results[i].dtype() != BaseType(inputs[i].dtype()))
        return errors::InvalidArgument("body function '", body_f.name(), "' returns ",
                                       DataTypeName(body.results[i].dtype()), " for loop variable ", i, ", which is ",
                                       DataTypeName(inputs[i].dtype()));
      FLOWVM_ASSIGN_OR_RETURN(Node * next, Glue("next_" + std::to_string(i), "NextIteration", {body.results[i]},
                                                TypeAttr(inputs[i].dtype())));
      // Side effects of an iteration finish before the next one starts.
      for (Node* s : body.nodes)
        if (s->is_stateful()) g_->AddControlEdge(s, next);
      FLOWVM_RETURN_IF_ERROR(Connect(NodeOut(next, 0), merges[i], 1));
    }
    for (Node* e : exits) outputs_.push_back(NodeOut(e, 0));
    FLOWVM_ASSIGN_OR_RETURN(done_, Glue("done", "NoOp", {}, {}));
    for (Node* e : exits) g_->AddControlEdge(e, done_);
    return Status::OK();
  }

  // The node's consumers read the lowered outputs; its control dependents
  // wait for `done_`.
  Status Rewire() {
    std::vector<const Edge*> outs(n_->out_edges().begin(), n_->out_edges().end());
    for (const Edge* e : outs) {
      Node* dst = e->dst();
      if (e->IsControlEdge()) {
        g_->RemoveEdge(e);
        g_->AddControlEdge(done_, dst);
      } else {
        const int port = e->src_output(), slot = e->dst_input();
        g_->RemoveEdge(e);
        FLOWVM_RETURN_IF_ERROR(Connect(outputs_[port], dst, slot));
      }
    }
    g_->RemoveNode(n_);
    return Status::OK();
  }

  Graph* g_;
  Node* n_;
  const std::string prefix_;
  const std::string device_;
  std::vector<std::string> callers_;
  std::vector<Node*> control_inputs_;
  std::vector<NodeOut> outputs_;
  Node* done_ = nullptr;
};

}  // namespace

bool IsFunctionalControlFlow(const Node& node) {
  const std::string& op = node.op();
  return op == "If" || op == "StatelessIf" || op == "Case" || op == "StatelessCase" || op == "While" ||
         op == "StatelessWhile";
}

Status LowerFunctionalOp(Graph* graph, Node* node) {
  Lowering lowering(graph, node);
  return lowering.Run();
}

}  // namespace flowvm
