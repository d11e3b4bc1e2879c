// `flowvm board`'s hot endpoint: /api/scalars for 100 runs x 10,000 points
// of one tag (the scalars page), over HTTP on loopback, as the
// front end asks for it (default max_points 1000, and all 10,000). Also how
// long the RunStore takes to read that logdir (1M events) the first time.
//
//   build/bench/board_bench [--benchmark_filter=...]
#include <stdlib.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include <benchmark/benchmark.h>
#include <httplib.h>

#include "board/board_server.h"
#include "flowvm/event.pb.h"
#include "flowvm/record_io.h"

namespace {

constexpr int kRuns = 100;
constexpr int kPoints = 10000;

// A logdir of kRuns runs, each one event file with kPoints "loss" scalars.
std::string WriteLogdir() {
  std::string dir = std::filesystem::temp_directory_path().string() + "/flowvm_board_bench_XXXXXX";
  if (mkdtemp(dir.data()) == nullptr) std::abort();
  for (int r = 0; r < kRuns; ++r) {
    const std::string run = dir + "/run" + std::to_string(r);
    auto w = flowvm::RecordWriter::Create(run + "/events.out.tfevents.1700000000.bench");
    if (!w.ok()) std::abort();
    flowvm::Event e;
    e.set_file_version("brain.Event:2");
    (void)(*w)->Write(e.SerializeAsString());
    for (int i = 0; i < kPoints; ++i) {
      flowvm::Event s;
      s.set_wall_time(1700000000.0 + i * 0.01);
      s.set_step(i);
      flowvm::Summary::Value* v = s.mutable_summary()->add_value();
      v->set_tag("loss");
      v->set_simple_value(2.0f / (1.0f + i * 0.001f) + r * 0.01f);
      (void)(*w)->Write(s.SerializeAsString());
    }
    (void)(*w)->Close();
  }
  return dir;
}

struct Fixture {
  std::string logdir;
  std::unique_ptr<flowvm::board::BoardServer> server;
  std::unique_ptr<httplib::Client> client;

  Fixture() {
    logdir = WriteLogdir();
    {
      flowvm::board::RunStoreOptions o;
      o.logdir = logdir;
      flowvm::board::RunStore store(o);
      const auto start = std::chrono::steady_clock::now();
      store.Reload();
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::fprintf(stderr, "RunStore: read %d runs x %d scalars (%d events) in %.2f s\n", kRuns, kPoints,
                   kRuns * (kPoints + 1), s);
    }
    flowvm::board::BoardOptions o;
    o.logdir = logdir;
    o.port = 0;
    o.reload_ms = 1000;
    auto created = flowvm::board::BoardServer::Create(o);
    if (!created.ok()) std::abort();
    server = std::move(created).value();
    server->Start();
    client = std::make_unique<httplib::Client>("127.0.0.1", server->port());
    client->set_read_timeout(60);
    // Wait until the tailer has read every run.
    for (int i = 0; i < 6000; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      auto res = client->Get("/api/scalars?tag=loss&max_points=1");
      if (!res || res->status != 200) continue;
      size_t complete = 0;
      for (size_t at = res->body.find("\"seen\": 10000"); at != std::string::npos;
           at = res->body.find("\"seen\": 10000", at + 1))
        ++complete;
      if (complete == kRuns) break;
    }
  }
  ~Fixture() {
    server->Stop();
    std::error_code ec;
    std::filesystem::remove_all(logdir, ec);
  }
};

Fixture& Shared() {
  static Fixture* f = new Fixture();
  return *f;
}

void BM_Scalars(benchmark::State& state) {
  Fixture& f = Shared();
  const std::string path = "/api/scalars?tag=loss&max_points=" + std::to_string(state.range(0));
  size_t bytes = 0;
  for (auto _ : state) {
    auto res = f.client->Get(path);
    if (!res || res->status != 200) {
      state.SkipWithError("request failed");
      return;
    }
    bytes = res->body.size();
  }
  state.counters["response_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_Scalars)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Runs(benchmark::State& state) {
  Fixture& f = Shared();
  for (auto _ : state) {
    auto res = f.client->Get("/api/runs");
    if (!res || res->status != 200) state.SkipWithError("request failed");
  }
}
BENCHMARK(BM_Runs)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  delete &Shared();
  return 0;
}
