// Constant folding: which subgraphs fold into Consts, which must stay
// computed, and that steps compute the same values (or fail the same way).
#include "runtime/passes/constant_folding.h"

#include <cmath>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "runtime/passes/pass_test_util.h"

namespace flowvm {
namespace {

using testing::Binary;
using testing::ConstNode;
using testing::ControlInputsOf;
using testing::ExpectSameAsUnoptimized;
using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
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

ConstantFoldingResult Fold(Graph* g, const std::unordered_set<std::string>& keep = {},
                           int64_t max_bytes = 10 << 20) {
  ConstantFoldingResult r;
  Status s = FoldConstants(g, keep, max_bytes, &r);
  EXPECT_TRUE(s.ok()) << s;
  ExpectValidGraph(*g);
  return r;
}

Tensor ValueOf(const Graph& g, const std::string& name) {
  Node* n = g.FindNode(name);
  EXPECT_NE(n, nullptr) << name;
  if (n == nullptr) return Tensor();
  EXPECT_EQ(n->op(), "Const");
  Tensor t;
  Status s = GetNodeAttr(n->def(), "value", &t);
  EXPECT_TRUE(s.ok()) << s;
  return t;
}

NodeDef Int(const std::string& name, int32_t v) { return ConstNode(name, Tensor::Scalar<int32_t>(v)); }

TEST(ConstantFoldingTest, ReplacesAComputationOfConstantsWithOneConst) {
  auto g = MakeGraph({FloatConst("c1", 2), FloatConst("c2", 3), Binary("a", "Add", "c1", "c2"), FloatInput("x"),
                      Binary("m", "Mul", "a", "x")});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_EQ(r.constants, (Names{"a/_folded_0"}));
  EXPECT_EQ(r.removed, (Names{"a", "c1", "c2"}));
  EXPECT_EQ(NodeNames(*g), (Names{"a/_folded_0", "m", "x"}));
  EXPECT_EQ(InputOf(*g, "m", 0), "a/_folded_0:0");
  ExpectTensorEqual(ValueOf(*g, "a/_folded_0"), Tensor::Scalar<float>(5));
}

TEST(ConstantFoldingTest, ChainsFoldIntoTheirLastNodeOnItsDevice) {
  NodeDef e = Unary("e", "Exp", "n");
  e.set_device("/device:CPU:1");
  auto g = MakeGraph({ConstNode("c", Tensor::FromVector<float>({0, 1})), Unary("n", "Neg", "c"), e,
                      FloatInput("x"), Binary("m", "Mul", "e", "x")});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_EQ(r.removed, (Names{"n", "e", "c"}));
  EXPECT_EQ(NodeNames(*g), (Names{"e/_folded_0", "m", "x"}));
  EXPECT_EQ(g->FindNode("e/_folded_0")->requested_device(), "/device:CPU:1");
  ExpectTensorNear(ValueOf(*g, "e/_folded_0"), Tensor::FromVector<float>({1, std::exp(-1.0f)}));
}

TEST(ConstantFoldingTest, EveryOutputReadOutsideGetsItsOwnConst) {
  auto g = MakeGraph({Int("axis", 0), ConstNode("v", Tensor::FromVector<float>({1, 2, 3, 4})),
                      TestNode("s", "Split").Input("axis").Input("v").Attr("T", DT_FLOAT).Attr("num_split", 2),
                      FloatInput("x"), Binary("a", "Add", "s:1", "x"), Binary("b", "Sub", "x", "s:0"),
                      Binary("c", "Mul", "s:1", "x")});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_EQ(r.constants, (Names{"s/_folded_0", "s/_folded_1"}));
  EXPECT_EQ(InputOf(*g, "a", 0), "s/_folded_1:0");
  EXPECT_EQ(InputOf(*g, "b", 1), "s/_folded_0:0");
  EXPECT_EQ(InputOf(*g, "c", 0), "s/_folded_1:0");
  ExpectTensorEqual(ValueOf(*g, "s/_folded_1"), Tensor::FromVector<float>({3, 4}));
}

TEST(ConstantFoldingTest, ALoneConstIsLeftAlone) {
  auto g = MakeGraph({FloatConst("c", 1), FloatInput("x"), Binary("m", "Mul", "c", "x")});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_FALSE(r.changed());
  EXPECT_EQ(NodeNames(*g), (Names{"c", "m", "x"}));
}

TEST(ConstantFoldingTest, StatefulPlaceholderAndKeptNodesAreNotFolded) {
  auto g = MakeGraph({ConstNode("shape", Tensor::FromVector<int32_t>({2})),
                      TestNode("r", "RandomUniform").Input("shape").Attr("T", DT_INT32).Attr("dtype", DT_FLOAT),
                      Unary("nr", "Neg", "r"),  // reads a random op
                      TestNode("pd", "PlaceholderWithDefault").Input("shape").Attr("dtype", DT_INT32)
                          .Attr("shape", PartialTensorShape({2})),
                      Unary("npd", "Neg", "pd", DT_INT32),  // reads a placeholder
                      FloatConst("c", 1), Unary("kept", "Neg", "c"), FloatInput("x"),
                      Binary("m", "Mul", "kept", "x")});
  ConstantFoldingResult r = Fold(g.get(), {"kept"});
  EXPECT_FALSE(r.changed()) << r.removed.size();
  EXPECT_EQ(g->num_nodes(), 9);
}

// ReadFile is stateless, but the file is read on the node's device, under
// its allowed directories (core/path_policy.h), not where the step is
// prepared.
TEST(ConstantFoldingTest, ReadFileOfAConstantNameIsNotFolded) {
  const std::string path = ::testing::TempDir() + "/constant_folding_read_file.txt";
  std::ofstream(path) << "contents";
  auto g = MakeGraph({ConstNode("name", Tensor::Scalar<std::string>(path)),
                      TestNode("read", "ReadFile").Input("name"),
                      Unary("id", "Identity", "read", DT_STRING)});
  ConstantFoldingResult r = Fold(g.get(), {"id"});
  EXPECT_FALSE(r.changed()) << r.removed.size();
  EXPECT_NE(g->FindNode("read"), nullptr);
  std::remove(path.c_str());
}

TEST(ConstantFoldingTest, ControlInputsFromStatefulNodesBlockFolding) {
  // `a` must run after the Assign, and the Const `c` after the random op:
  // neither is constant in that sense, so neither folds.
  auto g = MakeGraph({VariableNode("v", DT_FLOAT, PartialTensorShape({})), FloatConst("init", 1),
                      TestNode("assign", "Assign").Input("v").Input("init").Attr("T", DT_FLOAT),
                      FloatConst("one", 1), TestNode("a", "Neg").Input("one").Input("^assign").Attr("T", DT_FLOAT),
                      ConstNode("shape", Tensor::FromVector<int32_t>({2})),
                      TestNode("r", "RandomUniform").Input("shape").Attr("T", DT_INT32).Attr("dtype", DT_FLOAT),
                      TestNode("c", "Const").Input("^r").Attr("dtype", DT_FLOAT)
                          .Attr("value", Tensor::Scalar<float>(2)),
                      Unary("b", "Neg", "c"), FloatInput("x"), Binary("m", "Add", "a", "x"),
                      Binary("k", "Add", "b", "x"), Unary("read", "Identity", "v")});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_FALSE(r.changed());
  EXPECT_EQ(g->num_nodes(), 13);
}

TEST(ConstantFoldingTest, ControlEdgesMoveToTheNewConstOrGo) {
  // `a` has a data consumer and a control consumer: the control edge moves to
  // its Const. `b` has only a control consumer: the edge goes with it.
  auto g = MakeGraph({FloatConst("c", 1), Unary("a", "Neg", "c"), Unary("b", "Exp", "c"), FloatInput("x"),
                      Binary("m", "Mul", "a", "x"), TestNode("y", "Neg").Input("x").Input("^a").Input("^b")
                          .Attr("T", DT_FLOAT)});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_EQ(r.constants, (Names{"a/_folded_0"}));
  EXPECT_EQ(r.removed, (Names{"a", "b", "c"}));
  EXPECT_EQ(ControlInputsOf(*g, "y"), (Names{"a/_folded_0"}));
}

TEST(ConstantFoldingTest, FoldedNamesAreUnique) {
  auto g = MakeGraph({FloatConst("c", 1), Unary("a", "Neg", "c"), FloatConst("a/_folded_0", 7), FloatInput("x"),
                      Binary("m", "Mul", "a", "x"), Binary("k", "Mul", "a/_folded_0", "x")});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_EQ(r.constants, (Names{"a/_folded_0_1"}));
  EXPECT_EQ(InputOf(*g, "m", 0), "a/_folded_0_1:0");
  ExpectTensorEqual(ValueOf(*g, "a/_folded_0"), Tensor::Scalar<float>(7));
}

TEST(ConstantFoldingTest, KeptConstInputsStay) {
  auto g = MakeGraph({FloatConst("c", 1), Unary("a", "Neg", "c"), FloatInput("x"), Binary("m", "Mul", "a", "x")});
  ConstantFoldingResult r = Fold(g.get(), {"c"});
  EXPECT_EQ(r.removed, (Names{"a"}));
  EXPECT_EQ(NodeNames(*g), (Names{"a/_folded_0", "c", "m", "x"}));
}

TEST(ConstantFoldingTest, OversizedOutputsStayComputed) {
  // f (4000 bytes) is too large; s, which f needs, is also read outside and
  // folds; f keeps s and its inputs.
  auto g = MakeGraph({ConstNode("dims", Tensor::FromVector<int32_t>({1000})), FloatConst("v", 1),
                      Binary("s", "Add", "v", "v"), TestNode("f", "Fill").Input("dims").Input("s").Attr("T", DT_FLOAT),
                      FloatInput("x"), Binary("m", "Mul", "f", "x"), Binary("k", "Mul", "s", "x")});
  ConstantFoldingResult r = Fold(g.get(), {}, 100);
  EXPECT_EQ(r.constants, (Names{"s/_folded_0"}));
  EXPECT_TRUE(r.removed.empty());
  EXPECT_EQ(InputOf(*g, "k", 0), "s/_folded_0:0");
  EXPECT_EQ(InputOf(*g, "m", 0), "f:0");
  EXPECT_EQ(InputOf(*g, "f", 1), "s:0");

  auto exact = MakeGraph({ConstNode("dims", Tensor::FromVector<int32_t>({25})), FloatConst("v", 1),
                          TestNode("f", "Fill").Input("dims").Input("v").Attr("T", DT_FLOAT), FloatInput("x"),
                          Binary("m", "Mul", "f", "x")});
  EXPECT_EQ(Fold(exact.get(), {}, 100).constants, (Names{"f/_folded_0"}));  // exactly 100 bytes
}

TEST(ConstantFoldingTest, StringsFold) {
  auto s = [](const std::string& name, std::vector<std::string> v) {
    return ConstNode(name, Tensor::FromVector<std::string>(v));
  };
  GraphDef def = MakeGraphDef({s("a", {"x", "yy"}), s("b", {"zzz"}), Int("axis", 0),
                               TestNode("cat", "ConcatV2").Input("a").Input("b").Input("axis").Attr("N", 2)
                                   .Attr("T", DT_STRING),
                               TestNode("i", "Identity").Input("cat").Attr("T", DT_STRING),
                               TestNode("p", "Placeholder").Attr("dtype", DT_STRING),
                               TestNode("both", "ConcatV2").Input("i").Input("p").Input("axis").Attr("N", 2)
                                   .Attr("T", DT_STRING)});
  auto g = MakeGraph(std::vector<NodeDef>(def.node().begin(), def.node().end()));
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_EQ(r.constants, (Names{"i/_folded_0"}));
  ExpectTensorEqual(ValueOf(*g, "i/_folded_0"), Tensor::FromVector<std::string>({"x", "yy", "zzz"}));
  auto step = ExpectSameAsUnoptimized(def, {"both", "i"}, {}, GraphOptimizerOptions(),
                                      {{"p", Tensor::FromVector<std::string>({"w"})}});
  ASSERT_TRUE(step.status.ok()) << step.status;
  ExpectTensorEqual(step.outputs[0], Tensor::FromVector<std::string>({"x", "yy", "zzz", "w"}));
  // 6 bytes of characters: over a 5-byte limit.
  auto small = MakeGraph({s("a", {"x", "yy"}), s("b", {"zzz"}), Int("axis", 0),
                          TestNode("cat", "ConcatV2").Input("a").Input("b").Input("axis").Attr("N", 2)
                              .Attr("T", DT_STRING),
                          TestNode("p", "Placeholder").Attr("dtype", DT_STRING),
                          TestNode("both", "ConcatV2").Input("cat").Input("p").Input("axis").Attr("N", 2)
                              .Attr("T", DT_STRING)});
  EXPECT_FALSE(Fold(small.get(), {}, 5).changed());
}

TEST(ConstantFoldingTest, FailedEvaluationLeavesTheSubgraphAndTheStepReportsTheError) {
  GraphDef def = MakeGraphDef({Int("one", 1), Int("zero", 0), Binary("d", "Div", "one", "zero", DT_INT32),
                               Unary("n", "Neg", "d", DT_INT32)});
  auto g = MakeGraph(std::vector<NodeDef>(def.node().begin(), def.node().end()));
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_FALSE(r.changed());
  EXPECT_EQ(g->num_nodes(), 4);
  auto step = ExpectSameAsUnoptimized(def, {"n"});
  EXPECT_FALSE(step.status.ok());
  EXPECT_NE(step.status.message().find("Integer division by zero"), std::string::npos) << step.status;

  // A shape error, and an error in a subgraph with no value read outside it
  // (only a control edge): still reported by the step.
  GraphDef shapes = MakeGraphDef({ConstNode("a", Tensor::FromVector<float>({1, 2})),
                                  ConstNode("b", Tensor::FromVector<float>({1, 2, 3})), Binary("s", "Add", "a", "b"),
                                  Int("one", 1), Int("zero", 0), Binary("d", "Div", "one", "zero", DT_INT32),
                                  FloatConst("c", 1), TestNode("out", "Neg").Input("c").Input("^d")
                                      .Attr("T", DT_FLOAT)});
  EXPECT_FALSE(ExpectSameAsUnoptimized(shapes, {"s"}).status.ok());
  EXPECT_FALSE(ExpectSameAsUnoptimized(shapes, {"out"}).status.ok());
}

TEST(ConstantFoldingTest, AFailingSubgraphDoesNotStopAnIndependentOne) {
  auto g = MakeGraph({Int("one", 1), Int("zero", 0), Binary("d", "Div", "one", "zero", DT_INT32),
                      TestNode("x", "Placeholder").Attr("dtype", DT_INT32), Binary("bad", "Add", "d", "x", DT_INT32),
                      Int("two", 2), Unary("n", "Neg", "two", DT_INT32), Binary("good", "Add", "n", "x", DT_INT32)});
  ConstantFoldingResult r = Fold(g.get());
  EXPECT_EQ(r.constants, (Names{"n/_folded_0"}));
  EXPECT_NE(g->FindNode("d"), nullptr);
}

TEST(ConstantFoldingTest, StepsComputeTheSameAfterFolding) {
  GraphDef def = MakeGraphDef(
      {ConstNode("m1", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2}))),
       ConstNode("m2", Tensor::FromVector<float>({0.5f, -1, 2, 0}, TensorShape({2, 2}))),
       TestNode("mm", "MatMul").Input("m1").Input("m2").Attr("T", DT_FLOAT).Attr("transpose_b", true),
       ConstNode("shape", Tensor::FromVector<int32_t>({4})),
       TestNode("flat", "Reshape").Input("mm").Input("shape").Attr("T", DT_FLOAT),
       FloatInput("x"), Binary("y", "Mul", "flat", "x"), Unary("sq", "Square", "flat"),
       TestNode("cast", "Cast").Input("sq").Attr("SrcT", DT_FLOAT).Attr("DstT", DT_INT64),
       VariableNode("v", DT_FLOAT, PartialTensorShape({4})),
       TestNode("assign", "Assign").Input("v").Input("flat").Attr("T", DT_FLOAT),
       Binary("after", "Add", "assign", "x")});
  std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::FromVector<float>({1, 2, 3, 4})}};
  GraphOptimizerOptions only_folding;
  only_folding.common_subexpression_elimination = only_folding.remove_identity_chains = false;
  auto r = ExpectSameAsUnoptimized(def, {"y", "cast", "flat", "after"}, {}, only_folding, feeds);
  ASSERT_TRUE(r.status.ok()) << r.status;
  ASSERT_EQ(r.report.lines.size(), 1u);
  EXPECT_EQ(r.report.lines[0], "constant folding: replaced 7 nodes with 2 constants (flat/_folded_0, cast/_folded_0)");
}

}  // namespace
}  // namespace flowvm
