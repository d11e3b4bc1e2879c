// Word-count kernel benchmarks (Google Benchmark), one thread, on a text of
// 4M words drawn from a Zipf-like vocabulary of 100k (about 27 MB):
//
//   BM_StringSplitV2           the text (one element) split on whitespace;
//                              items = words.
//   BM_UniqueWithCounts/string its 4M words counted (out_idx int32).
//   BM_UniqueWithCounts/int64  4M int64 keys with the same distribution.
//   BM_UnorderedMapCount/...   the peer: std::unordered_map<string_view or
//                              int64, int64> building the same ids and
//                              counts (what TensorFlow's kernel uses for
//                              floats; absl's map for the rest).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "flowvm/tensor.h"
#include "graph/op_registry.h"
#include "kernels/framework/kernel_registry.h"

namespace {

using namespace flowvm;  // NOLINT: benchmark file

constexpr int64_t kWords = int64_t{4} << 20;
constexpr uint64_t kVocabulary = 100000;

// Word ranks, small ones far more often (the product of two uniforms).
std::vector<int64_t> Ranks() {
  std::vector<int64_t> ranks(kWords);
  uint64_t r = 88172645463325252ULL;
  auto next = [&r] {
    r ^= r << 13;
    r ^= r >> 7;
    r ^= r << 17;
    return r;
  };
  for (int64_t& k : ranks) k = static_cast<int64_t>((next() % kVocabulary) * (next() % kVocabulary) / kVocabulary);
  return ranks;
}

const std::vector<int64_t>& SharedRanks() {
  static const auto* ranks = new std::vector<int64_t>(Ranks());
  return *ranks;
}

const std::string& Text() {
  static const std::string* text = [] {
    auto* t = new std::string;
    int64_t i = 0;
    for (int64_t k : SharedRanks()) {
      *t += "w" + std::to_string(k);
      *t += (++i % 12 == 0) ? '\n' : ' ';
    }
    return t;
  }();
  return *text;
}

// The kernel of `op` with `attrs`, for `inputs`' types.
std::unique_ptr<OpKernel> Kernel(const std::string& op, const std::vector<std::pair<std::string, DataType>>& types,
                                 const DataTypeVector& in, const DataTypeVector& out) {
  NodeDef def;
  def.set_name("k");
  def.set_op(op);
  for (size_t i = 0; i < in.size(); ++i) def.add_input("in" + std::to_string(i));
  for (const auto& [name, type] : types) (*def.mutable_attr())[name].set_type(type);
  if (op == "StringSplitV2") (*def.mutable_attr())["maxsplit"].set_i(-1);
  auto kernel = CreateOpKernel(DEVICE_CPU, def, OpRegistry::Global()->LookUpOrNull(op)->op_def, in, out, nullptr);
  return kernel.ok() ? std::move(*kernel) : nullptr;
}

// Computes `kernel` once per iteration; returns false (and reports) on error.
bool RunLoop(benchmark::State& state, OpKernel* kernel, std::vector<Tensor> inputs) {
  if (kernel == nullptr) {
    state.SkipWithError("no kernel");
    return false;
  }
  StepState step;
  std::vector<TensorValue> values(inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) values[i].tensor = &inputs[i];
  for (auto _ : state) {
    std::vector<OutputSlot> outputs(kernel->num_outputs());
    OpKernelContext ctx(&step, kernel, values.data(), outputs.data());
    kernel->Compute(&ctx);
    if (!ctx.status().ok()) {
      state.SkipWithError(ctx.status().ToString().c_str());
      return false;
    }
    benchmark::DoNotOptimize(outputs[0].value.raw_data());
  }
  return true;
}

void BM_StringSplitV2(benchmark::State& state) {
  auto kernel = Kernel("StringSplitV2", {}, {DT_STRING, DT_STRING}, {DT_INT64, DT_STRING, DT_INT64});
  if (RunLoop(state, kernel.get(),
              {Tensor::FromVector<std::string>({Text()}), Tensor::Scalar<std::string>("")}))
    state.SetItemsProcessed(state.iterations() * kWords);
}
BENCHMARK(BM_StringSplitV2)->Unit(benchmark::kMillisecond);

Tensor Words() {
  Tensor t(DT_STRING, TensorShape({kWords}));
  std::string* w = t.data<std::string>();
  for (int64_t i = 0; i < kWords; ++i) w[i] = "w" + std::to_string(SharedRanks()[i]);
  return t;
}

void BM_UniqueWithCounts_String(benchmark::State& state) {
  auto kernel = Kernel("UniqueWithCounts", {{"T", DT_STRING}, {"out_idx", DT_INT32}}, {DT_STRING},
                       {DT_STRING, DT_INT32, DT_INT32});
  if (RunLoop(state, kernel.get(), {Words()})) state.SetItemsProcessed(state.iterations() * kWords);
}
BENCHMARK(BM_UniqueWithCounts_String)->Name("BM_UniqueWithCounts/string")->Unit(benchmark::kMillisecond);

void BM_UniqueWithCounts_Int64(benchmark::State& state) {
  auto kernel = Kernel("UniqueWithCounts", {{"T", DT_INT64}, {"out_idx", DT_INT32}}, {DT_INT64},
                       {DT_INT64, DT_INT32, DT_INT32});
  if (RunLoop(state, kernel.get(), {Tensor::FromVector<int64_t>(SharedRanks())}))
    state.SetItemsProcessed(state.iterations() * kWords);
}
BENCHMARK(BM_UniqueWithCounts_Int64)->Name("BM_UniqueWithCounts/int64")->Unit(benchmark::kMillisecond);

// The peer: ids in first-occurrence order and counts with std::unordered_map.
template <typename K, typename Get>
void CountWithUnorderedMap(benchmark::State& state, Get get) {
  std::vector<int32_t> idx(kWords);
  for (auto _ : state) {
    std::unordered_map<K, int32_t> ids;
    std::vector<int32_t> counts;
    for (int64_t i = 0; i < kWords; ++i) {
      auto [it, added] = ids.emplace(get(i), static_cast<int32_t>(counts.size()));
      if (added) counts.push_back(0);
      idx[i] = it->second;
      ++counts[it->second];
    }
    benchmark::DoNotOptimize(counts.data());
    benchmark::DoNotOptimize(idx.data());
  }
  state.SetItemsProcessed(state.iterations() * kWords);
}

void BM_UnorderedMapCount_String(benchmark::State& state) {
  const Tensor words = Words();
  const std::string* w = words.data<std::string>();
  CountWithUnorderedMap<std::string_view>(state, [w](int64_t i) { return std::string_view(w[i]); });
}
BENCHMARK(BM_UnorderedMapCount_String)->Name("BM_UnorderedMapCount/string")->Unit(benchmark::kMillisecond);

void BM_UnorderedMapCount_Int64(benchmark::State& state) {
  const std::vector<int64_t>& ranks = SharedRanks();
  CountWithUnorderedMap<int64_t>(state, [&ranks](int64_t i) { return ranks[i]; });
}
BENCHMARK(BM_UnorderedMapCount_Int64)->Name("BM_UnorderedMapCount/int64")->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
