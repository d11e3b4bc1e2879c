// Kernels of the element-wise ops added for the TF 1.x front-end (Sin ...
// Expm1, IsInf, Atan2, SquaredDifference, TruncateDiv/Mod, ClipByValue,
// LeakyRelu, Softsign and their gradients): values against hand-computed
// or libm results, broadcasting, 16-bit types, and clean errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::TestNode;

template <typename T>
Tensor V(std::vector<T> v, TensorShape s) {
  return Tensor::FromVector<T>(v, s);
}
template <typename T>
Tensor V(std::vector<T> v) {
  return Tensor::FromVector<T>(v);
}

// Runs `op` on inputs named in0, in1, ... with T from the first input.
StatusOr<std::vector<Tensor>> Run(const std::string& op, const std::vector<Tensor>& inputs,
                                  TestNode node = TestNode("", "")) {
  TestNode n = node.def().op().empty() ? TestNode("n", op) : node;
  for (size_t i = 0; i < inputs.size(); ++i) n.Input("in" + std::to_string(i));
  if (n.def().attr().count("T") == 0) n.Attr("T", inputs[0].dtype());
  return testing::RunOpKernel(n, inputs);
}
Tensor Run1(const std::string& op, const std::vector<Tensor>& inputs, TestNode node = TestNode("", "")) {
  auto out = Run(op, inputs, node);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}
void ExpectInvalid(const std::string& op, const std::vector<Tensor>& inputs, const std::string& msg,
                   TestNode node = TestNode("", "")) {
  auto out = Run(op, inputs, node);
  ASSERT_FALSE(out.ok()) << op;
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find(msg), std::string::npos) << out.status();
}

TEST(MoreCwiseTest, UnaryMatchLibm) {
  const std::vector<double> x = {-2.5, -1, -0.25, 0, 1e-9, 0.5, 1.5, 3};
  struct Case {
    const char* op;
    double (*f)(double);
  };
  for (const Case& c : {Case{"Sin", [](double v) { return std::sin(v); }},
                        Case{"Cos", [](double v) { return std::cos(v); }},
                        Case{"Tan", [](double v) { return std::tan(v); }},
                        Case{"Erf", [](double v) { return std::erf(v); }},
                        Case{"Expm1", [](double v) { return std::expm1(v); }}}) {
    SCOPED_TRACE(c.op);
    std::vector<double> want;
    std::vector<float> xf, wantf;
    for (double v : x) {
      want.push_back(c.f(v));
      xf.push_back(static_cast<float>(v));
      wantf.push_back(static_cast<float>(c.f(v)));
    }
    ExpectTensorNear(Run1(c.op, {V<double>(x)}), V<double>(want), 1e-15);
    ExpectTensorNear(Run1(c.op, {V<float>(xf)}), V<float>(wantf), 1e-6);
  }
  // Expm1 keeps its precision near 0, where exp(x) - 1 would not.
  EXPECT_EQ(Run1("Expm1", {V<double>({1e-20})}).data<double>()[0], 1e-20);
}

TEST(MoreCwiseTest, HalfAndComplex) {
  Tensor h = Run1("Sin", {V<half>({half(0.5f), half(-1.0f)})});
  EXPECT_NEAR(static_cast<float>(h.data<half>()[0]), std::sin(0.5f), 1e-3);
  EXPECT_NEAR(static_cast<float>(h.data<half>()[1]), std::sin(-1.0f), 1e-3);
  Tensor c = Run1("Cos", {V<complex64>({complex64(1, 2)})});
  EXPECT_NEAR(std::abs(c.data<complex64>()[0] - std::cos(complex64(1, 2))), 0, 1e-5);
}

TEST(MoreCwiseTest, IsInf) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  ExpectTensorEqual(Run1("IsInf", {V<float>({1, inf, -inf, nan, 0})}),
                    V<bool>({false, true, true, false, false}));
  ExpectTensorEqual(Run1("IsInf", {V<double>({-std::numeric_limits<double>::infinity()})}), V<bool>({true}));
}

TEST(MoreCwiseTest, Atan2Quadrants) {
  // atan2(y, x): y is the first input.
  Tensor z = Run1("Atan2", {V<double>({1, 1, -1, -1, 0}), V<double>({1, -1, 1, -1, -1})});
  ExpectTensorNear(z, V<double>({M_PI / 4, 3 * M_PI / 4, -M_PI / 4, -3 * M_PI / 4, M_PI}), 1e-15);
  // Broadcasting a scalar x.
  ExpectTensorNear(Run1("Atan2", {V<float>({2, -2}), Tensor::Scalar<float>(0)}),
                   V<float>({static_cast<float>(M_PI / 2), static_cast<float>(-M_PI / 2)}), 1e-6);
}

TEST(MoreCwiseTest, SquaredDifferenceBroadcasts) {
  // [2,1] with [3]: (x_i - y_j)^2.
  Tensor z = Run1("SquaredDifference", {V<float>({1, -2}, TensorShape({2, 1})), V<float>({0, 1, 3})});
  ExpectTensorEqual(z, V<float>({1, 0, 4, 4, 9, 25}, TensorShape({2, 3})));
  ExpectTensorEqual(Run1("SquaredDifference", {V<int32_t>({5, -3}), V<int32_t>({2, 2})}), V<int32_t>({9, 25}));
  Tensor c = Run1("SquaredDifference", {V<complex64>({complex64(1, 1)}), V<complex64>({complex64(0, 0)})});
  EXPECT_EQ(c.data<complex64>()[0], complex64(2, 0));  // |1+i|^2
}

TEST(MoreCwiseTest, TruncateDivAndModRoundTowardZero) {
  const std::vector<int32_t> x = {7, -7, 7, -7, 0}, y = {2, 2, -2, -2, 3};
  ExpectTensorEqual(Run1("TruncateDiv", {V<int32_t>(x), V<int32_t>(y)}), V<int32_t>({3, -3, -3, 3, 0}));
  ExpectTensorEqual(Run1("TruncateMod", {V<int32_t>(x), V<int32_t>(y)}), V<int32_t>({1, -1, 1, -1, 0}));
  // Unlike FloorDiv / FloorMod.
  ExpectTensorEqual(Run1("FloorDiv", {V<int32_t>(x), V<int32_t>(y)}), V<int32_t>({3, -4, -4, 3, 0}));
  ExpectTensorEqual(Run1("TruncateDiv", {V<int64_t>({-9}), V<int64_t>({4})}), V<int64_t>({-2}));
  ExpectTensorEqual(Run1("TruncateDiv", {V<uint8_t>({200}), V<uint8_t>({7})}), V<uint8_t>({28}));
  // MIN / -1 wraps, MIN % -1 is 0: no undefined behaviour.
  const int32_t mn = std::numeric_limits<int32_t>::min();
  ExpectTensorEqual(Run1("TruncateDiv", {V<int32_t>({mn}), V<int32_t>({-1})}), V<int32_t>({mn}));
  ExpectTensorEqual(Run1("TruncateMod", {V<int32_t>({mn}), V<int32_t>({-1})}), V<int32_t>({0}));
  // Floating: trunc(x / y) and fmod.
  ExpectTensorEqual(Run1("TruncateDiv", {V<float>({7.5, -7.5}), V<float>({2, 2})}), V<float>({3, -3}));
  ExpectTensorEqual(Run1("TruncateMod", {V<double>({7.5, -7.5}), V<double>({2, 2})}), V<double>({1.5, -1.5}));
  // Integer division by zero is an error, not a crash.
  ExpectInvalid("TruncateDiv", {V<int32_t>({1, 2}), V<int32_t>({1, 0})}, "division by zero");
  ExpectInvalid("TruncateMod", {V<int64_t>({1}), V<int64_t>({0})}, "division by zero");
}

TEST(MoreCwiseTest, ClipByValue) {
  Tensor t = V<float>({-3, -1, 0, 2, 5}, TensorShape({5}));
  ExpectTensorEqual(Run1("ClipByValue", {t, Tensor::Scalar<float>(-1.5), Tensor::Scalar<float>(2.5)}),
                    V<float>({-1.5, -1, 0, 2, 2.5}));
  // Bounds of t's shape, element by element.
  ExpectTensorEqual(Run1("ClipByValue", {t, V<float>({0, 0, 1, 3, 0}), V<float>({1, 1, 2, 4, 4})}),
                    V<float>({0, 0, 1, 3, 4}));
  // min > max: TensorFlow's order (min first, then max) makes min win.
  ExpectTensorEqual(Run1("ClipByValue", {V<int32_t>({0, 9}), Tensor::Scalar<int32_t>(5), Tensor::Scalar<int32_t>(3)}),
                    V<int32_t>({5, 5}));
  ExpectInvalid("ClipByValue", {t, V<float>({0, 1}), Tensor::Scalar<float>(1)}, "must be either scalars");
}

TEST(MoreCwiseTest, LeakyReluAndGrad) {
  Tensor x = V<float>({-2, -0.5, 0, 0.5, 3});
  ExpectTensorNear(Run1("LeakyRelu", {x}), V<float>({-0.4, -0.1, 0, 0.5, 3}), 1e-7);  // alpha 0.2
  TestNode alpha("n", "LeakyRelu");
  alpha.Attr("alpha", 0.5f);
  ExpectTensorNear(Run1("LeakyRelu", {V<double>({-2, 4})}, alpha), V<double>({-1, 4}), 1e-15);
  Tensor g = V<float>({1, 2, 3, 4, 5});
  ExpectTensorNear(Run1("LeakyReluGrad", {g, x}), V<float>({0.2, 0.4, 0.6, 4, 5}), 1e-6);
  Tensor h = Run1("LeakyRelu", {V<bfloat16>({bfloat16(-1.0f), bfloat16(2.0f)})});
  EXPECT_NEAR(static_cast<float>(h.data<bfloat16>()[0]), -0.2f, 1e-2);
  EXPECT_EQ(static_cast<float>(h.data<bfloat16>()[1]), 2.0f);
  ExpectInvalid("LeakyReluGrad", {V<float>({1, 2}), V<float>({1, 2, 3})}, "same size and shape");
}

TEST(MoreCwiseTest, SoftsignAndGrad) {
  ExpectTensorNear(Run1("Softsign", {V<double>({-3, 0, 1})}), V<double>({-0.75, 0, 0.5}), 1e-15);
  // g / (1 + |x|)^2.
  ExpectTensorNear(Run1("SoftsignGrad", {V<double>({2, 2, 8}), V<double>({-3, 0, 1})}), V<double>({0.125, 2, 2}),
                   1e-15);
  ExpectInvalid("SoftsignGrad", {V<float>({1}), V<float>({1, 2})}, "same size and shape");
}

// Sharded over 4 threads, with the inputs handed over so the output may
// reuse their buffers: the same values as computed here.
TEST(MoreCwiseTest, ShardedAndForwarded) {
  const int64_t n = 10000;
  std::vector<float> x(n), leaky(n), clipped(n);
  for (int64_t i = 0; i < n; ++i) {
    x[i] = static_cast<float>(i % 17) - 8.5f;
    leaky[i] = x[i] > 0 ? x[i] : 0.2f * x[i];
    clipped[i] = std::min(std::max(x[i], -2.0f), 3.0f);
  }
  struct Case {
    const char* op;
    std::vector<Tensor> inputs;
    std::vector<float> want;
  };
  for (Case& c : std::vector<Case>{{"LeakyRelu", {V<float>(x)}, leaky},
                                   {"ClipByValue", {V<float>(x), Tensor::Scalar<float>(-2), Tensor::Scalar<float>(3)},
                                    clipped}}) {
    SCOPED_TRACE(c.op);
    testing::OpTest t;
    TestNode node("n", c.op);
    for (size_t i = 0; i < c.inputs.size(); ++i) node.Input("in" + std::to_string(i));
    node.Attr("T", DT_FLOAT);
    FLOWVM_ASSERT_OK(t.Init(node));
    for (const Tensor& in : c.inputs) t.AddInput(in.DeepCopy());
    t.set_give_inputs(true);
    t.set_num_threads(4);
    FLOWVM_ASSERT_OK(t.Run());
    ExpectTensorEqual(t.output(0), V<float>(c.want));
  }
}

}  // namespace
}  // namespace flowvm
