// Variables, initializers and optimizers of the client API, trained end to end.
#include <cmath>
#include <map>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/gradients.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/training.h"

namespace flowvm {
namespace {

class TrainingTest : public ::testing::Test {};

// Least squares y = x w + b on fixed data whose exact solution is w = [2, -3], b = 1.
struct Regression {
  Scope root = Scope::NewRootScope();
  Output x, y, loss;
  Variable w, b;
  Regression() {
    x = ops::Const(root, Tensor::FromVector<float>({1, 0, 0, 1, 1, 1, 2, -1, -1, 3}, TensorShape({5, 2})));
    y = ops::Const(root, Tensor::FromVector<float>({3, -2, 0, 8, -10}, TensorShape({5, 1})));
    w = Variable(root.WithOpName("w"), {2, 1}, DT_FLOAT, init::Zeros());
    b = Variable(root.WithOpName("b"), {1}, DT_FLOAT, init::Zeros());
    auto pred = ops::Add(root, ops::MatMul(root, x, w), b);
    loss = ops::Mean(root.WithOpName("loss"), ops::Square(root, ops::Sub(root, pred, y)), {0, 1});
  }
  float Loss(ClientSession& s) {
    std::vector<Tensor> out;
    EXPECT_TRUE(s.Run({loss}, &out).ok());
    return out.empty() ? NAN : out[0].scalar<float>();
  }
};

void Train(Optimizer&& opt, int steps, float max_final_loss) {
  Regression r;
  Operation train = opt.Minimize(r.root, r.loss);
  Operation init = GlobalVariablesInitializer(r.root);
  ASSERT_TRUE(r.root.ok()) << r.root.status();
  ClientSession session(r.root);
  ASSERT_TRUE(session.Run({}, {}, {init}, nullptr).ok());
  float first = r.Loss(session);
  for (int i = 0; i < steps; ++i) {
    Status s = session.Run({}, {}, {train}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
  }
  float last = r.Loss(session);
  EXPECT_LT(last, max_final_loss) << "first loss " << first;
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({r.w, r.b}, &out).ok());
  EXPECT_NEAR(out[0].flat<float>()[0], 2, 0.05);
  EXPECT_NEAR(out[0].flat<float>()[1], -3, 0.05);
  EXPECT_NEAR(out[1].flat<float>()[0], 1, 0.05);
}

TEST_F(TrainingTest, GradientDescentFitsALine) { Train(GradientDescentOptimizer(0.1f), 1000, 1e-3f); }
TEST_F(TrainingTest, MomentumFitsALine) { Train(MomentumOptimizer(0.02f, 0.9f), 300, 1e-3f); }
TEST_F(TrainingTest, NesterovMomentumFitsALine) { Train(MomentumOptimizer(0.02f, 0.9f, true), 300, 1e-3f); }
TEST_F(TrainingTest, AdamFitsALine) { Train(AdamOptimizer(0.1f), 600, 1e-3f); }
TEST_F(TrainingTest, AdagradFitsALine) { Train(AdagradOptimizer(0.5f), 1500, 1e-3f); }
TEST_F(TrainingTest, RMSPropFitsALine) { Train(RMSPropOptimizer(0.01f, 0.9f, 0.5f), 1500, 1e-3f); }

// The paper's lesson: with learning rate 0 nothing may change.
TEST_F(TrainingTest, ZeroLearningRateKeepsTheLossConstant) {
  for (int which = 0; which < 5; ++which) {
    Regression r;
    r.w = Variable(r.root.WithOpName("w2"), {2, 1}, DT_FLOAT, init::GlorotUniform(3));
    auto pred = ops::MatMul(r.root, r.x, r.w);
    auto loss = ops::Mean(r.root, ops::Square(r.root, ops::Sub(r.root, pred, r.y)), {0, 1});
    std::unique_ptr<Optimizer> opt;
    if (which == 0) opt = std::make_unique<GradientDescentOptimizer>(0.0f);
    if (which == 1) opt = std::make_unique<MomentumOptimizer>(0.0f, 0.9f);
    if (which == 2) opt = std::make_unique<AdamOptimizer>(0.0f);
    if (which == 3) opt = std::make_unique<AdagradOptimizer>(0.0f);
    if (which == 4) opt = std::make_unique<RMSPropOptimizer>(0.0f);
    Operation train = opt->Minimize(r.root, loss, {r.w});
    Operation init = GlobalVariablesInitializer(r.root);
    ASSERT_TRUE(r.root.ok()) << r.root.status();
    ClientSession session(r.root);
    ASSERT_TRUE(session.Run({}, {}, {init}, nullptr).ok());
    std::vector<Tensor> out;
    ASSERT_TRUE(session.Run({loss}, &out).ok());
    float before = out[0].scalar<float>();
    for (int i = 0; i < 5; ++i) ASSERT_TRUE(session.Run({}, {loss}, {train}, &out).ok());
    ASSERT_TRUE(session.Run({loss}, &out).ok());
    EXPECT_EQ(out[0].scalar<float>(), before) << "optimizer " << which;
  }
}

TEST_F(TrainingTest, GlobalStepCountsTrainingSteps) {
  Regression r;
  Variable step(r.root.WithOpName("global_step"), {}, DT_INT64, init::Zeros(), false);
  Operation train = GradientDescentOptimizer(0.01f).Minimize(r.root, r.loss, {}, &step);
  ASSERT_TRUE(r.root.ok()) << r.root.status();
  ClientSession session(r.root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(r.root)}, nullptr).ok());
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(session.Run({}, {}, {train}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({step}, &out).ok());
  EXPECT_EQ(out[0].scalar<int64_t>(), 7);
}

TEST_F(TrainingTest, SlotsAndBetaPowersAreVariables) {
  Regression r;
  AdamOptimizer(0.1f).Minimize(r.root, r.loss);
  ASSERT_TRUE(r.root.ok()) << r.root.status();
  std::vector<std::string> names;
  for (const Variable& v : GlobalVariables(r.root)) names.push_back(v.name());
  EXPECT_EQ(names, (std::vector<std::string>{"w", "b", "Adam/beta1_power", "Adam/beta2_power", "w/Adam", "w/Adam_1",
                                             "b/Adam", "b/Adam_1"}));
  EXPECT_EQ(TrainableVariables(r.root).size(), 2u);
}

// An update and its slots live on their variable's device (the update takes
// them by reference), even when the optimizer's scope names another device or
// none: the initialization step, which has no update in it, would otherwise
// place a slot apart and the first training step could not colocate them.
TEST_F(TrainingTest, SlotsGoWithTheirVariablesDevice) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  Variable w(root.WithDevice("/device:CPU:1").WithOpName("w"), {2, 1}, DT_FLOAT, init::Ones());
  Variable b(root.WithOpName("b"), {1}, DT_FLOAT, init::Zeros());
  auto loss = ops::Sum(root, ops::Square(root, ops::Add(root, ops::MatMul(root, x, w), b)), {0, 1});
  Operation train = AdamOptimizer(0.1f).Minimize(root.WithDevice("/device:CPU:0"), loss);
  Operation init = GlobalVariablesInitializer(root);
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  std::map<std::string, std::string> device;
  for (const NodeDef& n : def.node()) device[n.name()] = n.device();
  EXPECT_EQ(device["w/Adam"], "/device:CPU:1");
  EXPECT_EQ(device["w/Adam_1"], "/device:CPU:1");
  EXPECT_EQ(device["Adam/update_w/ApplyAdam"], "/device:CPU:1");
  EXPECT_EQ(device["b/Adam"], "/device:CPU:0");  // b asked for nothing: the scope's device
  SessionOptions options;
  options.cpu_devices = 2;
  ClientSession session(root, options);
  Status s = session.Run({}, {}, {init}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
  s = session.Run({}, {}, {train}, nullptr);
  ASSERT_TRUE(s.ok()) << s;
}

// Every update waits for every gradient: the gradient of b reads w (through
// the MatMul's gradient with respect to its input), which w's update changes
// in place as soon as it may run.
TEST_F(TrainingTest, UpdatesWaitForEveryGradient) {
  Scope root = Scope::NewRootScope();
  auto x = ops::Const(root, Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  Variable a(root.WithOpName("a"), {2, 2}, DT_FLOAT, init::Ones());
  Variable w(root.WithOpName("w"), {2, 1}, DT_FLOAT, init::Ones());
  auto loss = ops::Sum(root, ops::Square(root, ops::MatMul(root, ops::MatMul(root, x, a), w)), {0, 1});
  std::vector<Output> grads;
  ASSERT_TRUE(AddSymbolicGradients(root, {loss}, {a.ref(), w.ref()}, &grads).ok());
  GradientDescentOptimizer(0.01f).ApplyGradients(root, {{grads[0], a}, {grads[1], w}});
  ASSERT_TRUE(root.ok()) << root.status();
  GraphDef def;
  ASSERT_TRUE(root.ToGraphDef(&def).ok());
  std::map<std::string, std::vector<std::string>> inputs;
  for (const NodeDef& n : def.node()) inputs[n.name()] = {n.input().begin(), n.input().end()};
  ASSERT_EQ(inputs.count("GradientDescent/gate_gradients"), 1u);
  EXPECT_THAT(inputs["GradientDescent/gate_gradients"],
              ::testing::UnorderedElementsAre("^" + grads[0].op().name(), "^" + grads[1].op().name()));
  for (const char* update : {"GradientDescent/update_a/ApplyGradientDescent", "GradientDescent/update_w/ApplyGradientDescent"})
    EXPECT_THAT(inputs[update], ::testing::Contains("^GradientDescent/gate_gradients")) << update;
}

TEST_F(TrainingTest, InitializersAreSeededAndBounded) {
  Scope root = Scope::NewRootScope();
  Variable a(root.WithOpName("a"), {30, 20}, DT_FLOAT, init::GlorotUniform(5));
  Variable b(root.WithOpName("b"), {30, 20}, DT_FLOAT, init::GlorotUniform(5));
  Variable c(root.WithOpName("c"), {30, 20}, DT_FLOAT, init::GlorotUniform(6));
  Variable d(root.WithOpName("d"), {1000}, DT_DOUBLE, init::TruncatedNormal(1, 0.5, 7));
  Variable e(root.WithOpName("e"), {2, 2}, DT_FLOAT, init::Value(Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})));
  ASSERT_TRUE(root.ok()) << root.status();
  ClientSession session(root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr).ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({a, b, c, d, e}, &out).ok());
  float limit = std::sqrt(6.0f / 50);
  bool same_ab = true, same_ac = true;
  for (int i = 0; i < 600; ++i) {
    EXPECT_LE(std::abs(out[0].flat<float>()[i]), limit);
    same_ab = same_ab && out[0].flat<float>()[i] == out[1].flat<float>()[i];
    same_ac = same_ac && out[0].flat<float>()[i] == out[2].flat<float>()[i];
  }
  EXPECT_TRUE(same_ab);
  EXPECT_FALSE(same_ac);
  for (double v : out[3].flat<double>()) EXPECT_LE(std::abs(v - 1), 1.0 + 1e-9);
  EXPECT_EQ(out[4].flat<float>()[3], 4);
}

TEST_F(TrainingTest, ErrorsAreRecordedInTheScope) {
  Scope root = Scope::NewRootScope();
  Variable a(root.WithOpName("a"), {2}, DT_FLOAT, init::Value(Tensor::FromVector<float>({1, 2, 3})));
  EXPECT_FALSE(root.ok());
  EXPECT_NE(root.status().ToString().find("initial value is float [3]"), std::string::npos) << root.status();
  Scope root2 = Scope::NewRootScope();
  auto c = ops::Const(root2, 1.0f);
  GradientDescentOptimizer(0.1f).Minimize(root2, c);
  EXPECT_FALSE(root2.ok());
  EXPECT_NE(root2.status().ToString().find("no trainable variables"), std::string::npos) << root2.status();
}

}  // namespace
}  // namespace flowvm
