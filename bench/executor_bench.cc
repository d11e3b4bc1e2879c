// Executor overhead benchmarks (Google Benchmark).
//
//   BM_Chain/threads:T        a chain of 10,000 scalar float AddV2 nodes
//                             (x0 = Const 1; x_{i+1} = AddV2(x_i, c)), the
//                             last one fetched; counter ns_per_node.
//   BM_Independent/threads:T  10,000 independent AddV2(c1, c2) nodes run as
//                             the targets of one step; counter ns_per_node.
//   BM_RunOverhead_Const      a cached step that fetches one Const;
//                             counter us_per_run.
//   BM_RunOverhead_FeedIdentity  a cached step that feeds a scalar to a
//                             Placeholder and fetches Identity of it;
//                             counter us_per_run.
//
// Every session is created and its step prepared (Run once: the step cache
// is warm) before timing starts. Times are wall clock (UseRealTime): with
// T > 1 the calling thread is not the only one working.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "flowvm/graph.pb.h"
#include "flowvm/session.h"
#include "flowvm/tensor.h"

namespace {

constexpr int kNodes = 10000;

using flowvm::GraphDef;
using flowvm::NodeDef;

// prefix + i (spelled out: GCC 12 warns about `"x" + std::to_string(i)`).
std::string Name(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

NodeDef* AddConst(GraphDef* g, const std::string& name, float v) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op("Const");
  (*n->mutable_attr())["dtype"].set_type(flowvm::DT_FLOAT);
  flowvm::TensorProto* t = (*n->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(flowvm::DT_FLOAT);
  t->mutable_tensor_shape();  // scalar
  t->add_float_val(v);
  return n;
}

NodeDef* AddBinary(GraphDef* g, const std::string& op, const std::string& name, const std::string& a,
                   const std::string& b) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->add_input(a);
  n->add_input(b);
  (*n->mutable_attr())["T"].set_type(flowvm::DT_FLOAT);
  return n;
}

NodeDef* AddUnary(GraphDef* g, const std::string& op, const std::string& name, const std::string& a) {
  NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  n->add_input(a);
  (*n->mutable_attr())["T"].set_type(flowvm::DT_FLOAT);
  return n;
}

std::unique_ptr<flowvm::Session> MakeSession(int threads, const GraphDef& g, benchmark::State& state) {
  flowvm::SessionOptions opts;
  opts.num_threads = threads;
  // The graphs are made of constants: folded, they would measure nothing.
  opts.optimizer.constant_folding = false;
  auto s = flowvm::Session::Create(opts, g);
  if (!s.ok()) {
    state.SkipWithError(("Session::Create: " + s.status().ToString()).c_str());
    return nullptr;
  }
  return std::move(*s);
}

// Runs the step until Google Benchmark is satisfied; returns false (and marks
// the benchmark as failed) on the first error.
bool TimedRuns(benchmark::State& state, flowvm::Session* session,
               const std::vector<std::pair<std::string, flowvm::Tensor>>& feeds,
               const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
               double* ns_per_iter) {
  std::vector<flowvm::Tensor> out;
  // Warm-up: prepares and caches the step, touches all memory once.
  for (int i = 0; i < 3; ++i) {
    flowvm::Status st = session->Run(feeds, fetches, targets, &out);
    if (!st.ok()) {
      state.SkipWithError(("Run: " + st.ToString()).c_str());
      return false;
    }
  }
  auto start = std::chrono::steady_clock::now();
  int64_t iters = 0;
  for (auto _ : state) {
    flowvm::Status st = session->Run(feeds, fetches, targets, &out);
    if (!st.ok()) {
      state.SkipWithError(("Run: " + st.ToString()).c_str());
      return false;
    }
    benchmark::DoNotOptimize(out.data());
    ++iters;
  }
  double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  *ns_per_iter = iters > 0 ? ns / static_cast<double>(iters) : 0;
  return true;
}

// (a) x0 = Const 1; c = Const 1; x_{i+1} = AddV2(x_i, c); fetch x_N.
void BM_Chain(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  GraphDef g;
  AddConst(&g, "x0", 1.0f);
  AddConst(&g, "c", 1.0f);
  for (int i = 0; i < kNodes; ++i)
    AddBinary(&g, "AddV2", Name("x", i + 1), Name("x", i), "c");
  auto session = MakeSession(threads, g, state);
  if (!session) return;
  const std::vector<std::string> fetches{Name("x", kNodes) + ":0"};
  double ns = 0;
  if (!TimedRuns(state, session.get(), {}, fetches, {}, &ns)) return;
  // Check the result once: 1 + N.
  std::vector<flowvm::Tensor> out;
  if (session->Run({}, fetches, {}, &out).ok() && out[0].scalar<float>() != 1.0f + kNodes)
    state.SkipWithError("wrong chain result");
  state.counters["ns_per_node"] = ns / kNodes;
  state.counters["nodes"] = kNodes;
  state.counters["threads"] = threads;
}

// (b) c1, c2 = Const; a_i = AddV2(c1, c2) for i < N; all a_i are targets.
void BM_Independent(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  GraphDef g;
  AddConst(&g, "c1", 1.0f);
  AddConst(&g, "c2", 2.0f);
  std::vector<std::string> targets;
  targets.reserve(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    targets.push_back(Name("a", i));
    AddBinary(&g, "AddV2", targets.back(), "c1", "c2");
  }
  auto session = MakeSession(threads, g, state);
  if (!session) return;
  double ns = 0;
  if (!TimedRuns(state, session.get(), {}, {}, targets, &ns)) return;
  state.counters["ns_per_node"] = ns / kNodes;
  state.counters["nodes"] = kNodes;
  state.counters["threads"] = threads;
}

// (c1) Run overhead: fetch one Const.
void BM_RunOverhead_Const(benchmark::State& state) {
  GraphDef g;
  AddConst(&g, "c", 1.0f);
  auto session = MakeSession(static_cast<int>(state.range(0)), g, state);
  if (!session) return;
  double ns = 0;
  if (!TimedRuns(state, session.get(), {}, {"c:0"}, {}, &ns)) return;
  state.counters["us_per_run"] = ns / 1000.0;
}

// (c2) Run overhead: feed a scalar to x, fetch y = Identity(x).
void BM_RunOverhead_FeedIdentity(benchmark::State& state) {
  GraphDef g;
  NodeDef* x = g.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(flowvm::DT_FLOAT);
  AddUnary(&g, "Identity", "y", "x");
  auto session = MakeSession(static_cast<int>(state.range(0)), g, state);
  if (!session) return;
  std::vector<std::pair<std::string, flowvm::Tensor>> feeds{{"x", flowvm::Tensor::Scalar<float>(3.0f)}};
  double ns = 0;
  if (!TimedRuns(state, session.get(), feeds, {"y:0"}, {}, &ns)) return;
  state.counters["us_per_run"] = ns / 1000.0;
}

}  // namespace

// With --benchmark_repetitions=N the aggregates include "min" (the least
// disturbed repetition on a shared machine) next to mean/median/stddev.
static double MinOf(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }
#define FLOWVM_BENCH(fn, ...) \
  BENCHMARK(fn)->ArgName("threads")->__VA_ARGS__->UseRealTime()->Unit(benchmark::kMicrosecond)->ComputeStatistics("min", MinOf)

FLOWVM_BENCH(BM_Chain, Arg(1)->Arg(2));
FLOWVM_BENCH(BM_Independent, Arg(1)->Arg(2));
FLOWVM_BENCH(BM_RunOverhead_Const, Arg(1));
FLOWVM_BENCH(BM_RunOverhead_FeedIdentity, Arg(1));

BENCHMARK_MAIN();
