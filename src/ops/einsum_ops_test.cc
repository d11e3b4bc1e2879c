// Shape function of Einsum.
#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

StatusOr<std::vector<PartialTensorShape>> Infer(const std::string& equation,
                                                const std::vector<PartialTensorShape>& shapes) {
  TestNode node("n", "Einsum");
  node.Attr("T", DT_FLOAT).Attr("N", static_cast<int64_t>(shapes.size())).Attr("equation", equation);
  std::vector<NodeDef> nodes;
  for (size_t i = 0; i < shapes.size(); ++i) {
    nodes.push_back(PlaceholderNode("in" + std::to_string(i), DT_FLOAT, shapes[i]));
    node.Input("in" + std::to_string(i));
  }
  nodes.push_back(node);
  return InferShapes(nodes, "n");
}

PartialTensorShape Out(const std::string& eq, const std::vector<PartialTensorShape>& shapes) {
  auto s = Infer(eq, shapes);
  EXPECT_TRUE(s.ok()) << eq << ": " << s.status();
  return s.ok() ? (*s)[0] : PartialTensorShape();
}

TEST(EinsumShapeTest, Shapes) {
  EXPECT_EQ(Out("ij,jk->ik", {{2, 3}, {3, 4}}), PartialTensorShape({2, 4}));
  EXPECT_EQ(Out("ij,jk->ik", {{-1, 3}, {-1, 4}}), PartialTensorShape({-1, 4}));
  EXPECT_EQ(Out("bij,bjk->bik", {{5, 2, 3}, {-1, 3, 4}}), PartialTensorShape({5, 2, 4}));
  EXPECT_EQ(Out("ij->", {{2, 3}}), PartialTensorShape(TensorShape()));
  EXPECT_EQ(Out("ij,jk", {{2, 3}, {3, 4}}), PartialTensorShape({2, 4}));
  EXPECT_EQ(Out("...ij,...jk->...ik", {{2, 1, 3, 4}, {5, 4, 6}}), PartialTensorShape({2, 5, 3, 6}));
  EXPECT_TRUE(Out("...ij->...ji", {PartialTensorShape()}).unknown_rank());
  EXPECT_EQ(Out("ij->ji", {PartialTensorShape()}), PartialTensorShape({-1, -1}));
}

TEST(EinsumShapeTest, Errors) {
  for (auto [eq, shapes, msg] : std::vector<std::tuple<std::string, std::vector<PartialTensorShape>, std::string>>{
           {"ij,jk->ik", {{2, 3}, {4, 5}}, "label 'j'"},
           {"ij->i", {{2, 3, 4}}, "rank"},
           {"ij,jk->ik", {{2, 3}}, "operands"},
           {"ij->q", {{2, 3}}, "'q'"},
           {"...i,...i->...i", {{2, 3}, {4, 3}}, "broadcast"}}) {
    auto s = Infer(eq, shapes);
    ASSERT_FALSE(s.ok()) << eq;
    EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
    EXPECT_NE(s.status().message().find("'n'"), std::string::npos) << s.status();
    EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
  }
}

}  // namespace
}  // namespace flowvm
