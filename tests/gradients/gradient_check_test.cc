// Runs every registered gradient-check case through the numeric checker and
// checks that every op with a gradient function is covered by a case.
#include <set>

#include <gtest/gtest.h>

#include "gradients/gradient_cases.h"
#include "graph/gradient_registry.h"

namespace flowvm::testing {

std::vector<GradCase>& AllGradCases() {
  static auto* cases = new std::vector<GradCase>;
  return *cases;
}

GradCaseRegistrar::GradCaseRegistrar(std::vector<GradCase> cases) {
  for (auto& c : cases) AllGradCases().push_back(std::move(c));
}

namespace {

class GradientCheckTest : public ::testing::TestWithParam<GradCase> {};

TEST_P(GradientCheckTest, MatchesCentralDifferences) {
  const GradCase& c = GetParam();
  GradientCheck check;
  for (const Tensor& x : c.inputs) check.AddInput(x);
  check.Build(c.build);
  check.set_delta(c.delta);
  auto error = check.MaxError();
  ASSERT_TRUE(error.ok()) << error.status();
  EXPECT_TRUE(check.ops().count(c.op)) << "the case's graph has no " << c.op << " node";
  EXPECT_LE(*error, c.tolerance) << c.op;
}

INSTANTIATE_TEST_SUITE_P(Ops, GradientCheckTest, ::testing::ValuesIn(AllGradCases()),
                         [](const ::testing::TestParamInfo<GradCase>& info) { return info.param.name; });

TEST(GradientCoverageTest, EveryGradientFunctionHasACase) {
  std::set<std::string> covered;
  for (const GradCase& c : AllGradCases()) covered.insert(c.op);
  // Gradient functions that only report an error: array_grad_errors_test.cc.
  covered.insert("PreventGradient");
  // Unimplemented second-order gradients: nn_unimplemented_grad_errors_test.cc.
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3", "MaxPool3DGrad"})
    covered.insert(op);
  // The reference forms share Switch's and Merge's functions; their inputs
  // are variables, which a numerical check cannot perturb through a feed:
  // cc/control_flow_test.cc checks gradients reaching a variable through
  // them against the closed form.
  covered.insert("RefSwitch");
  covered.insert("RefMerge");
  // Gradients of functions that report Unimplemented: function_grad_errors_test.cc.
  for (const char* op : {"SymbolicGradient", "While", "StatelessWhile"}) covered.insert(op);
  for (const std::string& op : GradientRegistry::Global()->ListOps())
    EXPECT_TRUE(covered.count(op)) << "no gradient-check case for " << op;
}

}  // namespace
}  // namespace flowvm::testing
