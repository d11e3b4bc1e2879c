// TensorArrays on a 3-task local cluster: the input array on task 1, the
// output array on task 2, a while loop's arithmetic on task 0; forward and
// gradient (AddSymbolicGradients over the loop) compared with closed forms.
#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "graph/gradients.h"
#include "util/tensor_array_test_util.h"
#include "util/while_loop_builder.h"

namespace flowvm {
namespace {

using namespace tensor_array_testing;  // NOLINT
using distributed_testing::LocalCluster;
using testing::BuildWhileLoop;

constexpr char kTask0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kTask1[] = "/job:worker/replica:0/task:1/device:CPU:0";
constexpr char kTask2[] = "/job:worker/replica:0/task:2/device:CPU:0";
constexpr int kT = 5;

// out[t] = sum over s <= t of w * x[s] (a scan), y = out stacked.
void BuildScan(const GraphScope& root) {
  const GraphScope s0 = root.WithDevice(kTask0);
  NodeOut x = s0.WithOpName("x").Op("Placeholder", {}, {{"dtype", MakeAttrValue(DT_FLOAT)},
                                                        {"shape", MakeAttrValue(PartialTensorShape({kT, 2}))}});
  NodeOut w = s0.WithOpName("w").Op("Placeholder", {}, {{"dtype", MakeAttrValue(DT_FLOAT)},
                                                        {"shape", MakeAttrValue(PartialTensorShape({2}))}});
  std::vector<int32_t> range(kT);
  for (int i = 0; i < kT; ++i) range[i] = i;
  Ta in = NewTa(root.WithDevice(kTask1), "in", kT, DT_FLOAT);
  NodeOut in_flow = Scatter(root, "unstack", in.handle, I32s(s0, range), x, in.flow);
  Ta out = NewTa(root.WithDevice(kTask2), "out", kT, DT_FLOAT);
  auto loop = BuildWhileLoop(
      s0, "scan", I32(s0, kT), {out.flow, F32(s0, {0, 0}, TensorShape({2}))}, {in.handle, in_flow, out.handle, w}, 10,
      [](const GraphScope& b, NodeOut t, const std::vector<NodeOut>& v, const std::vector<NodeOut>& inv) {
        NodeOut xt = b.Op("TensorArrayReadV3", {inv[0], t, inv[1]}, {{"dtype", MakeAttrValue(DT_FLOAT)}});
        NodeOut acc = b.Op("Add", {v[1], b.Op("Mul", {inv[3], xt})});
        return std::vector<NodeOut>{b.Op("TensorArrayWriteV3", {inv[2], t, acc, v[0]}), acc};
      });
  NodeOut y = Gather(root, "stack", out.handle, I32s(s0, range), loop.exits[0]);
  std::vector<NodeOut> grads;
  FLOWVM_EXPECT_OK(AddSymbolicGradients(root, {y}, {x, w}, {}, &grads));
  if (grads.size() == 2) {
    root.WithOpName("dx").Op("Identity", {grads[0]});
    root.WithOpName("dw").Op("Identity", {grads[1]});
  }
}

TEST(TensorArrayClusterTest, AScanAndItsGradientAcrossThreeTasks) {
  LocalCluster cluster({{"worker", 3}});
  ASSERT_TRUE(cluster.StartAll());
  TaSession t;
  t.options().target = cluster.Target("worker");
  t.options().connect_timeout_ms = 10000;
  BuildScan(t.root());
  std::vector<float> x(kT * 2), w = {0.5f, -2.0f};
  for (int i = 0; i < kT * 2; ++i) x[i] = 0.25f * i - 1;
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Tensor::FromVector<float>(x, TensorShape({kT, 2}))}, {"w", Tensor::FromVector<float>(w)}};
  for (int run = 0; run < 3; ++run) {
    std::vector<Tensor> out;
    FLOWVM_ASSERT_OK(t.Run({"stack", "dx", "dw"}, &out, feeds));
    // y[t][j] = w[j] * sum_{s<=t} x[s][j]; with dy = ones,
    // dx[s][j] = w[j] * (T - s) and dw[j] = sum_s x[s][j] * (T - s).
    std::vector<float> y(kT * 2), dx(kT * 2), dw(2, 0);
    for (int j = 0; j < 2; ++j) {
      float acc = 0;
      for (int s = 0; s < kT; ++s) {
        acc += w[j] * x[s * 2 + j];
        y[s * 2 + j] = acc;
        dx[s * 2 + j] = w[j] * (kT - s);
        dw[j] += x[s * 2 + j] * (kT - s);
      }
    }
    for (int i = 0; i < kT * 2; ++i) {
      EXPECT_NEAR(out[0].flat<float>()[i], y[i], 1e-5) << i;
      EXPECT_NEAR(out[1].flat<float>()[i], dx[i], 1e-5) << i;
    }
    for (int j = 0; j < 2; ++j) EXPECT_NEAR(out[2].flat<float>()[j], dw[j], 1e-4) << j;
  }
}

}  // namespace
}  // namespace flowvm
