#include "runtime/passes/inline_body.h"

#include <map>

#include "graph/attr_value_util.h"
#include "graph/device_name.h"

namespace flowvm {

namespace {

// The body node's device request completed by the caller's.
std::string MergedDevice(const std::string& body, const std::string& caller) {
  if (body.empty()) return caller;
  if (caller.empty()) return body;
  auto b = ParseDeviceName(body);
  auto c = ParseDeviceName(caller);
  if (!b.ok() || !c.ok()) return body;
  DeviceNameParts merged = *c;
  // The body's explicit fields replace the caller's: copy them over.
  if (b->has_job) merged.has_job = true, merged.job = b->job;
  if (b->has_replica) merged.has_replica = true, merged.replica = b->replica;
  if (b->has_task) merged.has_task = true, merged.task = b->task;
  if (b->has_type) merged.has_type = true, merged.type = b->type;
  if (b->has_id) merged.has_id = true, merged.id = b->id;
  else if (b->has_type && c->has_type && b->type != c->type) merged.has_id = false;
  return DeviceNameToString(merged);
}

}  // namespace

StatusOr<Node*> AddGlueNode(Graph* graph, const std::string& name, const std::string& op,
                            const std::vector<NodeOut>& inputs, const std::map<std::string, AttrValue>& attrs,
                            const std::string& device) {
  NodeDef def;
  def.set_name(UniqueNodeName(*graph, name));
  def.set_op(op);
  def.set_device(device);
  for (const auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
  FLOWVM_ASSIGN_OR_RETURN(Node * n, graph->AddNodeToConnect(std::move(def)));
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto e = graph->AddEdge(inputs[i].node, inputs[i].index, n, static_cast<int>(i));
    if (!e.ok()) return e.status();
  }
  return n;
}

Status CopyBodyInto(Graph* graph, const FunctionBody& body, const InlineSite& site, InlinedBody* out) {
  const Graph& src = *body.graph;
  if (site.args.size() != body.arg_nodes.size())
    return errors::Internal("inlining function '", body.name, "': ", site.args.size(), " arguments for ",
                            body.arg_nodes.size());
  std::map<int, Node*> copy_of;  // body node id -> its copy
  auto add_debug_info = [&](NodeDef* def) {
    auto* info = def->mutable_experimental_debug_info();
    for (const std::string& f : site.caller_functions) info->add_original_func_names(f);
  };
  for (size_t i = 0; i < body.arg_nodes.size(); ++i) {
    const Node* arg = body.arg_nodes[i];
    NodeDef def;
    def.set_name(UniqueNodeName(*graph, site.prefix + "/" + arg->name()));
    def.set_op("Identity");
    def.set_device(site.device);
    (*def.mutable_attr())["T"] = MakeAttrValue(body.arg_types[i]);
    *def.mutable_experimental_debug_info() = arg->def().experimental_debug_info();
    add_debug_info(&def);
    FLOWVM_ASSIGN_OR_RETURN(Node * n, graph->AddNodeToConnect(std::move(def)));
    FLOWVM_ASSIGN_OR_RETURN(const Edge* e, graph->AddEdge(site.args[i].node, site.args[i].index, n, 0));
    (void)e;
    if (site.input_control != nullptr && site.args_wait_for_control) graph->AddControlEdge(site.input_control, n);
    copy_of[arg->id()] = n;
    out->nodes.push_back(n);
  }
  for (Node* n : src.nodes()) {
    if (n->op() == "_Arg" || n->op() == "_Retval") continue;
    NodeDef def = n->def();
    def.set_name(UniqueNodeName(*graph, site.prefix + "/" + n->name()));
    def.set_device(MergedDevice(n->requested_device(), site.device));
    if (n->IsEnter()) {
      std::string frame;
      if (GetNodeAttr(def, "frame_name", &frame).ok())
        (*def.mutable_attr())["frame_name"] = MakeAttrValue(site.prefix + "/" + frame);
    }
    std::vector<std::string> classes;
    if (GetNodeAttr(def, "_class", &classes).ok()) {
      for (std::string& c : classes)
        if (c.rfind("loc:@", 0) == 0 && src.FindNode(c.substr(5)) != nullptr) c = "loc:@" + site.prefix + "/" + c.substr(5);
      (*def.mutable_attr())["_class"] = MakeAttrValue(classes);
    }
    add_debug_info(&def);
    auto added = graph->AddNodeToConnect(std::move(def));
    if (!added.ok()) return added.status().WithContext("inlining function '" + body.name + "'");
    copy_of[n->id()] = *added;
    out->nodes.push_back(*added);
  }
  // The copied nodes' renamed _class entries may name nodes added after
  // them; the placer resolves names when it runs, so order does not matter.
  for (Node* n : src.nodes()) {
    if (n->op() == "_Arg" || n->op() == "_Retval") continue;
    Node* dst = copy_of.at(n->id());
    bool has_inputs = false;
    for (const Edge* e : n->in_edges()) {
      Node* from = copy_of.at(e->src()->id());
      has_inputs = true;
      if (e->IsControlEdge()) {
        graph->AddControlEdge(from, dst);
      } else {
        auto added = graph->AddEdge(from, e->src_output(), dst, e->dst_input());
        if (!added.ok()) return added.status();
      }
    }
    if (!has_inputs && site.input_control != nullptr) graph->AddControlEdge(site.input_control, dst);
  }
  for (const Node* r : body.ret_nodes) {
    const Edge* e = r->input_edge(0);
    out->results.push_back(NodeOut(copy_of.at(e->src()->id()), e->src_output()));
  }
  for (const Node* c : body.control_ret_nodes) out->control_results.push_back(copy_of.at(c->id()));
  return Status::OK();
}

}  // namespace flowvm
