// Einsum against direct-loop references: matmul, batch matmul, transposes,
// reductions, outer products, traces / diagonals, "..." with broadcasting;
// types, threads and bad inputs.
#include <gtest/gtest.h>

#include <random>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorNear;
using testing::TestNode;

Tensor Random(const std::vector<int64_t>& dims, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  Tensor t(DT_DOUBLE, TensorShape::FromDims(dims).value());
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<double>()[i] = dist(gen);
  return t;
}

StatusOr<Tensor> Einsum(const std::string& equation, const std::vector<Tensor>& in, int threads = 1) {
  TestNode n("n", "Einsum");
  for (size_t i = 0; i < in.size(); ++i) n.Input("in" + std::to_string(i));
  n.Attr("T", in[0].dtype()).Attr("N", static_cast<int64_t>(in.size())).Attr("equation", equation);
  testing::OpTest t;
  FLOWVM_RETURN_IF_ERROR(t.Init(n));
  for (const Tensor& x : in) t.AddInput(x);
  t.set_num_threads(threads);
  FLOWVM_RETURN_IF_ERROR(t.Run());
  return t.output(0);
}

double At(const Tensor& t, std::initializer_list<int64_t> idx) {
  int64_t flat = 0, d = 0;
  for (int64_t i : idx) flat = flat * t.dim_size(d++) + i;
  return t.data<double>()[flat];
}

Tensor Make(const std::vector<int64_t>& dims, const std::function<double(const std::vector<int64_t>&)>& f) {
  Tensor t(DT_DOUBLE, TensorShape::FromDims(dims).value());
  std::vector<int64_t> idx(dims.size(), 0);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    int64_t rem = i;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      idx[d] = rem % dims[d];
      rem /= dims[d];
    }
    t.data<double>()[i] = f(idx);
  }
  return t;
}

void Expect(const std::string& eq, const std::vector<Tensor>& in, const Tensor& want) {
  SCOPED_TRACE(eq);
  for (int threads : {1, 3}) {
    auto got = Einsum(eq, in, threads);
    ASSERT_TRUE(got.ok()) << got.status();
    ExpectTensorNear(*got, want, 1e-12);
  }
}

TEST(EinsumTest, CommonForms) {
  const Tensor a = Random({3, 4}, 1), b = Random({4, 5}, 2), v = Random({4}, 3), w = Random({3}, 4);
  const Tensor ba = Random({2, 3, 4}, 5), bb = Random({2, 4, 5}, 6), sq = Random({4, 4}, 7);
  Expect("ij,jk->ik", {a, b}, Make({3, 5}, [&](auto i) {
           double s = 0;
           for (int j = 0; j < 4; ++j) s += At(a, {i[0], j}) * At(b, {j, i[1]});
           return s;
         }));
  Expect("bij,bjk->bik", {ba, bb}, Make({2, 3, 5}, [&](auto i) {
           double s = 0;
           for (int j = 0; j < 4; ++j) s += At(ba, {i[0], i[1], j}) * At(bb, {i[0], j, i[2]});
           return s;
         }));
  Expect("ij,kj->ik", {a, Random({2, 4}, 8)}, Make({3, 2}, [&](auto i) {
           const Tensor c = Random({2, 4}, 8);
           double s = 0;
           for (int j = 0; j < 4; ++j) s += At(a, {i[0], j}) * At(c, {i[1], j});
           return s;
         }));
  Expect("ij->ji", {a}, Make({4, 3}, [&](auto i) { return At(a, {i[1], i[0]}); }));
  Expect("ij->i", {a}, Make({3}, [&](auto i) {
           double s = 0;
           for (int j = 0; j < 4; ++j) s += At(a, {i[0], j});
           return s;
         }));
  Expect("ij->", {a}, Make({}, [&](auto) {
           double s = 0;
           for (int64_t k = 0; k < a.NumElements(); ++k) s += a.data<double>()[k];
           return s;
         }));
  Expect("i,j->ij", {w, v}, Make({3, 4}, [&](auto i) { return At(w, {i[0]}) * At(v, {i[1]}); }));
  Expect("ij,j->i", {a, v}, Make({3}, [&](auto i) {
           double s = 0;
           for (int j = 0; j < 4; ++j) s += At(a, {i[0], j}) * At(v, {j});
           return s;
         }));
  Expect("ii->", {sq}, Make({}, [&](auto) {
           double s = 0;
           for (int j = 0; j < 4; ++j) s += At(sq, {j, j});
           return s;
         }));
  Expect("ii->i", {sq}, Make({4}, [&](auto i) { return At(sq, {i[0], i[0]}); }));
  // Summed labels in one operand: "ij,k->i" sums j and k.
  Expect("ij,k->i", {a, w}, Make({3}, [&](auto i) {
           double s = 0, t = 0;
           for (int j = 0; j < 4; ++j) s += At(a, {i[0], j});
           for (int k = 0; k < 3; ++k) t += At(w, {k});
           return s * t;
         }));
  // Implicit output: labels used once, alphabetically.
  Expect("ij,jk", {a, b}, *Einsum("ij,jk->ik", {a, b}));
  Expect("ba", {a}, *Einsum("ba->ab", {a}));
}

TEST(EinsumTest, EllipsisBroadcasts) {
  const Tensor a = Random({2, 1, 3, 4}, 9), b = Random({5, 4, 2}, 10);
  // "...ij,...jk->...ik": a's batch [2,1] broadcasts against b's [5].
  Expect("...ij,...jk->...ik", {a, b}, Make({2, 5, 3, 2}, [&](auto i) {
           double s = 0;
           for (int j = 0; j < 4; ++j) s += At(a, {i[0], 0, i[2], j}) * At(b, {i[1], j, i[3]});
           return s;
         }));
  const Tensor c = Random({2, 3, 4}, 11);
  Expect("...ij->...ji", {c}, Make({2, 4, 3}, [&](auto i) { return At(c, {i[0], i[2], i[1]}); }));
  Expect("i...->...", {c}, Make({3, 4}, [&](auto i) { return At(c, {0, i[0], i[1]}) + At(c, {1, i[0], i[1]}); }));
}

TEST(EinsumTest, FloatAndIntegerTypes) {
  Tensor a = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Tensor b = Tensor::FromVector<float>({1, 0, 0, 1, 1, 1}, TensorShape({3, 2}));
  auto got = Einsum("ij,jk->ik", {a, b});
  ASSERT_TRUE(got.ok()) << got.status();
  ExpectTensorNear(*got, Tensor::FromVector<float>({4, 5, 10, 11}, TensorShape({2, 2})), 1e-6);
  Tensor ai = Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  got = Einsum("ij->j", {ai});
  ASSERT_TRUE(got.ok()) << got.status();
  testing::ExpectTensorEqual(*got, Tensor::FromVector<int32_t>({5, 7, 9}));
}

TEST(EinsumTest, BadInputsAreInvalidArgument) {
  const Tensor a = Random({3, 4}, 1), b = Random({5, 6}, 2);
  auto expect_invalid = [](const StatusOr<Tensor>& s, const std::string& msg) {
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
    EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
  };
  expect_invalid(Einsum("ij,jk->ik", {a, b}), "label 'j'");
  expect_invalid(Einsum("ijk->i", {a}), "rank");
  expect_invalid(Einsum("ij,jk->ik", {a}), "operands");
  expect_invalid(Einsum("ij->ix", {a}), "'x'");
  expect_invalid(Einsum("ij->ii", {a}), "more than once");
  expect_invalid(Einsum("i.j->i", {a}), "'.'");
  expect_invalid(Einsum("i1->i", {a}), "invalid character");
  expect_invalid(Einsum("...ij,...jk->...ik", {Random({2, 3, 4}, 3), Random({3, 4, 2}, 4)}), "has size");
  expect_invalid(Einsum("ii->i", {a}), "label 'i'");
}

}  // namespace
}  // namespace flowvm
