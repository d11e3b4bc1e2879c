// The misc kernels inside a Session, as a TensorFlow graph uses them: a
// random op's stream continues across Runs and restarts in a new session
// with the same seeds (whatever the pool size), and a variable initialized
// by an init target then trained by ApplyGradientDescent over several Runs.
#include <gtest/gtest.h>

#include <cstring>

#include "flowvm/graph_io.h"
#include "flowvm/session.h"
#include "kernels/framework/resource_mgr.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::LoadFixture;

constexpr const char* kRandomGraph = R"pb(
node { name: "shape" op: "Const"
  attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 3 int_val: 37 } } } }
node { name: "u" op: "RandomUniform" input: "shape"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "seed" value { i: 87654321 } } attr { key: "seed2" value { i: 1234567890123 } } }
node { name: "t" op: "TruncatedNormal" input: "shape"
  attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_DOUBLE } }
  attr { key: "seed" value { i: 87654321 } } attr { key: "seed2" value { i: 1234567890123 } } }
versions { producer: 1087 }
)pb";

Tensor Row(const Tensor& t, int64_t i) {
  return t.Slice(i, i + 1).value().Reshape(TensorShape({3, 37})).value().DeepCopy();
}

TEST(RandomSessionTest, StreamsContinueAcrossRunsAndRepeatAcrossSessions) {
  auto graph = ParseGraphDef(kRandomGraph, GraphFormat::kText);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Tensor uniform = LoadFixture("kernels/misc/uniform_float.npy");
  const Tensor truncated = LoadFixture("kernels/misc/truncated_double.npy");
  for (int threads : {1, 4}) {
    SessionOptions options;
    options.num_threads = threads;
    for (int session_index = 0; session_index < 2; ++session_index) {
      auto session = Session::Create(options, *graph);
      ASSERT_TRUE(session.ok()) << session.status();
      for (int run = 0; run < 2; ++run) {
        std::vector<Tensor> out;
        FLOWVM_ASSERT_OK((*session)->Run({}, {"u:0", "t:0"}, {}, &out));
        ExpectTensorEqual(out[0], Row(uniform, run));
        ExpectTensorNear(out[1], Row(truncated, run), 1e-9);
      }
    }
  }
}

constexpr const char* kTrainGraph = R"pb(
node { name: "w" op: "VAROP" attr { key: "container" value { s: "CONTAINER" } }
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 3 } } } } }
node { name: "w_init" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 float_val: 2 float_val: 3 } } } }
node { name: "init" op: "Assign" input: "w" input: "w_init" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "lr" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 0.5 } } } }
node { name: "grad" op: "Const"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 3 } } float_val: 1 float_val: -2 float_val: 0.25 } } } }
node { name: "step" op: "ApplyGradientDescent" input: "w" input: "lr" input: "grad"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "read" op: "Identity" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
versions { producer: 1087 }
)pb";

TEST(TrainingSessionTest, InitTargetThenGradientStepsOnBothVariableOps) {
  for (const char* var_op : {"VariableV2", "Variable"}) {
    SCOPED_TRACE(var_op);
    std::string text = kTrainGraph;
    text.replace(text.find("VAROP"), 5, var_op);
    // A named container, in the session's own devices.
    const std::string container = std::string("misc_training_test_") + var_op;
    text.replace(text.find("CONTAINER"), 9, container);
    auto graph = ParseGraphDef(text, GraphFormat::kText);
    ASSERT_TRUE(graph.ok()) << graph.status();
    auto session = Session::Create(SessionOptions(), *graph);
    ASSERT_TRUE(session.ok()) << session.status();
    std::vector<Tensor> out;
    // Before the init target runs, the step fails cleanly.
    Status s = (*session)->Run({}, {"step:0"}, {}, &out);
    EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
    FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"init"}, &out));
    for (int k = 1; k <= 3; ++k) {
      FLOWVM_ASSERT_OK((*session)->Run({}, {"step:0"}, {}, &out));
      const float kf = static_cast<float>(k);
      ExpectTensorNear(out[0], Tensor::FromVector<float>({1 - 0.5f * kf, 2 + kf, 3 - 0.125f * kf}));
    }
    FLOWVM_ASSERT_OK((*session)->Run({}, {"read:0"}, {}, &out));
    ExpectTensorNear(out[0], Tensor::FromVector<float>({-0.5f, 5, 2.625f}));
  }
}

}  // namespace
}  // namespace flowvm
