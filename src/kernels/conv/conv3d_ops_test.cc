// Conv3D and its backprops, MaxPool3D / AvgPool3D and their gradients,
// against direct-loop references in double; formats, types, threads, bad
// inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorNear;
using testing::TestNode;

struct Geo {
  std::vector<int64_t> x;       // NDHWC
  std::vector<int64_t> filter;  // KD, KH, KW (conv) or the pool window
  int64_t out_channels;
  std::vector<int64_t> strides, dilations;  // D, H, W
  const char* padding;
};

Tensor Random(const std::vector<int64_t>& dims, uint32_t seed, DataType dt = DT_DOUBLE) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  Tensor t(dt, TensorShape::FromDims(dims).value());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    if (dt == DT_DOUBLE)
      t.data<double>()[i] = dist(gen);
    else
      t.data<float>()[i] = static_cast<float>(dist(gen));
  }
  return t;
}

// TensorFlow's SAME / VALID: output size and padding before.
void Window(int64_t in, int64_t k, int64_t dil, int64_t stride, const std::string& padding, int64_t* out,
            int64_t* pad) {
  const int64_t eff = (k - 1) * dil + 1;
  if (padding == "VALID") {
    *out = (in - eff + stride) / stride;
    *pad = 0;
  } else {
    *out = (in + stride - 1) / stride;
    *pad = std::max<int64_t>(0, (*out - 1) * stride + eff - in) / 2;
  }
}

struct ConvRef {
  std::vector<int64_t> out_dims;
  std::vector<double> y, dx, df;
};

// Direct loops: y = conv(x, f); dx and df for the output gradient dy.
ConvRef Conv(const Geo& g, const Tensor& x, const Tensor& f, const Tensor* dy) {
  const int64_t N = g.x[0], C = g.x[4], O = g.out_channels;
  int64_t out[3], pad[3];
  for (int i = 0; i < 3; ++i)
    Window(g.x[1 + i], g.filter[i], g.dilations[i], g.strides[i], g.padding, &out[i], &pad[i]);
  ConvRef r;
  r.out_dims = {N, out[0], out[1], out[2], O};
  r.y.assign(N * out[0] * out[1] * out[2] * O, 0);
  r.dx.assign(x.NumElements(), 0);
  r.df.assign(f.NumElements(), 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow)
          for (int64_t kd = 0; kd < g.filter[0]; ++kd)
            for (int64_t kh = 0; kh < g.filter[1]; ++kh)
              for (int64_t kw = 0; kw < g.filter[2]; ++kw) {
                const int64_t id = od * g.strides[0] - pad[0] + kd * g.dilations[0];
                const int64_t ih = oh * g.strides[1] - pad[1] + kh * g.dilations[1];
                const int64_t iw = ow * g.strides[2] - pad[2] + kw * g.dilations[2];
                if (id < 0 || ih < 0 || iw < 0 || id >= g.x[1] || ih >= g.x[2] || iw >= g.x[3]) continue;
                for (int64_t c = 0; c < C; ++c)
                  for (int64_t o = 0; o < O; ++o) {
                    const int64_t xi = (((n * g.x[1] + id) * g.x[2] + ih) * g.x[3] + iw) * C + c;
                    const int64_t fi = (((kd * g.filter[1] + kh) * g.filter[2] + kw) * C + c) * O + o;
                    const int64_t yi = (((n * out[0] + od) * out[1] + oh) * out[2] + ow) * O + o;
                    r.y[yi] += x.data<double>()[xi] * f.data<double>()[fi];
                    if (dy != nullptr) {
                      r.dx[xi] += dy->data<double>()[yi] * f.data<double>()[fi];
                      r.df[fi] += dy->data<double>()[yi] * x.data<double>()[xi];
                    }
                  }
              }
  return r;
}

Tensor Doubles(const std::vector<double>& v, const std::vector<int64_t>& dims) {
  Tensor t(DT_DOUBLE, TensorShape::FromDims(dims).value());
  std::copy(v.begin(), v.end(), t.data<double>());
  return t;
}

// NDHWC <-> NCDHW.
Tensor ToNcdhw(const Tensor& t) {
  const auto& s = t.shape();
  Tensor out(t.dtype(), TensorShape({s.dim_size(0), s.dim_size(4), s.dim_size(1), s.dim_size(2), s.dim_size(3)}));
  const int64_t N = s.dim_size(0), S = s.dim_size(1) * s.dim_size(2) * s.dim_size(3), C = s.dim_size(4);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t p = 0; p < S; ++p)
      for (int64_t c = 0; c < C; ++c) out.data<double>()[(n * C + c) * S + p] = t.data<double>()[(n * S + p) * C + c];
  return out;
}

std::vector<int64_t> L5(const std::vector<int64_t>& s, bool ncdhw) {
  return ncdhw ? std::vector<int64_t>{1, 1, s[0], s[1], s[2]} : std::vector<int64_t>{1, s[0], s[1], s[2], 1};
}

TestNode ConvNode(const char* op, const Geo& g, bool ncdhw, DataType dt = DT_DOUBLE) {
  TestNode n("n", op);
  n.Input("a").Input("b");
  if (std::string(op) != "Conv3D") n.Input("c");
  n.Attr("T", dt)
      .Attr("strides", L5(g.strides, ncdhw))
      .Attr("dilations", L5(g.dilations, ncdhw))
      .Attr("padding", std::string(g.padding))
      .Attr("data_format", std::string(ncdhw ? "NCDHW" : "NDHWC"));
  return n;
}

StatusOr<Tensor> RunOne(const NodeDef& def, const std::vector<Tensor>& in, int threads = 1) {
  testing::OpTest t;
  FLOWVM_RETURN_IF_ERROR(t.Init(def));
  for (const Tensor& x : in) t.AddInput(x);
  t.set_num_threads(threads);
  FLOWVM_RETURN_IF_ERROR(t.Run());
  return t.output(0);
}

Tensor I32(const std::vector<int64_t>& v) {
  std::vector<int32_t> w(v.begin(), v.end());
  return Tensor::FromVector<int32_t>(w);
}

TEST(Conv3DTest, AgainstDirectLoops) {
  for (const Geo& g : {Geo{{2, 4, 5, 3, 2}, {2, 3, 2}, 3, {1, 1, 1}, {1, 1, 1}, "VALID"},
                       Geo{{1, 5, 4, 6, 3}, {3, 2, 3}, 2, {2, 1, 2}, {1, 1, 1}, "SAME"},
                       Geo{{2, 6, 5, 5, 2}, {2, 2, 2}, 2, {1, 2, 1}, {2, 1, 2}, "SAME"},
                       Geo{{1, 3, 3, 3, 1}, {1, 1, 1}, 4, {3, 3, 3}, {1, 1, 1}, "VALID"}}) {
    const Tensor x = Random(g.x, 1);
    const Tensor f = Random({g.filter[0], g.filter[1], g.filter[2], g.x[4], g.out_channels}, 2);
    const ConvRef shapes = Conv(g, x, f, nullptr);
    const Tensor dy = Random(shapes.out_dims, 3);
    const ConvRef r = Conv(g, x, f, &dy);
    for (bool ncdhw : {false, true}) {
      SCOPED_TRACE(std::string(g.padding) + (ncdhw ? " NCDHW" : " NDHWC"));
      auto fmt = [&](const Tensor& t) { return ncdhw ? ToNcdhw(t) : t; };
      for (int threads : {1, 3}) {
        auto y = RunOne(ConvNode("Conv3D", g, ncdhw), {fmt(x), f}, threads);
        ASSERT_TRUE(y.ok()) << y.status();
        ExpectTensorNear(*y, fmt(Doubles(r.y, r.out_dims)), 1e-10);
        auto dx =
            RunOne(ConvNode("Conv3DBackpropInputV2", g, ncdhw), {I32(fmt(x).shape().dim_sizes()), f, fmt(dy)}, threads);
        ASSERT_TRUE(dx.ok()) << dx.status();
        ExpectTensorNear(*dx, fmt(Doubles(r.dx, g.x)), 1e-10);
        auto df = RunOne(ConvNode("Conv3DBackpropFilterV2", g, ncdhw), {fmt(x), I32(f.shape().dim_sizes()), fmt(dy)},
                         threads);
        ASSERT_TRUE(df.ok()) << df.status();
        ExpectTensorNear(*df, Doubles(r.df, f.shape().dim_sizes()), 1e-10);
      }
    }
  }
}

TEST(Conv3DTest, FloatAndHalfTypes) {
  const Geo g{{1, 4, 4, 4, 2}, {2, 2, 2}, 3, {1, 1, 1}, {1, 1, 1}, "SAME"};
  const Tensor x = Random(g.x, 4), f = Random({2, 2, 2, 2, 3}, 5);
  const ConvRef r = Conv(g, x, f, nullptr);
  auto cast = [](const Tensor& t, DataType dt) {
    Tensor out(dt, t.shape());
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      const float v = static_cast<float>(t.data<double>()[i]);
      if (dt == DT_FLOAT)
        out.data<float>()[i] = v;
      else if (dt == DT_HALF)
        out.data<half>()[i] = half(v);
      else
        out.data<bfloat16>()[i] = bfloat16(v);
    }
    return out;
  };
  for (DataType dt : {DT_FLOAT, DT_HALF, DT_BFLOAT16}) {
    SCOPED_TRACE(DataTypeName(dt));
    auto y = RunOne(ConvNode("Conv3D", g, false, dt), {cast(x, dt), cast(f, dt)});
    ASSERT_TRUE(y.ok()) << y.status();
    Tensor got(DT_DOUBLE, y->shape());
    for (int64_t i = 0; i < y->NumElements(); ++i)
      got.data<double>()[i] = dt == DT_FLOAT  ? y->data<float>()[i]
                              : dt == DT_HALF ? static_cast<float>(y->data<half>()[i])
                                              : static_cast<float>(y->data<bfloat16>()[i]);
    ExpectTensorNear(got, Doubles(r.y, r.out_dims), dt == DT_FLOAT ? 1e-5 : 5e-2);
  }
}

TEST(Conv3DTest, BadInputsAreInvalidArgument) {
  const Geo g{{1, 4, 4, 4, 2}, {2, 2, 2}, 3, {1, 1, 1}, {1, 1, 1}, "VALID"};
  auto expect_invalid = [](const StatusOr<Tensor>& s, const std::string& msg) {
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
    EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
  };
  expect_invalid(RunOne(ConvNode("Conv3D", g, false), {Random({1, 4, 4, 2}, 1), Random({2, 2, 2, 2, 3}, 2)}),
                 "5-dimensional");
  expect_invalid(RunOne(ConvNode("Conv3D", g, false), {Random(g.x, 1), Random({2, 2, 2, 3, 3}, 2)}), "in_channels");
  expect_invalid(RunOne(ConvNode("Conv3D", g, false), {Random(g.x, 1), Random({6, 2, 2, 2, 3}, 2)}), "negative");
  TestNode bad_strides = ConvNode("Conv3D", g, false);
  bad_strides.Attr("strides", std::vector<int64_t>{2, 1, 1, 1, 1});
  expect_invalid(RunOne(bad_strides, {Random(g.x, 1), Random({2, 2, 2, 2, 3}, 2)}), "batch");
  TestNode four_strides = ConvNode("Conv3D", g, false);
  four_strides.Attr("strides", std::vector<int64_t>{1, 1, 1, 1});
  expect_invalid(RunOne(four_strides, {Random(g.x, 1), Random({2, 2, 2, 2, 3}, 2)}), "strides");
  expect_invalid(RunOne(ConvNode("Conv3DBackpropInputV2", g, false),
                        {I32(g.x), Random({2, 2, 2, 2, 3}, 2), Random({1, 2, 2, 2, 3}, 3)}),
                 "out_backprop");
  expect_invalid(RunOne(ConvNode("Conv3DBackpropFilterV2", g, false),
                        {Random(g.x, 1), I32({2, 2, 2}), Random({1, 3, 3, 3, 3}, 3)}),
                 "filter_sizes");
}

// ---- pooling ----

struct PoolRef {
  std::vector<int64_t> out_dims;
  std::vector<double> max, avg, dmax, davg;
};

PoolRef Pool(const Geo& g, const Tensor& x, const Tensor* dy) {
  const int64_t N = g.x[0], C = g.x[4];
  int64_t out[3], pad[3];
  for (int i = 0; i < 3; ++i) Window(g.x[1 + i], g.filter[i], 1, g.strides[i], g.padding, &out[i], &pad[i]);
  PoolRef r;
  r.out_dims = {N, out[0], out[1], out[2], C};
  const int64_t ny = N * out[0] * out[1] * out[2] * C;
  r.max.assign(ny, -std::numeric_limits<double>::infinity());
  r.avg.assign(ny, 0);
  r.dmax.assign(x.NumElements(), 0);
  r.davg.assign(x.NumElements(), 0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t od = 0; od < out[0]; ++od)
      for (int64_t oh = 0; oh < out[1]; ++oh)
        for (int64_t ow = 0; ow < out[2]; ++ow)
          for (int64_t c = 0; c < C; ++c) {
            const int64_t yi = (((n * out[0] + od) * out[1] + oh) * out[2] + ow) * C + c;
            std::vector<int64_t> cells;
            for (int64_t kd = 0; kd < g.filter[0]; ++kd)
              for (int64_t kh = 0; kh < g.filter[1]; ++kh)
                for (int64_t kw = 0; kw < g.filter[2]; ++kw) {
                  const int64_t id = od * g.strides[0] - pad[0] + kd, ih = oh * g.strides[1] - pad[1] + kh,
                                iw = ow * g.strides[2] - pad[2] + kw;
                  if (id < 0 || ih < 0 || iw < 0 || id >= g.x[1] || ih >= g.x[2] || iw >= g.x[3]) continue;
                  cells.push_back((((n * g.x[1] + id) * g.x[2] + ih) * g.x[3] + iw) * C + c);
                }
            int64_t arg = -1;
            for (int64_t e : cells) {
              r.avg[yi] += x.data<double>()[e] / cells.size();
              if (x.data<double>()[e] > r.max[yi]) {
                r.max[yi] = x.data<double>()[e];
                arg = e;
              }
            }
            if (dy != nullptr) {
              if (arg >= 0) r.dmax[arg] += dy->data<double>()[yi];
              for (int64_t e : cells) r.davg[e] += dy->data<double>()[yi] / cells.size();
            }
          }
  return r;
}

TestNode PoolNode(const char* op, const Geo& g, bool ncdhw, DataType dt) {
  TestNode n("n", op);
  n.Input("a");
  if (std::string(op) != "MaxPool3D" && std::string(op) != "AvgPool3D") n.Input("b");
  if (std::string(op) == "MaxPool3DGrad") {
    n.Input("c");
    n.Attr("TInput", dt);
  }
  n.Attr("T", dt)
      .Attr("ksize", L5(g.filter, ncdhw))
      .Attr("strides", L5(g.strides, ncdhw))
      .Attr("padding", std::string(g.padding))
      .Attr("data_format", std::string(ncdhw ? "NCDHW" : "NDHWC"));
  return n;
}

Tensor ToFloat(const Tensor& t) {
  Tensor out(DT_FLOAT, t.shape());
  for (int64_t i = 0; i < t.NumElements(); ++i) out.data<float>()[i] = static_cast<float>(t.data<double>()[i]);
  return out;
}

TEST(Pool3DTest, AgainstDirectLoops) {
  for (const Geo& g : {Geo{{2, 4, 4, 4, 2}, {2, 2, 2}, 0, {2, 2, 2}, {1, 1, 1}, "VALID"},
                       Geo{{1, 5, 4, 6, 3}, {3, 2, 3}, 0, {2, 1, 2}, {1, 1, 1}, "SAME"},
                       Geo{{2, 3, 5, 4, 1}, {2, 3, 3}, 0, {1, 2, 1}, {1, 1, 1}, "SAME"}}) {
    const Tensor x = Random(g.x, 7);
    const PoolRef shapes = Pool(g, x, nullptr);
    const Tensor dy = Random(shapes.out_dims, 8);
    const PoolRef r = Pool(g, x, &dy);
    for (bool ncdhw : {false, true}) {
      SCOPED_TRACE(std::string(g.padding) + (ncdhw ? " NCDHW" : " NDHWC"));
      auto fmt = [&](const Tensor& t) { return ncdhw ? ToNcdhw(t) : t; };
      for (int threads : {1, 3}) {
        auto avg = RunOne(PoolNode("AvgPool3D", g, ncdhw, DT_DOUBLE), {fmt(x)}, threads);
        ASSERT_TRUE(avg.ok()) << avg.status();
        ExpectTensorNear(*avg, fmt(Doubles(r.avg, r.out_dims)), 1e-12);
        auto davg =
            RunOne(PoolNode("AvgPool3DGrad", g, ncdhw, DT_DOUBLE), {I32(fmt(x).shape().dim_sizes()), fmt(dy)}, threads);
        ASSERT_TRUE(davg.ok()) << davg.status();
        ExpectTensorNear(*davg, fmt(Doubles(r.davg, g.x)), 1e-12);
        // MaxPool3D is float-only, as in TensorFlow.
        auto mx = RunOne(PoolNode("MaxPool3D", g, ncdhw, DT_FLOAT), {ToFloat(fmt(x))}, threads);
        ASSERT_TRUE(mx.ok()) << mx.status();
        ExpectTensorNear(*mx, ToFloat(fmt(Doubles(r.max, r.out_dims))), 1e-6);
        auto dmx =
            RunOne(PoolNode("MaxPool3DGrad", g, ncdhw, DT_FLOAT), {ToFloat(fmt(x)), *mx, ToFloat(fmt(dy))}, threads);
        ASSERT_TRUE(dmx.ok()) << dmx.status();
        ExpectTensorNear(*dmx, ToFloat(fmt(Doubles(r.dmax, g.x))), 1e-6);
      }
    }
  }
}

TEST(Pool3DTest, MaxPool3DGradGivesTiesTheGradientEach) {
  // One 2x2x2 window of equal values: every element gets the gradient, as
  // TensorFlow's CPU MaxPool3DGrad does.
  const Geo g{{1, 2, 2, 2, 1}, {2, 2, 2}, 0, {2, 2, 2}, {1, 1, 1}, "VALID"};
  Tensor x(DT_FLOAT, TensorShape({1, 2, 2, 2, 1}));
  for (int i = 0; i < 8; ++i) x.data<float>()[i] = 1.0f;
  Tensor y = Tensor::FromVector<float>({1.0f}, TensorShape({1, 1, 1, 1, 1}));
  Tensor dy = Tensor::FromVector<float>({3.0f}, TensorShape({1, 1, 1, 1, 1}));
  auto dx = RunOne(PoolNode("MaxPool3DGrad", g, false, DT_FLOAT), {x, y, dy});
  ASSERT_TRUE(dx.ok()) << dx.status();
  for (int i = 0; i < 8; ++i) EXPECT_EQ(dx->data<float>()[i], 3.0f);
}

TEST(Pool3DTest, BadInputsAreInvalidArgument) {
  const Geo g{{1, 4, 4, 4, 2}, {2, 2, 2}, 0, {2, 2, 2}, {1, 1, 1}, "VALID"};
  auto expect_invalid = [](const StatusOr<Tensor>& s, const std::string& msg) {
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), Code::kInvalidArgument) << s.status();
    EXPECT_NE(s.status().message().find(msg), std::string::npos) << s.status();
  };
  expect_invalid(RunOne(PoolNode("AvgPool3D", g, false, DT_DOUBLE), {Random({1, 4, 4, 2}, 1)}), "5-dimensional");
  TestNode deep_window = PoolNode("AvgPool3D", g, false, DT_DOUBLE);
  deep_window.Attr("ksize", std::vector<int64_t>{1, 3, 2, 2, 1}).Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1});
  expect_invalid(RunOne(deep_window, {Random({1, 1, 4, 4, 2}, 1)}), "negative");
  TestNode depth_window = PoolNode("AvgPool3D", g, false, DT_DOUBLE);
  depth_window.Attr("ksize", std::vector<int64_t>{1, 2, 2, 2, 2});
  expect_invalid(RunOne(depth_window, {Random(g.x, 1)}), "channel");
  expect_invalid(RunOne(PoolNode("AvgPool3DGrad", g, false, DT_DOUBLE), {I32(g.x), Random({1, 3, 2, 2, 2}, 2)}),
                 "grad");
  expect_invalid(
      RunOne(PoolNode("MaxPool3DGrad", g, false, DT_FLOAT),
             {ToFloat(Random(g.x, 1)), ToFloat(Random({1, 2, 2, 2, 1}, 2)), ToFloat(Random({1, 2, 2, 2, 2}, 3))}),
      "orig_output");
}

}  // namespace
}  // namespace flowvm
