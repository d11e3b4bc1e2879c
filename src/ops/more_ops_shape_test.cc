// Shape functions of the ops added for the TF 1.x front-end
// (math_more_ops.cc, nn_activation_more_ops.cc, array_more_ops.cc,
// scatter_nd_ops.cc, top_k_assert_ops.cc): partial shapes from unknown
// inputs, exact ones from constant inputs, and errors for impossible nodes.
#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

using P = PartialTensorShape;

std::vector<P> Shapes(const std::vector<NodeDef>& nodes, const std::string& name) {
  auto shapes = InferShapes(nodes, name);
  EXPECT_TRUE(shapes.ok()) << shapes.status();
  return shapes.ok() ? *shapes : std::vector<P>();
}
P Out0(const std::vector<NodeDef>& nodes, const std::string& name) {
  auto s = Shapes(nodes, name);
  return s.empty() ? P() : s[0];
}
void ExpectInvalid(const std::vector<NodeDef>& nodes, const std::string& name, const std::string& msg) {
  auto shapes = InferShapes(nodes, name);
  ASSERT_FALSE(shapes.ok()) << name;
  EXPECT_EQ(shapes.status().code(), Code::kInvalidArgument) << shapes.status();
  EXPECT_NE(shapes.status().message().find(msg), std::string::npos) << shapes.status();
}

NodeDef Ph(const char* name, P shape, DataType t = DT_FLOAT) { return PlaceholderNode(name, t, shape); }
NodeDef Ints(const char* name, std::vector<int32_t> v, TensorShape s) {
  return ConstNode(name, Tensor::FromVector<int32_t>(v, s));
}

TEST(MoreOpsShapeTest, ElementwiseOps) {
  for (const char* op : {"Sin", "Cos", "Tan", "Erf", "Expm1", "LeakyRelu", "Softsign"})
    EXPECT_EQ(Out0({Ph("x", P({-1, 3})), TestNode("y", op).Input("x").Attr("T", DT_FLOAT)}, "y"), P({-1, 3})) << op;
  EXPECT_EQ(Out0({Ph("x", P({2, 3})), TestNode("y", "IsInf").Input("x").Attr("T", DT_FLOAT)}, "y"), P({2, 3}));
  for (const char* op : {"Atan2", "SquaredDifference", "TruncateDiv", "TruncateMod"}) {
    EXPECT_EQ(Out0({Ph("a", P({2, 1})), Ph("b", P({3})), TestNode("z", op).Input("a").Input("b").Attr("T", DT_FLOAT)},
                   "z"),
              P({2, 3}))
        << op;
    ExpectInvalid({Ph("a", P({2})), Ph("b", P({3})), TestNode("z", op).Input("a").Input("b").Attr("T", DT_FLOAT)},
                  "z", "");
  }
  EXPECT_EQ(Out0({Ph("t", P({-1, 4})), Ph("lo", P({})), Ph("hi", P({})),
                  TestNode("c", "ClipByValue").Input("t").Input("lo").Input("hi").Attr("T", DT_FLOAT)},
                 "c"),
            P({-1, 4}));
  for (const char* op : {"LeakyReluGrad", "SoftsignGrad"}) {
    EXPECT_EQ(Out0({Ph("g", P({-1, 3})), Ph("x", P({2, -1})), TestNode("d", op).Input("g").Input("x").Attr("T", DT_FLOAT)},
                   "d"),
              P({2, 3}));
    ExpectInvalid({Ph("g", P({2})), Ph("x", P({3})), TestNode("d", op).Input("g").Input("x").Attr("T", DT_FLOAT)}, "d",
                  "same shape");
  }
}

TEST(MoreOpsShapeTest, PadOps) {
  NodeDef p = Ints("p", {1, 2, 0, 3}, TensorShape({2, 2}));
  NodeDef v = ConstNode("v", Tensor::Scalar<float>(1));
  auto padv2 = [](P x) {
    return std::vector<NodeDef>{Ph("x", x), Ints("p", {1, 2, 0, 3}, TensorShape({2, 2})),
                                ConstNode("v", Tensor::Scalar<float>(1)),
                                TestNode("y", "PadV2").Input("x").Input("p").Input("v").Attr("T", DT_FLOAT)};
  };
  EXPECT_EQ(Out0(padv2(P({2, -1})), "y"), P({5, -1}));
  EXPECT_EQ(Out0({Ph("x", P({2, 3})), Ph("pp", P({2, 2}), DT_INT32), v,
                  TestNode("y", "PadV2").Input("x").Input("pp").Input("v").Attr("T", DT_FLOAT)},
                 "y"),
            P({-1, -1}));
  auto mirror = [&](const char* op, const char* mode, P x) {
    return std::vector<NodeDef>{Ph("x", x), p,
                                TestNode("y", op).Input("x").Input("p").Attr("T", DT_FLOAT).Attr("mode",
                                                                                                   std::string(mode))};
  };
  EXPECT_EQ(Out0(mirror("MirrorPad", "SYMMETRIC", P({2, 3})), "y"), P({5, 6}));
  EXPECT_EQ(Out0(mirror("MirrorPadGrad", "SYMMETRIC", P({5, 6})), "y"), P({2, 3}));
  // REFLECT pads at most dim - 1: 2 > 2 - 1 for dim 0 (SYMMETRIC allows it).
  ExpectInvalid(mirror("MirrorPad", "REFLECT", P({2, 4})), "y", "no greater than the dimension size");
  ExpectInvalid(mirror("MirrorPad", "SYMMETRIC", P({2, 3, 4})), "y", "rank of inputs");
  ExpectInvalid({Ph("x", P({2, 3})), Ints("p", {-1, 0, 0, 0}, TensorShape({2, 2})), v,
                 TestNode("y", "PadV2").Input("x").Input("p").Input("v").Attr("T", DT_FLOAT)},
                "y", "non-negative");
}

TEST(MoreOpsShapeTest, ReverseAndWhere) {
  auto rev = [](std::vector<int32_t> axes) {
    return std::vector<NodeDef>{Ph("x", P({2, -1, 4})),
                                Ints("a", axes, TensorShape({static_cast<int64_t>(axes.size())})),
                                TestNode("y", "ReverseV2").Input("x").Input("a").Attr("T", DT_FLOAT)};
  };
  EXPECT_EQ(Out0(rev({0, -1}), "y"), P({2, -1, 4}));
  ExpectInvalid(rev({1, -2}), "y", "specified more than once");
  ExpectInvalid(rev({3}), "y", "axis");
  EXPECT_EQ(Out0({Ph("c", P({2, -1, 3}), DT_BOOL), TestNode("w", "Where").Input("c")}, "w"), P({-1, 3}));
  EXPECT_EQ(Out0({Ph("c", P(), DT_BOOL), TestNode("w", "Where").Input("c")}, "w"), P({-1, -1}));
}

TEST(MoreOpsShapeTest, ReverseSequence) {
  auto rev = [](P x, P lengths, int64_t seq_dim, int64_t batch_dim) {
    return std::vector<NodeDef>{Ph("x", x), Ph("l", lengths, DT_INT32),
                                TestNode("y", "ReverseSequence").Input("x").Input("l").Attr("T", DT_FLOAT)
                                    .Attr("Tlen", DT_INT32).Attr("seq_dim", seq_dim).Attr("batch_dim", batch_dim)};
  };
  // The batch dim learns the length of seq_lengths.
  EXPECT_EQ(Out0(rev(P({-1, 5, 3}), P({4}), 1, 0), "y"), P({4, 5, 3}));
  EXPECT_EQ(Out0(rev(P({7, -1, 3}), P({-1}), 0, 1), "y"), P({7, -1, 3}));
  EXPECT_EQ(Out0(rev(P(), P({4}), 1, 0), "y"), P());
  ExpectInvalid(rev(P({2, 5}), P({3}), 1, 0), "y", "batch dimension");
  ExpectInvalid(rev(P({2, 5}), P({2}), 2, 0), "y", "seq_dim must be < input rank");
  ExpectInvalid(rev(P({2, 5}), P({2}), 1, 2), "y", "batch_dim must be < input rank");
  ExpectInvalid(rev(P({2, 5}), P({2, 1}), 1, 0), "y", "rank");
}

TEST(MoreOpsShapeTest, DepthSpace) {
  auto op = [](const char* name, P x, int64_t bs) {
    return std::vector<NodeDef>{Ph("x", x), TestNode("y", name).Input("x").Attr("T", DT_FLOAT).Attr("block_size", bs)};
  };
  EXPECT_EQ(Out0(op("DepthToSpace", P({-1, 2, 3, 8}), 2), "y"), P({-1, 4, 6, 2}));
  EXPECT_EQ(Out0(op("SpaceToDepth", P({1, 4, -1, 3}), 2), "y"), P({1, 2, -1, 12}));
  ExpectInvalid(op("DepthToSpace", P({1, 2, 3, 6}), 2), "y", "divisible by 4");
  ExpectInvalid(op("SpaceToDepth", P({1, 3, 4, 1}), 2), "y", "divisible by 2");
  ExpectInvalid(op("DepthToSpace", P({2, 3, 8}), 2), "y", "rank");
}

TEST(MoreOpsShapeTest, GatherScatterNd) {
  auto gather = [](P params, P indices) {
    return std::vector<NodeDef>{Ph("p", params), Ph("i", indices, DT_INT32),
                                TestNode("g", "GatherNd").Input("p").Input("i").Attr("Tparams", DT_FLOAT).Attr(
                                    "Tindices", DT_INT32)};
  };
  EXPECT_EQ(Out0(gather(P({3, 4, 5}), P({-1, 7, 2})), "g"), P({-1, 7, 5}));
  EXPECT_EQ(Out0(gather(P({3, 4}), P({6, 2})), "g"), P({6}));
  EXPECT_TRUE(Out0(gather(P({3, 4}), P({6, -1})), "g").unknown_rank());
  ExpectInvalid(gather(P({3, 4}), P({6, 3})), "g", "must be <= params.rank");

  auto scatter = [](P indices, P updates, std::vector<int32_t> shape) {
    return std::vector<NodeDef>{Ph("i", indices, DT_INT32), Ph("u", updates),
                                Ints("s", shape, TensorShape({static_cast<int64_t>(shape.size())})),
                                TestNode("o", "ScatterNd").Input("i").Input("u").Input("s").Attr("T", DT_FLOAT).Attr(
                                    "Tindices", DT_INT32)};
  };
  EXPECT_EQ(Out0(scatter(P({4, 1}), P({4, 3}), {8, 3}), "o"), P({8, 3}));
  ExpectInvalid(scatter(P({4, 1}), P({4, 2}), {8, 3}), "o", "updates must have shape");
  ExpectInvalid(scatter(P({4, 3}), P({4}), {8, 3}), "o", "must be <= the output rank");

  for (const char* op : {"TensorScatterUpdate", "TensorScatterAdd"}) {
    auto tensor_scatter = [op](P t, P indices, P updates) {
      return std::vector<NodeDef>{Ph("t", t), Ph("i", indices, DT_INT64), Ph("u", updates),
                                  TestNode("o", op).Input("t").Input("i").Input("u").Attr("T", DT_FLOAT).Attr(
                                      "Tindices", DT_INT64)};
    };
    EXPECT_EQ(Out0(tensor_scatter(P({5, -1}), P({2, 1}), P({2, 3})), "o"), P({5, -1}));
    ExpectInvalid(tensor_scatter(P({5, 3}), P({2, 1}), P({2, 4})), "o", "updates must have shape");
  }
}

TEST(MoreOpsShapeTest, TopKV2) {
  auto topk = [](P x, int32_t k) {
    return std::vector<NodeDef>{Ph("x", x), ConstNode("k", Tensor::Scalar<int32_t>(k)),
                                TestNode("t", "TopKV2").Input("x").Input("k").Attr("T", DT_FLOAT)};
  };
  auto both = Shapes(topk(P({-1, 10}), 3), "t");
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0], P({-1, 3}));
  EXPECT_EQ(both[1], P({-1, 3}));
  EXPECT_EQ(Out0({Ph("x", P({2, 5})), Ph("k", P({}), DT_INT32),
                  TestNode("t", "TopKV2").Input("x").Input("k").Attr("T", DT_FLOAT)},
                 "t"),
            P({2, -1}));
  ExpectInvalid(topk(P({4, 2}), 3), "t", "last dimension >= k");
  ExpectInvalid(topk(P({4, 2}), -1), "t", "Need k >= 0");
  ExpectInvalid(topk(P(TensorShape()), 1), "t", "at least 1-D");
}

TEST(MoreOpsShapeTest, AssertTakesAScalarCondition) {
  NodeDef msg = ConstNode("m", Tensor::Scalar<std::string>("bad"));
  auto assert_node = TestNode("a", "Assert").Input("c").Input("m").Attr("T", std::vector<DataType>{DT_STRING});
  EXPECT_TRUE(InferShapes({Ph("c", P(TensorShape()), DT_BOOL), msg, assert_node}, "a").ok());
  ExpectInvalid({Ph("c", P({2}), DT_BOOL), msg, assert_node}, "a", "condition must be a scalar");
  const OpRegistrationData* data = OpRegistry::Global()->LookUpOrNull("Assert");
  ASSERT_NE(data, nullptr);
  EXPECT_TRUE(data->op_def.is_stateful());
}

}  // namespace
}  // namespace flowvm
