// ParseTensorName: "node", "node:port", "^node", and the names it rejects.
#include "graph/tensor_id.h"

#include <gtest/gtest.h>

namespace flowvm {
namespace {

TensorId Parse(std::string_view name) {
  auto id = ParseTensorName(name);
  EXPECT_TRUE(id.ok()) << name << ": " << id.status();
  return id.ok() ? *id : TensorId{};
}

TEST(ParseTensorNameTest, NodeAlone) {
  TensorId id = Parse("x");
  EXPECT_EQ(id.node, "x");
  EXPECT_EQ(id.port, 0);
  EXPECT_FALSE(id.is_control());
  EXPECT_EQ(id.ToString(), "x:0");
}

TEST(ParseTensorNameTest, NodeAndPort) {
  TensorId id = Parse("layer/out:3");
  EXPECT_EQ(id.node, "layer/out");
  EXPECT_EQ(id.port, 3);
  EXPECT_EQ(id.ToString(), "layer/out:3");
  EXPECT_EQ(Parse("a:0"), (TensorId{"a", 0}));
  EXPECT_EQ(Parse("a:12").port, 12);
}

TEST(ParseTensorNameTest, ControlInput) {
  TensorId id = Parse("^init");
  EXPECT_EQ(id.node, "init");
  EXPECT_TRUE(id.is_control());
  EXPECT_EQ(id.port, TensorId::kControlPort);
  EXPECT_EQ(id.ToString(), "^init");
}

TEST(ParseTensorNameTest, ColonWithoutDigitsIsPartOfTheName) {
  // Only a trailing ":digits" is a port.
  TensorId id = Parse("scope:inner");
  EXPECT_EQ(id.node, "scope:inner");
  EXPECT_EQ(id.port, 0);
  id = Parse("a:1:2");
  EXPECT_EQ(id.node, "a:1");
  EXPECT_EQ(id.port, 2);
  id = Parse("a:-1");  // a sign is not a port
  EXPECT_EQ(id.node, "a:-1");
  EXPECT_EQ(id.port, 0);
  id = Parse("a:+1");
  EXPECT_EQ(id.node, "a:+1");
  EXPECT_EQ(id.port, 0);
}

TEST(ParseTensorNameTest, Errors) {
  auto s = ParseTensorName("");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);

  s = ParseTensorName("^");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);

  s = ParseTensorName(":1");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("':1'"), std::string::npos) << s.status();

  s = ParseTensorName("x:");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("'x:'"), std::string::npos) << s.status();

  s = ParseTensorName("x:99999999999999999999");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("x:99999999999999999999"), std::string::npos) << s.status();
}

}  // namespace
}  // namespace flowvm
