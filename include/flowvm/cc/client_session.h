// ClientSession: runs the graph a Scope has built, extending its session
// with the nodes added since the previous Run, so building and running can
// interleave (add an optimizer after a first Run, then run it).
//
//   ClientSession session(root);
//   std::vector<Tensor> out;
//   Status s = session.Run({{x, batch}}, {loss}, {train}, &out);
//
// A scope with an error makes every Run return that error. Run may be
// called from several threads at once; building through the scope while
// another thread runs is not supported.
#ifndef FLOWVM_CC_CLIENT_SESSION_H_
#define FLOWVM_CC_CLIENT_SESSION_H_

#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "flowvm/cc/scope.h"
#include "flowvm/session.h"

namespace flowvm {

class ClientSession {
 public:
  using FeedType = std::unordered_map<Output, Tensor, OutputHash>;

  explicit ClientSession(const Scope& scope, const SessionOptions& options = SessionOptions());
  ~ClientSession();

  Status Run(const std::vector<Output>& fetches, std::vector<Tensor>* outputs) const;
  Status Run(const FeedType& feeds, const std::vector<Output>& fetches, std::vector<Tensor>* outputs) const;
  // `targets` run for their effects (training ops, initializers, savers).
  Status Run(const FeedType& feeds, const std::vector<Output>& fetches, const std::vector<Operation>& targets,
             std::vector<Tensor>* outputs, RunStats* stats = nullptr) const;
  // The same with TensorFlow's RunOptions (timeout_in_ms, trace_level,
  // output_partition_graphs); `metadata` (may be null) receives the step
  // statistics and partition graphs they ask for, e.g. for a board's trace
  // (SummaryWriter::AddRunMetadata).
  Status Run(const RunOptions& run_options, const FeedType& feeds, const std::vector<Output>& fetches,
             const std::vector<Operation>& targets, std::vector<Tensor>* outputs, RunMetadata* metadata,
             RunStats* stats = nullptr) const;

  // Creates the session now (Run otherwise does it first), or sends it the
  // nodes added since. For a cluster target this blocks until the master
  // and every task answer, up to options.connect_timeout_ms; the error then
  // lists the tasks that did not.
  Status Connect() const;

 private:
  // Creates the session, or extends it with the nodes added since.
  Status Sync() const;

  Scope scope_;
  SessionOptions options_;
  mutable std::mutex mu_;
  mutable std::unique_ptr<Session> session_;
  mutable int synced_node_ids_ = 0;  // nodes with ids below this are in the session
};

}  // namespace flowvm

#endif  // FLOWVM_CC_CLIENT_SESSION_H_
