// Shape functions and signatures of the fused batch-norm ops.
#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

StatusOr<std::vector<PartialTensorShape>> Infer(const std::string& op, const std::vector<PartialTensorShape>& shapes,
                                                const std::string& format = "NHWC", bool training = true,
                                                float factor = 1.0f) {
  TestNode node("n", op);
  node.Attr("T", DT_FLOAT).Attr("data_format", format).Attr("is_training", training);
  if (op != "FusedBatchNorm" && op != "FusedBatchNormGrad") node.Attr("U", DT_FLOAT);
  if (op.find("Grad") == std::string::npos) node.Attr("exponential_avg_factor", factor);
  std::vector<NodeDef> nodes;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    nodes.push_back(PlaceholderNode(name, DT_FLOAT, shapes[i]));
    node.Input(name);
  }
  nodes.push_back(node);
  return InferShapes(nodes, "n");
}

void ExpectInvalid(const StatusOr<std::vector<PartialTensorShape>>& s, const std::string& msg) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
  EXPECT_NE(s.status().message().find("'n'"), std::string::npos) << s.status();
  EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
}

TEST(NnBatchNormShapeTest, Forward) {
  const PartialTensorShape empty({0});
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    SCOPED_TRACE(op);
    // Training: the channel count comes from x or scale / offset.
    auto s = Infer(op, {{8, 4, 4, -1}, {3}, {-1}, empty, empty});
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)[0], PartialTensorShape({8, 4, 4, 3}));
    for (int i = 1; i <= 4; ++i) EXPECT_EQ((*s)[i], PartialTensorShape({3}));
    EXPECT_EQ(s->size(), std::string(op) == "FusedBatchNormV3" ? 6u : 5u);
    // NCHW: channels at dim 1.
    s = Infer(op, {{8, 5, 4, 4}, {-1}, {-1}, empty, empty}, "NCHW");
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)[1], PartialTensorShape({5}));
    // Inference reads mean and variance, which must match too.
    s = Infer(op, {{8, 4, 4, -1}, {-1}, {-1}, {-1}, {6}}, "NHWC", false);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)[0], PartialTensorShape({8, 4, 4, 6}));
    ExpectInvalid(Infer(op, {{8, 4, 4, 3}, {3}, {3}, {3}, {4}}, "NHWC", false), "variance");
    ExpectInvalid(Infer(op, {{8, 4, 4, 3}, {3}, {3}, empty, empty}, "NHWC", true, 0.5f), "mean");
    ExpectInvalid(Infer(op, {{8, 4, 3}, {3}, {3}, empty, empty}), "rank");
    ExpectInvalid(Infer(op, {{8, 4, 4, 3}, {4}, {3}, empty, empty}), "scale");
    ExpectInvalid(Infer(op, {{8, 4, 4, 3}, {3, 1}, {3}, empty, empty}), "rank");
  }
  auto s = Infer("FusedBatchNormV3", {{2, 3, 4, 5, 6}, {-1}, {-1}, {0}, {0}}, "NDHWC");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[1], PartialTensorShape({6}));
  s = Infer("FusedBatchNormV3", {{2, 3, 4, 5, 6}, {-1}, {-1}, {0}, {0}}, "NCDHW");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[1], PartialTensorShape({3}));
  ExpectInvalid(Infer("FusedBatchNormV3", {{2, 3, 4, 5}, {-1}, {-1}, {0}, {0}}, "NCDHW"), "rank");
}

TEST(NnBatchNormShapeTest, Backward) {
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    SCOPED_TRACE(op);
    std::vector<PartialTensorShape> in = {{8, -1, 4, -1}, {-1, 4, 4, 3}, {-1}, {-1}, {3}};
    if (std::string(op) == "FusedBatchNormGradV3") in.push_back(PartialTensorShape({0}));
    auto s = Infer(op, in);
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)[0], PartialTensorShape({8, 4, 4, 3}));
    EXPECT_EQ((*s)[1], PartialTensorShape({3}));
    EXPECT_EQ((*s)[2], PartialTensorShape({3}));
    EXPECT_EQ((*s)[3], PartialTensorShape({0}));
    in[0] = PartialTensorShape({8, 5, 4, 3});
    ExpectInvalid(Infer(op, in), "y_backprop");
    in[0] = PartialTensorShape({8, 4, 4, 3});
    in[3] = PartialTensorShape({2});
    ExpectInvalid(Infer(op, in), "reserve_space_1");
  }
}

TEST(NnBatchNormShapeTest, SignaturesFollowTensorFlow) {
  auto v3 = OpRegistry::Global()->LookUp("FusedBatchNormV3");
  ASSERT_TRUE(v3.ok());
  const OpDef& def = (*v3)->op_def;
  EXPECT_EQ(def.input_arg_size(), 5);
  EXPECT_EQ(def.output_arg_size(), 6);
  std::map<std::string, std::string> defaults;
  for (const auto& a : def.attr())
    if (a.has_default_value()) defaults[a.name()] = a.default_value().DebugString();
  EXPECT_TRUE(defaults.count("epsilon"));
  EXPECT_TRUE(defaults.count("exponential_avg_factor"));
  EXPECT_NE(defaults["data_format"].find("NHWC"), std::string::npos);
  EXPECT_NE(defaults["is_training"].find("true"), std::string::npos);
}

}  // namespace
}  // namespace flowvm
