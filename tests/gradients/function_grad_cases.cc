// Gradient checks for the ops that call functions (ops/function_ops.cc):
// PartitionedCall through its function's body, If and Case through their
// branches' gradients, each branch taken.
#include <google/protobuf/text_format.h>

#include "gradients/gradient_cases.h"

namespace flowvm::testing {
namespace {

// tanh(x) * x + x * x, and 3 * x, on doubles.
constexpr char kPoly[] = R"pb(
  signature { name: "GradPoly" input_arg { name: "x" type: DT_DOUBLE } output_arg { name: "y" type: DT_DOUBLE } }
  node_def { name: "t" op: "Tanh" input: "x" attr { key: "T" value { type: DT_DOUBLE } } }
  node_def { name: "tx" op: "Mul" input: "t:y:0" input: "x" attr { key: "T" value { type: DT_DOUBLE } } }
  node_def { name: "xx" op: "Mul" input: "x" input: "x" attr { key: "T" value { type: DT_DOUBLE } } }
  node_def { name: "sum" op: "AddV2" input: "tx:z:0" input: "xx:z:0" attr { key: "T" value { type: DT_DOUBLE } } }
  ret { key: "y" value: "sum:z:0" })pb";
constexpr char kTriple[] = R"pb(
  signature { name: "GradTriple" input_arg { name: "x" type: DT_DOUBLE } output_arg { name: "y" type: DT_DOUBLE } }
  node_def { name: "three" op: "Const" attr { key: "dtype" value { type: DT_DOUBLE } }
             attr { key: "value" value { tensor { dtype: DT_DOUBLE tensor_shape {} double_val: 3 } } } }
  node_def { name: "m" op: "Mul" input: "x" input: "three:output:0" attr { key: "T" value { type: DT_DOUBLE } } }
  ret { key: "y" value: "m:z:0" })pb";

void AddFunctions(const GraphScope& s) {
  for (const char* text : {kPoly, kTriple}) {
    FunctionDef f;
    if (!google::protobuf::TextFormat::ParseFromString(text, &f)) {
      s.UpdateStatus(errors::Internal("bad FunctionDef in a test"));
      return;
    }
    s.UpdateStatus(s.graph()->mutable_library()->AddFunction(f));
  }
}

AttrValue Func(const char* name) {
  AttrValue v;
  v.mutable_func()->set_name(name);
  return v;
}

AttrValue Doubles(int n) { return MakeAttrValue(std::vector<DataType>(n, DT_DOUBLE)); }

GradientBuildFn Call(const char* op) {
  return [op](const GraphScope& s, const std::vector<NodeOut>& x) {
    AddFunctions(s);
    return Ys(s.Op(op, {OpInput::List({x[0]})},
                   {{"Tin", Doubles(1)}, {"Tout", Doubles(1)}, {"f", Func("GradPoly")}}));
  };
}

GradientBuildFn If(const char* op, bool pred) {
  return [op, pred](const GraphScope& s, const std::vector<NodeOut>& x) {
    AddFunctions(s);
    NodeOut p = ConstOp(s, Tensor::Scalar<bool>(pred));
    return Ys(s.Op(op, {p, OpInput::List({x[0]})},
                   {{"Tout", Doubles(1)}, {"then_branch", Func("GradPoly")}, {"else_branch", Func("GradTriple")}}));
  };
}

GradientBuildFn Case(const char* op, int index) {
  return [op, index](const GraphScope& s, const std::vector<NodeOut>& x) {
    AddFunctions(s);
    AttrValue branches;
    *branches.mutable_list()->add_func() = Func("GradTriple").func();
    *branches.mutable_list()->add_func() = Func("GradPoly").func();
    return Ys(s.Op(op, {I32Scalar(s, index), OpInput::List({x[0]})}, {{"Tout", Doubles(1)}, {"branches", branches}}));
  };
}

std::vector<GradCase> FunctionCases() {
  const Tensor x = RandomDoubles(TensorShape({2, 3}), -1, 1, 21);
  return {
      {"PartitionedCall", "PartitionedCall", {x}, Call("PartitionedCall")},
      {"StatefulPartitionedCall", "StatefulPartitionedCall", {x}, Call("StatefulPartitionedCall")},
      {"If_then", "If", {x}, If("If", true)},
      {"If_else", "If", {x}, If("If", false)},
      {"StatelessIf_then", "StatelessIf", {x}, If("StatelessIf", true)},
      {"StatelessIf_else", "StatelessIf", {x}, If("StatelessIf", false)},
      {"Case_0", "Case", {x}, Case("Case", 0)},
      {"Case_1", "Case", {x}, Case("Case", 1)},
      {"Case_out_of_range", "Case", {x}, Case("Case", 5)},
      {"StatelessCase_1", "StatelessCase", {x}, Case("StatelessCase", 1)},
  };
}

GradCaseRegistrar registrar(FunctionCases());

}  // namespace
}  // namespace flowvm::testing
