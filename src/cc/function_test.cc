// Functions in the C++ client API: FunctionBuilder, nested functions,
// CallFunction, gradients through calls (the body's, and a declared
// gradient function), a body on another device, and builder errors.
#include "flowvm/cc/function.h"

#include <gtest/gtest.h>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

float Scalar(const ClientSession& session, const ClientSession::FeedType& feeds, const Output& fetch) {
  std::vector<Tensor> out;
  Status s = session.Run(feeds, {fetch}, &out);
  EXPECT_TRUE(s.ok()) << s;
  return s.ok() ? out[0].scalar<float>() : -1e30f;
}

TEST(FunctionBuilderTest, DefineCallNestAndDifferentiate) {
  Scope root = Scope::NewRootScope();
  FunctionBuilder square("SquareFn");
  Output x = square.Argument("x", DT_FLOAT);
  square.Return("y", ops::Mul(square.scope(), x, x));

  FunctionBuilder cube("Cube");
  Output c = cube.Argument("x", DT_FLOAT);
  ASSERT_TRUE(square.AddTo(cube.scope()).ok());
  OutputList sq = CallFunction(cube.scope(), "SquareFn", {c});
  ASSERT_EQ(sq.size(), 1u);
  cube.Return("y", ops::Mul(cube.scope(), sq[0], c));
  ASSERT_TRUE(cube.AddTo(root).ok());  // brings SquareFn along

  Output a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  OutputList y = CallFunction(root.WithOpName("cube"), "Cube", {a});
  ASSERT_EQ(y.size(), 1u);
  Output plus = ops::Add(root, y[0], 1.0f);
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {plus}, {a}, &grads).ok()) << root.status();
  ASSERT_TRUE(root.ok()) << root.status();

  ClientSession session(root);
  EXPECT_EQ(Scalar(session, {{a, Tensor::Scalar<float>(2)}}, plus), 9.0f);
  EXPECT_EQ(Scalar(session, {{a, Tensor::Scalar<float>(2)}}, grads[0]), 12.0f);  // 3 a^2
  EXPECT_EQ(Scalar(session, {{a, Tensor::Scalar<float>(-1)}}, grads[0]), 3.0f);
}

TEST(FunctionBuilderTest, DeclaredGradientFunctionIsUsed) {
  Scope root = Scope::NewRootScope();
  // ClipGrad's gradient clips dy to [-1, 1] (a "straight-through" clip).
  FunctionBuilder grad("ClipGradGrad");
  Output gx = grad.Argument("x", DT_FLOAT);
  Output dy = grad.Argument("dy", DT_FLOAT);
  (void)gx;
  grad.Return("dx", ops::ClipByValue(grad.scope(), dy, -1.0f, 1.0f));
  ASSERT_TRUE(grad.AddTo(root).ok());
  FunctionBuilder clip("ClipGrad");
  Output x = clip.Argument("x", DT_FLOAT);
  clip.Return("y", ops::Identity(clip.scope(), x));
  clip.SetGradient("ClipGradGrad");
  ASSERT_TRUE(clip.AddTo(root).ok());

  Output a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  Output y = CallFunction(root, "ClipGrad", {a})[0];
  Output loss = ops::Mul(root, y, 5.0f);
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {loss}, {a}, &grads).ok()) << root.status();
  ClientSession session(root);
  EXPECT_EQ(Scalar(session, {{a, Tensor::Scalar<float>(3)}}, grads[0]), 1.0f);  // 5 clipped to 1
}

TEST(FunctionBuilderTest, BodyOnAnotherDevice) {
  Scope root = Scope::NewRootScope();
  FunctionBuilder f("OnCpu1");
  Output x = f.Argument("x", DT_FLOAT);
  f.Return("y", ops::Add(f.scope().WithDevice("/device:CPU:1"), x, 10.0f));
  ASSERT_TRUE(f.AddTo(root).ok());
  Output a = ops::Placeholder(root.WithOpName("a"), DT_FLOAT);
  Output y = CallFunction(root.WithDevice("/device:CPU:0"), "OnCpu1", {a})[0];
  SessionOptions options;
  options.cpu_devices = 2;
  ClientSession session(root, options);
  EXPECT_EQ(Scalar(session, {{a, Tensor::Scalar<float>(1)}}, y), 11.0f);
}

TEST(FunctionBuilderTest, Errors) {
  Scope root = Scope::NewRootScope();
  EXPECT_TRUE(CallFunction(root, "Nope", {1.0f}).empty());
  EXPECT_EQ(root.status().code(), Code::kNotFound);
  EXPECT_NE(root.status().message().find("'Nope'"), std::string::npos);

  FunctionBuilder f("Two");
  Output x = f.Argument("x", DT_FLOAT);
  f.Return("y", x);
  f.Return("y", x);
  auto built = f.Build();
  EXPECT_EQ(built.status().code(), Code::kInvalidArgument);
  EXPECT_NE(built.status().message().find("two results are named 'y'"), std::string::npos);

  Scope root2 = Scope::NewRootScope();
  FunctionBuilder g("G");
  Output gx = g.Argument("x", DT_FLOAT);
  g.Return("y", gx);
  ASSERT_TRUE(g.AddTo(root2).ok());
  EXPECT_TRUE(CallFunction(root2, "G", {1, 2}).empty());  // takes one input
  EXPECT_EQ(root2.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace flowvm
