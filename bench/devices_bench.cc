// Several devices in one process (Google Benchmark), one thread:
//
//   BM_TransferChain/floats:N/devices:D  a chain of 1000 Identity nodes over
//       a fed tensor of N floats, alternating between CPU:0 and CPU:1 (D=2:
//       every edge is a _Send/_Recv pair) or all on CPU:0 (D=1). The
//       difference per link is the cost of one transfer; no bytes move, so
//       4 bytes and 16 MiB should cost the same.
//   BM_Memcpy/bytes:N  the peer: copying N bytes once, what a transfer that
//       moved the bytes would cost at least.
//   BM_TrainMlp/devices:D  one SGD step of a two-layer MLP (784-512-10,
//       batch 128) with each layer's variables and computation on its own
//       device (D=2) or both on CPU:0 (D=1).
//
// bench/run_devices_bench.sh runs them and prints the per-transfer cost and
// the MLP ratio against the targets.
#include <benchmark/benchmark.h>

#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "flowvm/cc/client_session.h"
#include "flowvm/cc/ops.h"
#include "flowvm/cc/training.h"
#include "flowvm/session.h"

namespace {

using namespace flowvm;  // NOLINT: a benchmark file

constexpr int kLinks = 1000;

GraphDef TransferChain(int64_t floats, int devices) {
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  x->set_device("/device:CPU:0");
  (*x->mutable_attr())["dtype"].set_type(DT_FLOAT);
  (*x->mutable_attr())["shape"].mutable_shape()->add_dim()->set_size(floats);
  std::string prev = "x";
  for (int i = 1; i <= kLinks; ++i) {
    NodeDef* n = g.add_node();
    n->set_name("id" + std::to_string(i));
    n->set_op("Identity");
    n->add_input(prev);
    n->set_device("/device:CPU:" + std::to_string(devices == 2 ? i % 2 : 0));
    (*n->mutable_attr())["T"].set_type(DT_FLOAT);
    prev = n->name();
  }
  return g;
}

void BM_TransferChain(benchmark::State& state) {
  const int64_t floats = state.range(0);
  const int devices = static_cast<int>(state.range(1));
  SessionOptions options;
  options.num_threads = 1;
  options.cpu_devices = 2;
  options.optimizer.remove_identity_chains = false;  // the chain is the point
  auto session = Session::Create(options, TransferChain(floats, devices));
  if (!session.ok()) {
    state.SkipWithError(session.status().ToString().c_str());
    return;
  }
  Tensor x(DT_FLOAT, TensorShape({floats}));
  std::memset(x.raw_data(), 0, x.TotalBytes());
  const std::vector<std::pair<std::string, Tensor>> feeds{{"x", x}};
  const std::vector<std::string> fetches{"id" + std::to_string(kLinks) + ":0"};
  std::vector<Tensor> out;
  RunStats stats;
  Status s = (*session)->Run(feeds, fetches, {}, &out, &stats);
  if (s.ok() && out[0].raw_data() != x.raw_data()) s = errors::Internal("the chain copied the tensor");
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    s = (*session)->Run(feeds, fetches, {}, &out);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  state.counters["links"] = kLinks;
  state.counters["partitions"] = stats.partitions;
}

void BM_Memcpy(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0));
  std::vector<char> a(bytes, 1), b(bytes);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::DoNotOptimize(b.data());
    benchmark::ClobberMemory();
  }
}

Tensor Random(const TensorShape& shape, uint32_t seed) {
  std::vector<float> v(shape.num_elements());
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(0, 1);
  for (float& f : v) f = dist(gen);
  return Tensor::FromVector<float>(v, shape);
}

void BM_TrainMlp(benchmark::State& state) {
  const int devices = static_cast<int>(state.range(0));
  Scope root = Scope::NewRootScope();
  auto images = ops::Placeholder(root.WithOpName("images"), DT_FLOAT);
  auto labels = ops::Placeholder(root.WithOpName("labels"), DT_INT32);
  Scope l1 = root.NewSubScope("layer1").WithDevice("/device:CPU:0");
  Scope l2 = root.NewSubScope("layer2").WithDevice(devices == 2 ? "/device:CPU:1" : "/device:CPU:0");
  Variable w1(l1.WithOpName("w"), {784, 512}, DT_FLOAT, init::GlorotUniform(1));
  Variable b1(l1.WithOpName("b"), {512}, DT_FLOAT, init::Zeros());
  auto h = ops::Relu(l1, ops::BiasAdd(l1, ops::MatMul(l1, images, w1), b1));
  Variable w2(l2.WithOpName("w"), {512, 10}, DT_FLOAT, init::GlorotUniform(2));
  Variable b2(l2.WithOpName("b"), {10}, DT_FLOAT, init::Zeros());
  auto logits = ops::BiasAdd(l2, ops::MatMul(l2, h, w2), b2);
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(l2, logits, labels);
  auto loss = ops::Mean(l2.WithOpName("loss"), xent.loss, {0});
  Operation train = GradientDescentOptimizer(0.01f).Minimize(root, loss);
  SessionOptions options;
  options.num_threads = 1;
  options.cpu_devices = 2;
  ClientSession session(root, options);
  Status s = session.Run({}, {}, {GlobalVariablesInitializer(root)}, nullptr);
  std::vector<int32_t> l(128);
  for (int i = 0; i < 128; ++i) l[i] = i % 10;
  ClientSession::FeedType feeds = {{images, Random(TensorShape({128, 784}), 7)}, {labels, Tensor::FromVector<int32_t>(l)}};
  RunStats stats, first;
  for (int i = 0; s.ok() && i < 3; ++i) s = session.Run(feeds, {}, {train}, nullptr, i == 0 ? &first : &stats);  // warm-up
  if (!s.ok()) {
    state.SkipWithError(s.ToString().c_str());
    return;
  }
  for (auto _ : state) {
    s = session.Run(feeds, {}, {train}, nullptr);
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
  }
  state.counters["devices"] = devices;
  state.counters["partitions"] = first.partitions;
  state.counters["transfers"] = static_cast<double>(first.transfers.size());
}

}  // namespace

BENCHMARK(BM_TransferChain)
    ->ArgNames({"floats", "devices"})
    ->Args({1, 1})
    ->Args({1, 2})
    ->Args({int64_t{4} << 20, 1})
    ->Args({int64_t{4} << 20, 2})
    ->UseRealTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Memcpy)->ArgName("bytes")->Arg(int64_t{16} << 20)->UseRealTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TrainMlp)->ArgName("devices")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
