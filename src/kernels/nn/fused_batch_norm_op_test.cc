// FusedBatchNorm(V2, V3) and FusedBatchNormGrad(V2, V3): values by hand,
// a double-precision reference for random inputs in every layout, the
// training / inference / running-average forms, 16-bit types, sharding and
// bad inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/nn/nn_test_util.h"

namespace flowvm {
namespace {

using nn_test::Cast;
using nn_test::ToFloat;
using testing::ExpectTensorNear;
using testing::TestNode;

struct BnAttrs {
  std::string format = "NHWC";
  bool training = true;
  float epsilon = 1e-3f;
  float factor = 1.0f;
};

TestNode BnNode(const std::string& op, const BnAttrs& a, DataType t = DT_FLOAT) {
  TestNode n("bn", op);
  for (int i = 0; i < (op.find("Grad") != std::string::npos && op.back() == '3' ? 6 : 5); ++i)
    n.Input("in" + std::to_string(i));
  n.Attr("T", t).Attr("epsilon", a.epsilon).Attr("data_format", a.format).Attr("is_training", a.training);
  if (op != "FusedBatchNorm" && op != "FusedBatchNormGrad") n.Attr("U", DT_FLOAT);
  if (op.find("Grad") == std::string::npos) n.Attr("exponential_avg_factor", a.factor);
  return n;
}

StatusOr<std::vector<Tensor>> RunBn(const std::string& op, const BnAttrs& a, const std::vector<Tensor>& in,
                                  int threads = 1) {
  testing::OpTest t;
  FLOWVM_RETURN_IF_ERROR(t.Init(BnNode(op, a, in[0].dtype())));
  // With several threads the inputs are also handed over, so the kernel
  // may write its output into them (as in a session).
  for (const Tensor& x : in) t.AddInput(threads > 1 ? x.DeepCopy() : x);
  t.set_give_inputs(threads > 1);
  t.set_num_threads(threads);
  FLOWVM_RETURN_IF_ERROR(t.Run());
  std::vector<Tensor> out;
  for (int i = 0; i < t.num_outputs(); ++i) out.push_back(t.output(i));
  return out;
}

Tensor Vec(std::vector<float> v) { return Tensor::FromVector<float>(v); }

Tensor Random(const TensorShape& shape, uint32_t seed, float lo = -2, float hi = 3) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = dist(gen);
  return t;
}

// x as [outer, C, inner] for the format.
void Dims(const TensorShape& s, bool channels_first, int64_t* outer, int64_t* C, int64_t* inner) {
  const int c = channels_first ? 1 : s.dims() - 1;
  *C = s.dim_size(c);
  *outer = 1;
  *inner = 1;
  for (int i = 0; i < c; ++i) *outer *= s.dim_size(i);
  for (int i = c + 1; i < s.dims(); ++i) *inner *= s.dim_size(i);
}

// Reference forward in double: y, batch mean, biased variance.
struct Ref {
  std::vector<double> y, mean, var;
};
Ref Forward(const Tensor& x, const Tensor& scale, const Tensor& offset, const std::vector<double>* mean,
            const std::vector<double>* var, double eps, bool channels_first) {
  int64_t outer, C, inner;
  Dims(x.shape(), channels_first, &outer, &C, &inner);
  Ref r;
  r.mean.assign(C, 0);
  r.var.assign(C, 0);
  auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * C + c) * inner + i; };
  const double n = static_cast<double>(outer * inner);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < inner; ++i) r.mean[c] += x.data<float>()[at(o, c, i)] / n;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const double d = x.data<float>()[at(o, c, i)] - r.mean[c];
        r.var[c] += d * d / n;
      }
  if (mean != nullptr) {
    r.mean = *mean;
    r.var = *var;
  }
  r.y.resize(x.NumElements());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t e = at(o, c, i);
        r.y[e] = (x.data<float>()[e] - r.mean[c]) / std::sqrt(r.var[c] + eps) * scale.data<float>()[c] +
                 offset.data<float>()[c];
      }
  return r;
}

Tensor FromDoubles(const std::vector<double>& v, const TensorShape& shape) {
  Tensor t(DT_FLOAT, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = static_cast<float>(v[i]);
  return t;
}

TEST(FusedBatchNormTest, TrainingByHand) {
  // N=2, C=2: channel 0 holds {1, 3} (mean 2, variance 1, unbiased 2),
  // channel 1 holds {2, 6} (mean 4, variance 4, unbiased 8).
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 6}, TensorShape({2, 1, 1, 2}));
  BnAttrs a;
  a.epsilon = 0;
  for (const char* op : {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}) {
    SCOPED_TRACE(op);
    auto out = RunBn(op, a, {x, Vec({1, 2}), Vec({0, 1}), Vec({}), Vec({})});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorNear((*out)[0], Tensor::FromVector<float>({-1, -1, 1, 3}, TensorShape({2, 1, 1, 2})), 1e-6);
    ExpectTensorNear((*out)[1], Vec({2, 4}), 1e-6);
    ExpectTensorNear((*out)[2], Vec({2, 8}), 1e-6);  // Bessel-corrected
    ExpectTensorNear((*out)[3], Vec({2, 4}), 1e-6);
    ExpectTensorNear((*out)[4], Vec({1, 4}), 1e-6);  // biased, what y used
    EXPECT_EQ(out->size(), std::string(op) == "FusedBatchNormV3" ? 6u : 5u);
  }
}

TEST(FusedBatchNormTest, RunningAverageWithExponentialAvgFactor) {
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 6}, TensorShape({2, 1, 1, 2}));
  BnAttrs a;
  a.epsilon = 0;
  a.factor = 0.25f;
  auto out = RunBn("FusedBatchNormV3", a, {x, Vec({1, 1}), Vec({0, 0}), Vec({10, 20}), Vec({4, 16})});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorNear((*out)[1], Vec({0.75f * 10 + 0.25f * 2, 0.75f * 20 + 0.25f * 4}), 1e-6);
  ExpectTensorNear((*out)[2], Vec({0.75f * 4 + 0.25f * 2, 0.75f * 16 + 0.25f * 8}), 1e-6);
  ExpectTensorNear((*out)[3], Vec({2, 4}), 1e-6);
  ExpectTensorNear((*out)[4], Vec({1, 4}), 1e-6);
  // y is normalized with the batch statistics, not the running ones.
  ExpectTensorNear((*out)[0], Tensor::FromVector<float>({-1, -1, 1, 1}, TensorShape({2, 1, 1, 2})), 1e-6);
}

TEST(FusedBatchNormTest, AgainstReferenceInEveryLayout) {
  struct Case {
    const char* op;
    const char* format;
    TensorShape shape;
    bool channels_first;
  };
  for (const Case& c : {Case{"FusedBatchNorm", "NHWC", TensorShape({3, 5, 4, 7}), false},
                        Case{"FusedBatchNormV2", "NCHW", TensorShape({3, 7, 5, 4}), true},
                        Case{"FusedBatchNormV3", "NDHWC", TensorShape({2, 3, 4, 5, 6}), false},
                        Case{"FusedBatchNormV3", "NCDHW", TensorShape({2, 6, 3, 4, 5}), true}}) {
    for (bool training : {true, false}) {
      SCOPED_TRACE(std::string(c.op) + " " + c.format + (training ? " training" : " inference"));
      int64_t outer, C, inner;
      Dims(c.shape, c.channels_first, &outer, &C, &inner);
      Tensor x = Random(c.shape, 1);
      Tensor scale = Random(TensorShape({C}), 2, 0.5, 2), offset = Random(TensorShape({C}), 3);
      Tensor mean = Random(TensorShape({C}), 4), var = Random(TensorShape({C}), 5, 0.5, 3);
      std::vector<double> m(mean.data<float>(), mean.data<float>() + C), v(var.data<float>(), var.data<float>() + C);
      BnAttrs a;
      a.format = c.format;
      a.training = training;
      const Ref r = Forward(x, scale, offset, training ? nullptr : &m, training ? nullptr : &v, a.epsilon,
                            c.channels_first);
      for (int threads : {1, 4}) {
        auto out = RunBn(c.op, a, {x, scale, offset, mean, var}, threads);
        ASSERT_TRUE(out.ok()) << out.status();
        ExpectTensorNear((*out)[0], FromDoubles(r.y, c.shape), 1e-5);
        ExpectTensorNear((*out)[3], FromDoubles(r.mean, TensorShape({C})), 1e-5);
        ExpectTensorNear((*out)[4], FromDoubles(r.var, TensorShape({C})), 1e-5);
      }
    }
  }
}

// Reference gradients in double (training: through the batch statistics).
void GradRef(const Tensor& dy, const Tensor& x, const Tensor& scale, const std::vector<double>& mean,
             const std::vector<double>& var, double eps, bool training, bool channels_first, std::vector<double>* dx,
             std::vector<double>* dscale, std::vector<double>* doffset) {
  int64_t outer, C, inner;
  Dims(x.shape(), channels_first, &outer, &C, &inner);
  const double n = static_cast<double>(outer * inner);
  auto at = [&](int64_t o, int64_t c, int64_t i) { return (o * C + c) * inner + i; };
  dscale->assign(C, 0);
  doffset->assign(C, 0);
  dx->assign(x.NumElements(), 0);
  for (int64_t c = 0; c < C; ++c) {
    const double inv = 1 / std::sqrt(var[c] + eps);
    double sdy = 0, sdyx = 0;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t e = at(o, c, i);
        sdy += dy.data<float>()[e];
        sdyx += dy.data<float>()[e] * (x.data<float>()[e] - mean[c]) * inv;
      }
    (*dscale)[c] = sdyx;
    (*doffset)[c] = sdy;
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t e = at(o, c, i);
        const double xhat = (x.data<float>()[e] - mean[c]) * inv;
        const double g = dy.data<float>()[e];
        (*dx)[e] = training ? scale.data<float>()[c] * inv * (g - sdy / n - xhat * sdyx / n)
                            : scale.data<float>()[c] * inv * g;
      }
  }
}

TEST(FusedBatchNormGradTest, AgainstReference) {
  struct Case {
    const char* op;
    const char* format;
    TensorShape shape;
    bool channels_first;
  };
  for (const Case& c : {Case{"FusedBatchNormGrad", "NHWC", TensorShape({3, 5, 4, 7}), false},
                        Case{"FusedBatchNormGradV2", "NCHW", TensorShape({3, 7, 5, 4}), true},
                        Case{"FusedBatchNormGradV3", "NDHWC", TensorShape({2, 3, 4, 5, 6}), false},
                        Case{"FusedBatchNormGradV3", "NCDHW", TensorShape({2, 6, 3, 4, 5}), true}}) {
    for (bool training : {true, false}) {
      SCOPED_TRACE(std::string(c.op) + " " + c.format + (training ? " training" : " inference"));
      int64_t outer, C, inner;
      Dims(c.shape, c.channels_first, &outer, &C, &inner);
      Tensor x = Random(c.shape, 6), dy = Random(c.shape, 7);
      Tensor scale = Random(TensorShape({C}), 8, 0.5, 2);
      Tensor mean = Random(TensorShape({C}), 9), var = Random(TensorShape({C}), 10, 0.5, 3);
      std::vector<double> m(mean.data<float>(), mean.data<float>() + C), v(var.data<float>(), var.data<float>() + C);
      BnAttrs a;
      a.format = c.format;
      a.training = training;
      std::vector<Tensor> in = {dy, x, scale, mean, var};
      if (std::string(c.op) == "FusedBatchNormGradV3") in.push_back(Vec({}));
      std::vector<double> dx, ds, dof;
      GradRef(dy, x, scale, m, v, a.epsilon, training, c.channels_first, &dx, &ds, &dof);
      for (int threads : {1, 4}) {
        auto out = RunBn(c.op, a, in, threads);
        ASSERT_TRUE(out.ok()) << out.status();
        ExpectTensorNear((*out)[0], FromDoubles(dx, c.shape), 1e-4);
        ExpectTensorNear((*out)[1], FromDoubles(ds, TensorShape({C})), 1e-4);
        ExpectTensorNear((*out)[2], FromDoubles(dof, TensorShape({C})), 1e-4);
        EXPECT_EQ((*out)[3].NumElements(), 0);
      }
    }
  }
}

TEST(FusedBatchNormTest, HalfTypesComputeInFloat) {
  Tensor x = Random(TensorShape({2, 3, 3, 4}), 11);
  Tensor scale = Random(TensorShape({4}), 12, 0.5, 2), offset = Random(TensorShape({4}), 13);
  BnAttrs a;
  auto want = RunBn("FusedBatchNormV3", a, {x, scale, offset, Vec({}), Vec({})});
  ASSERT_TRUE(want.ok()) << want.status();
  for (DataType dt : {DT_HALF, DT_BFLOAT16}) {
    SCOPED_TRACE(DataTypeName(dt));
    auto out = RunBn("FusedBatchNormV3", a, {Cast(x, dt), scale, offset, Vec({}), Vec({})});
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ((*out)[0].dtype(), dt);
    ExpectTensorNear(ToFloat((*out)[0]), (*want)[0], dt == DT_HALF ? 1e-2 : 5e-2);
    ExpectTensorNear((*out)[1], (*want)[1], 5e-2);
  }
}

TEST(FusedBatchNormTest, EmptyBatchGivesNaNStatistics) {
  BnAttrs a;
  auto out = RunBn("FusedBatchNormV2", a, {Tensor(DT_FLOAT, TensorShape({0, 2, 2, 3})), Vec({1, 1, 1}),
                                         Vec({0, 0, 0}), Vec({}), Vec({})});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].shape(), TensorShape({0, 2, 2, 3}));
  EXPECT_TRUE(std::isnan((*out)[1].data<float>()[0]));
}

TEST(FusedBatchNormTest, BadInputsAreInvalidArgument) {
  BnAttrs a;
  Tensor x = Random(TensorShape({2, 2, 2, 3}), 14);
  auto expect_invalid = [](const StatusOr<std::vector<Tensor>>& s, const std::string& msg) {
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
    EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
  };
  expect_invalid(RunBn("FusedBatchNorm", a, {Random(TensorShape({2, 3}), 1), Vec({1, 1, 1}), Vec({0, 0, 0}),
                                           Vec({}), Vec({})}),
                 "4-dimensional");
  expect_invalid(RunBn("FusedBatchNorm", a, {x, Vec({1, 1}), Vec({0, 0, 0}), Vec({}), Vec({})}), "scale");
  expect_invalid(RunBn("FusedBatchNorm", a, {x, Vec({1, 1, 1}), Vec({0, 0, 0, 0}), Vec({}), Vec({})}), "offset");
  a.training = false;  // inference needs mean and variance
  expect_invalid(RunBn("FusedBatchNorm", a, {x, Vec({1, 1, 1}), Vec({0, 0, 0}), Vec({}), Vec({1, 1, 1})}), "mean");
  a.training = true;
  expect_invalid(RunBn("FusedBatchNormGrad", a, {Random(TensorShape({2, 2, 2, 2}), 1), x, Vec({1, 1, 1}),
                                               Vec({0, 0, 0}), Vec({1, 1, 1})}),
                 "y_backprop");
  expect_invalid(RunBn("FusedBatchNormGrad", a, {x, x, Vec({1, 1, 1}), Vec({0, 0}), Vec({1, 1, 1})}),
                 "reserve_space_1");
  a.format = "NCDHW";  // a 3-D format needs 5-D x
  expect_invalid(RunBn("FusedBatchNormV3", a, {x, Vec({1, 1}), Vec({0, 0}), Vec({}), Vec({})}), "5-dimensional");
}

}  // namespace
}  // namespace flowvm
