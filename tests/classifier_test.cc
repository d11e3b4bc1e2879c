// The example classifiers (examples/common/classifier.h), and the paper's
// lesson 3: with the learning rate at zero, training must not change the loss.
#include "common/classifier.h"

#include <gtest/gtest.h>

#include "common/batches.h"
#include "flowvm/session.h"

namespace flowvm::examples {
namespace {

struct Case {
  const char* name;
  bool conv;
  OptimizerKind optimizer;
};

class ZeroLearningRateTest : public ::testing::TestWithParam<Case> {};

// The loss on a fixed batch, before and after five training steps on other
// batches: equal to the last bit at lr 0, different at lr 0.01.
void LossBeforeAndAfter(const Case& c, float lr, float* before, float* after) {
  auto digits = LoadDigits(kDigitsPath, c.conv ? ImageLayout::kNHWC : ImageLayout::kFlat);
  ASSERT_TRUE(digits.ok()) << digits.status();
  Classifier m;
  ModelOptions options;
  options.optimizer = c.optimizer;
  options.learning_rate = lr;
  Status s = c.conv ? BuildConvNet(8, 8, 4, 8, 16, 10, options, &m) : BuildMlp(64, {32}, 10, options, &m);
  ASSERT_TRUE(s.ok()) << s;
  ClientSession session(m.root);
  ASSERT_TRUE(session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr).ok());
  auto batches = BatchIterator::Create(*digits, 64, 3);
  ASSERT_TRUE(batches.ok());
  auto probe = batches->Batch(0);
  ASSERT_TRUE(probe.ok());
  std::vector<Tensor> out;
  ASSERT_TRUE(session.Run({{m.images, probe->images}, {m.labels, probe->labels}}, {m.loss}, &out).ok());
  *before = out[0].scalar<float>();
  for (int step = 1; step <= 5; ++step) {
    auto batch = batches->Batch(step);
    ASSERT_TRUE(batch.ok());
    s = session.Run({{m.images, batch->images}, {m.labels, batch->labels}}, {}, {m.train}, nullptr);
    ASSERT_TRUE(s.ok()) << s;
  }
  ASSERT_TRUE(session.Run({{m.images, probe->images}, {m.labels, probe->labels}}, {m.loss}, &out).ok());
  *after = out[0].scalar<float>();
}

TEST_P(ZeroLearningRateTest, LossStaysExactlyConstant) {
  float before = 0, after = 0;
  LossBeforeAndAfter(GetParam(), 0.0f, &before, &after);
  EXPECT_EQ(before, after);
}

TEST_P(ZeroLearningRateTest, APositiveRateDoesChangeIt) {
  float before = 0, after = 0;
  LossBeforeAndAfter(GetParam(), 0.01f, &before, &after);
  EXPECT_NE(before, after);
}

INSTANTIATE_TEST_SUITE_P(Models, ZeroLearningRateTest,
                         ::testing::Values(Case{"mlp_sgd", false, OptimizerKind::kSgd},
                                           Case{"mlp_momentum", false, OptimizerKind::kMomentum},
                                           Case{"mlp_adam", false, OptimizerKind::kAdam},
                                           Case{"mlp_adagrad", false, OptimizerKind::kAdagrad},
                                           Case{"mlp_rmsprop", false, OptimizerKind::kRMSProp},
                                           Case{"convnet_sgd", true, OptimizerKind::kSgd},
                                           Case{"convnet_adam", true, OptimizerKind::kAdam}),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace flowvm::examples
