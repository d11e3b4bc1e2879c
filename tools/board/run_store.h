// RunStore: what `flowvm board` knows about a log directory. Every folder
// under the logdir (the logdir itself included) that holds event files is a
// run, named by its path relative to the logdir ("." for the logdir). A
// tailer (a background thread after Start(), or Reload() called directly)
// re-scans the logdir and reads what each event file gained since the last
// time, in name order within a run, and keeps per (run, tag):
// - scalars: a reservoir of 10,000 points (reservoir.h), from `simple_value`
//   or from a scalar `tensor` whose tag's plugin is "scalars" (TF2; the
//   plugin may be named only on the tag's first value);
// - histograms (`histo`): a reservoir of 500;
// - images: the newest 10;
// - the newest RunMetadata per tag, for the newest 100 tags;
// and per run the newest graph, and the placement (node -> device) from the
// newest RunMetadata that has partition graphs. A SessionLog START at step S
// (a restarted run) drops the scalars, histograms and images with step >= S
// ("orphaned data", as TensorBoard purges it).
//
// Thread-safe. A reader (the HTTP server) locks one run for as long as it
// copies what it asked for; the tailer reads files with no lock held and
// locks a run only to add a batch of parsed events.
// Damaged records are reported through Options::on_error (once each) and
// skipped; a logdir that does not exist yet is not an error: it has no runs.
#ifndef FLOWVM_TOOLS_BOARD_RUN_STORE_H_
#define FLOWVM_TOOLS_BOARD_RUN_STORE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "flowvm/status.h"
#include "flowvm/summary.pb.h"

namespace flowvm::board {

struct RunStoreOptions {
  std::string logdir;
  int reload_ms = 1000;
  size_t max_scalars = 10000;
  size_t max_histograms = 500;
  size_t max_images = 10;
  size_t max_run_metadata_tags = 100;
  uint64_t seed = 0;
  // Damaged records, unreadable files. Called from the tailer, never with a
  // lock held. Default: one line to stderr.
  std::function<void(const Status&)> on_error;
};

struct RunSummary {
  std::string name;
  uint64_t generation = 0;
  std::vector<std::string> scalar_tags, histogram_tags, image_tags, run_metadata_tags;  // sorted
  bool has_graph = false;
  double first_wall_time = 0;  // of the first event read
  int64_t last_step = 0;       // of the newest event read
};

// One tag of one run, columnar, sorted by step; only points with
// min_step <= step <= max_step, at most max_points of them, evenly spaced in
// index with the first and the last always included.
struct ScalarSeries {
  std::vector<int64_t> step;
  std::vector<double> wall_time, value;
  uint64_t kept = 0;  // points the reservoir holds in the step range
  uint64_t seen = 0;  // points ever read for the tag (see Reservoir::Filter)
};

struct HistogramPoint {
  int64_t step = 0;
  double wall_time = 0;
  HistogramProto histo;
};

struct ImageInfo {
  int64_t step = 0;
  double wall_time = 0;
  int width = 0, height = 0;
  int64_t index = 0;  // unique per (run, tag), in arrival order
};

struct GraphSnapshot {
  std::string graph_def;                        // serialized GraphDef; empty if none
  uint64_t version = 0;                         // changes with graph_def or placement
  std::map<std::string, std::string> placement;  // node -> device; empty if unknown
};

class RunStore {
 public:
  explicit RunStore(RunStoreOptions options);
  ~RunStore();  // stops the tailer
  RunStore(const RunStore&) = delete;
  RunStore& operator=(const RunStore&) = delete;

  // Starts the tailer thread: Reload() now and every reload_ms.
  void Start();
  // Stops and joins it (also done by the destructor). Idempotent.
  void Stop();
  // One scan and read of everything new. Blocks for as long as that takes.
  // Safe to call concurrently with readers (not with itself or the thread).
  void Reload();

  const std::string& logdir() const { return options_.logdir; }
  // Increases whenever anything new was read (any run).
  uint64_t generation() const { return generation_.load(); }

  std::vector<RunSummary> ListRuns() const;  // sorted by name
  std::vector<std::string> RunNames() const;
  bool HasRun(const std::string& run) const;

  // NotFound naming the run or the tag.
  Status GetScalars(const std::string& run, const std::string& tag, int64_t min_step, int64_t max_step,
                    size_t max_points, ScalarSeries* out) const;
  StatusOr<std::vector<HistogramPoint>> GetHistograms(const std::string& run, const std::string& tag) const;
  StatusOr<std::vector<ImageInfo>> GetImages(const std::string& run, const std::string& tag) const;
  // The encoded image (PNG) with that index.
  StatusOr<std::string> GetImage(const std::string& run, const std::string& tag, int64_t index) const;
  // NotFound if the run has no graph.
  StatusOr<GraphSnapshot> GetGraph(const std::string& run) const;
  // The serialized RunMetadata of a tag.
  StatusOr<std::string> GetRunMetadata(const std::string& run, const std::string& tag) const;

 private:
  struct Run;
  struct FileState;

  std::shared_ptr<Run> FindRun(const std::string& name) const;
  void Report(const Status& s);
  void ReadRun(const std::string& name, const std::string& dir);

  const RunStoreOptions options_;
  std::atomic<uint64_t> generation_{0};

  mutable std::mutex runs_mu_;
  std::map<std::string, std::shared_ptr<Run>> runs_;  // guarded by runs_mu_

  // The tailer's own state: touched only by Reload().
  std::map<std::string, std::unique_ptr<FileState>> files_;  // by path
  std::string last_scan_error_;

  std::mutex thread_mu_;
  std::condition_variable thread_cv_;
  bool stop_ = false;  // guarded by thread_mu_
  std::thread thread_;
};

}  // namespace flowvm::board

#endif  // FLOWVM_TOOLS_BOARD_RUN_STORE_H_
