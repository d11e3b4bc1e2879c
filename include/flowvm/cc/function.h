// Functions in the C++ client API (GraphDef.library; white paper section
// 10): build a function's body with the usual op builders in a scope of its
// own, add it to a graph's library, and call it like an op.
//
//   FunctionBuilder square("Square");
//   Output x = square.Argument("x", DT_FLOAT);
//   square.Return("y", ops::Mul(square.scope(), x, x));
//   Status s = square.AddTo(root);                    // root's graph knows Square
//   OutputList y = CallFunction(root.WithOpName("sq"), "Square", {a});
//
// A call is placed and partitioned like the nodes of its body (they may
// carry devices of their own), and differentiates with
// AddSymbolicGradients: through the body (SymbolicGradient), or through the
// gradient function SetGradient names. A body may call functions added to
// its own scope (inner.AddTo(outer.scope())); AddTo carries them along.
// Errors are recorded in the scope, as with every builder.
#ifndef FLOWVM_CC_FUNCTION_H_
#define FLOWVM_CC_FUNCTION_H_

#include <string>
#include <vector>

#include "flowvm/cc/scope.h"
#include "flowvm/function.pb.h"

namespace flowvm {

class FunctionBuilder {
 public:
  explicit FunctionBuilder(std::string name);

  // Where the body is built (a graph of its own).
  const Scope& scope() const { return scope_; }
  // The next argument of the function.
  Output Argument(const std::string& name, DataType dtype);
  // The next result of the function.
  void Return(const std::string& name, const Output& value);
  // An op the function must run whenever it is called (a side effect no
  // result depends on).
  void ControlReturn(const std::string& name, const Operation& op);
  // The function whose (x..., dy...) -> dx... computes this one's gradient,
  // instead of differentiating the body.
  void SetGradient(std::string gradient_function) { gradient_ = std::move(gradient_function); }

  // The function as TensorFlow's FunctionDef.
  StatusOr<FunctionDef> Build() const;
  // Adds the function, the functions its body calls and its gradient
  // declaration to `scope`'s graph. InvalidArgument if a different function
  // of the same name is there already.
  Status AddTo(const Scope& scope) const;

 private:
  std::string name_;
  Scope scope_;
  std::vector<Output> args_, rets_;
  std::vector<std::string> arg_names_, ret_names_, control_names_;
  std::vector<Operation> controls_;
  std::string gradient_;
};

// Adds `fdef` (and `gradients`) to the library of `scope`'s graph.
Status AddFunctionLibrary(const Scope& scope, const FunctionDefLibrary& library);

// A node calling `function` (of the scope's graph library) on `inputs`:
// one Output per result. `attrs` are the values of a polymorphic function's
// attrs (T, N, ...); non-polymorphic functions need none.
OutputList CallFunction(const Scope& scope, const std::string& function, const InputList& inputs,
                        const std::vector<std::pair<std::string, AttrValue>>& attrs = {});

}  // namespace flowvm

#endif  // FLOWVM_CC_FUNCTION_H_
