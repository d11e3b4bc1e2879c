// Common subexpression elimination: what merges, what must not, and that
// steps compute the same values afterwards.
#include "runtime/passes/cse.h"

#include <gtest/gtest.h>

#include "runtime/passes/pass_test_util.h"

namespace flowvm {
namespace {

using testing::Binary;
using testing::ConstNode;
using testing::ControlInputsOf;
using testing::ExpectSameAsUnoptimized;
using testing::ExpectValidGraph;
using testing::FloatConst;
using testing::FloatInput;
using testing::InputOf;
using testing::MakeGraph;
using testing::MakeGraphDef;
using testing::NodeNames;
using testing::PlaceholderNode;
using testing::TestNode;
using testing::Unary;
using testing::VariableNode;
using Names = std::vector<std::string>;
using Merges = std::vector<std::pair<std::string, std::string>>;

Merges Cse(Graph* g, const std::unordered_set<std::string>& keep = {}) {
  CseResult r;
  Status s = EliminateCommonSubexpressions(g, keep, &r);
  EXPECT_TRUE(s.ok()) << s;
  ExpectValidGraph(*g);
  return r.merged;
}

TEST(CseTest, ChainsOfDuplicatesCollapse) {
  // Add(c, d) twice over two identical pairs of Consts: one Const pair and one Add remain.
  auto g = MakeGraph({FloatConst("c1", 1), FloatConst("d1", 2), FloatConst("c2", 1), FloatConst("d2", 2),
                      Binary("a1", "Add", "c1", "d1"), Binary("a2", "Add", "c2", "d2"),
                      Binary("m", "Mul", "a1", "a2")});
  Merges merged = Cse(g.get());
  std::sort(merged.begin(), merged.end());
  EXPECT_EQ(merged, (Merges{{"a2", "a1"}, {"c2", "c1"}, {"d2", "d1"}}));
  EXPECT_EQ(NodeNames(*g), (Names{"a1", "c1", "d1", "m"}));
  EXPECT_EQ(InputOf(*g, "m", 0), "a1:0");
  EXPECT_EQ(InputOf(*g, "m", 1), "a1:0");
  EXPECT_EQ(InputOf(*g, "a1", 0), "c1:0");
  EXPECT_EQ(InputOf(*g, "a1", 1), "d1:0");
}

TEST(CseTest, SurvivorTakesOverDataAndControlOutEdges) {
  auto g = MakeGraph({FloatInput("x"), Unary("n1", "Neg", "x"), Unary("n2", "Neg", "x"), Unary("u", "Exp", "n2"),
                      TestNode("t", "NoOp").Input("^n2"),
                      TestNode("t2", "NoOp").Input("^n1").Input("^n2").Input("^x"),
                      TestNode("w", "Neg").Input("n1").Input("^n2").Attr("T", DT_FLOAT)});
  EXPECT_EQ(Cse(g.get()), (Merges{{"n2", "n1"}}));
  EXPECT_EQ(InputOf(*g, "u", 0), "n1:0");
  EXPECT_EQ(ControlInputsOf(*g, "t"), (Names{"n1"}));
  EXPECT_EQ(ControlInputsOf(*g, "t2"), (Names{"n1", "x"}));  // n1 once
  EXPECT_EQ(ControlInputsOf(*g, "w"), Names{});             // its data input orders it
}

TEST(CseTest, MultiOutputNodesKeepTheirPorts) {
  auto g = MakeGraph({FloatInput("x"), ConstNode("axis", Tensor::Scalar<int32_t>(0)),
                      TestNode("s1", "Split").Input("axis").Input("x").Attr("T", DT_FLOAT).Attr("num_split", 2),
                      TestNode("s2", "Split").Input("axis").Input("x").Attr("T", DT_FLOAT).Attr("num_split", 2),
                      Binary("a", "Sub", "s1:1", "s2:0")});
  EXPECT_EQ(Cse(g.get()), (Merges{{"s2", "s1"}}));
  EXPECT_EQ(InputOf(*g, "a", 0), "s1:1");
  EXPECT_EQ(InputOf(*g, "a", 1), "s1:0");
}

TEST(CseTest, ControlInputsMustBeTheSameSet) {
  auto g = MakeGraph({FloatInput("x"), FloatInput("y"), TestNode("p", "NoOp").Input("^x"),
                      TestNode("q", "NoOp").Input("^y"),
                      TestNode("a", "Neg").Input("x").Input("^p").Input("^q").Attr("T", DT_FLOAT),
                      TestNode("b", "Neg").Input("x").Input("^q").Input("^p").Attr("T", DT_FLOAT),
                      TestNode("c", "Neg").Input("x").Input("^p").Attr("T", DT_FLOAT),
                      Unary("d", "Neg", "x")});
  EXPECT_EQ(Cse(g.get()), (Merges{{"b", "a"}}));
  EXPECT_EQ(NodeNames(*g), (Names{"a", "c", "d", "p", "q", "x", "y"}));
}

TEST(CseTest, NothingMergesWhenOpAttrsDeviceOrInputsDiffer) {
  auto cast = [](const std::string& name, DataType to, bool truncate) {
    return TestNode(name, "Cast").Input("x").Attr("SrcT", DT_FLOAT).Attr("DstT", to).Attr("Truncate", truncate);
  };
  NodeDef on_cpu1 = Unary("n_cpu1", "Neg", "x");
  on_cpu1.set_device("/device:CPU:1");
  NodeDef colocated = Unary("n_class", "Neg", "x");
  (*colocated.mutable_attr())["_class"] = MakeAttrValue(std::vector<std::string>{"loc:@y"});
  NodeDef minus_zero = FloatConst("mz", -0.0f), zero = FloatConst("z", 0.0f);
  auto g = MakeGraph({FloatInput("x"), FloatInput("y"), Unary("n", "Neg", "x"), Unary("abs", "Abs", "x"), on_cpu1,
                      colocated,
                      cast("c1", DT_INT32, false), cast("c2", DT_INT64, false), cast("c3", DT_INT32, true),
                      Binary("s1", "Sub", "x", "y"), Binary("s2", "Sub", "y", "x"), zero, minus_zero,
                      FloatConst("one", 1), FloatConst("two", 2)});
  EXPECT_EQ(Cse(g.get()), Merges{});
  EXPECT_EQ(g->num_nodes(), 15);
}

TEST(CseTest, StatefulRefAndPlaceholderNodesNeverMerge) {
  auto g = MakeGraph({ConstNode("shape", Tensor::FromVector<int32_t>({2})),
                      TestNode("r1", "RandomUniform").Input("shape").Attr("T", DT_INT32).Attr("dtype", DT_FLOAT),
                      TestNode("r2", "RandomUniform").Input("shape").Attr("T", DT_INT32).Attr("dtype", DT_FLOAT),
                      VariableNode("v1", DT_FLOAT, PartialTensorShape({2})),
                      VariableNode("v2", DT_FLOAT, PartialTensorShape({2})),
                      ConstNode("init", Tensor::FromVector<float>({1, 2})),
                      TestNode("as1", "Assign").Input("v1").Input("init").Attr("T", DT_FLOAT),
                      TestNode("as2", "Assign").Input("v1").Input("init").Attr("T", DT_FLOAT), FloatInput("p1"),
                      FloatInput("p2")});
  EXPECT_EQ(Cse(g.get()), Merges{});
  EXPECT_EQ(g->num_nodes(), 10);
}

TEST(CseTest, KeptNodeSurvivesAndTwoKeptNodesStay) {
  auto g = MakeGraph({FloatInput("x"), Unary("a", "Neg", "x"), Unary("b", "Neg", "x"), Unary("c", "Neg", "x"),
                      Binary("s", "Add", "a", "c")});
  EXPECT_EQ(Cse(g.get(), {"b"}), (Merges{{"a", "b"}, {"c", "b"}}));
  EXPECT_EQ(InputOf(*g, "s", 0), "b:0");
  EXPECT_EQ(InputOf(*g, "s", 1), "b:0");

  auto both = MakeGraph({FloatInput("x"), Unary("a", "Neg", "x"), Unary("b", "Neg", "x"), Unary("c", "Neg", "x")});
  EXPECT_EQ(Cse(both.get(), {"a", "b"}), (Merges{{"c", "a"}}));
  EXPECT_EQ(NodeNames(*both), (Names{"a", "b", "x"}));
}

TEST(CseTest, LargeConstantsAreComparedInFull) {
  std::vector<float> values(1 << 18);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i % 977);
  std::vector<float> other = values;
  other[values.size() / 4] += 1;  // outside the sampled bytes: same cheap hash
  std::vector<float> edge = values;
  edge[0] += 1;  // inside them
  auto g = MakeGraph({ConstNode("a", Tensor::FromVector(values)), ConstNode("b", Tensor::FromVector(values)),
                      ConstNode("c", Tensor::FromVector(other)), ConstNode("d", Tensor::FromVector(edge))});
  EXPECT_EQ(Cse(g.get()), (Merges{{"b", "a"}}));
  EXPECT_EQ(NodeNames(*g), (Names{"a", "c", "d"}));
}

TEST(CseTest, StepsComputeTheSameAfterMerging) {
  GraphDef def = MakeGraphDef(
      {FloatInput("x"), FloatConst("c1", 3), FloatConst("c2", 3), Binary("a1", "Mul", "x", "c1"),
       Binary("a2", "Mul", "x", "c2"),
       Unary("e1", "Exp", "a1"), Unary("e2", "Exp", "a2"), Binary("out", "Sub", "e1", "e2"),
       Binary("sum", "Add", "e1", "e2")});
  GraphOptimizerOptions only_cse;
  only_cse.constant_folding = only_cse.remove_identity_chains = false;
  auto r = ExpectSameAsUnoptimized(def, {"out", "sum", "e2"}, {}, only_cse,
                                   {{"x", Tensor::FromVector<float>({0.5f, -1, 2})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.report.merged, 3);
  ASSERT_EQ(r.report.lines.size(), 1u);
  EXPECT_EQ(r.report.lines[0], "common subexpression elimination: merged 3 nodes (c2 into c1, a2 into a1, e2 into e1)");
}

}  // namespace
}  // namespace flowvm
