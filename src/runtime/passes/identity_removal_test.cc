// Identity and NoOp relay removal: what goes, what must stay, and that steps
// compute the same values afterwards.
#include "runtime/passes/identity_removal.h"

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
using testing::TestNode;
using testing::Unary;
using testing::VariableNode;
using Names = std::vector<std::string>;

IdentityRemovalResult Remove(Graph* g, const std::unordered_set<std::string>& keep = {}) {
  IdentityRemovalResult r;
  Status s = RemoveIdentityAndNoOpRelays(g, keep, &r);
  EXPECT_TRUE(s.ok()) << s;
  ExpectValidGraph(*g);
  return r;
}

NodeDef OnDevice(NodeDef n, const std::string& device) {
  n.set_device(device);
  return n;
}
NodeDef NoOp(const std::string& name, const std::vector<std::string>& after) {
  TestNode n(name, "NoOp");
  for (const auto& a : after) n.Input("^" + a);
  return n;
}

TEST(IdentityRemovalTest, ChainsCollapseOntoTheSourcePort) {
  auto g = MakeGraph({FloatInput("x"), ConstNode("axis", Tensor::Scalar<int32_t>(0)),
                      TestNode("s", "Split").Input("axis").Input("x").Attr("T", DT_FLOAT).Attr("num_split", 2),
                      Unary("i1", "Identity", "s:1"), Unary("i2", "Identity", "i1"), Unary("n", "Neg", "i2"),
                      Binary("m", "Mul", "i1", "i2")});
  IdentityRemovalResult r = Remove(g.get());
  EXPECT_EQ(r.identities, (Names{"i1", "i2"}));
  EXPECT_EQ(InputOf(*g, "n", 0), "s:1");
  EXPECT_EQ(InputOf(*g, "m", 0), "s:1");
  EXPECT_EQ(InputOf(*g, "m", 1), "s:1");
}

TEST(IdentityRemovalTest, ControlConsumersWaitForTheSourceInstead) {
  auto g = MakeGraph({FloatInput("x"), Unary("i", "Identity", "x"), FloatInput("y"),
                      TestNode("a", "Neg").Input("y").Input("^i").Attr("T", DT_FLOAT),
                      TestNode("b", "Neg").Input("x").Input("^i").Attr("T", DT_FLOAT),
                      TestNode("c", "Add").Input("i").Input("y").Input("^i").Attr("T", DT_FLOAT)});
  EXPECT_EQ(Remove(g.get()).identities, (Names{"i"}));
  EXPECT_EQ(ControlInputsOf(*g, "a"), (Names{"x"}));
  EXPECT_EQ(ControlInputsOf(*g, "b"), Names{});  // already reads x
  EXPECT_EQ(ControlInputsOf(*g, "c"), Names{});  // reads x now
  EXPECT_EQ(InputOf(*g, "c", 0), "x:0");
}

TEST(IdentityRemovalTest, KeptRefControlledAndDeviceCrossingIdentitiesStay) {
  auto g = MakeGraph({OnDevice(FloatInput("x"), "/device:CPU:0"), VariableNode("v", DT_FLOAT, PartialTensorShape({})),
                      Unary("kept", "Identity", "x"), Unary("snapshot", "Identity", "v"),
                      TestNode("ordered", "Identity").Input("x").Input("^kept").Attr("T", DT_FLOAT),
                      OnDevice(Unary("copy", "Identity", "x"), "/device:CPU:1"),
                      OnDevice(Unary("same", "Identity", "x"), "/device:CPU:0"), Unary("any", "Identity", "x")});
  IdentityRemovalResult r = Remove(g.get(), {"kept"});
  EXPECT_EQ(r.identities, (Names{"same", "any"}));
  EXPECT_EQ(NodeNames(*g), (Names{"copy", "kept", "ordered", "snapshot", "v", "x"}));
}

TEST(IdentityRemovalTest, ADeviceCrossingEndsTheChain) {
  auto g = MakeGraph({OnDevice(FloatInput("x"), "/device:CPU:0"), Unary("i1", "Identity", "x"),
                      OnDevice(Unary("i2", "Identity", "i1"), "/device:CPU:1"), Unary("i3", "Identity", "i2"),
                      Unary("n", "Neg", "i3")});
  EXPECT_EQ(Remove(g.get()).identities, (Names{"i1", "i3"}));
  EXPECT_EQ(InputOf(*g, "i2", 0), "x:0");
  EXPECT_EQ(InputOf(*g, "n", 0), "i2:0");
}

TEST(IdentityRemovalTest, NoOpsWithSmallFanInOrFanOutAreReplacedByDirectEdges) {
  auto g = MakeGraph({FloatInput("a"), FloatInput("b"), NoOp("one_to_three", {"a"}),
                      TestNode("c", "Neg").Input("b").Input("^one_to_three").Attr("T", DT_FLOAT),
                      TestNode("d", "Neg").Input("b").Input("^one_to_three").Attr("T", DT_FLOAT),
                      TestNode("e", "Neg").Input("a").Input("^one_to_three").Attr("T", DT_FLOAT)});
  EXPECT_EQ(Remove(g.get()).noops, (Names{"one_to_three"}));
  EXPECT_EQ(ControlInputsOf(*g, "c"), (Names{"a"}));
  EXPECT_EQ(ControlInputsOf(*g, "d"), (Names{"a"}));
  EXPECT_EQ(ControlInputsOf(*g, "e"), Names{});  // a data edge already orders it
}

TEST(IdentityRemovalTest, NoOpFanInTimesFanOutMayNotExceedTheirSum) {
  auto g = MakeGraph({FloatInput("p1"), FloatInput("p2"), FloatInput("p3"), NoOp("two_by_two", {"p1", "p2"}),
                      NoOp("three_by_three", {"p1", "p2", "p3"}), NoOp("s1", {"two_by_two", "three_by_three"}),
                      NoOp("s2", {"two_by_two", "three_by_three"}), NoOp("s3", {"three_by_three"}),
                      NoOp("target", {"s1", "s2", "s3"})});
  IdentityRemovalResult r = Remove(g.get(), {"target", "s1", "s2", "s3"});
  EXPECT_EQ(r.noops, (Names{"two_by_two"}));
  EXPECT_EQ(ControlInputsOf(*g, "s1"), (Names{"p1", "p2", "three_by_three"}));
  EXPECT_EQ(ControlInputsOf(*g, "s2"), (Names{"p1", "p2", "three_by_three"}));

  // Relays without predecessors or successors just go; a chain collapses.
  auto chain = MakeGraph({FloatInput("x"), NoOp("root", {}), NoOp("n1", {"x", "root"}), NoOp("n2", {"n1"}),
                          TestNode("y", "Neg").Input("x").Input("^n2").Attr("T", DT_FLOAT), NoOp("leaf", {"y"})});
  EXPECT_EQ(Remove(chain.get()).noops, (Names{"root", "n1", "n2", "leaf"}));
  EXPECT_EQ(NodeNames(*chain), (Names{"x", "y"}));
}

TEST(IdentityRemovalTest, NoOpsStayWhenRemovingThemAddsDeviceCrossings) {
  const std::string cpu0 = "/device:CPU:0", cpu1 = "/device:CPU:1";
  auto g = MakeGraph({OnDevice(FloatInput("p1"), cpu1), OnDevice(FloatInput("p2"), cpu1),
                      OnDevice(NoOp("gather", {"p1", "p2"}), cpu1),                       // 2 crossings, 4 after
                      OnDevice(NoOp("s1", {"gather"}), cpu0), OnDevice(NoOp("s2", {"gather"}), cpu0),
                      OnDevice(NoOp("recv", {"p1", "p2"}), cpu0), OnDevice(NoOp("s3", {"recv"}), cpu0)});
  IdentityRemovalResult r = Remove(g.get(), {"s1", "s2", "s3"});
  EXPECT_EQ(r.noops, (Names{"recv"}));  // 2 crossings before, 2 after
  EXPECT_EQ(ControlInputsOf(*g, "s3"), (Names{"p1", "p2"}));
}

TEST(IdentityRemovalTest, StepsComputeTheSameAfterRemoval) {
  GraphDef def = MakeGraphDef(
      {FloatInput("x"), Unary("i1", "Identity", "x"), Unary("i2", "Identity", "i1"), Unary("e", "Exp", "i2"),
       VariableNode("v", DT_FLOAT, PartialTensorShape({})), FloatConst("zero", 0),
       TestNode("init", "Assign").Input("v").Input("zero").Attr("T", DT_FLOAT),
       Unary("before", "Identity", "init"), NoOp("ready", {"before"}),
       TestNode("add", "AssignAdd").Input("v").Input("one").Input("^ready").Attr("T", DT_FLOAT), FloatConst("one", 1),
       Unary("after", "Identity", "add"), NoOp("train", {"after", "e"})});
  GraphOptimizerOptions only_removal;
  only_removal.common_subexpression_elimination = only_removal.constant_folding = false;
  auto r = ExpectSameAsUnoptimized(def, {"i2", "after", "before"}, {"train"}, only_removal,
                                   {{"x", Tensor::FromVector<float>({1, 2})}});
  ASSERT_TRUE(r.status.ok()) << r.status;
  EXPECT_EQ(r.report.lines, (Names{"identity removal: removed 2 Identities and 1 NoOp (i1, i2, ready)"}));
}

}  // namespace
}  // namespace flowvm
