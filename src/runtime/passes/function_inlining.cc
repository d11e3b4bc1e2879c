#include "runtime/passes/function_inlining.h"

#include <deque>
#include <map>
#include <set>

#include "graph/attr_value_util.h"
#include "graph/function_body.h"
#include "runtime/passes/inline_body.h"
#include "runtime/passes/lower_functional_ops.h"

namespace flowvm {

namespace {

// Past this many nodes added by inlining, a graph is refused rather than
// grown without bound (a function calling another many times, nested).
constexpr int kMaxInlinedNodes = 10'000'000;

bool IsCallOp(const std::string& op) {
  return op == "PartitionedCall" || op == "StatefulPartitionedCall" || op == "SymbolicGradient";
}

// Which function a call node calls, or false if it calls none.
bool CalledFunction(const Graph& graph, const Node& node, NameAttrList* func) {
  if (graph.library().Contains(node.op())) {
    *func = CallAttrs(node.def(), node.op());
    return true;
  }
  if (IsCallOp(node.op())) return GetFunctionAttr(node.def(), "f", func).ok();
  return false;
}

// The recursive functions of a library, and the check that every
// recursion can end. A call is unconditional when nothing upstream of it in
// its body is a Switch: if a cycle of functions calls itself only through
// unconditional calls, it never returns.
class RecursionAnalysis {
 public:
  explicit RecursionAnalysis(const FunctionLibraryDefinition& lib) : lib_(lib) {
    for (const std::string& f : lib.ListFunctionNames()) {
      const FunctionDef* fdef = lib.Find(f);
      std::map<std::string, const NodeDef*> by_name;
      for (const NodeDef& n : fdef->node_def()) by_name[n.name()] = &n;
      for (const NodeDef& n : fdef->node_def()) {
        for (const std::string& g : lib.CalledFunctions(n)) {
          edges_[f].insert(g);
          const bool direct = lib.Contains(n.op()) || IsCallOp(n.op());
          if (direct && !HasSwitchUpstream(n, by_name)) unconditional_[f].emplace(g, n.name());
        }
      }
    }
    FindCycles();
  }

  bool IsRecursive(const std::string& f) const { return recursive_.count(f) > 0; }
  const Status& status() const { return status_; }

 private:
  static bool HasSwitchUpstream(const NodeDef& start, const std::map<std::string, const NodeDef*>& by_name) {
    std::set<std::string> seen;
    std::vector<const NodeDef*> stack = {&start};
    while (!stack.empty()) {
      const NodeDef* n = stack.back();
      stack.pop_back();
      if (n != &start && (n->op() == "Switch" || n->op() == "RefSwitch")) return true;
      for (const std::string& in : n->input()) {
        std::string name = in.substr(in[0] == '^' ? 1 : 0);
        name = name.substr(0, name.find(':'));
        auto it = by_name.find(name);
        if (it != by_name.end() && seen.insert(name).second) stack.push_back(it->second);
      }
    }
    return false;
  }

  // Tarjan's strongly connected components over the call graph.
  void FindCycles() {
    int counter = 0;
    std::map<std::string, int> index, low;
    std::set<std::string> on_stack;
    std::vector<std::string> stack;
    std::function<void(const std::string&)> visit = [&](const std::string& v) {
      index[v] = low[v] = counter++;
      stack.push_back(v);
      on_stack.insert(v);
      for (const std::string& w : edges_[v]) {
        if (!lib_.Contains(w)) continue;
        if (!index.count(w)) {
          visit(w);
          low[v] = std::min(low[v], low[w]);
        } else if (on_stack.count(w)) {
          low[v] = std::min(low[v], index[w]);
        }
      }
      if (low[v] != index[v]) return;
      std::vector<std::string> scc;
      std::string w;
      do {
        w = stack.back();
        stack.pop_back();
        on_stack.erase(w);
        scc.push_back(w);
      } while (w != v);
      if (scc.size() > 1 || edges_[v].count(v)) {
        for (const std::string& f : scc) recursive_.insert(f);
        CheckUnconditional(std::set<std::string>(scc.begin(), scc.end()));
      }
    };
    for (const std::string& f : lib_.ListFunctionNames())
      if (!index.count(f)) visit(f);
  }

  // A cycle of unconditional calls inside one component never ends.
  void CheckUnconditional(const std::set<std::string>& scc) {
    std::map<std::string, int> state;  // 0 new, 1 on path, 2 done
    std::vector<std::pair<std::string, std::string>> path;  // (function, call node)
    std::function<bool(const std::string&)> dfs = [&](const std::string& f) -> bool {
      state[f] = 1;
      for (const auto& [g, call] : unconditional_[f]) {
        if (!scc.count(g)) continue;
        path.emplace_back(f, call);
        if (state[g] == 1) {
          std::string chain;
          for (const auto& [fn, node] : path) chain += "'" + fn + "' (node '" + node + "') -> ";
          status_.Update(errors::InvalidArgument(
              "function '", g, "' is recursive without a base case: ", chain, "'", g,
              "' call each other outside every conditional, so a call never returns; put the recursive call "
              "in a branch of a cond that a base case can take"));
          return true;
        }
        if (state[g] == 0 && dfs(g)) return true;
        path.pop_back();
      }
      state[f] = 2;
      return false;
    };
    for (const std::string& f : scc)
      if (status_.ok() && state[f] == 0) dfs(f);
  }

  const FunctionLibraryDefinition& lib_;
  std::map<std::string, std::set<std::string>> edges_;
  std::map<std::string, std::map<std::string, std::string>> unconditional_;  // f -> g -> call node
  std::set<std::string> recursive_;
  Status status_;
};

class Inliner {
 public:
  Inliner(Graph* graph, FunctionInliningReport* report) : graph_(graph), report_(report) {}

  Status Run() {
    const FunctionLibraryDefinition& lib = graph_->library();
    bool any = false;
    for (Node* n : graph_->nodes()) any |= IsFunctionCall(*graph_, *n) || IsFunctionalControlFlow(*n);
    if (!any) return Status::OK();
    RecursionAnalysis recursion(lib);
    FLOWVM_RETURN_IF_ERROR(recursion.status());
    std::deque<int> work;
    for (Node* n : graph_->nodes()) work.push_back(n->id());
    while (!work.empty()) {
      Node* n = graph_->FindNodeId(work.front());
      work.pop_front();
      if (n == nullptr) continue;
      const int first_new = graph_->num_node_ids();
      NameAttrList func;
      if (IsFunctionalControlFlow(*n)) {
        FLOWVM_RETURN_IF_ERROR(LowerFunctionalOp(graph_, n));
        ++report_->lowered;
      } else if (CalledFunction(*graph_, *n, &func)) {
        if (recursion.IsRecursive(func.name())) {
          if (n->op() == "SymbolicGradient")
            return errors::Unimplemented(n->label(), ": the gradient of recursive function '", func.name(),
                                         "' is not supported");
          ++report_->kept;
          if (!IsCallOp(n->op())) FLOWVM_RETURN_IF_ERROR(ToPartitionedCall(n, func));
          continue;
        }
        const std::string call = n->name();
        FLOWVM_RETURN_IF_ERROR(InlineCall(n, func));
        ++report_->inlined;
        if (names_.size() < 10) names_.push_back(call + " -> " + func.name());
      } else {
        continue;
      }
      for (int id = first_new; id < graph_->num_node_ids(); ++id) work.push_back(id);
      added_ += graph_->num_node_ids() - first_new;
      if (added_ > kMaxInlinedNodes)
        return errors::ResourceExhausted("inlining function calls added more than ", kMaxInlinedNodes,
                                         " nodes; the functions call each other too many times");
    }
    if (report_->inlined > 0) {
      std::string line = "function inlining: inlined " + std::to_string(report_->inlined) + " call" +
                         (report_->inlined == 1 ? "" : "s") + " (";
      for (size_t i = 0; i < names_.size(); ++i) line += (i ? ", " : "") + names_[i];
      line += report_->inlined > static_cast<int>(names_.size()) ? ", ...)" : ")";
      report_->lines.push_back(line);
    }
    if (report_->lowered > 0)
      report_->lines.push_back("function inlining: lowered " + std::to_string(report_->lowered) +
                               " If/Case/While node" + (report_->lowered == 1 ? "" : "s") +
                               " to Switch/Merge and loop frames");
    if (report_->kept > 0)
      report_->lines.push_back("function inlining: kept " + std::to_string(report_->kept) + " call" +
                               (report_->kept == 1 ? "" : "s") + " of recursive functions");
    return Status::OK();
  }

 private:
  Status InlineCall(Node* call, const NameAttrList& func) {
    auto made = call->op() == "SymbolicGradient" ? InstantiateGradient(graph_->shared_library(), func)
                                                 : InstantiateFunction(graph_->shared_library(), func);
    if (!made.ok()) return AttachNode(made.status(), call->def());
    const FunctionBody& body = **made;
    if (body.arg_types.size() != static_cast<size_t>(call->num_inputs()) ||
        body.ret_types.size() != static_cast<size_t>(call->num_outputs()))
      return errors::InvalidArgument(call->label(), ": calls '", func.name(), "' with ", call->num_inputs(),
                                     " inputs and ", call->num_outputs(), " outputs, but it takes ",
                                     body.arg_types.size(), " and returns ", body.ret_types.size());
    for (int i = 0; i < call->num_inputs(); ++i)
      if (BaseType(call->input_type(i)) != body.arg_types[i])
        return errors::InvalidArgument(call->label(), ": input ", i, " is ", DataTypeName(call->input_type(i)),
                                       " but argument ", body.arg_names[i], " of '", func.name(), "' is ",
                                       DataTypeName(body.arg_types[i]));
    for (int i = 0; i < call->num_outputs(); ++i)
      if (call->output_type(i) != body.ret_types[i])
        return errors::InvalidArgument(call->label(), ": output ", i, " is ", DataTypeName(call->output_type(i)),
                                       " but result ", body.ret_names[i], " of '", func.name(), "' is ",
                                       DataTypeName(body.ret_types[i]));
    InlineSite site;
    site.prefix = call->name();
    site.device = call->requested_device();
    const auto& callers = call->def().experimental_debug_info().original_func_names();
    site.caller_functions.assign(callers.begin(), callers.end());
    bool has_control_inputs = false;
    for (int i = 0; i < call->num_inputs(); ++i) {
      const Edge* e = call->input_edge(i);
      site.args.push_back(NodeOut(e->src(), e->src_output()));
    }
    for (const Edge* e : call->in_edges()) has_control_inputs |= e->IsControlEdge();
    // What runs when the call would have started: after its control inputs
    // and its inputs, in its frame and branch.
    FLOWVM_ASSIGN_OR_RETURN(Node * input_control,
                            AddGlueNode(graph_, call->name() + "/input_control_node", "NoOp", {}, {}, site.device));
    for (const Edge* e : call->in_edges()) graph_->AddControlEdge(e->src(), input_control);
    site.input_control = input_control;
    site.args_wait_for_control = has_control_inputs;
    InlinedBody inlined;
    FLOWVM_RETURN_IF_ERROR(CopyBodyInto(graph_, body, site, &inlined));

    std::vector<const Edge*> outs(call->out_edges().begin(), call->out_edges().end());
    Node* output_control = nullptr;
    for (const Edge* e : outs) {
      Node* dst = e->dst();
      if (e->IsControlEdge()) {
        if (output_control == nullptr) {
          FLOWVM_ASSIGN_OR_RETURN(output_control, AddGlueNode(graph_, call->name() + "/output_control_node", "NoOp",
                                                              {}, {}, site.device));
          // Done when its results and side effects are: the control
          // outputs, the results, or when it has neither, every stateful
          // node of the body.
          std::vector<Node*> sources = inlined.control_results;
          for (const NodeOut& r : inlined.results) sources.push_back(r.node);
          if (sources.empty())
            for (Node* n : inlined.nodes)
              if (n->is_stateful()) sources.push_back(n);
          if (sources.empty()) sources.push_back(input_control);
          for (Node* s : sources) graph_->AddControlEdge(s, output_control);
        }
        graph_->RemoveEdge(e);
        graph_->AddControlEdge(output_control, dst);
      } else {
        const int port = e->src_output(), slot = e->dst_input();
        graph_->RemoveEdge(e);
        const NodeOut& r = inlined.results[port];
        auto added = graph_->AddEdge(r.node, r.index, dst, slot);
        if (!added.ok()) return added.status();
      }
    }
    graph_->RemoveNode(call);
    return Status::OK();
  }

  // A call by name of a recursive function becomes the equivalent
  // (Stateful)PartitionedCall, whose kernel runs the body when reached.
  Status ToPartitionedCall(Node* call, const NameAttrList& func) {
    NodeDef def = call->def();
    def.clear_attr();
    for (const auto& [k, v] : call->def().attr())
      if (!k.empty() && k[0] == '_') (*def.mutable_attr())[k] = v;
    def.set_op(call->is_stateful() ? "StatefulPartitionedCall" : "PartitionedCall");
    std::vector<DataType> tin, tout;
    for (DataType t : call->input_types()) tin.push_back(BaseType(t));
    for (DataType t : call->output_types()) tout.push_back(t);
    (*def.mutable_attr())["Tin"] = MakeAttrValue(tin);
    (*def.mutable_attr())["Tout"] = MakeAttrValue(tout);
    AttrValue f;
    *f.mutable_func() = func;
    (*def.mutable_attr())["f"] = f;
    std::vector<std::pair<NodeOut, int>> inputs;  // (source, slot); slot -1: control
    for (const Edge* e : call->in_edges())
      inputs.push_back({NodeOut(e->src(), e->src_output()), e->IsControlEdge() ? -1 : e->dst_input()});
    std::vector<std::pair<int, std::pair<Node*, int>>> outputs;  // (port or -1, (dst, slot))
    for (const Edge* e : call->out_edges())
      outputs.push_back({e->IsControlEdge() ? -1 : e->src_output(), {e->dst(), e->dst_input()}});
    graph_->RemoveNode(call);
    FLOWVM_ASSIGN_OR_RETURN(Node * n, graph_->AddNodeToConnect(std::move(def)));
    for (const auto& [src, slot] : inputs) {
      if (slot < 0) {
        graph_->AddControlEdge(src.node, n);
      } else {
        auto e = graph_->AddEdge(src.node, src.index, n, slot);
        if (!e.ok()) return e.status();
      }
    }
    for (const auto& [port, dst] : outputs) {
      if (port < 0) {
        graph_->AddControlEdge(n, dst.first);
      } else {
        auto e = graph_->AddEdge(n, port, dst.first, dst.second);
        if (!e.ok()) return e.status();
      }
    }
    return Status::OK();
  }

  Graph* graph_;
  FunctionInliningReport* report_;
  std::vector<std::string> names_;
  int64_t added_ = 0;
};

}  // namespace

bool ReplacedBeforePlacement(const FunctionLibraryDefinition& library, const std::string& op) {
  return library.Contains(op) || IsCallOp(op) || op == "If" || op == "StatelessIf" || op == "Case" ||
         op == "StatelessCase" || op == "While" || op == "StatelessWhile";
}

bool IsFunctionCall(const Graph& graph, const Node& node) {
  return graph.library().Contains(node.op()) || IsCallOp(node.op());
}

Status InlineFunctionCalls(Graph* graph, FunctionInliningReport* report) {
  FunctionInliningReport ignored;
  Inliner inliner(graph, report != nullptr ? report : &ignored);
  return inliner.Run();
}

}  // namespace flowvm
