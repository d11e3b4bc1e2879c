// Signatures, shape functions and gradient registration of Unique and
// UniqueWithCounts.
#include <gtest/gtest.h>

#include "graph/gradient_registry.h"
#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

TEST(UniqueOpsDefTest, SignaturesFollowTensorFlow) {
  for (const char* name : {"Unique", "UniqueWithCounts"}) {
    const OpDef& op = OpRegistry::Global()->LookUpOrNull(name)->op_def;
    EXPECT_FALSE(op.is_stateful()) << name;
    ASSERT_EQ(op.input_arg_size(), 1) << name;
    EXPECT_EQ(op.input_arg(0).name(), "x");
    EXPECT_EQ(op.input_arg(0).type_attr(), "T");
    const bool counts = std::string(name) == "UniqueWithCounts";
    ASSERT_EQ(op.output_arg_size(), counts ? 3 : 2) << name;
    EXPECT_EQ(op.output_arg(0).name(), "y");
    EXPECT_EQ(op.output_arg(0).type_attr(), "T");
    EXPECT_EQ(op.output_arg(1).name(), "idx");
    EXPECT_EQ(op.output_arg(1).type_attr(), "out_idx");
    if (counts) {
      EXPECT_EQ(op.output_arg(2).name(), "count");
      EXPECT_EQ(op.output_arg(2).type_attr(), "out_idx");
    }
    ASSERT_EQ(op.attr_size(), 2) << name;
    EXPECT_EQ(op.attr(0).name(), "T");
    EXPECT_EQ(op.attr(0).type(), "type");
    EXPECT_FALSE(op.attr(0).has_allowed_values());
    EXPECT_EQ(op.attr(1).name(), "out_idx");
    EXPECT_EQ(op.attr(1).type(), "type");
    EXPECT_EQ(op.attr(1).default_value().type(), DT_INT32);
    ASSERT_EQ(op.attr(1).allowed_values().list().type_size(), 2);
    EXPECT_EQ(op.attr(1).allowed_values().list().type(0), DT_INT32);
    EXPECT_EQ(op.attr(1).allowed_values().list().type(1), DT_INT64);
    // TensorFlow defines no gradient: the path is cut.
    bool no_gradient = false;
    EXPECT_EQ(GradientRegistry::Global()->LookUp(name, &no_gradient), nullptr) << name;
    EXPECT_TRUE(no_gradient) << name;
  }
}

NodeDef Unique(const char* op, DataType t = DT_STRING) {
  return TestNode("u", op).Input("x").Attr("T", t).Attr("out_idx", DT_INT64);
}

TEST(UniqueOpsShapeTest, YAndCountAreVectorsIdxIsXsShape) {
  for (const char* op : {"Unique", "UniqueWithCounts"}) {
    const size_t outputs = std::string(op) == "Unique" ? 2 : 3;
    for (const PartialTensorShape& x : {PartialTensorShape({7}), PartialTensorShape({-1}), PartialTensorShape()}) {
      auto s = InferShapes({PlaceholderNode("x", DT_STRING, x), Unique(op)}, "u");
      ASSERT_TRUE(s.ok()) << s.status();
      ASSERT_EQ(s->size(), outputs) << op;
      EXPECT_EQ((*s)[0], PartialTensorShape({-1})) << op;
      EXPECT_EQ((*s)[1], x) << op;  // as TensorFlow: an unknown rank stays unknown
      if (outputs == 3) {
        EXPECT_EQ((*s)[2], PartialTensorShape({-1})) << op;
      }
    }
  }
}

TEST(UniqueOpsShapeTest, XMustBeAVector) {
  for (const char* op : {"Unique", "UniqueWithCounts"}) {
    for (const PartialTensorShape& x : {PartialTensorShape(TensorShape()), PartialTensorShape({2, -1})}) {
      auto s = InferShapes({PlaceholderNode("x", DT_FLOAT, x), Unique(op, DT_FLOAT)}, "u");
      ASSERT_FALSE(s.ok()) << op;
      EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
      EXPECT_NE(s.status().message().find("x must be a vector"), std::string::npos) << s.status();
      EXPECT_NE(s.status().message().find(x.DebugString()), std::string::npos) << s.status();
    }
  }
}

}  // namespace
}  // namespace flowvm
