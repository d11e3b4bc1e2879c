// The TensorArray resource itself: its rules without a graph, and writes
// and reads from many threads at once (as the iterations of a while loop
// with parallel_iterations > 1 make them).
#include "kernels/data_flow/tensor_array.h"

#include <thread>
#include <vector>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

TensorArray::Options Opts(int32_t size, bool is_grad = false) {
  TensorArray::Options o;
  o.dtype = DT_DOUBLE;
  o.size = size;
  o.is_grad = is_grad;
  return o;
}

Tensor Row(double v, int n = 3) { return Tensor::FromVector<double>(std::vector<double>(n, v)); }

TEST(TensorArrayTest, ConcurrentWritesToDistinctIndicesAllLand) {
  constexpr int kThreads = 8, kPer = 200;
  TensorArray ta("concurrent", Opts(kThreads * kPer));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&ta, t] {
      for (int i = 0; i < kPer; ++i) {
        const int index = i * kThreads + t;
        ASSERT_TRUE(ta.Write(index, Row(index), nullptr).ok());
      }
    });
  for (auto& th : threads) th.join();
  std::vector<int32_t> all(kThreads * kPer);
  for (int i = 0; i < kThreads * kPer; ++i) all[i] = i;
  std::vector<Tensor> values;
  ASSERT_TRUE(ta.ReadMany(all, nullptr, &values).ok());
  for (int i = 0; i < kThreads * kPer; ++i) EXPECT_EQ(values[i].flat<double>()[2], i);
}

TEST(TensorArrayTest, ConcurrentAggregatedWritesSumExactly) {
  // A gradient array: every thread adds 1..kPer into each of 4 indices.
  constexpr int kThreads = 8, kPer = 100;
  TensorArray forward("forward", Opts(4));
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(forward.Write(i, Row(0), nullptr).ok());
  TensorArray grad("forward@gradients", Opts(4, /*is_grad=*/true));
  ASSERT_TRUE(grad.CopyShapesFrom(&forward, nullptr).ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&grad] {
      for (int i = 1; i <= kPer; ++i)
        for (int k = 0; k < 4; ++k) ASSERT_TRUE(grad.Write(k, Row(i), nullptr).ok());
    });
  for (auto& th : threads) th.join();
  for (int k = 0; k < 4; ++k) {
    Tensor v;
    ASSERT_TRUE(grad.Read(k, nullptr, &v).ok());
    EXPECT_EQ(v.flat<double>()[0], kThreads * kPer * (kPer + 1) / 2.0);
  }
  EXPECT_FALSE(grad.GradientsAllowed());
  EXPECT_TRUE(forward.GradientsAllowed());
}

TEST(TensorArrayTest, AnAggregatedSumDoesNotWriteIntoTheWrittenTensors) {
  TensorArray forward("f", Opts(1));
  ASSERT_TRUE(forward.Write(0, Row(0), nullptr).ok());
  TensorArray grad("f@g", Opts(1, true));
  ASSERT_TRUE(grad.CopyShapesFrom(&forward, nullptr).ok());
  Tensor a = Row(1), b = Row(2);
  ASSERT_TRUE(grad.Write(0, a, nullptr).ok());
  ASSERT_TRUE(grad.Write(0, b, nullptr).ok());
  ASSERT_TRUE(grad.Write(0, b, nullptr).ok());
  EXPECT_EQ(a.flat<double>()[0], 1);
  EXPECT_EQ(b.flat<double>()[0], 2);
  Tensor v;
  ASSERT_TRUE(grad.Read(0, nullptr, &v).ok());
  EXPECT_EQ(v.flat<double>()[0], 5);
}

TEST(TensorArrayTest, CopyShapesFromNeedsTheSameSize) {
  TensorArray forward("f", Opts(2));
  TensorArray grad("f@g", Opts(3, true));
  Status s = grad.CopyShapesFrom(&forward, nullptr);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("sizes do not match"), std::string::npos) << s;
}

TEST(TensorArrayTest, AGradientArrayReadsZerosPastItsEnd) {
  TensorArray::Options o = Opts(1, true);
  o.element_shape = PartialTensorShape({2});
  TensorArray grad("g", o);
  Tensor v;
  ASSERT_TRUE(grad.Read(3, nullptr, &v).ok());
  EXPECT_EQ(v.shape(), TensorShape({2}));
  EXPECT_EQ(v.flat<double>()[1], 0);
  EXPECT_EQ(*grad.Size(), 4);
}

TEST(TensorArrayTest, StringsHaveNoZeros) {
  TensorArray::Options o;
  o.dtype = DT_STRING;
  o.size = 1;
  o.element_shape = PartialTensorShape({2});
  TensorArray ta("words", o);
  Tensor v;
  Status s = ta.Read(0, nullptr, &v);
  EXPECT_EQ(s.code(), Code::kUnimplemented);
  EXPECT_NE(s.message().find("TensorArray words"), std::string::npos) << s;
}

}  // namespace
}  // namespace flowvm
