// Unique and UniqueWithCounts kernels: first-occurrence order, idx and
// count for every registered type and both out_idx types, floating-point
// equality (-0.0 == 0.0, NaN unique), strings with NULs, empty input,
// large inputs checked against a reference map, and rank errors.
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::TestNode;

NodeDef UniqueNode(const char* op, DataType t, DataType out_idx = DT_INT32) {
  return TestNode("u", op).Input("x").Attr("T", t).Attr("out_idx", out_idx);
}

template <typename T>
Tensor V(const std::vector<T>& v) {
  return Tensor::FromVector<T>(v);
}

// The outputs (y, idx[, count]) of `op` on x.
std::vector<Tensor> RunUnique(const char* op, const Tensor& x, DataType out_idx = DT_INT32) {
  auto out = testing::RunOpKernel(UniqueNode(op, x.dtype(), out_idx), {x});
  EXPECT_TRUE(out.ok()) << op << ": " << out.status();
  return out.ok() ? *out : std::vector<Tensor>();
}

TEST(UniqueOpTest, TensorFlowExample) {
  const Tensor x = V<int32_t>({1, 1, 2, 4, 4, 4, 7, 8, 8});
  auto out = RunUnique("UniqueWithCounts", x);
  ASSERT_EQ(out.size(), 3u);
  ExpectTensorEqual(out[0], V<int32_t>({1, 2, 4, 7, 8}));
  ExpectTensorEqual(out[1], V<int32_t>({0, 0, 1, 2, 2, 2, 3, 4, 4}));
  ExpectTensorEqual(out[2], V<int32_t>({2, 1, 3, 1, 2}));
  out = RunUnique("Unique", x);
  ASSERT_EQ(out.size(), 2u);
  ExpectTensorEqual(out[0], V<int32_t>({1, 2, 4, 7, 8}));
  ExpectTensorEqual(out[1], V<int32_t>({0, 0, 1, 2, 2, 2, 3, 4, 4}));
}

TEST(UniqueOpTest, FirstOccurrenceOrderAndInt64Indices) {
  const Tensor x = V<int64_t>({9, -3, 9, 0, -3, 9, std::numeric_limits<int64_t>::min(), 0});
  for (DataType out_idx : {DT_INT32, DT_INT64}) {
    auto out = RunUnique("UniqueWithCounts", x, out_idx);
    ASSERT_EQ(out.size(), 3u);
    ExpectTensorEqual(out[0], V<int64_t>({9, -3, 0, std::numeric_limits<int64_t>::min()}));
    if (out_idx == DT_INT32) {
      ExpectTensorEqual(out[1], V<int32_t>({0, 1, 0, 2, 1, 0, 3, 2}));
      ExpectTensorEqual(out[2], V<int32_t>({3, 2, 2, 1}));
    } else {
      ExpectTensorEqual(out[1], V<int64_t>({0, 1, 0, 2, 1, 0, 3, 2}));
      ExpectTensorEqual(out[2], V<int64_t>({3, 2, 2, 1}));
    }
  }
}

TEST(UniqueOpTest, Strings) {
  const std::string nul("a\0b", 3);
  const Tensor x = V<std::string>({"the", "cat", "the", "", nul, "a", "", "cat", "the", std::string("a\0c", 3)});
  auto out = RunUnique("UniqueWithCounts", x, DT_INT64);
  ASSERT_EQ(out.size(), 3u);
  ExpectTensorEqual(out[0], V<std::string>({"the", "cat", "", nul, "a", std::string("a\0c", 3)}));
  ExpectTensorEqual(out[1], V<int64_t>({0, 1, 0, 2, 3, 4, 2, 1, 0, 5}));
  ExpectTensorEqual(out[2], V<int64_t>({3, 2, 2, 1, 1, 1}));
}

TEST(UniqueOpTest, EmptyInput) {
  for (DataType t : {DT_STRING, DT_FLOAT, DT_INT32}) {
    auto out = RunUnique("UniqueWithCounts", Tensor(t, TensorShape({0})), DT_INT64);
    ASSERT_EQ(out.size(), 3u);
    ExpectTensorEqual(out[0], Tensor(t, TensorShape({0})));
    ExpectTensorEqual(out[1], Tensor(DT_INT64, TensorShape({0})));
    ExpectTensorEqual(out[2], Tensor(DT_INT64, TensorShape({0})));
  }
}

// Values 3, 1, 3, 2, 1 in any registered type.
template <typename T>
void CheckType() {
  auto make = [](int v) {
    if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return T(static_cast<float>(v));
    else if constexpr (std::is_same_v<T, bool>) return v != 2;
    else return static_cast<T>(v);
  };
  const Tensor x = V<T>({make(3), make(1), make(3), make(2), make(1)});
  auto out = RunUnique("UniqueWithCounts", x);
  ASSERT_EQ(out.size(), 3u) << DataTypeName(x.dtype());
  if constexpr (std::is_same_v<T, bool>) {
    ExpectTensorEqual(out[0], V<bool>({true, false}));
    ExpectTensorEqual(out[1], V<int32_t>({0, 0, 0, 1, 0}));
    ExpectTensorEqual(out[2], V<int32_t>({4, 1}));
  } else {
    ExpectTensorEqual(out[0], V<T>({make(3), make(1), make(2)}));
    ExpectTensorEqual(out[1], V<int32_t>({0, 1, 0, 2, 1}));
    ExpectTensorEqual(out[2], V<int32_t>({2, 2, 1}));
  }
}

TEST(UniqueOpTest, EveryRegisteredType) {
  CheckType<int8_t>();
  CheckType<uint8_t>();
  CheckType<int16_t>();
  CheckType<uint16_t>();
  CheckType<int32_t>();
  CheckType<uint32_t>();
  CheckType<int64_t>();
  CheckType<uint64_t>();
  CheckType<bool>();
  CheckType<half>();
  CheckType<bfloat16>();
  CheckType<float>();
  CheckType<double>();
  // Types of one width share a kernel, but not their values' meaning: int8
  // -1 and uint8 255 are the same bits, each within its own type.
  auto out = RunUnique("Unique", V<int8_t>({-1, 127, -1, -128}));
  ExpectTensorEqual(out[0], V<int8_t>({-1, 127, -128}));
}

TEST(UniqueOpTest, FloatingEqualityIsValueEquality) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // -0.0 == 0.0: one entry, holding whichever came first. NaN != NaN: each
  // NaN is its own entry.
  auto out = RunUnique("UniqueWithCounts", V<float>({-0.0f, 1.0f, 0.0f, nan, 1.0f, nan, -0.0f}));
  ASSERT_EQ(out.size(), 3u);
  ASSERT_EQ(out[0].NumElements(), 4);
  const float* y = out[0].data<float>();
  EXPECT_EQ(y[0], 0.0f);
  EXPECT_TRUE(std::signbit(y[0]));
  EXPECT_EQ(y[1], 1.0f);
  EXPECT_TRUE(std::isnan(y[2]));
  EXPECT_TRUE(std::isnan(y[3]));
  ExpectTensorEqual(out[1], V<int32_t>({0, 1, 0, 2, 1, 3, 0}));
  ExpectTensorEqual(out[2], V<int32_t>({3, 2, 1, 1}));

  out = RunUnique("Unique", V<double>({0.0, -0.0, 0.1, 0.1, 0.2}));
  ASSERT_EQ(out.size(), 2u);
  ExpectTensorEqual(out[0], V<double>({0.0, 0.1, 0.2}));  // +0.0: it came first
  ExpectTensorEqual(out[1], V<int32_t>({0, 0, 1, 1, 2}));

  // Many NaNs stay linear: they never enter the hash table.
  std::vector<float> nans(100000, nan);
  out = RunUnique("Unique", V<float>(nans));
  EXPECT_EQ(out[0].NumElements(), 100000);
  EXPECT_EQ(out[1].data<int32_t>()[99999], 99999);
}

// Checks y, idx and count against a reference built with std::unordered_map.
template <typename T>
void CheckAgainstReference(const std::vector<T>& x) {
  std::unordered_map<T, int64_t> ids;
  std::vector<T> y;
  std::vector<int64_t> idx, count;
  for (const T& v : x) {
    auto [it, added] = ids.emplace(v, static_cast<int64_t>(y.size()));
    if (added) {
      y.push_back(v);
      count.push_back(0);
    }
    idx.push_back(it->second);
    ++count[it->second];
  }
  auto out = RunUnique("UniqueWithCounts", V<T>(x), DT_INT64);
  ASSERT_EQ(out.size(), 3u);
  ExpectTensorEqual(out[0], V<T>(y));
  ExpectTensorEqual(out[1], V<int64_t>(idx));
  ExpectTensorEqual(out[2], V<int64_t>(count));
}

TEST(UniqueOpTest, LargeInputsMatchAReferenceMap) {
  uint64_t r = 88172645463325252ULL;
  auto next = [&r] {
    r ^= r << 13;
    r ^= r >> 7;
    r ^= r << 17;
    return r;
  };
  // A million words from a Zipf-like vocabulary of 50k.
  std::vector<std::string> words;
  for (int i = 0; i < 1000000; ++i) {
    const uint64_t a = next() % 50000, b = next() % 50000;
    words.push_back("word" + std::to_string(a * b / 50000));
  }
  CheckAgainstReference(words);
  // 300k distinct int64 keys that differ only in their high bits (the table
  // must spread them), each repeated.
  std::vector<int64_t> keys;
  for (int64_t i = 0; i < 300000; ++i) keys.push_back(i << 40);
  for (int64_t i = 0; i < 300000; i += 3) keys.push_back(i << 40);
  CheckAgainstReference(keys);
}

TEST(UniqueOpTest, XMustBeAVector) {
  for (const char* op : {"Unique", "UniqueWithCounts"}) {
    for (const Tensor& x : {Tensor::Scalar<int32_t>(1), Tensor::FromVector<int32_t>({1, 2}, TensorShape({1, 2}))}) {
      auto out = testing::RunOpKernel(UniqueNode(op, DT_INT32), {x});
      ASSERT_FALSE(out.ok()) << op;
      EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status();
      EXPECT_NE(out.status().message().find("x must be a vector"), std::string::npos) << out.status();
      EXPECT_NE(out.status().message().find(x.shape().DebugString()), std::string::npos) << out.status();
    }
  }
}

}  // namespace
}  // namespace flowvm
