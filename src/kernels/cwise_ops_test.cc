// Add, AddV2, Sub, Mul kernels and BCast.
#include <gtest/gtest.h>

#include <limits>

#include "kernels/bcast.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::ExpectTensorNear;
using testing::OpTest;
using testing::TestNode;

template <typename T>
Tensor V(std::vector<T> v, TensorShape shape) {
  return Tensor::FromVector<T>(v, shape);
}

StatusOr<Tensor> Binary(const std::string& op, const Tensor& x, const Tensor& y) {
  auto out = testing::RunOpKernel(TestNode("z", op).Input("x").Input("y").Attr("T", x.dtype()), {x, y});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectBinary(const std::string& op, const Tensor& x, const Tensor& y, const Tensor& expected) {
  auto z = Binary(op, x, y);
  ASSERT_TRUE(z.ok()) << op << ": " << z.status();
  ExpectTensorNear(*z, expected);
}

// Same values in every real type: small non-negative integers.
template <typename T>
void CheckRealType() {
  SCOPED_TRACE(DataTypeName(DataTypeToEnum<T>::value));
  auto t = [](std::vector<int> v, TensorShape s) {
    std::vector<T> out;
    for (int x : v) {
      if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) out.push_back(T(static_cast<float>(x)));
      else out.push_back(static_cast<T>(x));
    }
    return Tensor::FromVector<T>(out, s);
  };
  Tensor x = t({1, 2, 3, 4, 5, 6}, {2, 3});
  ExpectBinary("Add", x, t({10, 20, 30}, {3}), t({11, 22, 33, 14, 25, 36}, {2, 3}));
  ExpectBinary("AddV2", t({1, 2}, {2, 1}), t({10, 20, 30}, {1, 3}), t({11, 21, 31, 12, 22, 32}, {2, 3}));
  ExpectBinary("Sub", x, t({1}, {}), t({0, 1, 2, 3, 4, 5}, {2, 3}));
  ExpectBinary("Sub", t({9}, {}), x, t({8, 7, 6, 5, 4, 3}, {2, 3}));
  ExpectBinary("Mul", x, x, t({1, 4, 9, 16, 25, 36}, {2, 3}));
  ExpectBinary("Mul", t({2, 3}, {2, 1}), x, t({2, 4, 6, 12, 15, 18}, {2, 3}));
}

TEST(CwiseOpsTest, EveryRealType) {
  CheckRealType<float>();
  CheckRealType<double>();
  CheckRealType<half>();
  CheckRealType<bfloat16>();
  CheckRealType<uint8_t>();
  CheckRealType<int8_t>();
  CheckRealType<int16_t>();
  CheckRealType<int32_t>();
  CheckRealType<int64_t>();
}

TEST(CwiseOpsTest, UnsignedTypesOfAddV2SubMul) {
  ExpectBinary("AddV2", V<uint16_t>({1, 65535}, {2}), V<uint16_t>({2}, {}), V<uint16_t>({3, 1}, {2}));
  ExpectBinary("Sub", V<uint32_t>({5}, {}), V<uint32_t>({3, 6}, {2}), V<uint32_t>({2, 0xffffffffu}, {2}));
  ExpectBinary("Mul", V<uint64_t>({3, 4}, {2}), V<uint64_t>({5, 6}, {2}), V<uint64_t>({15, 24}, {2}));
  // uint16 * uint16 must not overflow int (it wraps modulo 2^16).
  ExpectBinary("Mul", V<uint16_t>({65535}, {1}), V<uint16_t>({65535}, {1}), V<uint16_t>({1}, {1}));
}

TEST(CwiseOpsTest, IntegerOverflowWraps) {
  const int32_t max = std::numeric_limits<int32_t>::max();
  ExpectBinary("Add", V<int32_t>({max}, {}), V<int32_t>({1}, {}), V<int32_t>({std::numeric_limits<int32_t>::min()}, {}));
  ExpectBinary("Mul", V<int8_t>({100}, {1}), V<int8_t>({3}, {1}), V<int8_t>({44}, {1}));
}

TEST(CwiseOpsTest, Complex) {
  ExpectBinary("Mul", V<complex64>({{1, 2}, {0, 1}}, {2}), V<complex64>({{0, 1}}, {}),
               V<complex64>({{-2, 1}, {-1, 0}}, {2}));
  ExpectBinary("Add", V<complex128>({{1, 2}}, {1}), V<complex128>({{3, -1}}, {1}), V<complex128>({{4, 1}}, {1}));
  ExpectBinary("Sub", V<complex128>({{1, 2}}, {}), V<complex128>({{3, -1}}, {}), V<complex128>({{-2, 3}}, {}));
}

TEST(CwiseOpsTest, StringAddConcatenates) {
  ExpectBinary("Add", V<std::string>({"a", "b"}, {2}), V<std::string>({"x"}, {}), V<std::string>({"ax", "bx"}, {2}));
  ExpectBinary("Add", V<std::string>({"p"}, {}), V<std::string>({"1", "2"}, {2}), V<std::string>({"p1", "p2"}, {2}));
  ExpectBinary("Add", V<std::string>({"a", "b"}, {2, 1}), V<std::string>({"1", "2"}, {1, 2}),
               V<std::string>({"a1", "a2", "b1", "b2"}, {2, 2}));
}

TEST(CwiseOpsTest, Broadcasting) {
  // [2,3] + [3], [2,1] + [1,3], scalars both sides, higher ranks.
  ExpectBinary("Add", V<float>({1, 2, 3, 4, 5, 6}, {2, 3}), V<float>({10, 20, 30}, {3}),
               V<float>({11, 22, 33, 14, 25, 36}, {2, 3}));
  ExpectBinary("Add", V<float>({1, 2}, {2, 1}), V<float>({10, 20, 30}, {1, 3}),
               V<float>({11, 21, 31, 12, 22, 32}, {2, 3}));
  ExpectBinary("Mul", V<float>({2}, {}), V<float>({1, 2, 3}, {3}), V<float>({2, 4, 6}, {3}));
  ExpectBinary("Sub", V<float>({1, 2, 3}, {3}), V<float>({1}, {}), V<float>({0, 1, 2}, {3}));
  ExpectBinary("Add", V<float>({5}, {}), V<float>({6}, {}), V<float>({11}, {}));
  // A [1,1] operand is not a plain scalar: it raises the rank.
  ExpectBinary("Add", V<float>({1}, {1, 1}), V<float>({1, 2}, {2}), V<float>({2, 3}, {1, 2}));
  ExpectBinary("Add", V<float>({1, 2}, {2}), V<float>({1}, {1, 1}), V<float>({2, 3}, {1, 2}));
  // [2,1,3] + [4,1]: broadcast on both sides in different dimensions.
  std::vector<float> x = {0, 1, 2, 10, 11, 12}, y = {100, 200, 300, 400}, want;
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 4; ++j)
      for (int k = 0; k < 3; ++k) want.push_back(x[i * 3 + k] + y[j]);
  ExpectBinary("Add", V<float>(x, {2, 1, 3}), V<float>(y, {4, 1}), V<float>(want, {2, 4, 3}));
  // Size-1 dims in the middle: [2,1,2] * [1,3,1].
  ExpectBinary("Mul", V<int32_t>({1, 2, 3, 4}, {2, 1, 2}), V<int32_t>({1, 10, 100}, {1, 3, 1}),
               V<int32_t>({1, 2, 10, 20, 100, 200, 3, 4, 30, 40, 300, 400}, {2, 3, 2}));
}

TEST(CwiseOpsTest, EmptyTensors) {
  ExpectBinary("Add", V<float>({}, {0}), V<float>({}, {0}), V<float>({}, {0}));
  ExpectBinary("Add", V<float>({}, {0, 3}), V<float>({1, 2, 3}, {3}), V<float>({}, {0, 3}));
  ExpectBinary("Mul", V<float>({}, {0}), V<float>({2}, {}), V<float>({}, {0}));
  ExpectBinary("Sub", V<float>({}, {2, 0}), V<float>({1, 2}, {2, 1}), V<float>({}, {2, 0}));
  ExpectBinary("Add", V<float>({1}, {1}), V<float>({}, {0}), V<float>({}, {0}));
}

TEST(CwiseOpsTest, IncompatibleShapes) {
  auto z = Binary("Add", V<float>({1, 2, 3, 4, 5, 6}, {2, 3}), V<float>({1, 2, 3, 4}, {4}));
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(z.status().message(), "Incompatible shapes: [2,3] vs. [4]");
  z = Binary("Mul", V<int32_t>({1, 2}, {2}), V<int32_t>({1, 2, 3}, {3}));
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
  z = Binary("Sub", V<float>({}, {0}), V<float>({1, 2}, {2}));
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
}

TEST(CwiseOpsTest, CheapAndTypeChecked) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("a", "Add").Input("x").Input("y").Attr("T", DT_FLOAT)));
  EXPECT_FALSE(t.kernel()->IsExpensive());
  EXPECT_FALSE(t.Init(TestNode("a", "Sub").Input("x").Input("y").Attr("T", DT_STRING)).ok());
  EXPECT_FALSE(t.Init(TestNode("a", "Add").Input("x").Input("y").Attr("T", DT_BOOL)).ok());
}

TEST(CwiseOpsTest, ReusesAnUnsharedInputBuffer) {
  for (bool scalar_y : {false, true}) {
    OpTest t;
    FLOWVM_ASSERT_OK(t.Init(TestNode("a", "AddV2").Input("x").Input("y").Attr("T", DT_FLOAT)));
    Tensor x = V<float>({1, 2, 3}, {3});
    const void* x_data = x.raw_data();
    t.AddInput(std::move(x));
    t.AddInput(scalar_y ? V<float>({10}, {}) : V<float>({10, 20, 30}, {3}));
    t.set_give_inputs(true);
    FLOWVM_ASSERT_OK(t.Run());
    EXPECT_EQ(t.output(0).raw_data(), x_data);
    ExpectTensorEqual(t.output(0), scalar_y ? V<float>({11, 12, 13}, {3}) : V<float>({11, 22, 33}, {3}));
  }
  // A buffer somebody else holds is never written.
  Tensor x = V<float>({1, 2}, {2});
  auto z = Binary("Mul", x, x);
  ASSERT_TRUE(z.ok());
  EXPECT_FALSE(z->SharesBufferWith(x));
  ExpectTensorEqual(x, V<float>({1, 2}, {2}));
  ExpectTensorEqual(*z, V<float>({1, 4}, {2}));
}

TEST(CwiseOpsTest, LargeVectorsMatchScalarLoop) {
  const int n = 100003;
  std::vector<double> a(n), b(n), s(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i * 0.5;
    b[i] = n - i;
    want[i] = a[i] * b[i];
  }
  ExpectBinary("Mul", V<double>(a, {n}), V<double>(b, {n}), V<double>(want, {n}));
}

TEST(BCastTest, ReducesDimensions) {
  BCast b(TensorShape({2, 3, 4}), TensorShape({4}));
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(b.output_shape(), TensorShape({2, 3, 4}));
  EXPECT_EQ(b.dims(), (std::vector<int64_t>{6, 4}));
  EXPECT_EQ(b.x_strides(), (std::vector<int64_t>{4, 1}));
  EXPECT_EQ(b.y_strides(), (std::vector<int64_t>{0, 1}));

  BCast c(TensorShape({2, 1}), TensorShape({1, 3}));
  EXPECT_EQ(c.output_shape(), TensorShape({2, 3}));
  EXPECT_EQ(c.dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(c.x_strides(), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(c.y_strides(), (std::vector<int64_t>{0, 1}));

  BCast d(TensorShape({1, 1}), TensorShape({}));
  EXPECT_EQ(d.output_shape(), TensorShape({1, 1}));
  EXPECT_EQ(d.rank(), 0);

  EXPECT_FALSE(BCast(TensorShape({2, 3}), TensorShape({2})).valid());
  BCast e(TensorShape({0, 3}), TensorShape({1, 1}));
  EXPECT_EQ(e.output_shape(), TensorShape({0, 3}));
}

}  // namespace
}  // namespace flowvm
