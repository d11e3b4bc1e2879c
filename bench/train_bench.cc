// Training-step benchmarks (Google Benchmark): one SGD step of each model
// on fixed random float32 data, the graphs built with the C++ client API.
//
//   BM_TrainMLP/threads:T      784-512-512-10, ReLU, softmax cross-entropy, batch 128
//   BM_TrainConvNet/threads:T  28x28x1 -> conv5x5x32 -> maxpool2 -> conv5x5x64 -> maxpool2
//                              -> fc1024 -> fc10, ReLU, softmax cross-entropy, batch 64 (NHWC)
//
// One iteration = one Session::Run of the train op with the batch fed
// (forward, symbolic gradients, ApplyGradientDescent on every variable);
// after 3 warm-up steps each model trains a fixed number of steps (200 and
// 40) and reports the median step time (counter median_step_ms).
// bench/run_train_bench.sh runs this and the PyTorch peer (bench/train_torch.py)
// in the same run and prints median step times and the ratios.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/training.h"

namespace {

using namespace flowvm;  // NOLINT: a benchmark file

Tensor RandomTensor(const TensorShape& shape, uint32_t seed) {
  std::vector<float> v(shape.num_elements());
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(0, 1);
  for (float& x : v) x = dist(gen);
  return Tensor::FromVector<float>(v, shape);
}

Tensor RandomLabels(int64_t n, uint32_t seed) {
  std::vector<int32_t> v(n);
  std::mt19937 gen(seed);
  for (int32_t& x : v) x = static_cast<int32_t>(gen() % 10);
  return Tensor::FromVector<int32_t>(v);
}

Output Dense(const Scope& s, const Output& x, int64_t in, int64_t out, int64_t seed, bool relu) {
  Variable w(s.WithOpName("weights"), {in, out}, DT_FLOAT, init::GlorotUniform(seed));
  Variable b(s.WithOpName("biases"), {out}, DT_FLOAT, init::Zeros());
  Output y = ops::BiasAdd(s, ops::MatMul(s, x, w), b);
  return relu ? Output(ops::Relu(s, y)) : y;
}

Output ConvPool(const Scope& s, const Output& x, int64_t in, int64_t out, int64_t seed) {
  Variable w(s.WithOpName("weights"), {5, 5, in, out}, DT_FLOAT, init::GlorotUniform(seed));
  Variable b(s.WithOpName("biases"), {out}, DT_FLOAT, init::Zeros());
  auto conv = ops::Conv2D(s, x, w, {1, 1, 1, 1}, "SAME");
  auto relu = ops::Relu(s, ops::BiasAdd(s, conv, b));
  return ops::MaxPool(s, relu, {1, 2, 2, 1}, {1, 2, 2, 1}, "SAME");
}

struct Model {
  Scope root = Scope::NewRootScope();
  Output images, labels, loss;
  Operation train;
};

void Finish(Model* m, const Output& logits) {
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(m->root, logits, m->labels);
  m->loss = ops::Mean(m->root.WithOpName("loss"), xent.loss, {0});
  m->train = GradientDescentOptimizer(0.01f).Minimize(m->root, m->loss);
}

void BuildMLP(Model* m) {
  m->images = ops::Placeholder(m->root.WithOpName("images"), DT_FLOAT);
  m->labels = ops::Placeholder(m->root.WithOpName("labels"), DT_INT32);
  Output h1 = Dense(m->root.NewSubScope("hidden1"), m->images, 784, 512, 1, true);
  Output h2 = Dense(m->root.NewSubScope("hidden2"), h1, 512, 512, 2, true);
  Finish(m, Dense(m->root.NewSubScope("logits"), h2, 512, 10, 3, false));
}

void BuildConvNet(Model* m) {
  m->images = ops::Placeholder(m->root.WithOpName("images"), DT_FLOAT);
  m->labels = ops::Placeholder(m->root.WithOpName("labels"), DT_INT32);
  Output c1 = ConvPool(m->root.NewSubScope("conv1"), m->images, 1, 32, 1);
  Output c2 = ConvPool(m->root.NewSubScope("conv2"), c1, 32, 64, 2);
  Output flat = ops::Reshape(m->root, c2, {-1, 7 * 7 * 64});
  Output fc1 = Dense(m->root.NewSubScope("fc1"), flat, 7 * 7 * 64, 1024, 3, true);
  Finish(m, Dense(m->root.NewSubScope("logits"), fc1, 1024, 10, 4, false));
}

void RunTraining(benchmark::State& state, void (*build)(Model*), const TensorShape& image_shape) {
  Model m;
  build(&m);
  if (!m.root.ok()) {
    state.SkipWithError(m.root.status().ToString().c_str());
    return;
  }
  SessionOptions options;
  options.num_threads = static_cast<int>(state.range(0));
  ClientSession session(m.root, options);
  Status s = session.Run({}, {}, {GlobalVariablesInitializer(m.root)}, nullptr);
  ClientSession::FeedType feeds = {{m.images, RandomTensor(image_shape, 7)},
                                   {m.labels, RandomLabels(image_shape.dim_size(0), 8)}};
  for (int i = 0; s.ok() && i < 3; ++i) s = session.Run(feeds, {}, {m.train}, nullptr);  // warm-up
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::vector<double> step_ms;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    s = session.Run(feeds, {}, {m.train}, nullptr);
    step_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      break;
    }
  }
  std::sort(step_ms.begin(), step_ms.end());
  state.counters["median_step_ms"] = step_ms.empty() ? 0 : step_ms[step_ms.size() / 2];
  state.counters["examples_per_s"] =
      benchmark::Counter(static_cast<double>(image_shape.dim_size(0)), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_TrainMLP(benchmark::State& state) { RunTraining(state, BuildMLP, TensorShape({128, 784})); }
void BM_TrainConvNet(benchmark::State& state) { RunTraining(state, BuildConvNet, TensorShape({64, 28, 28, 1})); }

// A fixed number of steps, as the PyTorch peer runs (bench/train_torch.py).
BENCHMARK(BM_TrainMLP)->ArgName("threads")->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(200);
BENCHMARK(BM_TrainConvNet)->ArgName("threads")->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(40);

}  // namespace

BENCHMARK_MAIN();
