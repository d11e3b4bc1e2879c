#include "board/run_store.h"

#include <cstdio>
#include <filesystem>
#include <set>

#include "board/run_data.h"
#include "flowvm/event_reader.h"

namespace flowvm::board {

namespace fs = std::filesystem;

namespace {

// Events applied under one lock hold: long enough to amortize the lock,
// short enough that a reader waits at most a few milliseconds.
constexpr size_t kBatchEvents = 4096;

}  // namespace

struct RunStore::Run {
  explicit Run(const RunStoreOptions& options) : data(options) {}
  mutable std::mutex mu;
  RunData data;  // guarded by mu
};

struct RunStore::FileState {
  std::unique_ptr<EventFileReader> reader;  // null once stopped or done
  bool stopped = false;  // a bad length CRC was reported; nothing more to read
  // Read to the end while a newer file of its run existed: writers only
  // append to the newest file, so this one is closed (its descriptor and
  // buffer freed) and not read again.
  bool done = false;
  std::string last_error;  // the last error reported for it, not repeated
};

RunStore::RunStore(RunStoreOptions options) : options_(std::move(options)) {}

RunStore::~RunStore() { Stop(); }

void RunStore::Start() {
  std::lock_guard<std::mutex> lock(thread_mu_);
  if (thread_.joinable() || stop_) return;
  thread_ = std::thread([this] {
    std::unique_lock<std::mutex> lock(thread_mu_);
    while (!stop_) {
      lock.unlock();
      Reload();
      lock.lock();
      thread_cv_.wait_for(lock, std::chrono::milliseconds(std::max(options_.reload_ms, 1)), [this] { return stop_; });
    }
  });
}

void RunStore::Stop() {
  std::thread t;
  {
    std::lock_guard<std::mutex> lock(thread_mu_);
    stop_ = true;
    t = std::move(thread_);
  }
  thread_cv_.notify_all();
  if (t.joinable()) t.join();
}

void RunStore::Report(const Status& s) {
  if (options_.on_error) {
    options_.on_error(s);
  } else {
    std::fprintf(stderr, "flowvm board: %s\n", s.ToString().c_str());
  }
}

void RunStore::Reload() {
  // The folders that hold event files, each a run. A missing logdir is a
  // run that has not started yet.
  std::map<std::string, std::string> run_dirs;  // run name -> folder
  std::error_code ec;
  const fs::path root(options_.logdir);
  if (fs::is_directory(root, ec)) {
    std::set<fs::path> dirs;
    fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (IsEventFileName(it->path().filename().string()) && it->is_regular_file(type_ec))
        dirs.insert(it->path().parent_path());
    }
    std::string scan_error = ec ? "scanning " + options_.logdir + ": " + ec.message() : "";
    if (!scan_error.empty() && scan_error != last_scan_error_) Report(errors::Unknown(scan_error));
    last_scan_error_ = scan_error;
    for (const fs::path& dir : dirs) {
      std::string name = dir.lexically_relative(root).generic_string();
      if (name.empty()) name = ".";
      run_dirs.emplace(std::move(name), dir.string());
    }
  }
  for (const auto& [name, dir] : run_dirs) ReadRun(name, dir);
}

void RunStore::ReadRun(const std::string& name, const std::string& dir) {
  StatusOr<std::vector<std::string>> paths = ListEventFiles(dir);
  if (!paths.ok()) return;  // gone since the scan: next time
  std::shared_ptr<Run> run = FindRun(name);
  if (run == nullptr) {
    run = std::make_shared<Run>(options_);
    run->data.generation = ++generation_;
    std::lock_guard<std::mutex> lock(runs_mu_);
    runs_.emplace(name, run);
  }
  std::vector<Event> batch;
  std::vector<Status> problems;
  auto apply = [&] {
    bool changed = false;
    {
      std::lock_guard<std::mutex> lock(run->mu);
      for (const Event& e : batch) changed |= run->data.Add(e);
      if (changed) run->data.generation = ++generation_;
    }
    batch.clear();
    for (const Status& s : problems) Report(s);
    problems.clear();
  };
  for (const std::string& path : *paths) {
    const bool newest = path == paths->back();
    std::unique_ptr<FileState>& file = files_[path];
    if (file == nullptr) file = std::make_unique<FileState>();
    if (file->stopped || file->done) continue;
    // Each error once per file, however many reloads meet it again.
    auto problem = [&](const Status& s) {
      if (s.ToString() != file->last_error) problems.push_back(s);
      file->last_error = s.ToString();
    };
    if (file->reader == nullptr) {
      StatusOr<std::unique_ptr<EventFileReader>> reader = EventFileReader::Open(path);
      if (!reader.ok()) {
        // Removed since the listing (nothing to say), or unreadable.
        if (reader.status().code() != Code::kNotFound) problem(reader.status());
        else files_.erase(path);
        continue;
      }
      file->reader = std::move(reader).value();
    }
    for (;;) {
      Event event;
      const uint64_t before = file->reader->offset();
      Status s = file->reader->Next(&event);
      if (s.ok()) {
        batch.push_back(std::move(event));
        if (batch.size() >= kBatchEvents) apply();
        continue;
      }
      if (s.code() == Code::kOutOfRange) {
        if (!newest) {
          file->done = true;
          file->reader.reset();
        }
        break;
      }
      problem(s);
      if (file->reader->stopped()) {
        file->stopped = true;
        file->reader.reset();
        break;
      }
      // A record skipped (bad CRC, not an Event) moves the reader on; an
      // error that does not (the disk failing to read) is tried again at
      // the next reload, not in a loop.
      if (file->reader->offset() == before) break;
    }
  }
  apply();
}

std::shared_ptr<RunStore::Run> RunStore::FindRun(const std::string& name) const {
  std::lock_guard<std::mutex> lock(runs_mu_);
  auto it = runs_.find(name);
  return it == runs_.end() ? nullptr : it->second;
}

std::vector<RunSummary> RunStore::ListRuns() const {
  std::vector<std::pair<std::string, std::shared_ptr<Run>>> runs;
  {
    std::lock_guard<std::mutex> lock(runs_mu_);
    runs.assign(runs_.begin(), runs_.end());
  }
  std::vector<RunSummary> out;
  for (const auto& [name, run] : runs) {
    std::lock_guard<std::mutex> lock(run->mu);
    out.push_back(run->data.Summarize(name));
  }
  return out;
}

std::vector<std::string> RunStore::RunNames() const {
  std::lock_guard<std::mutex> lock(runs_mu_);
  std::vector<std::string> names;
  for (const auto& [name, run] : runs_) names.push_back(name);
  return names;
}

bool RunStore::HasRun(const std::string& run) const { return FindRun(run) != nullptr; }

#define FLOWVM_BOARD_WITH_RUN(run_name, body)                                                  \
  std::shared_ptr<Run> r = FindRun(run_name);                                                  \
  if (r == nullptr) return errors::NotFound("no run '", run_name, "' in ", options_.logdir); \
  std::lock_guard<std::mutex> lock(r->mu);                                                     \
  return r->data.body

Status RunStore::GetScalars(const std::string& run, const std::string& tag, int64_t min_step, int64_t max_step,
                            size_t max_points, ScalarSeries* out) const {
  FLOWVM_BOARD_WITH_RUN(run, GetScalars(run, tag, min_step, max_step, max_points, out));
}

StatusOr<std::vector<HistogramPoint>> RunStore::GetHistograms(const std::string& run, const std::string& tag) const {
  FLOWVM_BOARD_WITH_RUN(run, GetHistograms(run, tag));
}

StatusOr<std::vector<ImageInfo>> RunStore::GetImages(const std::string& run, const std::string& tag) const {
  FLOWVM_BOARD_WITH_RUN(run, GetImages(run, tag));
}

StatusOr<std::string> RunStore::GetImage(const std::string& run, const std::string& tag, int64_t index) const {
  FLOWVM_BOARD_WITH_RUN(run, GetImage(run, tag, index));
}

StatusOr<GraphSnapshot> RunStore::GetGraph(const std::string& run) const {
  FLOWVM_BOARD_WITH_RUN(run, GetGraph(run));
}

StatusOr<std::string> RunStore::GetRunMetadata(const std::string& run, const std::string& tag) const {
  FLOWVM_BOARD_WITH_RUN(run, GetRunMetadata(run, tag));
}

#undef FLOWVM_BOARD_WITH_RUN

}  // namespace flowvm::board
