// AddSymbolicGradients' rules (graph/gradients.h), run in a real session.
#include "graph/gradients.h"

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/gradient_registry.h"
#include "util/op_test_util.h"

namespace flowvm::testing {
namespace {

class SymbolicGradientsTest : public ::testing::Test {
 protected:
  NodeOut Input(const std::string& name) {
    return root_.WithOpName(name).Op("Placeholder", {}, {{"dtype", MakeAttrValue(DT_FLOAT)}});
  }
  NodeOut Const(const std::vector<float>& v) { return ConstOp(root_, Tensor::FromVector<float>(v)); }

  // Runs the graph, feeding x = x_value, and returns the fetched tensors.
  std::vector<Tensor> Eval(const std::vector<NodeOut>& fetches, const Tensor& x_value) {
    GraphDef def;
    graph_.ToGraphDef(&def);
    auto session = Session::Create(SessionOptions{}, def);
    EXPECT_TRUE(session.ok()) << session.status();
    if (!session.ok()) return {};
    std::vector<std::string> names;
    for (const NodeOut& f : fetches) names.push_back(f.name());
    std::vector<Tensor> out;
    Status s = (*session)->Run({{"x", x_value}}, names, {}, &out);
    EXPECT_TRUE(s.ok()) << s;
    return out;
  }

  Graph graph_;
  GraphScope root_{&graph_};
};

TEST_F(SymbolicGradientsTest, SumsPartialGradientsOfATensorUsedTwice) {
  NodeOut x = Input("x");
  NodeOut y = root_.Op("AddV2", {root_.Op("Mul", {x, x}), x});  // x^2 + x
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {x}, {}, &dx).ok()) << root_.status();
  EXPECT_EQ(dx[0].node->name().rfind("gradients/", 0), 0u) << dx[0].node->name();
  EXPECT_EQ(dx[0].node->op(), "AddN");
  auto out = Eval(dx, Tensor::FromVector<float>({1, 2, -3}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({3, 5, -5}), 1e-6);
}

TEST_F(SymbolicGradientsTest, GradYsWeightTheOutputs) {
  NodeOut x = Input("x");
  NodeOut y = root_.Op("Mul", {x, Const({2, 2, 2})});
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {x}, {Const({1, 10, 100})}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1, 2, 3}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({2, 20, 200}), 1e-6);
}

TEST_F(SymbolicGradientsTest, StopGradientCutsThePath) {
  NodeOut x = Input("x");
  NodeOut y = root_.Op("Mul", {x, root_.Op("StopGradient", {x})});  // d/dx = stop(x)
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {x}, {}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1, 2, 3}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({1, 2, 3}), 1e-6);
}

TEST_F(SymbolicGradientsTest, UnusedOutputsOfAMultiOutputOpGetZeros) {
  NodeOut x = Input("x");
  Node* split = root_.AddNode("Split", {ConstOp(root_, Tensor::Scalar<int32_t>(0)), x},
                              {{"num_split", MakeAttrValue(int64_t{3})}});
  NodeOut y = root_.Op("Mul", {NodeOut(split, 1), NodeOut(split, 1)});  // only output 1 reaches y
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {x}, {}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({0, 0, 6, 8, 0, 0}), 1e-6);
}

TEST_F(SymbolicGradientsTest, UnusedOutputsOfUnpackGetZeros) {
  NodeOut x = Input("x");
  NodeOut m = root_.Op("Reshape", {x, ConstOp(root_, Tensor::FromVector<int32_t>({2, 2}))});
  Node* rows = root_.AddNode("Unpack", {m}, {{"num", MakeAttrValue(int64_t{2})}, {"axis", MakeAttrValue(int64_t{-1})}});
  NodeOut y = root_.Op("Mul", {NodeOut(rows, 0), Const({10, 100})});  // column 0 only
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {x}, {}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1, 2, 3, 4}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({10, 0, 100, 0}), 1e-6);
}

TEST_F(SymbolicGradientsTest, IntegerTensorsCarryNoGradient) {
  NodeOut x = Input("x");
  NodeOut rounded = root_.Op("Cast", {root_.Op("Cast", {x}, {{"DstT", MakeAttrValue(DT_INT32)}})},
                             {{"DstT", MakeAttrValue(DT_FLOAT)}});
  NodeOut y = root_.Op("Mul", {x, rounded});  // the path through int32 contributes nothing
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {x}, {}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1.5f, 2.5f}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({1, 2}), 1e-6);
}

TEST_F(SymbolicGradientsTest, UnconnectedXGetsZeros) {
  NodeOut x = Input("x");
  NodeOut z = root_.Op("Neg", {x});
  NodeOut y = root_.Op("Mul", {Const({1, 2}), Const({3, 4})});
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {x, z}, {}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1, 2}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({0, 0}), 0);
  ExpectTensorNear(out[1], Tensor::FromVector<float>({0, 0}), 0);
}

TEST_F(SymbolicGradientsTest, GradientFlowsThroughAnXToAnotherX) {
  NodeOut x = Input("x");
  NodeOut h = root_.Op("Mul", {x, Const({3, 3})});
  NodeOut y = root_.Op("Mul", {h, h});  // y = 9x^2; dy/dh = 2h, dy/dx = 18x
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {h, x}, {}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1, 2}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({6, 12}), 1e-6);
  ExpectTensorNear(out[1], Tensor::FromVector<float>({18, 36}), 1e-6);
}

TEST_F(SymbolicGradientsTest, SeveralYsAddUp) {
  NodeOut x = Input("x");
  NodeOut y1 = root_.Op("Mul", {x, Const({2, 2})});
  NodeOut y2 = root_.Op("Mul", {y1, x});  // 2x^2, which also uses y1
  std::vector<NodeOut> dx;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y1, y2}, {x}, {}, &dx).ok()) << root_.status();
  auto out = Eval(dx, Tensor::FromVector<float>({1, 3}));
  ExpectTensorNear(out[0], Tensor::FromVector<float>({2 + 4, 2 + 12}), 1e-6);
}

TEST_F(SymbolicGradientsTest, MissingGradientFunctionNamesTheNode) {
  NodeOut x = Input("x");
  // RandomShuffle is on the coverage test's allow-list: stateful, with
  // neither a gradient function nor REGISTER_NO_GRADIENT.
  NodeOut y = root_.WithOpName("rs").Op("RandomShuffle", {x});
  ASSERT_TRUE(root_.ok()) << root_.status();
  bool no_gradient = false;
  ASSERT_EQ(GradientRegistry::Global()->LookUp("RandomShuffle", &no_gradient), nullptr);
  ASSERT_FALSE(no_gradient);
  std::vector<NodeOut> dx;
  Status s = AddSymbolicGradients(root_, {y}, {x}, {}, &dx);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
  EXPECT_NE(s.ToString().find("node 'rs' (RandomShuffle)"), std::string::npos) << s;
}

TEST_F(SymbolicGradientsTest, RejectsIntegerYsAndXs) {
  NodeOut x = Input("x");
  NodeOut i = root_.Op("Cast", {x}, {{"DstT", MakeAttrValue(DT_INT32)}});
  std::vector<NodeOut> dx;
  Status s = AddSymbolicGradients(root_, {i}, {x}, {}, &dx);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.ToString().find("int32"), std::string::npos) << s;
  s = AddSymbolicGradients(root_, {x}, {i}, {}, &dx);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
}

TEST_F(SymbolicGradientsTest, ComplexTensorsAreUnimplementedNotWrong) {
  NodeOut x = root_.WithOpName("z").Op("Placeholder", {}, {{"dtype", MakeAttrValue(DT_COMPLEX64)}});
  NodeOut y = root_.WithOpName("zz").Op("Mul", {x, x});
  std::vector<NodeOut> dx;
  Status s = AddSymbolicGradients(root_, {y}, {x}, {}, &dx);
  EXPECT_EQ(s.code(), Code::kUnimplemented) << s;
  EXPECT_NE(s.ToString().find("node 'zz' (Mul)"), std::string::npos) << s;
}

TEST_F(SymbolicGradientsTest, RejectsMismatchedGradYs) {
  NodeOut x = Input("x");
  NodeOut y = root_.Op("Neg", {x});
  std::vector<NodeOut> dx;
  Status s = AddSymbolicGradients(root_, {y}, {x}, {Const({1}), Const({1})}, &dx);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  NodeOut d = ConstOp(root_, Tensor::FromVector<double>({1}));
  s = AddSymbolicGradients(root_, {y}, {x}, {d}, &dx);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.ToString().find("double"), std::string::npos) << s;
}

TEST_F(SymbolicGradientsTest, GradientOfAVariable) {
  NodeOut w = root_.WithOpName("w").Op(
      "VariableV2", {}, {{"dtype", MakeAttrValue(DT_FLOAT)}, {"shape", MakeAttrValue(TensorShape({2}))}});
  Node* init = root_.WithOpName("init").AddNode("Assign", {w, Const({3, 4})});
  NodeOut x = Input("x");
  NodeOut y = root_.Op("Sum", {root_.Op("Mul", {w, x}), ConstOp(root_, Tensor::FromVector<int32_t>({0}))});
  std::vector<NodeOut> dw;
  ASSERT_TRUE(AddSymbolicGradients(root_, {y}, {w}, {}, &dw).ok()) << root_.status();
  GraphDef def;
  graph_.ToGraphDef(&def);
  auto session = Session::Create(SessionOptions{}, def);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  ASSERT_TRUE((*session)->Run({}, {}, {init->name()}, &out).ok());
  Status s = (*session)->Run({{"x", Tensor::FromVector<float>({5, 6})}}, {dw[0].name()}, {}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ExpectTensorNear(out[0], Tensor::FromVector<float>({5, 6}), 0);
}

}  // namespace
}  // namespace flowvm::testing
