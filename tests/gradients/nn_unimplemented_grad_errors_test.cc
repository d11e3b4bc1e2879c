// Second-order gradients that are not implemented (of FusedBatchNormGrad*
// and MaxPool3DGrad): asking for one is Unimplemented, naming the node.
#include <gtest/gtest.h>

#include "graph/gradients.h"

namespace flowvm::testing {
namespace {

TEST(NnUnimplementedGradErrorsTest, GradientOfFusedBatchNormGradIsUnimplemented) {
  for (const char* op : {"FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"}) {
    SCOPED_TRACE(op);
    Graph graph;
    GraphScope root(&graph);
    auto placeholder = [&](const char* name, TensorShape shape) {
      return root.WithOpName(name).Op("Placeholder", {}, {{"dtype", MakeAttrValue(DT_FLOAT)},
                                                           {"shape", MakeAttrValue(shape)}});
    };
    NodeOut x = placeholder("x", TensorShape({2, 2, 2, 3}));
    NodeOut dy = placeholder("dy", TensorShape({2, 2, 2, 3}));
    NodeOut v = placeholder("v", TensorShape({3}));
    std::vector<OpInput> inputs = {dy, x, v, v, v};
    AttrMap attrs;
    if (std::string(op) != "FusedBatchNormGrad") attrs["U"] = MakeAttrValue(DT_FLOAT);
    if (std::string(op) == "FusedBatchNormGradV3") inputs.push_back(v);
    NodeOut dx = root.WithOpName("bng").Op(op, inputs, attrs);
    ASSERT_TRUE(root.ok()) << root.status();
    std::vector<NodeOut> ddx;
    Status s = AddSymbolicGradients(root, {dx}, {x}, {}, &ddx);
    EXPECT_EQ(s.code(), Code::kUnimplemented) << s;
    EXPECT_NE(s.ToString().find("node 'bng'"), std::string::npos) << s;
  }
}

TEST(NnUnimplementedGradErrorsTest, GradientOfMaxPool3DGradIsUnimplemented) {
  Graph graph;
  GraphScope root(&graph);
  NodeOut x = root.WithOpName("x").Op("Placeholder", {}, {{"dtype", MakeAttrValue(DT_FLOAT)},
                                                          {"shape", MakeAttrValue(TensorShape({1, 2, 2, 2, 1}))}});
  AttrMap attrs = {{"ksize", MakeAttrValue(std::vector<int64_t>{1, 2, 2, 2, 1})},
                   {"strides", MakeAttrValue(std::vector<int64_t>{1, 2, 2, 2, 1})},
                   {"padding", MakeAttrValue(std::string("VALID"))}};
  NodeOut y = root.Op("MaxPool3D", {x}, attrs);
  NodeOut dy = root.Op("OnesLike", {y});
  NodeOut dx = root.WithOpName("mp3g").Op("MaxPool3DGrad", {x, y, dy}, attrs);
  ASSERT_TRUE(root.ok()) << root.status();
  std::vector<NodeOut> ddx;
  Status s = AddSymbolicGradients(root, {dx}, {dy}, {}, &ddx);
  EXPECT_EQ(s.code(), Code::kUnimplemented) << s;
  EXPECT_NE(s.ToString().find("node 'mp3g'"), std::string::npos) << s;
}

}  // namespace
}  // namespace flowvm::testing
