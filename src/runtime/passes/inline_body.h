// Copying an instantiated function body into a graph: the mechanism that
// both function inlining and the lowering of If/Case/While use.
#ifndef FLOWVM_RUNTIME_PASSES_INLINE_BODY_H_
#define FLOWVM_RUNTIME_PASSES_INLINE_BODY_H_

#include <string>
#include <vector>

#include "graph/function_body.h"
#include "graph/graph.h"

namespace flowvm {

struct InlineSite {
  // Body node "x" becomes "<prefix>/x" (made unique if taken).
  std::string prefix;
  // The caller's requested device: body nodes without one get it, partial
  // ones are completed from it (the body's own request wins where both say
  // something).
  std::string device;
  // The caller's original_func_names (it may itself be a body node),
  // appended to every copied node's, innermost first.
  std::vector<std::string> caller_functions;
  // One tensor per argument of the body.
  std::vector<NodeOut> args;
  // If set, every copied node without inputs (a Const, say) runs after it,
  // which puts it in the caller's frame and branch; and, if
  // `args_wait_for_control`, every argument's Identity too.
  Node* input_control = nullptr;
  bool args_wait_for_control = false;
};

struct InlinedBody {
  std::vector<NodeOut> results;  // one per result of the body
  std::vector<Node*> control_results;  // the body's control outputs, copied
  std::vector<Node*> nodes;      // every node added
};

// Adds a copy of `body` (without its _Arg and _Retval nodes) to `graph`:
// each argument becomes an Identity of the site's tensor, loop frames are
// renamed under the prefix (so two copies never share a frame), and "_class"
// colocations follow the renamed nodes.
Status CopyBodyInto(Graph* graph, const FunctionBody& body, const InlineSite& site, InlinedBody* out);

// A node named `name` (made unique) of `op` with `attrs`, data inputs
// `inputs` and the site's device, for the small glue nodes callers add.
StatusOr<Node*> AddGlueNode(Graph* graph, const std::string& name, const std::string& op,
                            const std::vector<NodeOut>& inputs, const std::map<std::string, AttrValue>& attrs,
                            const std::string& device);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_PASSES_INLINE_BODY_H_
