// Signature and shape function of StringSplitV2.
#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

TEST(StringOpsDefTest, StringSplitV2SignatureFollowsTensorFlow) {
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("StringSplitV2")->op_def;
  EXPECT_FALSE(op.is_stateful());
  ASSERT_EQ(op.input_arg_size(), 2);
  EXPECT_EQ(op.input_arg(0).name(), "input");
  EXPECT_EQ(op.input_arg(0).type(), DT_STRING);
  EXPECT_EQ(op.input_arg(1).name(), "sep");
  EXPECT_EQ(op.input_arg(1).type(), DT_STRING);
  ASSERT_EQ(op.output_arg_size(), 3);
  EXPECT_EQ(op.output_arg(0).name(), "indices");
  EXPECT_EQ(op.output_arg(0).type(), DT_INT64);
  EXPECT_EQ(op.output_arg(1).name(), "values");
  EXPECT_EQ(op.output_arg(1).type(), DT_STRING);
  EXPECT_EQ(op.output_arg(2).name(), "shape");
  EXPECT_EQ(op.output_arg(2).type(), DT_INT64);
  ASSERT_EQ(op.attr_size(), 1);
  EXPECT_EQ(op.attr(0).name(), "maxsplit");
  EXPECT_EQ(op.attr(0).type(), "int");
  EXPECT_EQ(op.attr(0).default_value().i(), -1);
}

NodeDef Split() { return TestNode("split", "StringSplitV2").Input("input").Input("sep"); }
NodeDef StringPlaceholder(const std::string& name, const PartialTensorShape& shape) {
  return PlaceholderNode(name, DT_STRING, shape);
}

TEST(StringOpsShapeTest, StringSplitV2) {
  for (const PartialTensorShape& input : {PartialTensorShape({3}), PartialTensorShape({-1}), PartialTensorShape()}) {
    auto s = InferShapes({StringPlaceholder("input", input), ConstNode("sep", Tensor::Scalar<std::string>(",")),
                          Split()},
                         "split");
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_EQ(s->size(), 3u);
    EXPECT_EQ((*s)[0], PartialTensorShape({-1, 2}));
    EXPECT_EQ((*s)[1], PartialTensorShape({-1}));
    EXPECT_EQ((*s)[2], PartialTensorShape({2}));
  }
  // A sep of unknown shape is accepted.
  auto s = InferShapes({StringPlaceholder("input", {3}), StringPlaceholder("sep", PartialTensorShape()), Split()},
                       "split");
  EXPECT_TRUE(s.ok()) << s.status();
}

void ExpectShapeError(const PartialTensorShape& input, const PartialTensorShape& sep, const std::string& msg) {
  auto s = InferShapes({StringPlaceholder("input", input), StringPlaceholder("sep", sep), Split()}, "split");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
  EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
}

TEST(StringOpsShapeTest, StringSplitV2RankErrorsNameTheInput) {
  ExpectShapeError(TensorShape(), TensorShape(), "input must be a vector, but has shape []");
  ExpectShapeError({2, 3}, TensorShape(), "input must be a vector, but has shape [2,3]");
  ExpectShapeError({2}, {1}, "sep must be a scalar, but has shape [1]");
}

}  // namespace
}  // namespace flowvm
