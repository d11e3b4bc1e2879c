// TensorArrays inside while loops (written as tf.while_loop writes them):
// reads and writes from iterations that run at the same time
// (parallel_iterations = 10), arrays that grow in a loop, arrays made in a
// loop's body, and arrays on another device than the ops that use them.
// Results are compared with plain loops computed here.
#include <cmath>

#include <gtest/gtest.h>

#include "util/tensor_array_test_util.h"
#include "util/while_loop_builder.h"

namespace flowvm {
namespace {

using namespace tensor_array_testing;  // NOLINT
using testing::BuildWhileLoop;

constexpr int kTrips = 60;

std::vector<float> Inputs(int n, int width) {
  std::vector<float> v(n * width);
  for (int i = 0; i < n * width; ++i) v[i] = std::sin(0.37f * i) * 3;
  return v;
}

// out[i] = in[i] * 2 + i, for each row of a [kTrips, 3] input: the
// shape of tf.map_fn. With `chain_writes`, each write takes the previous
// one's flow (a loop variable, as tf.TensorArray in a while loop does);
// without, every iteration writes on the same flow and the writes of
// iterations in flight run at the same time, a loop variable summing their
// flows so that the stack after the loop waits for all of them.
void MapLoop(const GraphScope& s, bool chain_writes, int parallel, const std::string& device = "") {
  const GraphScope d = s.WithDevice(device);
  NodeOut x = F32(s, Inputs(kTrips, 3), TensorShape({kTrips, 3}));
  Ta in = NewTa(d, "in", kTrips, DT_FLOAT);
  NodeOut range = ConstOp(s, [] {
    std::vector<int32_t> r(kTrips);
    for (int i = 0; i < kTrips; ++i) r[i] = i;
    return Tensor::FromVector<int32_t>(r);
  }());
  NodeOut in_flow = Scatter(s, "unstack", in.handle, range, x, in.flow);
  Ta out = NewTa(d, "out", kTrips, DT_FLOAT);
  auto loop = BuildWhileLoop(
      s, "map", I32(s, kTrips), {out.flow}, {in.handle, in_flow, out.handle}, parallel,
      [chain_writes](const GraphScope& b, NodeOut i, const std::vector<NodeOut>& vars, const std::vector<NodeOut>& inv) {
        NodeOut row = b.Op("TensorArrayReadV3", {inv[0], i, inv[1]}, {{"dtype", MakeAttrValue(DT_FLOAT)}});
        NodeOut fi = b.Op("Cast", {i}, {{"DstT", MakeAttrValue(DT_FLOAT)}});
        NodeOut value = b.Op("Add", {b.Op("Mul", {row, F32Scalar(b, 2)}), fi});
        if (chain_writes) return std::vector<NodeOut>{b.Op("TensorArrayWriteV3", {inv[2], i, value, vars[0]})};
        // Written on the array's first flow (out.flow as an invariant is
        // the loop variable's initial value here: 0, as every flow).
        NodeOut w = b.Op("TensorArrayWriteV3", {inv[2], i, value, b.Op("ZerosLike", {vars[0]})});
        return std::vector<NodeOut>{b.Op("Add", {vars[0], w})};
      });
  Gather(s, "stack", out.handle, range, loop.exits[0]);
}

std::vector<float> ExpectedMap() {
  std::vector<float> x = Inputs(kTrips, 3), y(x.size());
  for (int i = 0; i < kTrips; ++i)
    for (int j = 0; j < 3; ++j) y[i * 3 + j] = x[i * 3 + j] * 2 + static_cast<float>(i);
  return y;
}

TEST(TensorArrayLoopTest, ParallelIterationsReadAndWriteOneArray) {
  for (bool chain : {true, false}) {
    for (int parallel : {1, 10}) {
      TaSession t;
      MapLoop(t.root(), chain, parallel);
      for (int run = 0; run < 5; ++run) {
        std::vector<Tensor> out;
        FLOWVM_ASSERT_OK(t.Run({"stack"}, &out));
        EXPECT_EQ(out[0].shape(), TensorShape({kTrips, 3}));
        EXPECT_EQ(Floats(out[0]), ExpectedMap()) << "chain " << chain << " parallel " << parallel;
      }
    }
  }
}

TEST(TensorArrayLoopTest, ArraysOnAnotherDevice) {
  // The arrays are made on CPU:1; the ops that use them run there too (the
  // placer puts a resource's consumers on its device), the loop's
  // arithmetic wherever it is placed.
  TaSession t;
  t.options().cpu_devices = 2;
  MapLoop(t.root(), /*chain_writes=*/true, 10, "/device:CPU:1");
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"stack"}, &out));
  EXPECT_EQ(Floats(out[0]), ExpectedMap());
}

TEST(TensorArrayLoopTest, ADynamicArrayGrowsInALoop) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "grows", 0, DT_FLOAT, {{"dynamic_size", MakeAttrValue(true)}});
  auto loop = BuildWhileLoop(s, "grow", I32(s, 25), {ta.flow}, {ta.handle}, 10,
                             [](const GraphScope& b, NodeOut i, const std::vector<NodeOut>& vars,
                                const std::vector<NodeOut>& inv) {
                               NodeOut sq = b.Op("Cast", {b.Op("Mul", {i, i})}, {{"DstT", MakeAttrValue(DT_FLOAT)}});
                               return std::vector<NodeOut>{b.Op("TensorArrayWriteV3", {inv[0], i, sq, vars[0]})};
                             });
  Size(s, "size", ta.handle, loop.exits[0]);
  Gather(s, "some", ta.handle, ConstOp(s, Tensor::FromVector<int32_t>({0, 3, 24})), loop.exits[0]);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"size", "some"}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>(), 25);
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{0, 9, 576}));
}

TEST(TensorArrayLoopTest, EachIterationMakesItsOwnArray) {
  // sum over i of (read back what iteration i wrote into its own array).
  TaSession t;
  const GraphScope& s = t.root();
  auto loop = BuildWhileLoop(s, "own", I32(s, 30), {F32Scalar(s, 0)}, {}, 10,
                             [](const GraphScope& b, NodeOut i, const std::vector<NodeOut>& vars,
                                const std::vector<NodeOut>&) {
                               Node* ta = b.AddNode("TensorArrayV3", {I32(b, 1)}, {{"dtype", MakeAttrValue(DT_FLOAT)}});
                               NodeOut fi = b.Op("Cast", {i}, {{"DstT", MakeAttrValue(DT_FLOAT)}});
                               NodeOut w = b.Op("TensorArrayWriteV3", {NodeOut(ta, 0), I32(b, 0), fi, NodeOut(ta, 1)});
                               NodeOut r = b.Op("TensorArrayReadV3", {NodeOut(ta, 0), I32(b, 0), w},
                                                {{"dtype", MakeAttrValue(DT_FLOAT)}});
                               return std::vector<NodeOut>{b.Op("Add", {vars[0], r})};
                             });
  s.WithOpName("sum").Op("Identity", {loop.exits[0]});
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"sum"}, &out));
  EXPECT_EQ(out[0].scalar<float>(), 29 * 30 / 2);
}

TEST(TensorArrayLoopTest, AnErrorInAnIterationNamesTheNode) {
  // A loop of 4 iterations over an array of 3: the read of index 3 fails.
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "short", 3, DT_FLOAT, {{"element_shape", MakeAttrValue(PartialTensorShape(TensorShape()))}});
  auto loop = BuildWhileLoop(s, "over", I32(s, 4), {F32Scalar(s, 0)}, {ta.handle, ta.flow}, 10,
                             [](const GraphScope& b, NodeOut i, const std::vector<NodeOut>& vars,
                                const std::vector<NodeOut>& inv) {
                               NodeOut r = b.WithOpName("read").Op("TensorArrayReadV3", {inv[0], i, inv[1]},
                                                                   {{"dtype", MakeAttrValue(DT_FLOAT)}});
                               return std::vector<NodeOut>{b.Op("Add", {vars[0], r})};
                             });
  s.WithOpName("sum").Op("Identity", {loop.exits[0]});
  t.ExpectError({"sum"}, Code::kInvalidArgument,
                {"TensorArray short_", "Tried to read from index 3 but array size is: 3", "read'"});
}

}  // namespace
}  // namespace flowvm
