// Signatures and shape functions of the TensorArrayV3 family: TensorFlow
// 1.15's inputs, outputs and attr defaults; handles of shape [2]; element
// shapes found from the array's maker (through Enter nodes and gradient
// arrays); writes of a value that cannot be an element refused.
#include <tuple>

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

std::vector<PartialTensorShape> Shapes(const std::vector<NodeDef>& nodes, const std::string& name) {
  auto shapes = InferShapes(nodes, name);
  EXPECT_TRUE(shapes.ok()) << shapes.status();
  return shapes.ok() ? *shapes : std::vector<PartialTensorShape>{};
}

NodeDef MakeTa(const std::string& name, PartialTensorShape element_shape = PartialTensorShape(),
               bool identical = false) {
  return TestNode(name, "TensorArrayV3")
      .Input("size")
      .Attr("dtype", DT_FLOAT)
      .Attr("element_shape", element_shape)
      .Attr("identical_element_shapes", identical);
}

std::vector<NodeDef> Base() {
  return {ConstNode("size", Tensor::Scalar<int32_t>(3)), ConstNode("i", Tensor::Scalar<int32_t>(0)),
          ConstNode("idx", Tensor::FromVector<int32_t>({0, 1, 2, 0, 1})),
          PlaceholderNode("any", DT_FLOAT, PartialTensorShape())};
}

NodeDef ReadNode(const std::string& name, const std::string& handle, const std::string& flow) {
  return TestNode(name, "TensorArrayReadV3").Input(handle).Input("i").Input(flow).Attr("dtype", DT_FLOAT);
}

TEST(TensorArrayOpsSignatureTest, MatchesTensorFlow) {
  const OpDef* op = nullptr;
  auto look_up = [&op](const std::string& name) {
    const OpRegistrationData* data = OpRegistry::Global()->LookUpOrNull(name);
    op = data == nullptr ? nullptr : &data->op_def;
    return op != nullptr;
  };
  ASSERT_TRUE(look_up("TensorArrayV3"));
  ASSERT_EQ(op->input_arg_size(), 1);
  EXPECT_EQ(op->input_arg(0).name(), "size");
  ASSERT_EQ(op->output_arg_size(), 2);
  EXPECT_EQ(op->output_arg(0).name(), "handle");
  EXPECT_EQ(op->output_arg(0).type(), DT_RESOURCE);
  EXPECT_EQ(op->output_arg(1).name(), "flow");
  EXPECT_EQ(op->output_arg(1).type(), DT_FLOAT);
  std::map<std::string, AttrValue> defaults;
  for (const auto& a : op->attr())
    if (a.has_default_value()) defaults[a.name()] = a.default_value();
  EXPECT_TRUE(defaults["element_shape"].shape().unknown_rank());
  EXPECT_FALSE(defaults["dynamic_size"].b());
  EXPECT_TRUE(defaults["clear_after_read"].b());
  EXPECT_FALSE(defaults["identical_element_shapes"].b());
  EXPECT_EQ(defaults["tensor_array_name"].s(), "");
  EXPECT_EQ(defaults.count("dtype"), 0u);

  const std::map<std::string, std::vector<std::string>> inputs = {
      {"TensorArrayGradV3", {"handle", "flow_in"}},
      {"TensorArrayGradWithShape", {"handle", "flow_in", "shape_to_prepend"}},
      {"TensorArrayWriteV3", {"handle", "index", "value", "flow_in"}},
      {"TensorArrayReadV3", {"handle", "index", "flow_in"}},
      {"TensorArrayGatherV3", {"handle", "indices", "flow_in"}},
      {"TensorArrayScatterV3", {"handle", "indices", "value", "flow_in"}},
      {"TensorArrayConcatV3", {"handle", "flow_in"}},
      {"TensorArraySplitV3", {"handle", "value", "lengths", "flow_in"}},
      {"TensorArraySizeV3", {"handle", "flow_in"}},
      {"TensorArrayCloseV3", {"handle"}},
  };
  for (const auto& [name, args] : inputs) {
    ASSERT_TRUE(look_up(name)) << name;
    ASSERT_EQ(op->input_arg_size(), static_cast<int>(args.size())) << name;
    for (size_t i = 0; i < args.size(); ++i) EXPECT_EQ(op->input_arg(i).name(), args[i]) << name;
    EXPECT_TRUE(op->is_stateful()) << name;
  }
  ASSERT_TRUE(look_up("TensorArrayConcatV3"));
  ASSERT_EQ(op->output_arg_size(), 2);
  EXPECT_EQ(op->output_arg(1).name(), "lengths");
  EXPECT_EQ(op->output_arg(1).type(), DT_INT64);
  ASSERT_TRUE(look_up("TensorArraySplitV3"));
  EXPECT_EQ(op->input_arg(2).type(), DT_INT64);
}

TEST(TensorArrayOpsShapeTest, HandleAndFlow) {
  auto nodes = Base();
  nodes.push_back(MakeTa("ta"));
  auto s = Shapes(nodes, "ta");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], PartialTensorShape({2}));
  EXPECT_EQ(s[1], PartialTensorShape(TensorShape()));
  nodes.push_back(TestNode("g", "TensorArrayGradV3").Input("ta").Input("ta:1").Attr("source", std::string("gradients")));
  s = Shapes(nodes, "g");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0], PartialTensorShape({2}));
  // The size must be a scalar.
  nodes.push_back(ConstNode("vec", Tensor::FromVector<int32_t>({3})));
  nodes.push_back(TestNode("bad", "TensorArrayV3").Input("vec").Attr("dtype", DT_FLOAT));
  EXPECT_EQ(InferShapes(nodes, "bad").status().code(), Code::kInvalidArgument);
}

TEST(TensorArrayOpsShapeTest, ReadHasTheElementShapeWhenKnown) {
  auto nodes = Base();
  nodes.push_back(MakeTa("known", PartialTensorShape({2, 3})));
  nodes.push_back(MakeTa("partial", PartialTensorShape({-1, 3})));
  nodes.push_back(MakeTa("identical", PartialTensorShape({-1, 3}), true));
  nodes.push_back(ReadNode("r_known", "known", "known:1"));
  nodes.push_back(ReadNode("r_partial", "partial", "partial:1"));
  nodes.push_back(ReadNode("r_identical", "identical", "identical:1"));
  EXPECT_EQ(Shapes(nodes, "r_known")[0], PartialTensorShape({2, 3}));
  // A partial shape counts only with identical_element_shapes (TensorFlow).
  EXPECT_TRUE(Shapes(nodes, "r_partial")[0].unknown_rank());
  EXPECT_EQ(Shapes(nodes, "r_identical")[0], PartialTensorShape({-1, 3}));
}

TEST(TensorArrayOpsShapeTest, TheElementShapeIsFoundThroughEnterNodesAndGradientArrays) {
  auto nodes = Base();
  nodes.push_back(MakeTa("ta", PartialTensorShape({4})));
  nodes.push_back(TestNode("enter", "Enter")
                      .Input("ta")
                      .Attr("T", DT_RESOURCE)
                      .Attr("frame_name", std::string("loop"))
                      .Attr("is_constant", true));
  nodes.push_back(TestNode("ident", "Identity").Input("enter").Attr("T", DT_RESOURCE));
  for (auto [name, input, type] : {std::make_tuple("i_in", "i", DT_INT32), std::make_tuple("flow_in", "ta:1", DT_FLOAT)})
    nodes.push_back(TestNode(name, "Enter")
                        .Input(input)
                        .Attr("T", type)
                        .Attr("frame_name", std::string("loop"))
                        .Attr("is_constant", true));
  nodes.push_back(TestNode("r_enter", "TensorArrayReadV3").Input("ident").Input("i_in").Input("flow_in").Attr("dtype", DT_FLOAT));
  nodes.push_back(TestNode("g", "TensorArrayGradV3").Input("ta").Input("ta:1").Attr("source", std::string("gradients")));
  nodes.push_back(ConstNode("prepend", Tensor::FromVector<int32_t>({5})));
  nodes.push_back(TestNode("gs", "TensorArrayGradWithShape")
                      .Input("ta")
                      .Input("ta:1")
                      .Input("prepend")
                      .Attr("source", std::string("gradients")));
  nodes.push_back(ReadNode("r_grad", "g", "g:1"));
  nodes.push_back(ReadNode("r_grad_shape", "gs", "gs:1"));
  EXPECT_EQ(Shapes(nodes, "r_enter")[0], PartialTensorShape({4}));
  EXPECT_EQ(Shapes(nodes, "r_grad")[0], PartialTensorShape({4}));
  EXPECT_EQ(Shapes(nodes, "r_grad_shape")[0], PartialTensorShape({5, 4}));
}

TEST(TensorArrayOpsShapeTest, GatherConcatAndTheRest) {
  auto nodes = Base();
  nodes.push_back(MakeTa("known", PartialTensorShape({2, 3})));
  nodes.push_back(MakeTa("unknown"));
  nodes.push_back(TestNode("g_known", "TensorArrayGatherV3").Input("known").Input("idx").Input("known:1").Attr("dtype", DT_FLOAT));
  nodes.push_back(TestNode("g_attr", "TensorArrayGatherV3")
                      .Input("unknown")
                      .Input("idx")
                      .Input("unknown:1")
                      .Attr("dtype", DT_FLOAT)
                      .Attr("element_shape", PartialTensorShape({-1, 7})));
  nodes.push_back(TestNode("g_none", "TensorArrayGatherV3").Input("unknown").Input("idx").Input("unknown:1").Attr("dtype", DT_FLOAT));
  nodes.push_back(TestNode("concat", "TensorArrayConcatV3")
                      .Input("unknown")
                      .Input("unknown:1")
                      .Attr("dtype", DT_FLOAT)
                      .Attr("element_shape_except0", PartialTensorShape({3})));
  nodes.push_back(TestNode("concat_unknown", "TensorArrayConcatV3").Input("unknown").Input("unknown:1").Attr("dtype", DT_FLOAT));
  nodes.push_back(TestNode("size_op", "TensorArraySizeV3").Input("known").Input("known:1"));
  nodes.push_back(TestNode("w", "TensorArrayWriteV3").Input("unknown").Input("i").Input("any").Input("unknown:1").Attr("T", DT_FLOAT));
  EXPECT_EQ(Shapes(nodes, "g_known")[0], PartialTensorShape({5, 2, 3}));
  EXPECT_EQ(Shapes(nodes, "g_attr")[0], PartialTensorShape({5, -1, 7}));
  EXPECT_TRUE(Shapes(nodes, "g_none")[0].unknown_rank());
  auto c = Shapes(nodes, "concat");
  EXPECT_EQ(c[0], PartialTensorShape({-1, 3}));
  EXPECT_EQ(c[1], PartialTensorShape({-1}));
  EXPECT_TRUE(Shapes(nodes, "concat_unknown")[0].unknown_rank());
  EXPECT_EQ(Shapes(nodes, "size_op")[0], PartialTensorShape(TensorShape()));
  EXPECT_EQ(Shapes(nodes, "w")[0], PartialTensorShape(TensorShape()));
}

TEST(TensorArrayOpsShapeTest, ValuesThatCannotBeElementsAreRefused) {
  auto nodes = Base();
  nodes.push_back(MakeTa("ta", PartialTensorShape({2})));
  nodes.push_back(ConstNode("three", Tensor::FromVector<float>({1, 2, 3})));
  nodes.push_back(ConstNode("rows", Tensor(DT_FLOAT, TensorShape({4, 3}))));
  nodes.push_back(ConstNode("idx3", Tensor::FromVector<int32_t>({0, 1, 2})));
  nodes.push_back(TestNode("w", "TensorArrayWriteV3").Input("ta").Input("i").Input("three").Input("ta:1").Attr("T", DT_FLOAT));
  auto bad = InferShapes(nodes, "w");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("whose elements have shape [2]"), std::string::npos) << bad.status();
  nodes.pop_back();
  // Scatter: len(indices) must be value.shape[0], and rows must be elements.
  nodes.push_back(TestNode("s", "TensorArrayScatterV3").Input("ta").Input("idx3").Input("rows").Input("ta:1").Attr("T", DT_FLOAT));
  bad = InferShapes(nodes, "s");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("len(indices)"), std::string::npos) << bad.status();
}

}  // namespace
}  // namespace flowvm
