// Histogram against TensorFlow's definition: the default limits, which
// bucket a value lands in, the statistics, and how empty buckets encode.
#include "core/histogram.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "flowvm/tensor.h"

namespace flowvm {
namespace {

TEST(HistogramTest, DefaultLimitsAreTensorFlows) {
  const std::vector<double>& limits = Histogram::DefaultBucketLimits();
  // 774 positive limits (1e-12 * 1.1^k below 1e20), mirrored, 0, ±DBL_MAX.
  ASSERT_EQ(limits.size(), 1551u);
  EXPECT_EQ(limits.front(), -DBL_MAX);
  EXPECT_EQ(limits.back(), DBL_MAX);
  EXPECT_EQ(limits[775], 0.0);
  EXPECT_EQ(limits[776], 1e-12);
  EXPECT_EQ(limits[774], -1e-12);
  EXPECT_DOUBLE_EQ(limits[777], 1.1e-12);
  EXPECT_LT(limits[1549], 1e20);
  EXPECT_GT(limits[1549] * 1.1, 1e20 * (1 - 1e-12));
  for (size_t i = 1; i < limits.size(); ++i) {
    ASSERT_LT(limits[i - 1], limits[i]) << i;
    EXPECT_EQ(limits[i], -limits[limits.size() - 1 - i]) << i;
  }
}

TEST(HistogramTest, ValueGoesToFirstLimitAboveIt) {
  Histogram h;
  h.Add(0.0);    // limit 0 is not above 0: the bucket ending at 1e-12
  h.Add(1e-12);  // exactly a limit: the next bucket
  h.Add(-0.5);
  const std::vector<double>& limits = Histogram::DefaultBucketLimits();
  EXPECT_EQ(h.buckets()[776], 1.0);
  EXPECT_EQ(h.buckets()[777], 1.0);
  size_t neg = std::upper_bound(limits.begin(), limits.end(), -0.5) - limits.begin();
  EXPECT_EQ(h.buckets()[neg], 1.0);
  EXPECT_LT(limits[neg - 1], -0.5);
  EXPECT_GE(limits[neg], -0.5);
  h.Add(DBL_MAX);  // no limit above it: the last bucket, not past the end
  EXPECT_EQ(h.buckets().back(), 1.0);
}

// Add finds the bucket arithmetically; it must agree with a binary search
// everywhere: at every limit, just beside each, between them, and at the
// extremes of both signs.
TEST(HistogramTest, BucketOfEveryLimitAndItsNeighboursMatchesBinarySearch) {
  const std::vector<double>& limits = Histogram::DefaultBucketLimits();
  std::vector<double> values = {0.0, -0.0, DBL_MIN, -DBL_MIN, 5e-324, -5e-324, DBL_MAX, -DBL_MAX, 1e300, -1e300};
  for (size_t i = 1; i + 1 < limits.size(); ++i) {
    const double l = limits[i];
    values.insert(values.end(), {l, std::nextafter(l, -DBL_MAX), std::nextafter(l, DBL_MAX),
                                 0.5 * (l + limits[i + 1])});
  }
  for (double v : values) {
    Histogram h;
    h.Add(v);
    size_t expected = std::upper_bound(limits.begin(), limits.end(), v) - limits.begin();
    if (expected >= limits.size()) expected = limits.size() - 1;
    ASSERT_EQ(h.buckets()[expected], 1.0) << "value " << v << " expected bucket " << expected;
  }
}

TEST(HistogramTest, Statistics) {
  Histogram h;
  for (double v : {1.0, 2.0, -3.0, 4.5}) h.Add(v);
  EXPECT_EQ(h.num(), 4);
  EXPECT_EQ(h.min(), -3.0);
  EXPECT_EQ(h.max(), 4.5);
  EXPECT_EQ(h.sum(), 4.5);
  EXPECT_EQ(h.sum_squares(), 1 + 4 + 9 + 20.25);
}

TEST(HistogramTest, EncodeCollapsesRunsOfEmptyBuckets) {
  Histogram h;
  h.Add(1.0);
  h.Add(1.0);
  h.Add(-2.0);
  HistogramProto p;
  h.EncodeToProto(&p);
  const std::vector<double>& limits = Histogram::DefaultBucketLimits();
  size_t b_neg = std::upper_bound(limits.begin(), limits.end(), -2.0) - limits.begin();
  size_t b_one = std::upper_bound(limits.begin(), limits.end(), 1.0) - limits.begin();
  // empty run [0, b_neg), b_neg, empty run (b_neg, b_one), b_one, empty run to the end.
  ASSERT_EQ(p.bucket_size(), 5);
  ASSERT_EQ(p.bucket_limit_size(), 5);
  EXPECT_EQ(p.bucket_limit(0), limits[b_neg - 1]);
  EXPECT_EQ(p.bucket(0), 0.0);
  EXPECT_EQ(p.bucket_limit(1), limits[b_neg]);
  EXPECT_EQ(p.bucket(1), 1.0);
  EXPECT_EQ(p.bucket_limit(2), limits[b_one - 1]);
  EXPECT_EQ(p.bucket(2), 0.0);
  EXPECT_EQ(p.bucket_limit(3), limits[b_one]);
  EXPECT_EQ(p.bucket(3), 2.0);
  EXPECT_EQ(p.bucket_limit(4), DBL_MAX);
  EXPECT_EQ(p.bucket(4), 0.0);
  EXPECT_EQ(p.min(), -2.0);
  EXPECT_EQ(p.max(), 1.0);
  EXPECT_EQ(p.num(), 3.0);
  EXPECT_EQ(p.sum(), 0.0);
  EXPECT_EQ(p.sum_squares(), 6.0);

  HistogramProto full;
  h.EncodeToProto(&full, /*preserve_zero_buckets=*/true);
  EXPECT_EQ(full.bucket_size(), 1551);
}

TEST(HistogramTest, EmptyHistogramEncodesAsTensorFlowDoes) {
  Histogram h;
  HistogramProto p;
  h.EncodeToProto(&p);
  EXPECT_EQ(p.min(), DBL_MAX);
  EXPECT_EQ(p.max(), -DBL_MAX);
  EXPECT_EQ(p.num(), 0.0);
  ASSERT_EQ(p.bucket_size(), 1);
  EXPECT_EQ(p.bucket_limit(0), DBL_MAX);
  EXPECT_EQ(p.bucket(0), 0.0);
}

TEST(HistogramTest, AddTensorOfEveryRealType) {
  Histogram h;
  ASSERT_TRUE(h.AddTensor(Tensor::FromVector<float>({1.5f, -2.0f}), "w").ok());
  ASSERT_TRUE(h.AddTensor(Tensor::FromVector<int32_t>({3, 4, 5}), "w").ok());
  ASSERT_TRUE(h.AddTensor(Tensor::FromVector<uint8_t>({200}), "w").ok());
  ASSERT_TRUE(h.AddTensor(Tensor::FromVector<double>({}), "w").ok());
  Tensor halves(DT_HALF, TensorShape({1}));
  halves.data<half>()[0] = half(0.25f);
  ASSERT_TRUE(h.AddTensor(halves, "w").ok());
  EXPECT_EQ(h.num(), 7);
  EXPECT_EQ(h.max(), 200.0);
  EXPECT_EQ(h.min(), -2.0);
  EXPECT_DOUBLE_EQ(h.sum(), 1.5 - 2 + 12 + 200 + 0.25);

  Status s = h.AddTensor(Tensor::FromVector<std::string>({"x"}), "w");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("string"), std::string::npos) << s;
}

TEST(HistogramTest, NonFiniteValuesAreRefusedNamingTheTag) {
  Histogram h;
  Status s = h.AddTensor(Tensor::FromVector<float>({1.0f, std::nanf("")}), "layer1/weights");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "Nan in summary histogram for: layer1/weights");
  s = h.AddTensor(Tensor::FromVector<double>({-std::numeric_limits<double>::infinity()}), "b");
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "Infinity in summary histogram for: b");
}

}  // namespace
}  // namespace flowvm
