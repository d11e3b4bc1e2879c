// Shape functions and signatures of Const, Placeholder,
// PlaceholderWithDefault, Identity and NoOp.
#include <gtest/gtest.h>

#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

PartialTensorShape Out0(const std::vector<NodeDef>& nodes, const std::string& name) {
  auto shapes = InferShapes(nodes, name);
  EXPECT_TRUE(shapes.ok()) << shapes.status();
  if (!shapes.ok() || shapes->empty()) return PartialTensorShape();
  return (*shapes)[0];
}

TEST(ArrayOpsShapeTest, ConstHasItsValuesShape) {
  EXPECT_EQ(Out0({ConstNode("c", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3})))}, "c"),
            PartialTensorShape({2, 3}));
  EXPECT_EQ(Out0({ConstNode("c", Tensor::Scalar<int32_t>(1))}, "c"), PartialTensorShape(TensorShape()));
  EXPECT_EQ(Out0({ConstNode("c", Tensor(DT_STRING, TensorShape({0})))}, "c"), PartialTensorShape({0}));
}

TEST(ArrayOpsShapeTest, ConstDtypeMismatch) {
  NodeDef c = TestNode("c", "Const").Attr("dtype", DT_INT32).Attr("value", Tensor::FromVector<float>({1}));
  auto shapes = InferShapes({c}, "c");
  ASSERT_FALSE(shapes.ok());
  EXPECT_EQ(shapes.status().code(), Code::kInvalidArgument);
  EXPECT_NE(shapes.status().message().find("Type mismatch"), std::string::npos) << shapes.status();
}

TEST(ArrayOpsShapeTest, PlaceholderHasItsShapeAttr) {
  EXPECT_EQ(Out0({PlaceholderNode("p", DT_FLOAT, PartialTensorShape({-1, 3}))}, "p"), PartialTensorShape({-1, 3}));
  EXPECT_EQ(Out0({PlaceholderNode("p", DT_FLOAT, TensorShape())}, "p"), PartialTensorShape(TensorShape()));
  // The default shape is unknown.
  EXPECT_TRUE(Out0({TestNode("p", "Placeholder").Attr("dtype", DT_FLOAT)}, "p").unknown_rank());
}

TEST(ArrayOpsShapeTest, PlaceholderWithDefault) {
  auto node = [](PartialTensorShape s) {
    return TestNode("p", "PlaceholderWithDefault").Input("d").Attr("dtype", DT_FLOAT).Attr("shape", s);
  };
  NodeDef d = ConstNode("d", Tensor::FromVector<float>({1, 2, 3}));
  EXPECT_EQ(Out0({d, node(PartialTensorShape({-1}))}, "p"), PartialTensorShape({-1}));
  EXPECT_TRUE(Out0({d, node(PartialTensorShape())}, "p").unknown_rank());
  auto bad = InferShapes({d, node(PartialTensorShape({4}))}, "p");
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
}

TEST(ArrayOpsShapeTest, IdentityKeepsShape) {
  EXPECT_EQ(Out0({PlaceholderNode("x", DT_INT64, PartialTensorShape({2, -1})),
                  TestNode("id", "Identity").Input("x").Attr("T", DT_INT64)},
                 "id"),
            PartialTensorShape({2, -1}));
  // Identity reads a variable (ref input) by value.
  EXPECT_EQ(Out0({testing::VariableNode("v", DT_FLOAT, TensorShape({3})),
                  TestNode("id", "Identity").Input("v").Attr("T", DT_FLOAT)},
                 "id"),
            PartialTensorShape({3}));
}

TEST(ArrayOpsDefTest, Signatures) {
  const OpDef& c = OpRegistry::Global()->LookUpOrNull("Const")->op_def;
  EXPECT_EQ(c.input_arg_size(), 0);
  EXPECT_EQ(c.output_arg(0).type_attr(), "dtype");
  const OpDef& p = OpRegistry::Global()->LookUpOrNull("Placeholder")->op_def;
  ASSERT_EQ(p.attr_size(), 2);
  EXPECT_TRUE(p.attr(1).default_value().shape().unknown_rank());
  const OpDef& n = OpRegistry::Global()->LookUpOrNull("NoOp")->op_def;
  EXPECT_EQ(n.input_arg_size() + n.output_arg_size() + n.attr_size(), 0);
  // Identity accepts any type.
  NodeDef id = TestNode("id", "Identity").Input("x").Attr("T", DT_BOOL);
  auto shapes = InferShapes({PlaceholderNode("x", DT_BOOL, PartialTensorShape()), id}, "id");
  EXPECT_TRUE(shapes.ok()) << shapes.status();
}

TEST(ArrayOpsDefTest, LegacyPlaceholderScalarMeansUnknown) {
  // A producer <= 21 graph: an empty, known-rank shape means "unknown".
  GraphDef def;
  *def.add_node() = PlaceholderNode("p", DT_FLOAT, TensorShape());
  Graph g;
  FLOWVM_ASSERT_OK(ConvertGraphDefToGraph(def, &g));
  ShapeRefiner r;
  FLOWVM_ASSERT_OK(r.InferAll(g));
  EXPECT_TRUE(r.OutputShapes(g.FindNode("p")->id())[0].unknown_rank());
}

}  // namespace
}  // namespace flowvm
