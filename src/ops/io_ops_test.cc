// Signatures and shape functions of SaveV2, RestoreV2, ReadFile and WriteFile.
#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector<std::string>(v); }

TEST(IoOpsDefTest, SignaturesFollowTensorFlow) {
  for (const char* name : {"SaveV2", "RestoreV2"}) {
    const OpDef& op = OpRegistry::Global()->LookUpOrNull(name)->op_def;
    EXPECT_TRUE(op.is_stateful()) << name;
    ASSERT_GE(op.input_arg_size(), 3) << name;
    EXPECT_EQ(op.input_arg(0).name(), "prefix");
    EXPECT_EQ(op.input_arg(1).name(), "tensor_names");
    EXPECT_EQ(op.input_arg(2).name(), "shape_and_slices");
    for (int i = 0; i < 3; ++i) EXPECT_EQ(op.input_arg(i).type(), DT_STRING) << name;
    ASSERT_EQ(op.attr_size(), 1) << name;
    EXPECT_EQ(op.attr(0).name(), "dtypes");
    EXPECT_EQ(op.attr(0).type(), "list(type)");
  }
  const OpDef& save = OpRegistry::Global()->LookUpOrNull("SaveV2")->op_def;
  EXPECT_EQ(save.input_arg(3).name(), "tensors");
  EXPECT_EQ(save.input_arg(3).type_list_attr(), "dtypes");
  EXPECT_EQ(save.output_arg_size(), 0);
  const OpDef& restore = OpRegistry::Global()->LookUpOrNull("RestoreV2")->op_def;
  ASSERT_EQ(restore.output_arg_size(), 1);
  EXPECT_EQ(restore.output_arg(0).name(), "tensors");
  EXPECT_EQ(restore.output_arg(0).type_list_attr(), "dtypes");
}

std::vector<NodeDef> Inputs(Tensor prefix, Tensor names, Tensor slices) {
  return {ConstNode("prefix", prefix), ConstNode("names", names), ConstNode("slices", slices),
          PlaceholderNode("a", DT_FLOAT, PartialTensorShape({2, 3})),
          PlaceholderNode("b", DT_INT64, PartialTensorShape({}))};
}

TEST(IoOpsShapeTest, SaveV2) {
  auto save = TestNode("save", "SaveV2").Input("prefix").Input("names").Input("slices").Input("a").Input("b").Attr(
      "dtypes", std::vector<DataType>{DT_FLOAT, DT_INT64});
  auto nodes = Inputs(Tensor::Scalar<std::string>("ckpt"), Strings({"a", "b"}), Strings({"", ""}));
  nodes.push_back(save);
  auto s = InferShapes(nodes, "save");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->empty());

  nodes = Inputs(Tensor::Scalar<std::string>("ckpt"), Strings({"a"}), Strings({"", ""}));
  nodes.push_back(save);
  s = InferShapes(nodes, "save");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("tensor_names"), std::string::npos) << s.status();

  nodes = Inputs(Strings({"ckpt"}), Strings({"a", "b"}), Strings({"", ""}));
  nodes.push_back(save);
  s = InferShapes(nodes, "save");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("rank 0"), std::string::npos) << s.status();
}

TEST(IoOpsShapeTest, RestoreV2OutputsAreUnknown) {
  auto restore = TestNode("restore", "RestoreV2").Input("prefix").Input("names").Input("slices").Attr(
      "dtypes", std::vector<DataType>{DT_FLOAT, DT_INT64});
  auto nodes = Inputs(Tensor::Scalar<std::string>("ckpt"), Strings({"a", "b"}), Strings({"", ""}));
  nodes.push_back(restore);
  auto s = InferShapes(nodes, "restore");
  ASSERT_TRUE(s.ok()) << s.status();
  ASSERT_EQ(s->size(), 2u);
  EXPECT_TRUE((*s)[0].unknown_rank());
  EXPECT_TRUE((*s)[1].unknown_rank());

  nodes = Inputs(Tensor::Scalar<std::string>("ckpt"), Strings({"a", "b"}), Strings({""}));
  nodes.push_back(restore);
  s = InferShapes(nodes, "restore");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("shape_and_slices"), std::string::npos) << s.status();

  nodes = Inputs(Tensor::Scalar<std::string>("ckpt"), Tensor::Scalar<std::string>("a"), Strings({"", ""}));
  nodes.push_back(restore);
  EXPECT_FALSE(InferShapes(nodes, "restore").ok());
}

TEST(IoOpsDefTest, ReadFileSignatureFollowsTensorFlow) {
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("ReadFile")->op_def;
  // Not stateful, as in TensorFlow.
  EXPECT_FALSE(op.is_stateful());
  ASSERT_EQ(op.input_arg_size(), 1);
  EXPECT_EQ(op.input_arg(0).name(), "filename");
  EXPECT_EQ(op.input_arg(0).type(), DT_STRING);
  ASSERT_EQ(op.output_arg_size(), 1);
  EXPECT_EQ(op.output_arg(0).name(), "contents");
  EXPECT_EQ(op.output_arg(0).type(), DT_STRING);
  EXPECT_EQ(op.attr_size(), 0);
}

TEST(IoOpsShapeTest, ReadFile) {
  auto read = TestNode("read", "ReadFile").Input("f");
  for (const PartialTensorShape& f : {PartialTensorShape(TensorShape()), PartialTensorShape()}) {
    auto s = InferShapes({PlaceholderNode("f", DT_STRING, f), read}, "read");
    ASSERT_TRUE(s.ok()) << s.status();
    ASSERT_EQ(s->size(), 1u);
    EXPECT_EQ((*s)[0], PartialTensorShape(TensorShape()));
  }
  auto s = InferShapes({ConstNode("f", Strings({"a", "b"})), read}, "read");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
  EXPECT_NE(s.status().message().find("filename must be a scalar, but has shape [2]"), std::string::npos)
      << s.status();
}

TEST(IoOpsDefTest, WriteFileSignatureFollowsTensorFlow) {
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("WriteFile")->op_def;
  EXPECT_TRUE(op.is_stateful());
  ASSERT_EQ(op.input_arg_size(), 2);
  EXPECT_EQ(op.input_arg(0).name(), "filename");
  EXPECT_EQ(op.input_arg(0).type(), DT_STRING);
  EXPECT_EQ(op.input_arg(1).name(), "contents");
  EXPECT_EQ(op.input_arg(1).type(), DT_STRING);
  EXPECT_EQ(op.output_arg_size(), 0);
  EXPECT_EQ(op.attr_size(), 0);
}

TEST(IoOpsShapeTest, WriteFile) {
  auto write = TestNode("write", "WriteFile").Input("f").Input("c");
  auto s = InferShapes({PlaceholderNode("f", DT_STRING, PartialTensorShape(TensorShape())),
                        PlaceholderNode("c", DT_STRING, PartialTensorShape()), write},
                       "write");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_TRUE(s->empty());
  s = InferShapes({ConstNode("f", Tensor::Scalar<std::string>("x")), ConstNode("c", Strings({"a", "b"})), write},
                  "write");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("contents must be a scalar, but has shape [2]"), std::string::npos)
      << s.status();
}

}  // namespace
}  // namespace flowvm
