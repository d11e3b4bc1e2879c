// The rule that every differentiable op of the kernel library has a gradient
// function: an op with a floating or complex input and a floating or complex
// output (going by the types its OpDef allows) must have REGISTER_GRADIENT or
// an explicit REGISTER_NO_GRADIENT. gradient_check_test.cc then requires a
// numeric case for each gradient function.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "graph/gradient_registry.h"
#include "graph/gradients.h"
#include "graph/op_registry.h"

namespace flowvm {
namespace {

// Stateful ops that differentiation does not apply to. Only ops the rule
// would otherwise catch are listed (AllowListIsNeeded checks that): the
// variables themselves and the sampling ops (RandomUniform, ...) have no
// floating input, so the rule never reaches them.
const std::set<std::string>& NotDifferentiableStateful() {
  static const auto* ops = new std::set<std::string>{
      // Updates of a variable's state: gradients reach the variable through
      // its reads, never through these.
      "Assign", "AssignAdd", "AssignSub", "ScatterUpdate", "ScatterAdd", "ScatterSub",
      // Optimizer updates.
      "ApplyGradientDescent", "ApplyMomentum", "ApplyAdagrad", "ApplyRMSProp", "ApplyCenteredRMSProp", "ApplyAdam",
      // A random permutation of its input.
      "RandomShuffle",
  };
  return *ops;
}

// Ops without a per-op gradient function. The loop ops are differentiated
// a whole loop at a time (graph/while_gradients.h: a backward loop that pops
// the forward values from stacks), never one by one.
const std::set<std::string>& DifferentiatedAsWholeLoops() {
  static const auto* ops = new std::set<std::string>{
      "Enter", "RefEnter", "Exit", "RefExit", "NextIteration", "RefNextIteration",
  };
  return *ops;
}

// Whether an argument can be of a floating or complex type: its fixed type
// (ref types count as their base), or any type its type attr allows (an attr
// with no allowed list allows every type).
bool CanBeDifferentiable(const OpDef& def, const OpDef::ArgDef& arg) {
  if (arg.type() != DT_INVALID) return IsDifferentiableType(BaseType(arg.type()));
  const std::string& attr_name = arg.type_attr().empty() ? arg.type_list_attr() : arg.type_attr();
  for (const OpDef::AttrDef& attr : def.attr()) {
    if (attr.name() != attr_name) continue;
    if (!attr.has_allowed_values() || attr.allowed_values().list().type_size() == 0) return true;
    for (int t : attr.allowed_values().list().type())
      if (IsDifferentiableType(BaseType(static_cast<DataType>(t)))) return true;
    return false;
  }
  return false;
}

bool AnyDifferentiable(const OpDef& def, const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args) {
  for (const OpDef::ArgDef& arg : args)
    if (CanBeDifferentiable(def, arg)) return true;
  return false;
}

// Whether the rule applies to the op: a floating or complex input and output.
bool NeedsGradientDecision(const OpDef& def) {
  return AnyDifferentiable(def, def.input_arg()) && AnyDifferentiable(def, def.output_arg());
}

TEST(GradientRegistryCoverageTest, EveryDifferentiableOpHasAGradientOrNone) {
  std::vector<std::string> missing;
  for (const std::string& name : OpRegistry::Global()->ListOps()) {
    if (NotDifferentiableStateful().count(name) || DifferentiatedAsWholeLoops().count(name)) continue;
    const OpRegistrationData* data = OpRegistry::Global()->LookUpOrNull(name);
    ASSERT_NE(data, nullptr) << name;
    if (!NeedsGradientDecision(data->op_def)) continue;
    bool no_gradient = false;
    if (GradientRegistry::Global()->LookUp(name, &no_gradient) == nullptr && !no_gradient) missing.push_back(name);
  }
  std::string list;
  for (const std::string& m : missing) list += " " + m;
  EXPECT_TRUE(missing.empty()) << missing.size()
                               << " ops with floating inputs and outputs have neither REGISTER_GRADIENT nor "
                                  "REGISTER_NO_GRADIENT:"
                               << list;
}

// Each allow-list entry is a registered op that the rule would catch, with
// no gradient registered (else the entry is stale).
TEST(GradientRegistryCoverageTest, AllowListIsNeeded) {
  std::set<std::string> listed = NotDifferentiableStateful();
  listed.insert(DifferentiatedAsWholeLoops().begin(), DifferentiatedAsWholeLoops().end());
  for (const std::string& name : listed) {
    const OpRegistrationData* data = OpRegistry::Global()->LookUpOrNull(name);
    ASSERT_NE(data, nullptr) << name << " is not a registered op";
    EXPECT_TRUE(NeedsGradientDecision(data->op_def)) << name << " has no floating input or output";
    bool no_gradient = false;
    EXPECT_EQ(GradientRegistry::Global()->LookUp(name, &no_gradient), nullptr) << name;
    EXPECT_FALSE(no_gradient) << name;
  }
}

// The argument test itself, on ops whose signatures are known.
TEST(GradientRegistryCoverageTest, ClassifiesSignatures) {
  auto needs = [](const char* op) {
    const OpRegistrationData* data = OpRegistry::Global()->LookUpOrNull(op);
    return data != nullptr && NeedsGradientDecision(data->op_def);
  };
  EXPECT_TRUE(needs("MatMul"));         // T: {..., float, ...}
  EXPECT_TRUE(needs("Identity"));       // T: type (any type)
  EXPECT_TRUE(needs("AddN"));           // N * T
  EXPECT_TRUE(needs("ApplyAdam"));      // Ref(T)
  EXPECT_TRUE(needs("QuantizeV2"));     // input: float
  EXPECT_FALSE(needs("Less"));          // bool output
  EXPECT_FALSE(needs("Shape"));         // int output
  EXPECT_FALSE(needs("RandomUniform"));  // int input (the shape)
  EXPECT_FALSE(needs("Placeholder"));   // no input
  EXPECT_FALSE(needs("LogicalNot"));
}

}  // namespace
}  // namespace flowvm
