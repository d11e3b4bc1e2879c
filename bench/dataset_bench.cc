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
// BM_Fed and BM_Dataset: one iteration = one training step; after 20
// warm-up steps each reports the median step time (counter
// median_step_ms). BM_Alternating/model:M runs both loops in one process in
// alternating blocks of 25 steps (counters fed_ms, dataset_ms, ratio): on a
// shared machine the fairer comparison. bench/run_dataset_bench.sh runs them
// in rounds and prints both side by side with the ratio dataset/fed (<= 1:
// the dataset-fed loop is no slower).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
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

// The loop fed through feeds: a shuffled batch gathered each step.
class FedLoop {
 public:
  explicit FedLoop(int model) : perm_(kExamples) {
    images_ = ops::Placeholder(root_.WithOpName("images"), DT_FLOAT);
    labels_ = ops::Placeholder(root_.WithOpName("labels"), DT_INT32);
    train_ = BuildModel(root_, model, images_, labels_);
    std::iota(perm_.begin(), perm_.end(), 0);
  }
  Status Init() {
    FLOWVM_RETURN_IF_ERROR(root_.status());
    session_ = std::make_unique<ClientSession>(root_, Options());
    return session_->Run({}, {}, {GlobalVariablesInitializer(root_)}, nullptr);
  }
  // An epoch's permutation, reshuffled when used up, as a NumPy loop does.
  Status Step() {
    const Data& d = TheData();
    if (at_ + kBatch > kExamples) {
      std::shuffle(perm_.begin(), perm_.end(), gen_);
      at_ = 0;
    }
    Tensor x(DT_FLOAT, TensorShape({kBatch, kFeatures}));
    Tensor y(DT_INT32, TensorShape({kBatch}));
    const float* features = d.features.data<float>();
    const int32_t* labels = d.labels.data<int32_t>();
    for (int64_t i = 0; i < kBatch; ++i) {
      const int64_t row = perm_[at_ + i];
      std::memcpy(x.data<float>() + i * kFeatures, features + row * kFeatures, kFeatures * sizeof(float));
      y.data<int32_t>()[i] = labels[row];
    }
    at_ += kBatch;
    return session_->Run({{images_, x}, {labels_, y}}, {}, {train_}, nullptr);
  }

 private:
  Scope root_ = Scope::NewRootScope();
  Output images_, labels_;
  Operation train_;
  std::unique_ptr<ClientSession> session_;
  std::vector<int64_t> perm_;
  std::mt19937 gen_{2};
  int64_t at_ = kExamples;
};

// The loop fed by the dataset; model -1: each step only takes a batch.
class DatasetLoop {
 public:
  explicit DatasetLoop(int model) : model_(model) {
    const std::vector<DataType> types = {DT_FLOAT, DT_INT32};
    const std::vector<PartialTensorShape> rows = {PartialTensorShape({kFeatures}), PartialTensorShape({})};
    const std::vector<PartialTensorShape> batches = {PartialTensorShape({kBatch, kFeatures}),
                                                     PartialTensorShape({kBatch})};
    features_ = ops::Placeholder(root_.WithOpName("features"), DT_FLOAT);
    labels_ = ops::Placeholder(root_.WithOpName("all_labels"), DT_INT32);
    auto slices = ops::TensorSliceDataset(root_, OutputList{features_, labels_}, rows);
    auto shuffled = ops::ShuffleDataset(root_, slices, int64_t{10000}, int64_t{3}, int64_t{4}, types, rows);
    auto repeated = ops::RepeatDataset(root_, shuffled, int64_t{-1}, types, rows);
    auto batched = ops::BatchDatasetV2(root_, repeated, kBatch, true, types, batches);
    auto prefetched = ops::PrefetchDataset(root_, batched, int64_t{2}, types, batches);
    auto iterator = ops::IteratorV2(root_, "", "", types, batches);
    make_ = ops::MakeIterator(root_, prefetched, iterator);
    auto next = ops::IteratorGetNext(root_, iterator, types, batches);
    train_ = model >= 0 ? BuildModel(root_, model, next.components[0], next.components[1]) : next.operation;
  }
  Status Init() {
    FLOWVM_RETURN_IF_ERROR(root_.status());
    session_ = std::make_unique<ClientSession>(root_, Options());
    if (model_ >= 0) FLOWVM_RETURN_IF_ERROR(session_->Run({}, {}, {GlobalVariablesInitializer(root_)}, nullptr));
    const Data& d = TheData();
    return session_->Run({{features_, d.features}, {labels_, d.labels}}, {}, {make_}, nullptr);
  }
  Status Step() { return session_->Run({}, {}, {train_}, nullptr); }

 private:
  const int model_;
  Scope root_ = Scope::NewRootScope();
  Output features_, labels_;
  Operation make_, train_;
  std::unique_ptr<ClientSession> session_;
};

template <typename Loop>
void RunLoop(benchmark::State& state) {
  Loop loop(static_cast<int>(state.range(0)));
  Status s = loop.Init();
  if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  TimeSteps(state, [&] { return loop.Step(); });
}

void BM_Fed(benchmark::State& state) { RunLoop<FedLoop>(state); }
void BM_Dataset(benchmark::State& state) { RunLoop<DatasetLoop>(state); }

// Both loops in one process, in alternating blocks of 25 steps (so that
// a change in the machine's load hits both alike, and the prefetch thread
// works while its own loop runs, not during the other's steps); counters:
// each loop's median step and their ratio.
void BM_Alternating(benchmark::State& state) {
  const int model = static_cast<int>(state.range(0));
  FedLoop fed(model);
  DatasetLoop dataset(model);
  Status s = fed.Init();
  if (s.ok()) s = dataset.Init();
  for (int i = 0; s.ok() && i < 20; ++i) s = fed.Step();
  for (int i = 0; s.ok() && i < 20; ++i) s = dataset.Step();
  std::vector<double> fed_ms, dataset_ms;
  auto block = [&](auto& loop, std::vector<double>* times) {
    for (int i = 0; s.ok() && i < 25; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      s = loop.Step();
      times->push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
  };
  for (auto _ : state) {
    block(fed, &fed_ms);
    block(dataset, &dataset_ms);
    if (!s.ok()) break;
  }
  if (!s.ok()) return state.SkipWithError(s.ToString().c_str());
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0.0 : v[v.size() / 2];
  };
  state.counters["fed_ms"] = median(fed_ms);
  state.counters["dataset_ms"] = median(dataset_ms);
  state.counters["ratio"] = state.counters["dataset_ms"] / state.counters["fed_ms"];
}

BENCHMARK(BM_Fed)->ArgName("model")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(300);
BENCHMARK(BM_Dataset)->ArgName("model")->Arg(0)->Arg(1)->Arg(-1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(300);
BENCHMARK(BM_Alternating)->ArgName("model")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(12);

}  // namespace

BENCHMARK_MAIN();
