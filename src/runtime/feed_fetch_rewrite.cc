#include "runtime/feed_fetch_rewrite.h"

#include <map>
#include <set>

#include "graph/attr_value_util.h"
#include "graph/tensor_id.h"

namespace flowvm {

namespace {

StatusOr<TensorId> ResolveTensor(const Graph& graph, const std::string& name, const char* what, Node** node) {
  FLOWVM_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
  if (id.is_control()) return errors::InvalidArgument(what, " '", name, "' must name a tensor, not a control input");
  *node = graph.FindNode(id.node);
  if (*node == nullptr) return errors::NotFound(what, " '", name, "' refers to node '", id.node, "', which is not in the graph");
  if (id.port >= (*node)->num_outputs())
    return errors::InvalidArgument(what, " '", name, "' refers to output ", id.port, " of ", (*node)->label(),
                                   ", which has ", (*node)->num_outputs(), " output",
                                   (*node)->num_outputs() == 1 ? "" : "s");
  return id;
}

}  // namespace

Status RewriteGraphForRun(Graph* graph, const std::vector<std::string>& feeds,
                          const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                          RewriteResult* result) {
  result->feeds.clear();
  result->pruned.clear();
  // The feed and fetch nodes are the runtime's own: '_' names.
  graph->set_allow_internal_names(true);
  // (node name, port) -> the _Arg node that replaces it
  std::map<std::pair<std::string, int>, Node*> fed;
  // Consumers that take a fed tensor by reference keep their edge to the
  // original node; it is an error only if the step needs them.
  struct RefConsumer {
    Node* dst;
    int slot;
    std::string feed;
  };
  std::vector<RefConsumer> ref_consumers;
  for (size_t i = 0; i < feeds.size(); ++i) {
    Node* src = nullptr;
    FLOWVM_ASSIGN_OR_RETURN(TensorId id, ResolveTensor(*graph, feeds[i], "feed", &src));
    std::string canonical = id.ToString();
    if (fed.count({id.node, id.port})) return errors::InvalidArgument("tensor '", canonical, "' is fed more than once");
    FeedSpec spec;
    spec.name = canonical;
    spec.dtype = BaseType(src->output_type(id.port));
    if (src->op() == "Placeholder" || src->op() == "PlaceholderWithDefault") {
      spec.is_placeholder = src->op() == "Placeholder";
      PartialTensorShape shape;
      if (GetNodeAttr(src->def(), "shape", &shape).ok()) spec.shape = shape;
    }
    NodeDef arg;
    arg.set_name(UniqueNodeName(*graph, "_arg_" + id.node + "_" + std::to_string(id.port)));
    arg.set_op("_Arg");
    // The value enters where the node it replaces was asked to run.
    arg.set_device(src->requested_device());
    (*arg.mutable_attr())["T"] = MakeAttrValue(spec.dtype);
    (*arg.mutable_attr())["index"] = MakeAttrValue(static_cast<int64_t>(i));
    FLOWVM_ASSIGN_OR_RETURN(Node * arg_node, graph->AddNode(std::move(arg)));
    std::vector<const Edge*> to_rewire;
    for (const Edge* e : src->out_edges())
      if (!e->IsControlEdge() && e->src_output() == id.port) to_rewire.push_back(e);
    for (const Edge* e : to_rewire) {
      Node* dst = e->dst();
      int slot = e->dst_input();
      if (IsRefType(dst->input_type(slot))) {
        ref_consumers.push_back({dst, slot, canonical});
        continue;
      }
      graph->RemoveEdge(e);
      FLOWVM_ASSIGN_OR_RETURN(const Edge* added, graph->AddEdge(arg_node, 0, dst, slot));
      (void)added;
    }
    fed[{id.node, id.port}] = arg_node;
    result->feeds.push_back(std::move(spec));
  }

  std::vector<Node*> roots;
  for (size_t i = 0; i < fetches.size(); ++i) {
    Node* src = nullptr;
    FLOWVM_ASSIGN_OR_RETURN(TensorId id, ResolveTensor(*graph, fetches[i], "fetch", &src));
    int port = id.port;
    auto it = fed.find({id.node, id.port});
    if (it != fed.end()) {
      src = it->second;
      port = 0;
    }
    NodeDef ret;
    ret.set_name(UniqueNodeName(*graph, "_retval_" + id.node + "_" + std::to_string(id.port)));
    ret.set_op("_Retval");
    (*ret.mutable_attr())["T"] = MakeAttrValue(BaseType(src->output_type(port)));
    (*ret.mutable_attr())["index"] = MakeAttrValue(static_cast<int64_t>(i));
    ret.add_input(src->name() + ":" + std::to_string(port));  // counted by validation; wired below
    FLOWVM_ASSIGN_OR_RETURN(Node * ret_node, graph->AddNode(std::move(ret)));
    FLOWVM_ASSIGN_OR_RETURN(const Edge* e, graph->AddEdge(src, port, ret_node, 0));
    (void)e;
    roots.push_back(ret_node);
  }
  for (const std::string& target : targets) {
    std::string name = !target.empty() && target[0] == '^' ? target.substr(1) : target;
    Node* n = graph->FindNode(name);
    if (n == nullptr) return errors::NotFound("target '", target, "' is not a node in the graph");
    roots.push_back(n);
  }
  if (roots.empty()) return errors::InvalidArgument("Run needs at least one fetch or target");

  // Keep what the roots need, following data and control edges backwards.
  std::vector<bool> keep(graph->num_node_ids(), false);
  std::vector<Node*> stack = roots;
  for (Node* n : roots) keep[n->id()] = true;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->in_edges()) {
      Node* src = e->src();
      if (!keep[src->id()]) {
        keep[src->id()] = true;
        stack.push_back(src);
      }
    }
  }
  for (const RefConsumer& c : ref_consumers)
    if (keep[c.dst->id()])
      return errors::InvalidArgument("feed '", c.feed, "' cannot replace the reference that ", c.dst->label(),
                                     " takes as input ", c.slot);
  for (Node* n : graph->nodes()) {
    if (keep[n->id()]) continue;
    if (n->op() != "_Arg") result->pruned.push_back(n->name());
    graph->RemoveNode(n);
  }
  return Status::OK();
}

Status CheckFeedValues(const std::vector<FeedSpec>& specs,
                       const std::vector<std::pair<std::string, Tensor>>& feeds) {
  for (size_t i = 0; i < feeds.size() && i < specs.size(); ++i) {
    const FeedSpec& spec = specs[i];
    const Tensor& t = feeds[i].second;
    if (!t.IsInitialized()) return errors::InvalidArgument("feed '", spec.name, "' was given an uninitialized tensor");
    if (t.dtype() != spec.dtype)
      return errors::InvalidArgument("feed '", spec.name, "' expects a ", DataTypeName(spec.dtype),
                                     " tensor but was given ", DataTypeName(t.dtype()));
    if (!spec.shape.IsCompatibleWith(t.shape()))
      return errors::InvalidArgument(spec.is_placeholder ? "placeholder '" : "feed '", spec.name, "' expects shape ",
                                     spec.shape.DebugString(), " but was fed shape ", t.shape().DebugString());
  }
  return Status::OK();
}

}  // namespace flowvm
