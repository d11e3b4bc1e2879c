// Instantiating a function: its FunctionDef, with concrete values for the
// attrs of its signature, becomes a Graph. Each argument is an `_Arg` node
// (attr index: its position in the flattened argument list), each result a
// `_Retval` node, and the body's nodes keep their names, with the
// signature's attr placeholders replaced by the values given.
//
// FunctionDef bodies name tensors TensorFlow's way: an input arg by its
// name ("x"; a list arg names all of its tensors), a node's output by the
// node, the output arg and the index in it ("mul:z:0"; "split:output" is
// every tensor of that arg), and control inputs as "^node".
//
// Every body node records the function in its NodeDef's
// experimental_debug_info.original_func_names, innermost first, so that
// errors about it say which function it belongs to.
#ifndef FLOWVM_GRAPH_FUNCTION_BODY_H_
#define FLOWVM_GRAPH_FUNCTION_BODY_H_

#include <memory>
#include <string>
#include <vector>

#include "flowvm/attr_value.pb.h"
#include "flowvm/status.h"
#include "graph/function_library.h"
#include "graph/graph.h"
#include "graph/graph_scope.h"

namespace flowvm {

struct FunctionBody {
  std::string name;  // the function's
  std::unique_ptr<Graph> graph;  // uses the library it was instantiated from
  DataTypeVector arg_types, ret_types;
  std::vector<Node*> arg_nodes, ret_nodes;  // by index
  std::vector<std::string> arg_names, ret_names;  // "x", or "xs:1" for list args
  std::vector<Node*> control_ret_nodes;
  bool is_stateful = false;
};

// Instantiates `func.name()` of `library` with `func.attr()`. Errors
// (InvalidArgument, NotFound) name the function and the body node:
// a missing attr, an unknown op or function, an input that names nothing,
// a type that does not match, a cycle. `library` must outlive the body.
StatusOr<std::unique_ptr<FunctionBody>> InstantiateFunction(std::shared_ptr<FunctionLibraryDefinition> library,
                                                            const NameAttrList& func);

// The gradient of `func` as a function body: arguments (x..., dy...) with
// one dy per result of func, results dx..., one per argument of func
// (zeros for an argument no result depends on, or that is not a floating
// type). It is the library's gradient function for func if a GradientDef
// names one, else func's body differentiated symbolically (which
// recomputes the body's forward values). This is what SymbolicGradient
// computes.
StatusOr<std::unique_ptr<FunctionBody>> InstantiateGradient(std::shared_ptr<FunctionLibraryDefinition> library,
                                                            const NameAttrList& func);

// The attrs of a call node that go to the function (those not beginning
// with '_'), as a NameAttrList naming `function`.
NameAttrList CallAttrs(const NodeDef& call, const std::string& function);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_FUNCTION_BODY_H_
