// RunData: everything the board keeps of one run, fed one Event at a time
// (see run_store.h for what is kept and why). Not thread-safe: RunStore
// holds a lock around every call. Readers call non-const methods because a
// reservoir sorts itself lazily on the first read after a change.
#ifndef FLOWVM_TOOLS_BOARD_RUN_DATA_H_
#define FLOWVM_TOOLS_BOARD_RUN_DATA_H_

#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "board/reservoir.h"
#include "board/run_store.h"
#include "flowvm/event.pb.h"

namespace flowvm::board {

class RunData {
 public:
  explicit RunData(const RunStoreOptions& options) : options_(options) {}

  // Adds what `event` carries. False if it changed nothing the board shows.
  bool Add(const Event& event);

  uint64_t generation = 0;  // set by RunStore when Add() changed something

  RunSummary Summarize(const std::string& name) const;
  bool HasScalarTag(const std::string& tag) const { return scalars_.count(tag) > 0; }
  // NotFound naming run and tag.
  Status GetScalars(const std::string& run, const std::string& tag, int64_t min_step, int64_t max_step,
                    size_t max_points, ScalarSeries* out);
  StatusOr<std::vector<HistogramPoint>> GetHistograms(const std::string& run, const std::string& tag);
  StatusOr<std::vector<ImageInfo>> GetImages(const std::string& run, const std::string& tag) const;
  StatusOr<std::string> GetImage(const std::string& run, const std::string& tag, int64_t index) const;
  StatusOr<GraphSnapshot> GetGraph(const std::string& run) const;
  StatusOr<std::string> GetRunMetadata(const std::string& run, const std::string& tag) const;

 private:
  struct ScalarPoint {
    int64_t step;
    double wall_time;
    double value;
  };
  struct Image {
    ImageInfo info;
    std::string encoded;
  };
  struct TaggedMetadata {
    int64_t step;
    std::string run_metadata;
  };

  bool AddValue(const Event& event, const Summary::Value& value);
  void AddRunMetadata(const std::string& tag, const std::string& bytes, int64_t step);
  // Drops what was kept at and after `step`: of every tag, or of `only_tags`.
  void Purge(int64_t step, const std::set<std::string>* only_tags = nullptr);

  const RunStoreOptions& options_;
  bool any_event_ = false;
  double first_wall_time_ = 0;
  int64_t last_step_ = 0;
  std::map<std::string, Reservoir<ScalarPoint>> scalars_;
  std::map<std::string, Reservoir<HistogramPoint>> histograms_;
  std::map<std::string, std::deque<Image>> images_;
  std::map<std::string, int64_t> next_image_index_;
  // The plugin each tag named on its first value (TF2 names it only there).
  std::map<std::string, std::string> tag_plugin_;
  std::map<std::string, TaggedMetadata> run_metadata_;
  std::list<std::string> run_metadata_order_;  // oldest tag first
  std::string graph_def_;
  std::map<std::string, std::string> placement_;
  uint64_t graph_version_ = 0;
};

}  // namespace flowvm::board

#endif  // FLOWVM_TOOLS_BOARD_RUN_DATA_H_
