// FunctionLibraryDefinition: the functions of a graph (GraphDef.library,
// TensorFlow's FunctionDefLibrary; white paper section 10). A function is
// a FunctionDef: a signature (an OpDef: typed input and output args, attrs
// for polymorphic types), a body of NodeDefs, and which body tensors it
// returns. A graph calls a function by using its name as an op, or through
// PartitionedCall / StatefulPartitionedCall / SymbolicGradient and the ops
// with `func` attrs (If, While, Case, the dataset ops).
//
// The library also answers the op lookups of graphs that use it: for a
// function it gives an OpRegistrationData made from the signature, whose
// shape function infers the outputs through the body. GradientDefs name a
// function's gradient function.
//
// Ownership and thread safety: a Graph owns its library through a
// shared_ptr, shared with the graphs of function bodies instantiated from
// it. Adding functions is not thread-safe; lookups are, once nothing is
// added any more (a graph being run is not edited). Pointers returned stay
// valid as long as the library lives.
#ifndef FLOWVM_GRAPH_FUNCTION_LIBRARY_H_
#define FLOWVM_GRAPH_FUNCTION_LIBRARY_H_

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "flowvm/function.pb.h"
#include "flowvm/graph.pb.h"
#include "flowvm/node_def.pb.h"
#include "flowvm/status.h"
#include "graph/op_registry.h"

namespace flowvm {

class FunctionLibraryDefinition {
 public:
  // `ops`: the registered ops function bodies may use (and whose names a
  // function may not take).
  explicit FunctionLibraryDefinition(const OpRegistry* ops = OpRegistry::Global());
  FunctionLibraryDefinition(const FunctionLibraryDefinition&) = delete;
  FunctionLibraryDefinition& operator=(const FunctionLibraryDefinition&) = delete;

  // Adds a function. Adding one that is already there with an identical
  // definition is a no-op; a different definition under the same name, a
  // name that is a registered op, or a malformed signature is
  // InvalidArgument naming the function.
  Status AddFunction(const FunctionDef& fdef);
  // Declares a function by its signature alone, so that bodies can call it
  // before it is defined (a recursive function calls itself this way). A
  // later AddFunction with the same argument and result types defines it;
  // a different signature under the name is InvalidArgument. Declared
  // functions resolve as ops but are not in Find, the protos or the
  // function names, and cannot be instantiated.
  Status AddDeclaration(const OpDef& signature);
  // Adds a gradient function name for `function_name`; a different one
  // for the same function is InvalidArgument.
  Status AddGradient(const GradientDef& gdef);
  // Every function, then every gradient; on an error nothing of `lib` is
  // added.
  Status AddLibrary(const FunctionDefLibrary& lib);

  const FunctionDef* Find(const std::string& name) const;
  bool Contains(const std::string& name) const { return Find(name) != nullptr; }
  // The function's op registration (signature and shape function), or null;
  // declared functions have one too.
  const OpRegistrationData* LookUpFunctionOp(const std::string& name) const;
  // The registered op, else the function; NotFound naming `op` otherwise.
  StatusOr<const OpRegistrationData*> LookUpOp(const std::string& op) const;
  // The gradient function of `name` from the GradientDefs; "" if none.
  std::string GradientFunction(const std::string& name) const;

  const OpRegistry* ops() const { return ops_; }
  bool empty() const { return functions_.empty() && gradients_.empty(); }
  int num_functions() const { return static_cast<int>(functions_.size()); }
  std::vector<std::string> ListFunctionNames() const;

  // The whole library as a proto, functions and gradients sorted by name.
  void ToProto(FunctionDefLibrary* out) const;
  // The functions reachable from `roots` (names of functions): through
  // nodes of their bodies that call functions, through `func` attrs, and
  // through their gradient functions; with the gradients that name them.
  void ReachableProto(const std::set<std::string>& roots, FunctionDefLibrary* out) const;
  // The functions `node` calls directly: its op if that is a function,
  // and every function its attrs name (func and list(func) attrs).
  std::vector<std::string> CalledFunctions(const NodeDef& node) const;

 private:
  struct Entry {
    FunctionDef fdef;
    std::unique_ptr<OpRegistrationData> op;
    bool declared_only = false;
  };
  Status ValidateSignature(const FunctionDef& fdef) const;
  void UpdateStatefulness();

  const OpRegistry* ops_;
  std::map<std::string, std::unique_ptr<Entry>> functions_;
  std::map<std::string, std::string> gradients_;  // function -> its gradient function
};

// Appends `extension` to `graph`, as Session::Extend does: its nodes, its
// versions if `graph` has none, and its library, merged (a function defined
// differently in both is InvalidArgument naming it; nothing is changed
// then). Does not check the nodes.
Status ExtendGraphDef(const GraphDef& extension, GraphDef* graph);

// A `func` attr of `node` (NotFound / InvalidArgument naming the node and
// attr), and a `list(func)` one.
Status GetFunctionAttr(const NodeDef& node, const std::string& name, NameAttrList* out);
Status GetFunctionListAttr(const NodeDef& node, const std::string& name, std::vector<NameAttrList>* out);

// A function and its attrs (those not beginning with '_') as one string,
// the same for equal attrs whatever their order: the key of caches of
// instantiations.
std::string CanonicalFunctionKey(const NameAttrList& func);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_FUNCTION_LIBRARY_H_
