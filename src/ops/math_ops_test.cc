// Shape functions and signatures of Add, AddV2, Sub, Mul and MatMul.
#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

StatusOr<PartialTensorShape> Binary(const std::string& op, PartialTensorShape x, PartialTensorShape y,
                                    DataType dt = DT_FLOAT) {
  auto shapes = InferShapes({PlaceholderNode("x", dt, x), PlaceholderNode("y", dt, y),
                             TestNode("z", op).Input("x").Input("y").Attr("T", dt)},
                            "z");
  if (!shapes.ok()) return shapes.status();
  return (*shapes)[0];
}

void ExpectBinary(PartialTensorShape x, PartialTensorShape y, PartialTensorShape want) {
  for (const char* op : {"Add", "AddV2", "Sub", "Mul"}) {
    auto z = Binary(op, x, y);
    ASSERT_TRUE(z.ok()) << op << ": " << z.status();
    EXPECT_EQ(*z, want) << op << " " << x.DebugString() << " " << y.DebugString() << " -> " << z->DebugString();
  }
}

TEST(MathOpsShapeTest, Broadcasting) {
  ExpectBinary({2, 3}, {3}, {2, 3});
  ExpectBinary({2, 1}, {1, 3}, {2, 3});
  ExpectBinary(TensorShape(), {4, 5}, {4, 5});
  ExpectBinary({-1, 3}, {3}, {-1, 3});
  ExpectBinary({-1}, {1}, {-1});
  ExpectBinary({0, 3}, {1, 3}, {0, 3});
  ExpectBinary({5, 1, 3}, {4, 1}, {5, 4, 3});
  EXPECT_TRUE(Binary("Add", PartialTensorShape(), {2}).value().unknown_rank());
}

TEST(MathOpsShapeTest, IncompatibleBroadcast) {
  auto z = Binary("Mul", {2, 3}, {4});
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
  EXPECT_NE(z.status().message().find("'z'"), std::string::npos) << z.status();
}

TEST(MathOpsShapeTest, TypeLists) {
  EXPECT_TRUE(Binary("Add", {1}, {1}, DT_STRING).ok());
  EXPECT_FALSE(Binary("AddV2", {1}, {1}, DT_STRING).ok());
  EXPECT_FALSE(Binary("Sub", {1}, {1}, DT_STRING).ok());
  EXPECT_FALSE(Binary("Mul", {1}, {1}, DT_BOOL).ok());
  EXPECT_TRUE(Binary("AddV2", {1}, {1}, DT_UINT32).ok());
  EXPECT_TRUE(Binary("Mul", {1}, {1}, DT_COMPLEX128).ok());
  EXPECT_TRUE(Binary("Sub", {1}, {1}, DT_BFLOAT16).ok());
  EXPECT_TRUE(OpRegistry::Global()->LookUpOrNull("AddV2")->op_def.is_commutative());
  EXPECT_TRUE(OpRegistry::Global()->LookUpOrNull("Mul")->op_def.is_commutative());
  EXPECT_FALSE(OpRegistry::Global()->LookUpOrNull("Sub")->op_def.is_commutative());
}

StatusOr<PartialTensorShape> MatMul(PartialTensorShape a, PartialTensorShape b, bool ta = false, bool tb = false) {
  auto shapes = InferShapes({PlaceholderNode("a", DT_FLOAT, a), PlaceholderNode("b", DT_FLOAT, b),
                             TestNode("mm", "MatMul")
                                 .Input("a")
                                 .Input("b")
                                 .Attr("T", DT_FLOAT)
                                 .Attr("transpose_a", ta)
                                 .Attr("transpose_b", tb)},
                            "mm");
  if (!shapes.ok()) return shapes.status();
  return (*shapes)[0];
}

TEST(MathOpsShapeTest, MatMul) {
  EXPECT_EQ(MatMul({2, 3}, {3, 5}).value(), PartialTensorShape({2, 5}));
  EXPECT_EQ(MatMul({3, 2}, {3, 5}, true).value(), PartialTensorShape({2, 5}));
  EXPECT_EQ(MatMul({2, 3}, {5, 3}, false, true).value(), PartialTensorShape({2, 5}));
  EXPECT_EQ(MatMul({3, 2}, {5, 3}, true, true).value(), PartialTensorShape({2, 5}));
  EXPECT_EQ(MatMul({-1, 3}, {-1, -1}).value(), PartialTensorShape({-1, -1}));
  EXPECT_EQ(MatMul(PartialTensorShape(), {3, 4}).value(), PartialTensorShape({-1, 4}));
  EXPECT_EQ(MatMul({2, 0}, {0, 3}).value(), PartialTensorShape({2, 3}));
}

TEST(MathOpsShapeTest, MatMulErrors) {
  auto s = MatMul({2, 3}, {4, 5});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("Matrix size-incompatible: In[0]: [2,3], In[1]: [4,5]"), std::string::npos)
      << s.status();
  EXPECT_EQ(MatMul({3}, {3, 4}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(MatMul({2, 3}, {3, 4, 1}).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(MatMul({2, 3}, {2, 3}, false, false).status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(MatMul({2, 3}, {2, 3}, true, false).ok());
}

TEST(MathOpsDefTest, MatMulAttrs) {
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("MatMul")->op_def;
  std::vector<std::string> names;
  for (const auto& a : op.attr()) names.push_back(a.name());
  EXPECT_EQ(names, (std::vector<std::string>{"transpose_a", "transpose_b", "T", "grad_a", "grad_b"}));
  EXPECT_FALSE(op.attr(0).default_value().b());
}

}  // namespace
}  // namespace flowvm
