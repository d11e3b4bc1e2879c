// The C++ client API end to end: build with generated op builders, run with
// ClientSession, differentiate, and see errors named.
#include <gtest/gtest.h>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorNear;

TEST(ClientApiTest, BuildsAndRunsAGraph) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  auto w = ops::Const(root, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  auto y = ops::MatMul(root.WithOpName("y"), x, w, ops::MatMul::TransposeB(true));
  auto z = ops::Add(root, y, 1.0f);
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(y.product.name(), "y:0");
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({{x, Tensor::FromVector<float>({1, 1}, TensorShape({1, 2}))}}, {z}, &out);
  ASSERT_TRUE(s.ok()) << s;
  ExpectTensorNear(out[0], Tensor::FromVector<float>({4, 8}, TensorShape({1, 2})), 0);
}

TEST(ClientApiTest, MultiOutputAndListOps) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {1.f, 2.f, 3.f, 4.f});
  auto parts = ops::Split(root, 0, a, 2);
  ASSERT_EQ(parts.output.size(), 2u);
  auto sum = ops::AddN(root, parts.output);
  auto packed = ops::Pack(root, {parts.output[1], parts.output[0]}, ops::Pack::Axis(1));
  ClientSession session(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({sum, packed}, &out).ok());
  ExpectTensorNear(out[0], Tensor::FromVector<float>({4, 6}), 0);
  ExpectTensorNear(out[1], Tensor::FromVector<float>({3, 1, 4, 2}, TensorShape({2, 2})), 0);
}

TEST(ClientApiTest, ExtendsTheSessionWithNodesAddedLater) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, 3.0f);
  ClientSession session(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({a}, &out).ok());
  auto b = ops::Mul(root, a, a);
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {b}, {a}, &grads).ok());
  ASSERT_TRUE(session.Run({b, grads[0]}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 9);
  EXPECT_EQ(out[1].scalar<float>(), 6);
}

TEST(ClientApiTest, ErrorsNameTheNodeAndStick) {
  Scope root = Scope::NewRootScope();
  auto a = ops::Const(root, {1.f, 2.f});
  auto i = ops::Const(root, {1, 2});
  auto bad = ops::Add(root.WithOpName("bad_add"), a, i);
  EXPECT_FALSE(bad.z.valid());
  EXPECT_FALSE(root.ok());
  EXPECT_NE(root.status().ToString().find("node 'bad_add' (Add)"), std::string::npos) << root.status();
  ClientSession session(root);
  std::vector<Tensor> out;
  Status s = session.Run({a}, &out);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("bad_add"), std::string::npos) << s;
}

TEST(ClientApiTest, OutputsOfAnotherRootAreRejected) {
  Scope a = Scope::NewRootScope(), b = Scope::NewRootScope();
  auto xa = ops::Const(a.WithOpName("x"), 1.0f);
  auto xb = ops::Const(b.WithOpName("x"), 2.0f);  // same name, other graph
  ClientSession session(a);
  std::vector<Tensor> out;
  Status s = session.Run({xb}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.ToString().find("another graph"), std::string::npos) << s;
  auto sum = ops::Add(a.WithOpName("sum"), xa, xb);
  EXPECT_FALSE(sum.z.valid());
  EXPECT_NE(a.status().ToString().find("node 'sum' (Add)"), std::string::npos) << a.status();
  EXPECT_NE(a.status().ToString().find("another graph"), std::string::npos) << a.status();
}

TEST(ClientApiTest, ScopesNameAndPlaceNodes) {
  Scope root = Scope::NewRootScope();
  Scope layer = root.NewSubScope("layer1").WithDevice("/device:CPU:0");
  auto a = ops::Const(layer, 1.0f);
  auto n = ops::Neg(layer.WithOpName("neg"), a);
  EXPECT_EQ(n.y.name(), "layer1/neg:0");
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  bool found = false;
  for (const NodeDef& node : def.node())
    if (node.name() == "layer1/neg") found = node.device() == "/device:CPU:0";
  EXPECT_TRUE(found);
}

TEST(ClientApiTest, ControlDependenciesOrderEffects) {
  Scope root = Scope::NewRootScope();
  auto v = ops::VariableV2(root.WithOpName("v"), PartialTensorShape({}), DT_FLOAT);
  auto init = ops::Assign(root, v, 1.0f);
  auto bump = ops::AssignAdd(root.WithControlDependencies(Output(init)), v, 10.0f);
  ClientSession session(root);
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({bump}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 11);
}

}  // namespace
}  // namespace flowvm
