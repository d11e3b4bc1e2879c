// OptimizeGraph: the passes together, their order, the options and the
// report, and whole steps computing the same values as without optimization.
#include "runtime/graph_optimizer.h"

#include <gtest/gtest.h>

#include "runtime/passes/pass_test_util.h"

namespace flowvm {
namespace {

using testing::Binary;
using testing::ConstNode;
using testing::ExpectSameAsUnoptimized;
using testing::ExpectValidGraph;
using testing::FloatConst;
using testing::FloatInput;
using testing::InputOf;
using testing::MakeGraph;
using testing::MakeGraphDef;
using testing::NodeNames;
using testing::TestNode;
using testing::Unary;
using testing::VariableNode;
using Names = std::vector<std::string>;

TEST(GraphOptimizerTest, RunsThePassesInOrderAndReportsEach) {
  // CSE merges the two Neg(x); folding turns a and b2 into equal constants,
  // which the second CSE merges, and then s1 and s2 too; then the Identity
  // relay goes.
  auto g = MakeGraph({FloatInput("x"), Unary("n1", "Neg", "x"), Unary("n2", "Neg", "x"), FloatConst("one", 1),
                      FloatConst("two", 2), Binary("a", "Add", "one", "two"), Binary("b", "Mul", "two", "two"),
                      FloatConst("minus", -1), Binary("b2", "Add", "b", "minus"), Binary("s1", "Mul", "n1", "a"),
                      Binary("s2", "Mul", "n2", "b2"), Unary("i", "Identity", "s1"), Binary("out", "Add", "i", "s2")});
  GraphOptimizerReport report;
  Status s = OptimizeGraph(g.get(), GraphOptimizerOptions(), {"out"}, &report);
  ASSERT_TRUE(s.ok()) << s;
  ExpectValidGraph(*g);
  EXPECT_EQ(report.lines, (Names{
                              "common subexpression elimination: merged 1 node (n2 into n1)",
                              "constant folding: replaced 6 nodes with 2 constants (a/_folded_0, b2/_folded_0)",
                              "common subexpression elimination after folding: merged 2 nodes (b2/_folded_0 into "
                              "a/_folded_0, s2 into s1)",
                              "identity removal: removed 1 Identity (i)",
                          }));
  EXPECT_EQ(report.merged, 3);
  EXPECT_EQ(report.folded, 6);
  EXPECT_EQ(report.removed, 1);
  EXPECT_EQ(NodeNames(*g), (Names{"a/_folded_0", "n1", "out", "s1", "x"}));
  EXPECT_EQ(InputOf(*g, "s1", 1), "a/_folded_0:0");
  EXPECT_EQ(InputOf(*g, "out", 0), "s1:0");
  EXPECT_EQ(InputOf(*g, "out", 1), "s1:0");
}

TEST(GraphOptimizerTest, OptionsTurnPassesOff) {
  std::vector<NodeDef> nodes = {FloatInput("x"), Unary("n1", "Neg", "x"), Unary("n2", "Neg", "x"),
                                FloatConst("c", 1), Unary("a", "Neg", "c"), Binary("s", "Add", "n1", "n2"),
                                Binary("t", "Add", "s", "a"), Unary("i", "Identity", "t")};
  GraphOptimizerOptions none;
  none.common_subexpression_elimination = none.constant_folding = none.remove_identity_chains = false;
  auto g = MakeGraph(nodes);
  GraphOptimizerReport report;
  ASSERT_TRUE(OptimizeGraph(g.get(), none, {}, &report).ok());
  EXPECT_TRUE(report.lines.empty());
  EXPECT_EQ(g->num_nodes(), 8);

  GraphOptimizerOptions small;
  small.max_folded_constant_bytes = 2;  // a float does not fit
  small.remove_identity_chains = false;
  g = MakeGraph(nodes);
  ASSERT_TRUE(OptimizeGraph(g.get(), small, {}, nullptr).ok());  // no report wanted
  EXPECT_EQ(NodeNames(*g), (Names{"a", "c", "i", "n1", "s", "t", "x"}));
}

TEST(GraphOptimizerTest, LongListsAreCut) {
  std::vector<NodeDef> nodes = {FloatInput("x")};
  for (int i = 0; i < 13; ++i)
    nodes.push_back(Unary(std::string("i") + std::to_string(i), "Identity",
                          i == 0 ? std::string("x") : std::string("i") + std::to_string(i - 1)));
  auto g = MakeGraph(nodes);
  GraphOptimizerReport report;
  ASSERT_TRUE(OptimizeGraph(g.get(), GraphOptimizerOptions(), {}, &report).ok());
  EXPECT_EQ(report.lines, (Names{"identity removal: removed 13 Identities (i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, "
                                 "...)"}));
}

TEST(GraphOptimizerTest, AStepWithStateRandomnessAndConstantsComputesTheSame) {
  auto random = [](const std::string& name) {
    return TestNode(name, "RandomUniform").Input("shape").Attr("T", DT_INT32).Attr("dtype", DT_FLOAT)
        .Attr("seed", 7).Attr("seed2", 3);
  };
  GraphDef def = MakeGraphDef(
      {ConstNode("shape", Tensor::FromVector<int32_t>({3})), random("r1"), random("r2"),
       VariableNode("w", DT_FLOAT, PartialTensorShape({3})), ConstNode("w0", Tensor::FromVector<float>({1, 2, 3})),
       ConstNode("w0_again", Tensor::FromVector<float>({1, 2, 3})),
       TestNode("init", "Assign").Input("w").Input("w0").Attr("T", DT_FLOAT),
       Binary("scale", "Mul", "w0", "w0_again"), Unary("read", "Identity", "init"),
       Binary("y", "Mul", "read", "scale"), Binary("noise", "Sub", "r1", "r2"), Binary("y2", "Add", "y", "noise"),
       Unary("ident", "Identity", "y2"), Binary("z", "Add", "ident", "x"), FloatInput("x"),
       TestNode("step", "AssignAdd").Input("w").Input("z").Attr("T", DT_FLOAT),
       TestNode("train", "NoOp").Input("^step")});
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::FromVector<float>({0.5f, 0.25f, 2})}};
  auto r = ExpectSameAsUnoptimized(def, {"z", "noise", "scale", "step"}, {"train"}, GraphOptimizerOptions(), feeds);
  ASSERT_TRUE(r.status.ok()) << r.status;
  // Random ops are neither merged nor folded; the Assign and its read stay.
  for (const char* name : {"r1", "r2", "init", "read", "step", "train", "noise"})
    EXPECT_NE(std::find(r.graph_nodes.begin(), r.graph_nodes.end(), name), r.graph_nodes.end()) << name;
  EXPECT_EQ(std::find(r.graph_nodes.begin(), r.graph_nodes.end(), "ident"), r.graph_nodes.end());
  EXPECT_NE(std::find(r.graph_nodes.begin(), r.graph_nodes.end(), "scale/_folded_0"), r.graph_nodes.end());
}

}  // namespace
}  // namespace flowvm
