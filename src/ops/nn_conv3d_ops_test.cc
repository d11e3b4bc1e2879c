// Shape functions of the 3-D convolution and pooling ops.
#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

// Inputs: placeholders of the given shapes, or (shape tensors) constants.
StatusOr<std::vector<PartialTensorShape>> Infer(TestNode node, const std::vector<PartialTensorShape>& shapes,
                                                const std::vector<const Tensor*>& consts = {}) {
  std::vector<NodeDef> nodes;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    const Tensor* c = i < consts.size() ? consts[i] : nullptr;
    // Vectors are the shape inputs (int32); the rest is data.
    const DataType dt = shapes[i].dims() == 1 ? DT_INT32 : DT_FLOAT;
    nodes.push_back(c != nullptr ? ConstNode(name, *c) : PlaceholderNode(name, dt, shapes[i]));
    node.Input(name);
  }
  nodes.push_back(node);
  return InferShapes(nodes, "n");
}

TestNode Conv(const char* op, std::vector<int64_t> strides, const char* padding, const char* format = "NDHWC") {
  return TestNode("n", op).Attr("T", DT_FLOAT).Attr("strides", strides).Attr("padding", std::string(padding)).Attr(
      "data_format", std::string(format));
}

TestNode Pool(const char* op, std::vector<int64_t> ksize, std::vector<int64_t> strides, const char* padding,
              const char* format = "NDHWC") {
  return Conv(op, strides, padding, format).Attr("ksize", ksize);
}

void ExpectInvalid(const StatusOr<std::vector<PartialTensorShape>>& s, const std::string& msg) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
  EXPECT_NE(s.status().message().find("'n'"), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
}

TEST(NnConv3DShapeTest, Conv3D) {
  auto s = Infer(Conv("Conv3D", {1, 2, 1, 2, 1}, "SAME"), {{4, 9, 8, 7, 3}, {3, 3, 3, 3, 16}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({4, 5, 8, 4, 16}));
  s = Infer(Conv("Conv3D", {1, 1, 1, 1, 1}, "VALID", "NCDHW"), {{4, 3, 9, 8, 7}, {3, 2, 1, -1, 16}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({4, 16, 7, 7, 7}));
  s = Infer(Conv("Conv3D", {1, 1, 1, 1, 1}, "VALID"), {{-1, -1, 8, 7, -1}, {3, 3, 3, 3, 16}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({-1, -1, 6, 5, 16}));
  ExpectInvalid(Infer(Conv("Conv3D", {1, 1, 1, 1, 1}, "VALID"), {{4, 9, 8, 7, 3}, {3, 3, 3, 4, 16}}), "in_channels");
  ExpectInvalid(Infer(Conv("Conv3D", {1, 1, 1, 1, 1}, "VALID"), {{4, 9, 8, 3}, {3, 3, 3, 3, 16}}), "rank");
  ExpectInvalid(Infer(Conv("Conv3D", {1, 1, 1, 1}, "VALID"), {{4, 9, 8, 7, 3}, {3, 3, 3, 3, 16}}), "strides");
  ExpectInvalid(Infer(Conv("Conv3D", {1, 1, 1, 1, 2}, "VALID"), {{4, 9, 8, 7, 3}, {3, 3, 3, 3, 16}}), "channel");
  ExpectInvalid(Infer(Conv("Conv3D", {1, 1, 1, 1, 1}, "VALID"), {{4, 2, 8, 7, 3}, {4, 3, 3, 3, 16}}), "negative");
}

TEST(NnConv3DShapeTest, Backprops) {
  const Tensor sizes = Tensor::FromVector<int32_t>({4, 9, 8, 7, 3});
  auto s = Infer(Conv("Conv3DBackpropInputV2", {1, 1, 1, 1, 1}, "SAME"), {{5}, {3, 3, 3, 3, 16}, {4, 9, 8, 7, 16}},
                 {&sizes});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({4, 9, 8, 7, 3}));
  s = Infer(Conv("Conv3DBackpropInputV2", {1, 1, 1, 1, 1}, "SAME"), {{5}, {3, 3, 3, 3, 16}, {4, 9, 8, 7, 16}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape::UnknownOfRank(5));
  const Tensor fsizes = Tensor::FromVector<int32_t>({3, 3, 3, 3, 16});
  s = Infer(Conv("Conv3DBackpropFilterV2", {1, 1, 1, 1, 1}, "SAME"), {{4, 9, 8, 7, 3}, {5}, {4, 9, 8, 7, 16}},
            {nullptr, &fsizes});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({3, 3, 3, 3, 16}));
  const Tensor bad = Tensor::FromVector<int32_t>({4, 9, 8, 7});
  ExpectInvalid(Infer(Conv("Conv3DBackpropInputV2", {1, 1, 1, 1, 1}, "SAME"),
                      {{4}, {3, 3, 3, 3, 16}, {4, 9, 8, 7, 16}}, {&bad}),
                "5 values");
}

TEST(NnConv3DShapeTest, Pooling) {
  for (const char* op : {"MaxPool3D", "AvgPool3D"}) {
    SCOPED_TRACE(op);
    auto s = Infer(Pool(op, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID"), {{4, 9, 8, 7, 3}});
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)[0], PartialTensorShape({4, 4, 4, 3, 3}));
    s = Infer(Pool(op, {1, 1, 3, 3, 3}, {1, 1, 2, 2, 2}, "SAME", "NCDHW"), {{4, 3, 9, 8, 7}});
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)[0], PartialTensorShape({4, 3, 5, 4, 4}));
    ExpectInvalid(Infer(Pool(op, {2, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID"), {{4, 9, 8, 7, 3}}), "batch");
    ExpectInvalid(Infer(Pool(op, {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID"), {{4, 9, 8, 3}}), "rank");
  }
  auto s = Infer(Pool("MaxPool3DGrad", {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID").Attr("TInput", DT_FLOAT),
                 {{4, 9, 8, 7, 3}, {4, 4, 4, 3, 3}, {4, 4, 4, 3, 3}});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({4, 9, 8, 7, 3}));
  ExpectInvalid(Infer(Pool("MaxPool3DGrad", {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID").Attr("TInput", DT_FLOAT),
                      {{4, 9, 8, 7, 3}, {4, 4, 4, 3, 3}, {4, 4, 4, 4, 3}}),
                "grad");
  const Tensor sizes = Tensor::FromVector<int32_t>({4, 9, 8, 7, 3});
  s = Infer(Pool("AvgPool3DGrad", {1, 2, 2, 2, 1}, {1, 2, 2, 2, 1}, "VALID"), {{5}, {4, 4, 4, 3, 3}}, {&sizes});
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({4, 9, 8, 7, 3}));
}

}  // namespace
}  // namespace flowvm
