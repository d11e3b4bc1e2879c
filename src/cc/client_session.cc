#include "flowvm/cc/client_session.h"

#include "cc/scope_impl.h"

namespace flowvm {

ClientSession::ClientSession(const Scope& scope, const SessionOptions& options) : scope_(scope), options_(options) {}

ClientSession::~ClientSession() {
  if (session_) session_->Close().IgnoreError();
}

Status ClientSession::Sync() const {
  FLOWVM_RETURN_IF_ERROR(scope_.status());
  const Graph& graph = *scope_.impl()->graph;
  if (session_ && synced_node_ids_ == graph.num_node_ids()) return Status::OK();
  GraphDef all;
  graph.ToGraphDef(&all);
  if (!session_) {
    FLOWVM_ASSIGN_OR_RETURN(session_, Session::Create(options_, all));
  } else {
    // ToGraphDef lists nodes in id order; send the ones added since.
    GraphDef added;
    *added.mutable_versions() = all.versions();
    for (const NodeDef& n : all.node()) {
      const Node* node = graph.FindNode(n.name());
      if (node != nullptr && node->id() >= synced_node_ids_) *added.add_node() = n;
    }
    FLOWVM_RETURN_IF_ERROR(session_->Extend(added));
  }
  synced_node_ids_ = graph.num_node_ids();
  return Status::OK();
}

Status ClientSession::Connect() const {
  std::lock_guard<std::mutex> lock(mu_);
  return Sync();
}

Status ClientSession::Run(const std::vector<Output>& fetches, std::vector<Tensor>* outputs) const {
  return Run(FeedType{}, fetches, {}, outputs);
}

Status ClientSession::Run(const FeedType& feeds, const std::vector<Output>& fetches,
                          std::vector<Tensor>* outputs) const {
  return Run(feeds, fetches, {}, outputs);
}

Status ClientSession::Run(const FeedType& feeds, const std::vector<Output>& fetches,
                          const std::vector<Operation>& targets, std::vector<Tensor>* outputs,
                          RunStats* stats) const {
  return Run(RunOptions(), feeds, fetches, targets, outputs, nullptr, stats);
}

Status ClientSession::Run(const RunOptions& run_options, const FeedType& feeds, const std::vector<Output>& fetches,
                          const std::vector<Operation>& targets, std::vector<Tensor>* outputs,
                          RunMetadata* metadata, RunStats* stats) const {
  Session* session = nullptr;
  {
    std::lock_guard<std::mutex> lock(mu_);
    FLOWVM_RETURN_IF_ERROR(Sync());
    session = session_.get();
  }
  // Names identify nodes in the session, so a node of another scope's graph
  // with a name this graph also has would silently stand for the wrong one.
  const Graph& graph = *scope_.impl()->graph;
  auto check = [&](Node* node, const char* what) -> Status {
    if (node == nullptr) return errors::InvalidArgument("ClientSession::Run: a ", what, " is not set");
    if (graph.FindNodeId(node->id()) != node)
      return errors::InvalidArgument("ClientSession::Run: ", what, " '", node->name(),
                                     "' belongs to another graph (built from a different root scope)");
    return Status::OK();
  };
  std::vector<std::pair<std::string, Tensor>> feed_list;
  for (const auto& [out, tensor] : feeds) {
    FLOWVM_RETURN_IF_ERROR(check(out.node(), "fed Output"));
    feed_list.emplace_back(out.name(), tensor);
  }
  std::vector<std::string> fetch_names;
  for (const Output& f : fetches) {
    FLOWVM_RETURN_IF_ERROR(check(f.node(), "fetched Output"));
    fetch_names.push_back(f.name());
  }
  std::vector<std::string> target_names;
  for (const Operation& t : targets) {
    FLOWVM_RETURN_IF_ERROR(check(t.node(), "target Operation"));
    target_names.push_back(t.name());
  }
  return session->Run(run_options, feed_list, fetch_names, target_names, outputs, metadata, stats);
}

}  // namespace flowvm
