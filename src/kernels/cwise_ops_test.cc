// Element-wise kernels (binary, unary, comparisons, Select, Cast, AddN) and
// BCast. Reference values: tests/data/kernels/cwise/gen_fixtures.py.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

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

// A node of `op` on inputs x, y...; the logical ops have no "T".
TestNode Node(const std::string& op, const std::vector<std::string>& inputs, DataType t) {
  TestNode n("z", op);
  for (const auto& i : inputs) n.Input(i);
  if (op.rfind("Logical", 0) != 0) n.Attr("T", t);
  return n;
}

StatusOr<Tensor> Binary(const std::string& op, const Tensor& x, const Tensor& y) {
  auto out = testing::RunOpKernel(Node(op, {"x", "y"}, x.dtype()), {x, y});
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
  FLOWVM_ASSERT_OK(t.Init(TestNode("a", "Exp").Input("x").Attr("T", DT_FLOAT)));
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


// ---------------------------------------------------------------------------
// Fixture-based checks (values from gen_fixtures.py).

Tensor Fixture(const std::string& name) { return testing::LoadFixture("kernels/cwise/" + name + ".npy"); }

StatusOr<Tensor> Unary(const std::string& op, const Tensor& x, int threads = 1) {
  OpTest t;
  FLOWVM_RETURN_IF_ERROR(t.Init(Node(op, {"x"}, x.dtype())));
  t.AddInput(x);
  t.set_num_threads(threads);
  FLOWVM_RETURN_IF_ERROR(t.Run());
  return t.output(0);
}

TEST(CwiseUnaryTest, MatchesNumPy) {
  for (const char* suffix : {"float", "double"}) {
    Tensor x = Fixture(std::string("unary_x_") + suffix);
    for (auto [op, file] : std::vector<std::pair<std::string, std::string>>{
             {"Exp", "exp"}, {"Log", "log"}, {"Log1p", "log1p"}, {"Sqrt", "sqrt"}, {"Rsqrt", "rsqrt"},
             {"Tanh", "tanh"}, {"Sigmoid", "sigmoid"}, {"Floor", "floor"}, {"Ceil", "ceil"}, {"Round", "round"},
             {"Neg", "neg"}, {"Abs", "abs"}, {"Sign", "sign"}, {"Square", "square"}, {"Reciprocal", "reciprocal"},
             {"Inv", "reciprocal"}}) {
      SCOPED_TRACE(op + " " + suffix);
      auto y = Unary(op, x);
      ASSERT_TRUE(y.ok()) << y.status();
      ExpectTensorNear(*y, Fixture(file + "_" + suffix), 2e-6);
    }
  }
}

TEST(CwiseUnaryTest, ShardedLargeInputMatchesScalar) {
  const int n = 300007;
  std::vector<float> x(n), want(n);
  for (int i = 0; i < n; ++i) {
    x[i] = (i % 2001) * 0.01f - 10.0f;
    want[i] = std::tanh(x[i]);
  }
  auto y = Unary("Tanh", V<float>(x, {n}), 4);
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectTensorNear(*y, V<float>(want, {n}), 1e-6);
  for (int i = 0; i < n; ++i) want[i] = std::exp(x[i]);
  y = Unary("Exp", V<float>(x, {n}), 4);
  ASSERT_TRUE(y.ok());
  ExpectTensorNear(*y, V<float>(want, {n}), 1e-6);
}

TEST(CwiseUnaryTest, IntegersHalfAndPredicates) {
  const int32_t min = std::numeric_limits<int32_t>::min();
  auto check = [](const std::string& op, const Tensor& x, const Tensor& want) {
    auto y = Unary(op, x);
    ASSERT_TRUE(y.ok()) << op << ": " << y.status();
    ExpectTensorNear(*y, want);
  };
  check("Neg", V<int32_t>({1, -2, min}, {3}), V<int32_t>({-1, 2, min}, {3}));
  check("Abs", V<int64_t>({-5, 0, 3}, {3}), V<int64_t>({5, 0, 3}, {3}));
  check("Abs", V<int32_t>({min}, {1}), V<int32_t>({min}, {1}));
  check("Sign", V<int8_t>({-7, 0, 9}, {3}), V<int8_t>({-1, 0, 1}, {3}));
  check("Square", V<uint8_t>({16, 3}, {2}), V<uint8_t>({0, 9}, {2}));
  check("Round", V<int32_t>({-3, 4}, {2}), V<int32_t>({-3, 4}, {2}));
  check("Reciprocal", V<int32_t>({1, -1, 2}, {3}), V<int32_t>({1, -1, 0}, {3}));
  check("Exp", V<half>({half(0.0f), half(1.0f)}, {2}), V<half>({half(1.0f), half(2.71828f)}, {2}));
  check("Round", V<bfloat16>({bfloat16(2.5f), bfloat16(-0.5f)}, {2}), V<bfloat16>({bfloat16(2.0f), bfloat16(-0.0f)}, {2}));
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  check("IsNan", V<float>({1, nan, inf}, {3}), V<bool>({false, true, false}, {3}));
  check("IsFinite", V<double>({1, nan, -inf}, {3}), V<bool>({true, false, false}, {3}));
  check("IsNan", V<half>({half(nan), half(0.0f)}, {2}), V<bool>({true, false}, {2}));
  check("LogicalNot", V<bool>({true, false}, {2}), V<bool>({false, true}, {2}));
  check("Sqrt", V<complex64>({{-4, 0}}, {1}), V<complex64>({{0, 2}}, {1}));
  check("Sign", V<complex128>({{3, 4}, {0, 0}}, {2}), V<complex128>({{0.6, 0.8}, {0, 0}}, {2}));
  check("Exp", V<float>({}, {0, 2}), V<float>({}, {0, 2}));
  auto z = Unary("Reciprocal", V<int32_t>({1, 0}, {2}));
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
}

TEST(CwiseBinaryTest, IntegerDivisionSigns) {
  Tensor x = Fixture("int_x"), y = Fixture("int_y");
  ExpectBinary("Div", x, y, Fixture("int_div"));
  ExpectBinary("FloorDiv", x, y, Fixture("int_floordiv"));
  ExpectBinary("FloorMod", x, y, Fixture("int_floormod"));
  ExpectBinary("FloorDiv", V<uint32_t>({7, 9}, {2}), V<uint32_t>({2}, {}), V<uint32_t>({3, 4}, {2}));
  ExpectBinary("FloorMod", V<int8_t>({-128, 5}, {2}), V<int8_t>({-1, -3}, {2}), V<int8_t>({0, -1}, {2}));
  ExpectBinary("Div", V<int64_t>({-9}, {}), V<int64_t>({2, -2, 4}, {3}), V<int64_t>({-4, 4, -2}, {3}));
}

TEST(CwiseBinaryTest, IntegerDivisionByZero) {
  for (const char* op : {"Div", "FloorDiv", "FloorMod", "RealDiv"}) {
    auto z = Binary(op, V<int32_t>({1, 2}, {2}), V<int32_t>({1, 0}, {2}));
    ASSERT_FALSE(z.ok()) << op;
    EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(z.status().message(), "Integer division by zero");
  }
  EXPECT_EQ(Binary("Div", V<uint8_t>({1}, {}), V<uint8_t>({0}, {})).status().code(), Code::kInvalidArgument);
  // Floating point division by zero is fine.
  ExpectBinary("Div", V<float>({1, -1}, {2}), V<float>({0}, {}),
               V<float>({std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity()}, {2}));
}

TEST(CwiseBinaryTest, FloatingDivision) {
  Tensor x = Fixture("float_x"), y = Fixture("float_y");
  ExpectBinary("Div", x, y, Fixture("float_div"));
  ExpectBinary("RealDiv", x, y, Fixture("float_div"));
  ExpectBinary("FloorDiv", x, y, Fixture("float_floordiv"));
  ExpectBinary("FloorMod", x, y, Fixture("float_floormod"));
  ExpectBinary("FloorMod", V<half>({half(-7.0f)}, {1}), V<half>({half(3.0f)}, {1}), V<half>({half(2.0f)}, {1}));
}

TEST(CwiseBinaryTest, Pow) {
  ExpectBinary("Pow", Fixture("pow_x_float"), Fixture("pow_y_float"), Fixture("pow_float"));
  ExpectBinary("Pow", Fixture("pow_x_int"), Fixture("pow_y_int"), Fixture("pow_int"));
  auto z = Binary("Pow", V<int32_t>({2, 3}, {2}), V<int32_t>({-1}, {}));
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(z.status().message(), "Integers to negative integer powers are not allowed");
  ExpectBinary("Pow", V<complex64>({{0, 1}}, {1}), V<complex64>({{2, 0}}, {1}), V<complex64>({{-1, 0}}, {1}));
}

TEST(CwiseBinaryTest, MaximumMinimumPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectBinary("Maximum", V<float>({1, nan, 3, nan}, {4}), V<float>({2, 1, nan, nan}, {4}), V<float>({2, nan, nan, nan}, {4}));
  ExpectBinary("Minimum", V<float>({1, nan, 3, nan}, {4}), V<float>({2, 1, nan, nan}, {4}), V<float>({1, nan, nan, nan}, {4}));
  ExpectBinary("Maximum", V<uint64_t>({1, 9}, {2}), V<uint64_t>({5}, {}), V<uint64_t>({5, 9}, {2}));
  ExpectBinary("Minimum", V<int16_t>({-3}, {}), V<int16_t>({1, -9}, {2}), V<int16_t>({-3, -9}, {2}));
  ExpectBinary("Maximum", Fixture("bcast_x"), Fixture("bcast_y"), Fixture("bcast_max"));
}

TEST(CwiseBinaryTest, BroadcastAcrossRanksSharded) {
  ExpectBinary("Mul", Fixture("bcast_x"), Fixture("bcast_y"), Fixture("bcast_mul"));
  ExpectBinary("Greater", Fixture("bcast_x"), Fixture("bcast_y"), Fixture("bcast_greater"));
  // A large broadcast split over several threads: [300,1,7] + [1,500,7].
  const int a = 300, b = 500, c = 7;
  std::vector<double> x(a * c), y(b * c), want(a * b * c);
  for (int i = 0; i < a * c; ++i) x[i] = i * 0.5;
  for (int i = 0; i < b * c; ++i) y[i] = -i * 0.25;
  for (int i = 0; i < a; ++i)
    for (int j = 0; j < b; ++j)
      for (int k = 0; k < c; ++k) want[(i * b + j) * c + k] = x[i * c + k] - y[j * c + k];
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("z", "Sub").Input("x").Input("y").Attr("T", DT_DOUBLE)));
  t.AddInput(V<double>(x, {a, 1, c}));
  t.AddInput(V<double>(y, {1, b, c}));
  t.set_num_threads(4);
  FLOWVM_ASSERT_OK(t.Run());
  ExpectTensorEqual(t.output(0), V<double>(want, {a, b, c}));
}

TEST(CwiseBinaryTest, Comparisons) {
  Tensor x = V<int32_t>({1, 5, 3}, {3}), y = V<int32_t>({3}, {});
  ExpectBinary("Less", x, y, V<bool>({true, false, false}, {3}));
  ExpectBinary("LessEqual", x, y, V<bool>({true, false, true}, {3}));
  ExpectBinary("Greater", x, y, V<bool>({false, true, false}, {3}));
  ExpectBinary("GreaterEqual", x, y, V<bool>({false, true, true}, {3}));
  ExpectBinary("Equal", x, y, V<bool>({false, false, true}, {3}));
  ExpectBinary("NotEqual", x, y, V<bool>({true, true, false}, {3}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectBinary("Equal", V<float>({nan, 1}, {2}), V<float>({nan, 1}, {2}), V<bool>({false, true}, {2}));
  ExpectBinary("NotEqual", V<float>({nan}, {}), V<float>({nan}, {}), V<bool>({true}, {}));
  ExpectBinary("Equal", V<std::string>({"a", "b"}, {2}), V<std::string>({"b"}, {}), V<bool>({false, true}, {2}));
  ExpectBinary("Equal", V<bool>({true, false}, {2}), V<bool>({true}, {1}), V<bool>({true, false}, {2}));
  ExpectBinary("Greater", V<half>({half(1.5f)}, {1}), V<half>({half(1.0f)}, {1}), V<bool>({true}, {1}));
  ExpectBinary("LogicalAnd", V<bool>({true, false}, {2, 1}), V<bool>({true, false}, {1, 2}),
               V<bool>({true, false, false, false}, {2, 2}));
  ExpectBinary("LogicalOr", V<bool>({true, false}, {2}), V<bool>({false}, {}), V<bool>({true, false}, {2}));
}

TEST(CwiseBinaryTest, EqualityIncompatibleShapes) {
  for (auto [op, value] : std::vector<std::pair<std::string, bool>>{{"Equal", false}, {"NotEqual", true}}) {
    auto out = testing::RunOpKernel(TestNode("z", op).Input("x").Input("y").Attr("T", DT_INT32).Attr(
                                        "incompatible_shape_error", false),
                                    {V<int32_t>({1, 2}, {2}), V<int32_t>({1, 2, 3}, {3})});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], V<bool>({value}, {}));
    auto err = Binary(op, V<int32_t>({1, 2}, {2}), V<int32_t>({1, 2, 3}, {3}));
    EXPECT_EQ(err.status().code(), Code::kInvalidArgument);
    EXPECT_EQ(err.status().message(), "Incompatible shapes: [2] vs. [3]");
  }
}

StatusOr<Tensor> Select(const std::string& op, const Tensor& c, const Tensor& t, const Tensor& e) {
  auto out = testing::RunOpKernel(TestNode("s", op).Input("c").Input("t").Input("e").Attr("T", t.dtype()), {c, t, e});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

TEST(CwiseSelectTest, SelectRules) {
  Tensor t = V<float>({1, 2, 3, 4, 5, 6}, {2, 3}), e = V<float>({-1, -2, -3, -4, -5, -6}, {2, 3});
  auto z = Select("Select", V<bool>({true, false, false, true, true, false}, {2, 3}), t, e);
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, V<float>({1, -2, -3, 4, 5, -6}, {2, 3}));
  z = Select("Select", V<bool>({false, true}, {2}), t, e);  // one cond per row
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, V<float>({-1, -2, -3, 4, 5, 6}, {2, 3}));
  z = Select("Select", V<bool>({true}, {}), t, e);
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, t);
  z = Select("Select", V<bool>({true, false}, {2}), V<std::string>({"a", "b"}, {2}), V<std::string>({"x", "y"}, {2}));
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, V<std::string>({"a", "y"}, {2}));
  z = Select("Select", V<bool>({true, false}, {2}), V<complex128>({{1, 1}, {2, 2}}, {2}),
             V<complex128>({{3, 3}, {4, 4}}, {2}));
  ASSERT_TRUE(z.ok());
  ExpectTensorEqual(*z, V<complex128>({{1, 1}, {4, 4}}, {2}));
  // Errors.
  EXPECT_EQ(Select("Select", V<bool>({true, false, true}, {3}), t, e).status().message(),
            "Number of batches of 'then' must match size of 'cond', but saw: 2 vs. 3");
  EXPECT_EQ(Select("Select", V<bool>({true, false, true}, {3, 1}), t, e).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Select("Select", V<bool>({true}, {}), t, V<float>({1}, {1})).status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Select("Select", V<bool>({true, false}, {2}), V<float>({1}, {}), V<float>({2}, {})).status().code(),
            Code::kInvalidArgument);
}

TEST(CwiseSelectTest, SelectV2Broadcasts) {
  // cond [2,1], t [3], e scalar.
  auto z = Select("SelectV2", V<bool>({true, false}, {2, 1}), V<int64_t>({1, 2, 3}, {3}), V<int64_t>({0}, {}));
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, V<int64_t>({1, 2, 3, 0, 0, 0}, {2, 3}));
  z = Select("SelectV2", V<bool>({true, false, true}, {3}), V<half>({half(1.0f)}, {1}),
             V<half>({half(2.0f), half(3.0f), half(4.0f)}, {1, 3}));
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, V<half>({half(1.0f), half(3.0f), half(1.0f)}, {1, 3}));
  z = Select("SelectV2", V<bool>({}, {0}), V<float>({1}, {}), V<float>({2}, {}));
  ASSERT_TRUE(z.ok());
  ExpectTensorEqual(*z, V<float>({}, {0}));
  z = Select("SelectV2", V<bool>({true, false}, {2}), V<float>({1, 2, 3}, {3}), V<float>({2}, {}));
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().message(), "condition [2], then [3], and else [] must be broadcastable");
  // Large and sharded.
  const int n = 200000;
  std::vector<uint8_t> c(n);
  std::vector<int32_t> a(n), want(n);
  for (int i = 0; i < n; ++i) {
    c[i] = i % 3 == 0;
    a[i] = i;
    want[i] = c[i] ? i : -1;
  }
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("s", "SelectV2").Input("c").Input("t").Input("e").Attr("T", DT_INT32)));
  Tensor cond(DT_BOOL, TensorShape({n}));
  for (int i = 0; i < n; ++i) cond.data<bool>()[i] = c[i];
  t.AddInput(cond);
  t.AddInput(V<int32_t>(a, {n}));
  t.AddInput(V<int32_t>({-1}, {}));
  t.set_num_threads(3);
  FLOWVM_ASSERT_OK(t.Run());
  ExpectTensorEqual(t.output(0), V<int32_t>(want, {n}));
}

StatusOr<Tensor> Cast(const Tensor& x, DataType dst, bool truncate = false) {
  auto out = testing::RunOpKernel(
      TestNode("c", "Cast").Input("x").Attr("SrcT", x.dtype()).Attr("DstT", dst).Attr("Truncate", truncate), {x});
  if (!out.ok()) return out.status();
  return (*out)[0];
}

void ExpectCast(const Tensor& x, const Tensor& want, bool truncate = false) {
  auto y = Cast(x, want.dtype(), truncate);
  ASSERT_TRUE(y.ok()) << y.status();
  ExpectTensorEqual(*y, want);
}

TEST(CwiseCastTest, Conversions) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  ExpectCast(V<float>({1.9f, -1.9f, 0.5f, -0.0f}, {4}), V<int32_t>({1, -1, 0, 0}, {4}));
  ExpectCast(V<float>({3e9f, -3e9f, nan}, {3}), V<int32_t>({std::numeric_limits<int32_t>::min(),
                                                            std::numeric_limits<int32_t>::min(),
                                                            std::numeric_limits<int32_t>::min()}, {3}));
  ExpectCast(V<double>({-1.0, 255.0, 256.0}, {3}), V<uint8_t>({255, 255, 0}, {3}));
  ExpectCast(V<int32_t>({300, -1}, {2}), V<int8_t>({44, -1}, {2}));
  ExpectCast(V<int64_t>({-1}, {1}), V<uint64_t>({0xffffffffffffffffull}, {1}));
  ExpectCast(V<float>({0.0f, 2.0f, nan}, {3}), V<bool>({false, true, true}, {3}));
  ExpectCast(V<bool>({true, false}, {2}), V<double>({1, 0}, {2}));
  ExpectCast(V<bool>({true, false}, {2}), V<half>({half(1.0f), half(0.0f)}, {2}));
  ExpectCast(V<float>({1.5f}, {1}), V<bfloat16>({bfloat16(1.5f)}, {1}));
  ExpectCast(V<half>({half(2.5f)}, {1}), V<int64_t>({2}, {1}));
  ExpectCast(V<complex64>({{3.5f, 2.0f}}, {1}), V<float>({3.5f}, {1}));
  ExpectCast(V<int32_t>({7}, {1}), V<complex128>({{7.0, 0.0}}, {1}));
  ExpectCast(V<uint64_t>({0xffffffffffffffffull}, {1}), V<float>({1.8446744e19f}, {1}));
  ExpectCast(V<double>({1e20, 5e18}, {2}), V<uint64_t>({1ull << 63, 5000000000000000000ull}, {2}));
  ExpectCast(V<std::string>({"a"}, {1}), V<std::string>({"a"}, {1}));
  // 1 + 2^-8 + 2^-9 rounds up to 1 + 2^-7 in bfloat16; truncation drops it.
  const float f = 1.0f + 1.0f / 256 + 1.0f / 512;
  ExpectCast(V<float>({f}, {1}), V<bfloat16>({bfloat16(1.0f + 1.0f / 128)}, {1}));
  ExpectCast(V<float>({f}, {1}), V<bfloat16>({bfloat16(1.0f)}, {1}), /*truncate=*/true);
  ExpectCast(V<float>({}, {0, 4}), V<int64_t>({}, {0, 4}));
  EXPECT_EQ(Cast(V<std::string>({"1"}, {1}), DT_INT32).status().code(), Code::kUnimplemented);
}

TEST(CwiseAddNTest, SumsAndChecksShapes) {
  auto addn = [](const std::vector<Tensor>& in) -> StatusOr<Tensor> {
    TestNode node("s", "AddN");
    for (size_t i = 0; i < in.size(); ++i) node.Input("x" + std::to_string(i));
    node.Attr("N", static_cast<int64_t>(in.size())).Attr("T", in[0].dtype());
    auto out = testing::RunOpKernel(node, in);
    if (!out.ok()) return out.status();
    return (*out)[0];
  };
  auto z = addn({V<float>({1, 2}, {2}), V<float>({10, 20}, {2}), V<float>({100, 200}, {2})});
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, V<float>({111, 222}, {2}));
  z = addn({V<int32_t>({5}, {})});
  ASSERT_TRUE(z.ok()) << z.status();
  ExpectTensorEqual(*z, V<int32_t>({5}, {}));
  z = addn({V<int64_t>({std::numeric_limits<int64_t>::max()}, {1}), V<int64_t>({1}, {1})});
  ASSERT_TRUE(z.ok());
  ExpectTensorEqual(*z, V<int64_t>({std::numeric_limits<int64_t>::min()}, {1}));
  z = addn({V<float>({1, 2}, {2}), V<float>({1}, {1})});
  ASSERT_FALSE(z.ok());
  EXPECT_EQ(z.status().code(), Code::kInvalidArgument);
  // Large, with four inputs, sharded.
  const int n = 100003;
  std::vector<double> a(n), want(n);
  for (int i = 0; i < n; ++i) {
    a[i] = i;
    want[i] = 4.0 * i;
  }
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("s", "AddN").Input("a").Input("b").Input("c").Input("d").Attr("N", int64_t{4}).Attr(
      "T", DT_DOUBLE)));
  for (int i = 0; i < 4; ++i) t.AddInput(V<double>(a, {n}));
  t.set_num_threads(3);
  FLOWVM_ASSERT_OK(t.Run());
  ExpectTensorEqual(t.output(0), V<double>(want, {n}));
}

TEST(MultiBCastTest, ThreeOperands) {
  MultiBCast b({TensorShape({2, 1}), TensorShape({3}), TensorShape({})});
  ASSERT_TRUE(b.valid());
  EXPECT_EQ(b.output_shape(), TensorShape({2, 3}));
  EXPECT_EQ(b.dims(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b.strides(0), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(b.strides(1), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(b.strides(2), (std::vector<int64_t>{0, 0}));
  EXPECT_FALSE(MultiBCast({TensorShape({2}), TensorShape({3}), TensorShape({})}).valid());
  EXPECT_FALSE(MultiBCast({TensorShape({0}), TensorShape({2})}).valid());
  // ForEachRun from the middle of a row.
  std::vector<int64_t> starts;
  ForEachRun<3>(b, 1, 5, [&](int64_t o, const std::array<int64_t, 3>& off, const std::array<int64_t, 3>&, int64_t n) {
    starts.insert(starts.end(), {o, off[0], off[1], n});
  });
  EXPECT_EQ(starts, (std::vector<int64_t>{1, 0, 1, 2, 3, 1, 0, 2}));
}

#if defined(__SANITIZE_ADDRESS__)
#define FLOWVM_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FLOWVM_TEST_ASAN 1
#endif
#endif

// src/core/allocator.cc keeps freed large blocks for the next tensor of about
// the same size (what keeps a 64 MB AddV2 from page-faulting every step).
TEST(TensorBlockCacheTest, ReusesFreedLargeBlocks) {
#ifdef FLOWVM_TEST_ASAN
  GTEST_SKIP() << "the block cache is off under ASan";
#else
  const int64_t n = 3 << 20;  // 12 MB of floats
  const void* first;
  {
    Tensor a(DT_FLOAT, TensorShape({n}));
    first = a.raw_data();
  }
  Tensor b(DT_INT32, TensorShape({n - 1000}));  // a little smaller: same block
  EXPECT_EQ(b.raw_data(), first);
  Tensor c(DT_FLOAT, TensorShape({n / 2}));  // half the size: not that block
  EXPECT_NE(c.raw_data(), first);
  // A reused block for strings gets constructed strings.
  const void* strings;
  {
    Tensor s(DT_STRING, TensorShape({100000}));
    strings = s.raw_data();
  }
  Tensor s(DT_STRING, TensorShape({100000}));
  EXPECT_EQ(s.raw_data(), strings);
  EXPECT_TRUE(s.data<std::string>()[99999].empty());
  s.data<std::string>()[0] = "reused";
#endif
}

}  // namespace
}  // namespace flowvm

namespace flowvm {
namespace {

// Outputs of 8 MiB or more are written with streaming stores through an L1
// block (stream_store.h): every element must still land in its place, for
// every shard boundary, scalar operands and a narrower output type.
TEST(CwiseLargeOutputTest, StreamedOutputsAreExact) {
  const int64_t n = (int64_t{9} << 20) / 4 + 13;  // just over 9 MiB of float, odd length
  std::vector<float> xv(n), yv(n);
  for (int64_t i = 0; i < n; ++i) {
    xv[i] = static_cast<float>(i % 1000);
    yv[i] = static_cast<float>((i * 7) % 1001);
  }
  const Tensor x = Tensor::FromVector<float>(xv, TensorShape({n}));
  const Tensor y = Tensor::FromVector<float>(yv, TensorShape({n}));
  for (int threads : {1, 3}) {
    SCOPED_TRACE(threads);
    auto run = [&](const std::string& op, const Tensor& a, const Tensor& b) {
      testing::OpTest t;
      EXPECT_TRUE(t.Init(testing::TestNode("z", op).Input("a").Input("b").Attr("T", DT_FLOAT)).ok());
      t.AddInput(a);
      t.AddInput(b);
      t.set_num_threads(threads);
      EXPECT_TRUE(t.Run().ok());
      return t.output(0);
    };
    Tensor sum = run("AddV2", x, y);
    const float* s = sum.data<float>();
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(s[i], xv[i] + yv[i]) << i;
    Tensor left = run("Sub", Tensor::Scalar<float>(5), y);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(left.data<float>()[i], 5 - yv[i]) << i;
    Tensor right = run("Mul", x, Tensor::Scalar<float>(2));
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(right.data<float>()[i], 2 * xv[i]) << i;
  }
  // bool output: 8M+ one-byte elements.
  const int64_t m = (int64_t{8} << 20) + 5;
  std::vector<int32_t> av(m), bv(m);
  for (int64_t i = 0; i < m; ++i) {
    av[i] = static_cast<int32_t>(i % 17);
    bv[i] = static_cast<int32_t>(i % 13);
  }
  testing::OpTest t;
  ASSERT_TRUE(t.Init(testing::TestNode("z", "Less").Input("a").Input("b").Attr("T", DT_INT32)).ok());
  t.AddInput(Tensor::FromVector<int32_t>(av, TensorShape({m})));
  t.AddInput(Tensor::FromVector<int32_t>(bv, TensorShape({m})));
  t.set_num_threads(2);
  ASSERT_TRUE(t.Run().ok());
  const bool* less = t.output(0).data<bool>();
  for (int64_t i = 0; i < m; ++i) ASSERT_EQ(less[i], av[i] < bv[i]) << i;
}

}  // namespace
}  // namespace flowvm
