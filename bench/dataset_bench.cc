// Input pipeline benchmark (Google Benchmark): the same SGD training loop
// fed two ways, on the same in-memory arrays (20,000 examples of 784
// float32 features and an int32 label, MNIST-sized).
//
//   BM_Fed/model:M      each step gathers a shuffled batch of 128 rows into
//                       new tensors (NumPy's x[perm[i:i + 128]]) and feeds
//                       them to the step (feed_dict)
//   BM_Dataset/model:M  the arrays are fed once, when the iterator is made:
//                       TensorSliceDataset -> ShuffleDataset(10,000) ->
//                       RepeatDataset(-1) -> BatchDatasetV2(128, drop) ->
//                       PrefetchDataset(2) -> IteratorGetNext -> the model
//
//   model 0: MLP 784-512-512-10, ReLU, softmax cross-entropy (the train
//            bench's model)
//   model 1: softmax regression 784-10 (a cheap step: the input's cost shows)
//   model -1 (BM_Dataset only): no model, each step only takes a batch
//
// One iteration = one training step; after 20 warm-up steps each reports
// the median step time (counter median_step_ms). bench/run_dataset_bench.sh
// runs it in rounds and prints both side by side with the ratio
// dataset/fed (<= 1: the dataset-fed loop is no slower).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/training.h"

namespace {

using namespace flowvm;  // NOLINT: a benchmark file

constexpr int64_t kExamples = 20000, kFeatures = 784, kBatch = 128;

struct Data {
  Tensor features, labels;
  Data() {
    std::mt19937 gen(1);
    std::uniform_real_distribution<float> dist(0, 1);
    std::vector<float> f(kExamples * kFeatures);
    for (float& x : f) x = dist(gen);
    std::vector<int32_t> l(kExamples);
    for (int32_t& y : l) y = static_cast<int32_t>(gen() % 10);
    features = Tensor::FromVector<float>(f, TensorShape({kExamples, kFeatures}));
    labels = Tensor::FromVector<int32_t>(l);
  }
};

const Data& TheData() {
  static const Data* d = new Data();
  return *d;
}

Output Dense(const Scope& s, const Output& x, int64_t in, int64_t out, int64_t seed, bool relu) {
  Variable w(s.WithOpName("weights"), {in, out}, DT_FLOAT, init::GlorotUniform(seed));
  Variable b(s.WithOpName("biases"), {out}, DT_FLOAT, init::Zeros());
  Output y = ops::BiasAdd(s, ops::MatMul(s, x, w), b);
  return relu ? Output(ops::Relu(s, y)) : y;
}

// The model on (images, labels); returns the train op.
Operation BuildModel(const Scope& root, int model, const Output& images, const Output& labels) {
  Output logits;
  if (model == 0) {
    Output h1 = Dense(root.NewSubScope("hidden1"), images, kFeatures, 512, 1, true);
    Output h2 = Dense(root.NewSubScope("hidden2"), h1, 512, 512, 2, true);
    logits = Dense(root.NewSubScope("logits"), h2, 512, 10, 3, false);
  } else {
    logits = Dense(root.NewSubScope("logits"), images, kFeatures, 10, 1, false);
  }
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(root, logits, labels);
  Output loss = ops::Mean(root.WithOpName("loss"), xent.loss, {0});
  return GradientDescentOptimizer(0.01f).Minimize(root, loss);
}

// Times `steps` calls of step(); reports the median.
template <typename Step>
void TimeSteps(benchmark::State& state, Step step) {
  Status s;
  for (int i = 0; s.ok() && i < 20; ++i) s = step();  // warm-up
  std::vector<double> step_ms;
  for (auto _ : state) {
    if (!s.ok()) break;
    auto t0 = std::chrono::steady_clock::now();
    s = step();
    step_ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  std::sort(step_ms.begin(), step_ms.end());
  state.counters["median_step_ms"] = step_ms.empty() ? 0 : step_ms[step_ms.size() / 2];
}

SessionOptions Options() {
  SessionOptions o;
  o.num_threads = 2;
  return o;
}

void BM_Fed(benchmark::State& state) {
  const Data& d = TheData();
  Scope root = Scope::NewRootScope();
  auto images = ops::Placeholder(root.WithOpName("images"), DT_FLOAT);
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32);
  Operation train = BuildModel(root, static_cast<int>(state.range(0)), images, labels);
  if (!root.ok()) return state.SkipWithError(root.status().ToString().c_str());
  ClientSession session(root, Options());
  Status init = session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr);
  if (!init.ok()) return state.SkipWithError(init.ToString().c_str());
  // An epoch's permutation, reshuffled when used up, as a NumPy loop does.
  std::vector<int64_t> perm(kExamples);
  std::iota(perm.begin(), perm.end(), 0);
  std::mt19937 gen(2);
  int64_t at = kExamples;
  const float* features = d.features.data<float>();
  const int32_t* all_labels = d.labels.data<int32_t>();
  TimeSteps(state, [&]() -> Status {
    if (at + kBatch > kExamples) {
      std::shuffle(perm.begin(), perm.end(), gen);
      at = 0;
    }
    Tensor x(DT_FLOAT, TensorShape({kBatch, kFeatures}));
    Tensor y(DT_INT32, TensorShape({kBatch}));
    for (int64_t i = 0; i < kBatch; ++i) {
      const int64_t row = perm[at + i];
      std::memcpy(x.data<float>() + i * kFeatures, features + row * kFeatures, kFeatures * sizeof(float));
      y.data<int32_t>()[i] = all_labels[row];
    }
    at += kBatch;
    return session.Run({{images, x}, {labels, y}}, {}, {train}, nullptr);
  });
}

// The pipeline alone (model -1): each step only fetches a batch.
void BM_Dataset(benchmark::State& state) {
  const Data& d = TheData();
  Scope root = Scope::NewRootScope();
  const std::vector<DataType> types = {DT_FLOAT, DT_INT32};
  const std::vector<PartialTensorShape> rows = {PartialTensorShape({kFeatures}), PartialTensorShape({})};
  const std::vector<PartialTensorShape> batches = {PartialTensorShape({kBatch, kFeatures}), PartialTensorShape({kBatch})};
  auto features = ops::Placeholder(root.WithOpName("features"), DT_FLOAT);
  auto labels = ops::Placeholder(root.WithOpName("all_labels"), DT_INT32);
  auto slices = ops::TensorSliceDataset(root, OutputList{features, labels}, rows);
  auto shuffled = ops::ShuffleDataset(root, slices, int64_t{10000}, int64_t{3}, int64_t{4}, types, rows);
  auto repeated = ops::RepeatDataset(root, shuffled, int64_t{-1}, types, rows);
  auto batched = ops::BatchDatasetV2(root, repeated, kBatch, true, types, batches);
  auto prefetched = ops::PrefetchDataset(root, batched, int64_t{2}, types, batches);
  auto iterator = ops::IteratorV2(root, "", "", types, batches);
  auto make = ops::MakeIterator(root, prefetched, iterator);
  auto next = ops::IteratorGetNext(root, iterator, types, batches);
  const int model = static_cast<int>(state.range(0));
  Operation train = model >= 0 ? BuildModel(root, model, next.components[0], next.components[1]) : next.operation;
  if (!root.ok()) return state.SkipWithError(root.status().ToString().c_str());
  ClientSession session(root, Options());
  Status init = model >= 0 ? session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr) : Status::OK();
  if (init.ok()) init = session.Run({{features, d.features}, {labels, d.labels}}, {}, {make}, nullptr);
  if (!init.ok()) return state.SkipWithError(init.ToString().c_str());
  TimeSteps(state, [&]() -> Status { return session.Run({}, {}, {train}, nullptr); });
}

BENCHMARK(BM_Fed)->ArgName("model")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(300);
BENCHMARK(BM_Dataset)->ArgName("model")->Arg(0)->Arg(1)->Arg(-1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(300);

}  // namespace

BENCHMARK_MAIN();
