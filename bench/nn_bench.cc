// nn kernel benchmarks (Google Benchmark).
//
//   BM_Loop_<fn> / BM_Eigen_<fn> / BM_EigenBlock_<fn>   one 1M-float pass of
//       exp-based functors as plain std:: loops, as Eigen array expressions
//       with select(), and as Eigen's vector exp (Elu: exp - 1 like
//       TensorFlow; Eigen's vector expm1 costs an exp and a log) into a
//       scratch block plus a plain select loop (what the kernels did before
//       they used the dispatched loops of src/kernels/simd/); softmax rows as
//       loops vs Eigen maps. All in this file's own (SSE2) build.
//   BM_Op/<op>/T           one flowvm op through a Session with T threads, at
//       the SIMD level FLOWVM_SIMD picks (reported as context simd_level):
//       the input fed from a Const, the output fetched; counter ns_per_elem
//       in process CPU time (all threads). Shapes:
//       element-wise ops [1000,1000]; Softmax/LogSoftmax and the
//       cross-entropy ops [1000,1000] (batch x classes); BiasAdd and
//       BiasAddGrad [1000,1000] NHWC.
//   BM_FusedBatchNorm/T    FusedBatchNormV3 (training) + FusedBatchNormGradV3
//       on [16,56,56,64] NHWC with T threads.
// bench/nn_torch.py times the PyTorch peers on the same shapes (one thread).
#include <benchmark/benchmark.h>

#include <Eigen/Core>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "flowvm/graph.pb.h"
#include "flowvm/session.h"
#include "flowvm/simd.h"
#include "flowvm/tensor.h"

namespace {

constexpr int64_t kN = 1 << 20;

std::vector<float> Input(int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>((i * 7919) % 2001 - 1000) * 0.01f;
  return v;
}

using Arr = Eigen::Map<Eigen::ArrayXf>;
using CArr = Eigen::Map<const Eigen::ArrayXf>;

void BM_Loop_Elu(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i) y[i] = x[i] < 0 ? std::expm1(x[i]) : x[i];
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_Eigen_Elu(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  for (auto _ : state) {
    CArr X(x.data(), kN);
    Arr Y(y.data(), kN);
    Y = (X < 0.f).select(X.expm1(), X);
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_Loop_Softplus(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  const float t = std::log(1.1920929e-07f) + 2;
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; ++i) {
      const float v = x[i];
      y[i] = v > -t ? v : (v < t ? std::exp(v) : std::log1p(std::exp(v)));
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_Eigen_Softplus(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  const float t = std::log(1.1920929e-07f) + 2;
  for (auto _ : state) {
    CArr X(x.data(), kN);
    Arr Y(y.data(), kN);
    Y = (X > -t).select(X, (X < t).select(X.exp(), X.exp().log1p()));
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// Softmax of 1024 rows of 1024.
void BM_Loop_Softmax(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  for (auto _ : state) {
    for (int64_t r = 0; r < 1024; ++r) {
      const float* xr = x.data() + r * 1024;
      float* yr = y.data() + r * 1024;
      float m = xr[0];
      for (int j = 1; j < 1024; ++j) m = std::max(m, xr[j]);
      float s = 0;
      for (int j = 0; j < 1024; ++j) s += (yr[j] = std::exp(xr[j] - m));
      const float inv = 1 / s;
      for (int j = 0; j < 1024; ++j) yr[j] *= inv;
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_Eigen_Softmax(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  for (auto _ : state) {
    for (int64_t r = 0; r < 1024; ++r) {
      CArr X(x.data() + r * 1024, 1024);
      Arr Y(y.data() + r * 1024, 1024);
      const float m = X.maxCoeff();
      Y = (X - m).exp();
      Y *= 1 / Y.sum();
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
// What the kernels do: Eigen's vector exp / log1p into a scratch
// block, then a plain loop picks the branch (Eigen 3.4's select() is scalar).
void BM_EigenBlock_Elu(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  float e[512];
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; i += 512) {
      Arr(e, 512) = CArr(x.data() + i, 512).exp() - 1.0f;
      for (int j = 0; j < 512; ++j) y[i + j] = x[i + j] < 0 ? e[j] : x[i + j];
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
void BM_EigenBlock_Softplus(benchmark::State& state) {
  auto x = Input(kN);
  std::vector<float> y(kN);
  const float t = std::log(1.1920929e-07f) + 2;
  float e[512], l[512];
  for (auto _ : state) {
    for (int64_t i = 0; i < kN; i += 512) {
      Arr(e, 512) = CArr(x.data() + i, 512).exp();
      Arr(l, 512) = Arr(e, 512).log1p();
      for (int j = 0; j < 512; ++j) {
        const float v = x[i + j];
        y[i + j] = v > -t ? v : (v < t ? e[j] : l[j]);
      }
    }
    benchmark::DoNotOptimize(y.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(kN) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_Loop_Elu);
BENCHMARK(BM_EigenBlock_Elu);
BENCHMARK(BM_EigenBlock_Softplus);
BENCHMARK(BM_Eigen_Elu);
BENCHMARK(BM_Loop_Softplus);
BENCHMARK(BM_Eigen_Softplus);
BENCHMARK(BM_Loop_Softmax);
BENCHMARK(BM_Eigen_Softmax);

// ---- whole ops through a Session ------------------------------------------------------

flowvm::NodeDef* Node(flowvm::GraphDef* g, const std::string& name, const std::string& op,
                      std::vector<std::string> inputs) {
  flowvm::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& i : inputs) n->add_input(i);
  return n;
}

void AddConst(flowvm::GraphDef* g, const std::string& name, const flowvm::Tensor& t) {
  flowvm::NodeDef* n = Node(g, name, "Const", {});
  (*n->mutable_attr())["dtype"].set_type(t.dtype());
  t.AsProtoTensorContent((*n->mutable_attr())["value"].mutable_tensor());
}

void BM_Op(benchmark::State& state, std::string op) {
  const int threads = static_cast<int>(state.range(0));
  const int64_t rows = 1000, cols = 1000;
  flowvm::GraphDef g;
  auto xs = Input(rows * cols);
  AddConst(&g, "x", flowvm::Tensor::FromVector<float>(xs, flowvm::TensorShape({rows, cols})));
  std::vector<std::string> inputs = {"x"};
  if (op == "ReluGrad" || op == "SoftplusGrad") {
    AddConst(&g, "g", flowvm::Tensor::FromVector<float>(xs, flowvm::TensorShape({rows, cols})));
    inputs = {"g", "x"};
  } else if (op == "SoftmaxCrossEntropyWithLogits") {
    std::vector<float> l(rows * cols, 1.0f / cols);
    AddConst(&g, "l", flowvm::Tensor::FromVector<float>(l, flowvm::TensorShape({rows, cols})));
    inputs = {"x", "l"};
  } else if (op == "SparseSoftmaxCrossEntropyWithLogits") {
    std::vector<int64_t> l(rows);
    for (int64_t r = 0; r < rows; ++r) l[r] = (r * 17) % cols;
    AddConst(&g, "l", flowvm::Tensor::FromVector<int64_t>(l));
    inputs = {"x", "l"};
  } else if (op == "BiasAdd") {
    AddConst(&g, "b", flowvm::Tensor::FromVector<float>(std::vector<float>(cols, 0.5f)));
    inputs = {"x", "b"};
  }
  flowvm::NodeDef* n = Node(&g, "y", op, inputs);
  (*n->mutable_attr())["T"].set_type(flowvm::DT_FLOAT);
  flowvm::SessionOptions opts;
  opts.num_threads = threads;
  auto s = flowvm::Session::Create(opts, g);
  if (!s.ok()) {
    state.SkipWithError(s.status().ToString().c_str());
    return;
  }
  std::unique_ptr<flowvm::Session> session = std::move(s).value();
  std::vector<flowvm::Tensor> out;
  auto st = session->Run({}, {"y:0"}, {}, &out);
  if (!st.ok()) {
    state.SkipWithError(st.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    out.clear();
    st = session->Run({}, {"y:0"}, {}, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(rows * cols) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// Process CPU time (all threads): on a loaded shared machine wall time is
// mostly other people's work; CPU time per element is what the kernel costs.
#define NN_OP(OP) BENCHMARK_CAPTURE(BM_Op, OP, std::string(#OP))->Arg(1)->Arg(4)->MeasureProcessCPUTime()
NN_OP(Relu);
NN_OP(ReluGrad);
NN_OP(Elu);
NN_OP(Softplus);
NN_OP(SoftplusGrad);
NN_OP(Softmax);
NN_OP(LogSoftmax);
NN_OP(SoftmaxCrossEntropyWithLogits);
NN_OP(SparseSoftmaxCrossEntropyWithLogits);
NN_OP(BiasAdd);
NN_OP(BiasAddGrad);
NN_OP(L2Loss);

// FusedBatchNormV3 training forward plus FusedBatchNormGradV3 on a
// convnet-sized activation, [16, 56, 56, 64] NHWC (a ResNet stage-1 layer);
// dy is a second Const. ns_per_elem counts the x elements once.
void BM_FusedBatchNorm(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const int64_t n = 16, h = 56, w = 56, c = 64, elems = n * h * w * c;
  flowvm::GraphDef g;
  auto xs = Input(elems);
  const flowvm::TensorShape shape({n, h, w, c});
  AddConst(&g, "x", flowvm::Tensor::FromVector<float>(xs, shape));
  std::vector<float> dys(xs.rbegin(), xs.rend());
  AddConst(&g, "dy", flowvm::Tensor::FromVector<float>(dys, shape));
  AddConst(&g, "scale", flowvm::Tensor::FromVector<float>(std::vector<float>(c, 1.5f)));
  AddConst(&g, "offset", flowvm::Tensor::FromVector<float>(std::vector<float>(c, 0.25f)));
  AddConst(&g, "empty", flowvm::Tensor::FromVector<float>(std::vector<float>{}));
  auto attrs = [](flowvm::NodeDef* node) {
    (*node->mutable_attr())["T"].set_type(flowvm::DT_FLOAT);
    (*node->mutable_attr())["U"].set_type(flowvm::DT_FLOAT);
    (*node->mutable_attr())["epsilon"].set_f(0.001f);
  };
  attrs(Node(&g, "bn", "FusedBatchNormV3", {"x", "scale", "offset", "empty", "empty"}));
  attrs(Node(&g, "bn_grad", "FusedBatchNormGradV3", {"dy", "x", "scale", "bn:3", "bn:4", "bn:5"}));
  flowvm::SessionOptions opts;
  opts.num_threads = threads;
  opts.optimizer.constant_folding = false;  // every step computes both ops
  auto s = flowvm::Session::Create(opts, g);
  if (!s.ok()) {
    state.SkipWithError(s.status().ToString().c_str());
    return;
  }
  std::unique_ptr<flowvm::Session> session = std::move(s).value();
  std::vector<flowvm::Tensor> out;
  const std::vector<std::string> fetches = {"bn:0", "bn_grad:0", "bn_grad:1", "bn_grad:2"};
  auto st = session->Run({}, fetches, {}, &out);
  if (!st.ok()) {
    state.SkipWithError(st.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    out.clear();
    st = session->Run({}, fetches, {}, &out);
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["ns_per_elem"] = benchmark::Counter(double(elems) * state.iterations(),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_FusedBatchNorm)->Arg(1)->Arg(4)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::AddCustomContext("simd_level", flowvm::SimdLevel());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
