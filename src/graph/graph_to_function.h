// Turning a graph into a function (TensorFlow's graph_to_function_def):
// what Python's @Defun and the C++ client's FunctionBuilder do with the
// graph they built a function's body in.
#ifndef FLOWVM_GRAPH_GRAPH_TO_FUNCTION_H_
#define FLOWVM_GRAPH_GRAPH_TO_FUNCTION_H_

#include <string>
#include <vector>

#include "flowvm/function.pb.h"
#include "flowvm/status.h"
#include "graph/graph.h"
#include "graph/graph_scope.h"

namespace flowvm {

struct FunctionSignatureSpec {
  std::string name;
  // The function's arguments: outputs of Placeholder nodes of the graph
  // (which are left out of the body), and their names.
  std::vector<NodeOut> inputs;
  std::vector<std::string> input_names;
  // Its results and their names.
  std::vector<NodeOut> outputs;
  std::vector<std::string> output_names;
  // Nodes that must run whenever the function does (its control outputs).
  std::vector<Node*> control_outputs;
  std::vector<std::string> control_output_names;
  // A function is stateful if a node of its body is; this forces it.
  bool is_stateful = false;
};

// Every node of `graph` but the argument placeholders becomes a node of the
// body, inputs written TensorFlow's way ("x", "mul:z:0", "^init"). Names
// must be valid node names and unique among arguments, and among results.
// InvalidArgument naming the tensor or node otherwise: an argument that is
// not a Placeholder's only output, a result of a type no function may
// return (a reference is read: its value is returned).
Status GraphToFunctionDef(const Graph& graph, const FunctionSignatureSpec& spec, FunctionDef* fdef);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_GRAPH_TO_FUNCTION_H_
