// Print's signature, shape function and gradient registration.
#include <gtest/gtest.h>

#include "graph/gradient_registry.h"
#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

TEST(LoggingOpsTest, PrintSignature) {
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("Print")->op_def;
  EXPECT_TRUE(op.is_stateful());  // never folded or merged away
  ASSERT_EQ(op.input_arg_size(), 2);
  EXPECT_EQ(op.input_arg(1).type_list_attr(), "U");
  std::map<std::string, const OpDef::AttrDef*> attrs;
  for (const auto& a : op.attr()) attrs[a.name()] = &a;
  ASSERT_EQ(attrs.size(), 5u);
  EXPECT_EQ(attrs["message"]->default_value().s(), "");
  EXPECT_EQ(attrs["first_n"]->default_value().i(), -1);
  EXPECT_EQ(attrs["summarize"]->default_value().i(), 3);
  bool no_gradient = false;
  EXPECT_NE(GradientRegistry::Global()->LookUp("Print", &no_gradient), nullptr);
}

TEST(LoggingOpsTest, PrintKeepsTheInputShape) {
  auto s = InferShapes({PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1, 3})),
                        PlaceholderNode("d", DT_INT32, TensorShape({7})),
                        TestNode("p", "Print")
                            .Input("x")
                            .Input("d")
                            .Input("x")
                            .Attr("T", DT_FLOAT)
                            .Attr("U", std::vector<DataType>{DT_INT32, DT_FLOAT})},
                       "p");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({-1, 3}));
  // No data at all is allowed too.
  s = InferShapes({PlaceholderNode("x", DT_STRING, TensorShape({2})),
                   TestNode("p", "Print").Input("x").Attr("T", DT_STRING).Attr("U", std::vector<DataType>{})},
                  "p");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({2}));
}

}  // namespace
}  // namespace flowvm
