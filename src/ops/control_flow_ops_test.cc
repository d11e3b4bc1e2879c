// Shape functions of the control-flow ops, against TensorFlow's: Merge gives
// the shape its inputs have in common (the shape itself when they agree;
// with the same rank, the dims every input knows and agrees on, unknown
// elsewhere; with different ranks, or an input of unknown rank, unknown
// rank), which is what gives tf.cond's outputs their static shape. Switch,
// Enter, Exit and NextIteration pass their data's shape through; Switch and
// LoopCond want a scalar predicate.
#include <gtest/gtest.h>

#include "graph/shape_inference.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;
using testing::VariableNode;

using P = PartialTensorShape;

std::vector<P> Shapes(const std::vector<NodeDef>& nodes, const std::string& name) {
  auto shapes = InferShapes(nodes, name);
  EXPECT_TRUE(shapes.ok()) << shapes.status();
  return shapes.ok() ? *shapes : std::vector<P>();
}

NodeDef Ph(const char* name, P shape, DataType t = DT_FLOAT) { return PlaceholderNode(name, t, shape); }

// Merge of placeholders of the given shapes: its two outputs' shapes.
std::vector<P> MergeOf(const std::vector<P>& shapes, const char* op = "Merge") {
  std::vector<NodeDef> nodes;
  TestNode merge("m", op);
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    nodes.push_back(Ph(name.c_str(), shapes[i]));
    merge.Input(name);
  }
  nodes.push_back(merge.Attr("T", DT_FLOAT).Attr("N", static_cast<int>(shapes.size())));
  return Shapes(nodes, "m");
}

TEST(ControlFlowOpsShapeTest, MergeOfEqualShapesIsThatShape) {
  auto s = MergeOf({P({2, 3}), P({2, 3})});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], P({2, 3}));
  EXPECT_EQ(s[1], P(TensorShape()));  // value_index: a scalar
  EXPECT_EQ(MergeOf({P({-1, 3}), P({-1, 3})})[0], P({-1, 3}));
  EXPECT_EQ(MergeOf({P(TensorShape()), P(TensorShape())})[0], P(TensorShape()));
  EXPECT_EQ(MergeOf({P({4})})[0], P({4}));  // N = 1
}

TEST(ControlFlowOpsShapeTest, MergeOfSameRankKeepsTheDimsAllInputsAgreeOn) {
  EXPECT_EQ(MergeOf({P({2, 3}), P({2, 4})})[0], P({2, -1}));
  EXPECT_EQ(MergeOf({P({2, 3}), P({5, 4})})[0], P({-1, -1}));
  // A dim one input does not know is unknown in the result, as TensorFlow's
  // shape function has it (it compares the values; it does not merge).
  EXPECT_EQ(MergeOf({P({-1, 3}), P({2, 3})})[0], P({-1, 3}));
  EXPECT_EQ(MergeOf({P({2, 3}), P({-1, 3})})[0], P({-1, 3}));
  EXPECT_EQ(MergeOf({P({2, 3, 4}), P({2, 5, 4}), P({2, 3, 4})})[0], P({2, -1, 4}));
  EXPECT_EQ(MergeOf({P({2, 3, 4}), P({2, 3, 4}), P({7, 3, 4})})[0], P({-1, 3, 4}));
}

TEST(ControlFlowOpsShapeTest, MergeOfDifferentRanksHasUnknownRank) {
  EXPECT_TRUE(MergeOf({P({2, 3}), P({2})})[0].unknown_rank());
  EXPECT_TRUE(MergeOf({P(TensorShape()), P({1})})[0].unknown_rank());
  EXPECT_TRUE(MergeOf({P({2}), P({2}), P({2, 1})})[0].unknown_rank());
  // An input of unknown rank, first or later, makes the rank unknown.
  EXPECT_TRUE(MergeOf({P(), P({2, 3})})[0].unknown_rank());
  EXPECT_TRUE(MergeOf({P({2, 3}), P()})[0].unknown_rank());
  EXPECT_EQ(MergeOf({P({2, 3}), P()})[1], P(TensorShape()));
}

TEST(ControlFlowOpsShapeTest, RefMergeLikeMerge) {
  auto s = Shapes({VariableNode("a", DT_FLOAT, TensorShape({2, 3})), VariableNode("b", DT_FLOAT, TensorShape({2, 4})),
                   TestNode("m", "RefMerge").Input("a").Input("b").Attr("T", DT_FLOAT).Attr("N", 2)},
                  "m");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], P({2, -1}));
  EXPECT_EQ(s[1], P(TensorShape()));
}

TEST(ControlFlowOpsShapeTest, SwitchPassesTheDataShapeToBothOutputs) {
  for (P data : {P({2, 3}), P({-1, 3}), P()}) {
    for (P pred : {P(TensorShape()), P()}) {  // a scalar, or a bool placeholder of unknown shape
      auto s = Shapes({Ph("x", data), Ph("p", pred, DT_BOOL),
                       TestNode("sw", "Switch").Input("x").Input("p").Attr("T", DT_FLOAT)},
                      "sw");
      ASSERT_EQ(s.size(), 2u);
      EXPECT_EQ(s[0], data) << s[0].DebugString();
      EXPECT_EQ(s[1], data) << s[1].DebugString();
    }
  }
  auto s = Shapes({VariableNode("v", DT_FLOAT, TensorShape({4})), Ph("p", P(TensorShape()), DT_BOOL),
                   TestNode("sw", "RefSwitch").Input("v").Input("p").Attr("T", DT_FLOAT)},
                  "sw");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], P({4}));
  EXPECT_EQ(s[1], P({4}));
}

TEST(ControlFlowOpsShapeTest, SwitchAndLoopCondWantAScalarPredicate) {
  auto s = InferShapes({Ph("x", P({2})), Ph("p", P({2}), DT_BOOL),
                        TestNode("sw", "Switch").Input("x").Input("p").Attr("T", DT_FLOAT)},
                       "sw");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("sw"), std::string::npos) << s.status();
  s = InferShapes({Ph("p", P({1}), DT_BOOL), TestNode("c", "LoopCond").Input("p")}, "c");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  auto ok = Shapes({Ph("p", P(), DT_BOOL), TestNode("c", "LoopCond").Input("p")}, "c");
  ASSERT_EQ(ok.size(), 1u);
  EXPECT_EQ(ok[0], P(TensorShape()));
}

// x -> Enter -> {Exit, NextIteration -> Merge}: an Exit and a NextIteration
// must sit in a loop's frame, after an Enter.
std::vector<NodeDef> InFrame(NodeDef x, bool ref) {
  const std::string r = ref ? "Ref" : "";
  return {x,
          TestNode("enter", r + "Enter").Input("x").Attr("T", DT_FLOAT).Attr("frame_name", std::string("f")),
          TestNode("exit", r + "Exit").Input("enter").Attr("T", DT_FLOAT),
          TestNode("next", r + "NextIteration").Input("enter").Attr("T", DT_FLOAT),
          TestNode("merge", r + "Merge").Input("enter").Input("next").Attr("T", DT_FLOAT).Attr("N", 2)};
}

TEST(ControlFlowOpsShapeTest, EnterExitNextIterationPassTheShapeThrough) {
  for (P data : {P({2, 3}), P({-1, 3}), P(TensorShape()), P()}) {
    auto nodes = InFrame(Ph("x", data), false);
    for (const char* name : {"enter", "exit", "next"}) {
      auto s = Shapes(nodes, name);
      ASSERT_EQ(s.size(), 1u) << name;
      EXPECT_EQ(s[0], data) << name << ": " << s[0].DebugString();
    }
  }
  auto nodes = InFrame(VariableNode("x", DT_FLOAT, TensorShape({5, 2})), true);
  for (const char* name : {"enter", "exit", "next"}) {
    auto s = Shapes(nodes, name);
    ASSERT_EQ(s.size(), 1u) << name;
    EXPECT_EQ(s[0], P({5, 2})) << name;
  }
}

TEST(ControlFlowOpsShapeTest, LoopMergeWithABackEdgeHasUnknownShape) {
  // x -> Enter -> Merge(Enter, NextIteration) -> Switch -> Identity ->
  // NextIteration: the back edge's shape is not known when the Merge is
  // inferred, so the Merge's is unknown, as in TensorFlow's refiner (which
  // leaves a loop's back-edge input unknown). Python's while_loop sets the
  // loop variables' shapes from their shape invariants.
  std::vector<NodeDef> nodes = {
      Ph("x", P({2, 3})),
      Ph("p", P(TensorShape()), DT_BOOL),
      TestNode("enter", "Enter").Input("x").Attr("T", DT_FLOAT).Attr("frame_name", std::string("loop")),
      TestNode("merge", "Merge").Input("enter").Input("next").Attr("T", DT_FLOAT).Attr("N", 2),
      TestNode("p_enter", "Enter")
          .Input("p")
          .Attr("T", DT_BOOL)
          .Attr("frame_name", std::string("loop"))
          .Attr("is_constant", true),
      TestNode("cond", "LoopCond").Input("p_enter"),
      TestNode("switch", "Switch").Input("merge").Input("cond").Attr("T", DT_FLOAT),
      TestNode("body", "Identity").Input("switch:1").Attr("T", DT_FLOAT),
      TestNode("next", "NextIteration").Input("body").Attr("T", DT_FLOAT),
      TestNode("exit", "Exit").Input("switch").Attr("T", DT_FLOAT),
  };
  EXPECT_EQ(Shapes(nodes, "enter")[0], P({2, 3}));
  EXPECT_TRUE(Shapes(nodes, "merge")[0].unknown_rank());
  EXPECT_TRUE(Shapes(nodes, "exit")[0].unknown_rank());
}

}  // namespace
}  // namespace flowvm
