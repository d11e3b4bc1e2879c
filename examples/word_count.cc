// Word count as a map-reduce dataflow graph (the white paper's example of a
// computation that is not a neural network), over text files sharded across
// the worker tasks of a cluster:
//
//   mapper i (pinned to /job:worker/task:i): ReadFile -> StringSplitV2
//     (whitespace) -> UniqueWithCounts: its file's distinct words and counts.
//   reducer (on /job:worker/task:0): ConcatV2 of the running totals and every
//     mapper's words and counts -> Unique (the global index of each word) ->
//     UnsortedSegmentSum of the counts by that index: the new totals.
//
// The files are dealt to the mappers (largest first, each to the mapper with
// the fewest bytes so far); each step (a "round") reads one file per mapper,
// and the totals come back to the client, which feeds them to the next
// round's reducer. A mapper with no file left in a round is skipped by
// feeding its outputs empty (partial execution prunes its ReadFile).
//
//   flowvm cluster up --ps 0 --workers 2          # prints grpc://127.0.0.1:PORT
//   flowvm_word_count --target grpc://127.0.0.1:PORT --dir corpus/ --top 10
//   flowvm_word_count --files a.txt b.txt         # no target: in this process
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "common/progress.h"
#include "flowvm/cc/client_session.h"
#include "flowvm/cc/ops.h"
#include "flowvm/session.h"

namespace flowvm::examples {
namespace {

constexpr char kProgram[] = "flowvm_word_count";

constexpr char kUsage[] = R"(usage: flowvm_word_count (--files FILE... | --dir DIR) [--target grpc://HOST:PORT] [flags]

Counts the words (runs of characters other than ASCII whitespace) of text files with a
map-reduce dataflow graph. On a cluster (--target; start one with `flowvm cluster up`)
one mapper per worker task reads its share of the files there (ReadFile), splits them
into words (StringSplitV2) and counts them (UniqueWithCounts); a reducer on
/job:worker/task:0 merges the partial counts (ConcatV2, Unique, UnsortedSegmentSum).
Without --target it all runs in this process.

flags:
  --files FILE...        the files to count (every argument up to the next flag)
  --dir DIR              every regular file in DIR (not its subdirectories), by name
  --target grpc://HOST:PORT  a master of the cluster (default: run in this process)
  --workers N            mappers, on /job:worker/task:0..N-1 (default: every worker task
                         of the cluster; in this process: 1)
  --top K                print the K most common words (default 10; 0: none)
  --output FILE          write every word and its count, "word<TAB>count" a line, most
                         common first (ties by word)
  --no-progress          no progress bar
  --help                 this text

It prints the top words and a summary, e.g.
  words: 1,234,567 (23,456 distinct) in 12 files, 45.6 MB
      61234  the
  ...
  counted 45.6 MB in 0.52 s: 87.7 MB/s (2 mappers)
)";

struct Flags {
  std::vector<std::string> files;
  std::string dir;
  std::string target;
  int workers = 0;  // 0: default
  int64_t top = 10;
  std::string output;
  bool progress = true;
};

StatusOr<int64_t> ParseInt(const std::string& flag, const std::string& v) {
  char* end = nullptr;
  long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || *end != '\0') return errors::InvalidArgument(flag, ": '", v, "' is not an integer");
  return static_cast<int64_t>(x);
}

Status ParseFlags(int argc, char** argv, Flags* f) {
  bool files_given = false;
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i], value;
    if (flag == "--no-progress") {
      f->progress = false;
      continue;
    }
    if (flag == "--files") {
      files_given = true;
      while (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) f->files.push_back(argv[++i]);
      continue;
    }
    if (flag.rfind("--", 0) != 0) return errors::InvalidArgument("unexpected argument '", flag, "'");
    const size_t eq = flag.find('=');
    if (eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
    } else {
      if (i + 1 >= argc) return errors::InvalidArgument(flag, ": missing value");
      value = argv[++i];
    }
    if (flag == "--dir") {
      f->dir = value;
    } else if (flag == "--target") {
      f->target = value;
    } else if (flag == "--workers") {
      FLOWVM_ASSIGN_OR_RETURN(int64_t n, ParseInt(flag, value));
      if (n < 1 || n > 64) return errors::InvalidArgument("--workers: must be in [1, 64], got ", n);
      f->workers = static_cast<int>(n);
    } else if (flag == "--top") {
      FLOWVM_ASSIGN_OR_RETURN(f->top, ParseInt(flag, value));
      if (f->top < 0) return errors::InvalidArgument("--top: must be >= 0, got ", f->top);
    } else if (flag == "--output") {
      f->output = value;
    } else {
      return errors::InvalidArgument("unknown flag '", flag, "'");
    }
  }
  if (files_given && f->files.empty()) return errors::InvalidArgument("--files: no files follow it");
  if (f->files.empty() == f->dir.empty())
    return errors::InvalidArgument("give the input as either --files FILE... or --dir DIR");
  return Status::OK();
}

struct InputFile {
  std::string path;
  uint64_t bytes = 0;
};

// The files to count, with their sizes; errors name the file.
StatusOr<std::vector<InputFile>> ListFiles(const Flags& f) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths = f.files;
  if (!f.dir.empty()) {
    std::error_code ec;
    if (!fs::is_directory(f.dir, ec)) return errors::NotFound("--dir: '", f.dir, "' is not a directory");
    for (const fs::directory_entry& e : fs::directory_iterator(f.dir, ec))
      if (e.is_regular_file()) paths.push_back(e.path().string());
    if (ec) return errors::Unavailable("--dir: cannot list '", f.dir, "': ", ec.message());
    std::sort(paths.begin(), paths.end());
    if (paths.empty()) return errors::InvalidArgument("--dir: '", f.dir, "' has no regular files");
  }
  std::vector<InputFile> files;
  for (const std::string& p : paths) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0) return errors::NotFound("'", p, "' does not exist");
    if (!S_ISREG(st.st_mode)) return errors::InvalidArgument("'", p, "' is not a regular file");
    // ReadFile runs on the task, which resolves relative paths against its
    // own working directory: send absolute ones.
    files.push_back({fs::absolute(p).lexically_normal().string(), static_cast<uint64_t>(st.st_size)});
  }
  return files;
}

// The worker tasks of the cluster at `target`.
StatusOr<int> CountWorkerTasks(const std::string& target) {
  SessionOptions options;
  options.target = target;
  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options, GraphDef()));
  std::vector<DeviceInfo> devices;
  FLOWVM_RETURN_IF_ERROR(session->ListDevices(&devices));
  std::set<std::string> tasks;
  for (const DeviceInfo& d : devices) {
    if (d.name.rfind("/job:worker/", 0) != 0) continue;
    tasks.insert(d.name.substr(0, d.name.find("/device:")));
  }
  session->Close().IgnoreError();
  if (tasks.empty()) return errors::FailedPrecondition("the cluster at ", target, " has no worker tasks");
  return static_cast<int>(tasks.size());
}

struct Graph {
  Scope root = Scope::NewRootScope();
  std::vector<Output> filenames;             // per mapper, a scalar string
  std::vector<Output> words, counts;         // per mapper, its file's distinct words and their counts
  Output prev_words, prev_counts;            // the totals so far, fed
  Output total_words, total_counts;
};

Status Build(int mappers, bool on_cluster, Graph* g) {
  const Scope& root = g->root;
  for (int i = 0; i < mappers; ++i) {
    Scope s = root.NewSubScope("map" + std::to_string(i));
    if (on_cluster) s = s.WithDevice("/job:worker/task:" + std::to_string(i));
    g->filenames.push_back(ops::Placeholder(s.WithOpName("filename"), DT_STRING,
                                            ops::Placeholder::Shape(PartialTensorShape({}))));
    auto text = ops::ReadFile(s, g->filenames.back());
    auto split = ops::StringSplitV2(s, ops::Reshape(s, text, {1}), "");
    auto counted = ops::UniqueWithCounts(s.WithOpName("count"), split.values, ops::UniqueWithCounts::OutIdx(DT_INT64));
    g->words.push_back(counted.y);
    g->counts.push_back(counted.count);
  }
  Scope r = root.NewSubScope("reduce");
  if (on_cluster) r = r.WithDevice("/job:worker/task:0");
  g->prev_words = ops::Placeholder(r.WithOpName("prev_words"), DT_STRING,
                                   ops::Placeholder::Shape(PartialTensorShape({-1})));
  g->prev_counts = ops::Placeholder(r.WithOpName("prev_counts"), DT_INT64,
                                    ops::Placeholder::Shape(PartialTensorShape({-1})));
  std::vector<Output> all_words = {g->prev_words}, all_counts = {g->prev_counts};
  all_words.insert(all_words.end(), g->words.begin(), g->words.end());
  all_counts.insert(all_counts.end(), g->counts.begin(), g->counts.end());
  auto words = ops::ConcatV2(r, all_words, 0);
  auto counts = ops::ConcatV2(r, all_counts, 0);
  auto unique = ops::Unique(r, words, ops::Unique::OutIdx(DT_INT64));
  g->total_words = unique.y;
  g->total_counts = ops::UnsortedSegmentSum(r.WithOpName("totals"), counts, unique.idx,
                                            ops::Size(r, unique.y, ops::Size::OutType(DT_INT64)));
  return root.status();
}

std::string Megabytes(double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.1f MB", bytes / 1e6);
  return buf;
}

int Main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  Flags flags;
  Status s = ParseFlags(argc, argv, &flags);
  if (!s.ok()) {
    std::fprintf(stderr, "%s: %s (--help lists the flags)\n", kProgram, s.ToString().c_str());
    return 2;
  }
  auto fail = [](const Status& st) {
    std::fprintf(stderr, "%s: %s\n", kProgram, st.ToString().c_str());
    return 1;
  };
  auto files = ListFiles(flags);
  if (!files.ok()) return fail(files.status());
  const auto start = std::chrono::steady_clock::now();
  const bool on_cluster = !flags.target.empty();
  int mappers = flags.workers > 0 ? flags.workers : 1;
  if (on_cluster) {
    auto n = CountWorkerTasks(flags.target);
    if (!n.ok()) return fail(n.status());
    if (flags.workers == 0) mappers = *n;
    if (mappers > *n)
      return fail(errors::InvalidArgument("--workers ", mappers, ": the cluster at ", flags.target, " has ", *n,
                                          " worker task", *n == 1 ? "" : "s"));
  }

  // Deal the files: largest first, to the mapper with the fewest bytes.
  std::vector<size_t> order(files->size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return (*files)[a].bytes > (*files)[b].bytes; });
  std::vector<std::vector<size_t>> shards(mappers);
  std::vector<uint64_t> load(mappers, 0);
  for (size_t i : order) {
    const int m = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    shards[m].push_back(i);
    load[m] += (*files)[i].bytes;
  }
  size_t rounds = 0;
  for (const auto& sh : shards) rounds = std::max(rounds, sh.size());

  Graph g;
  s = Build(mappers, on_cluster, &g);
  if (!s.ok()) return fail(s);
  SessionOptions options;
  options.target = flags.target;
  ClientSession session(g.root, options);

  Tensor totals_words(DT_STRING, TensorShape({0}));
  Tensor totals_counts(DT_INT64, TensorShape({0}));
  const Tensor no_words(DT_STRING, TensorShape({0}));
  const Tensor no_counts(DT_INT64, TensorShape({0}));
  std::unique_ptr<ProgressBar> bar;
  if (flags.progress) {
    bar = std::make_unique<ProgressBar>(static_cast<int64_t>(files->size()));
    bar->SetUnit("files");
  }
  uint64_t bytes_done = 0;
  int64_t files_done = 0;
  const auto count_start = std::chrono::steady_clock::now();
  for (size_t round = 0; round < rounds; ++round) {
    ClientSession::FeedType feeds;
    feeds[g.prev_words] = totals_words;
    feeds[g.prev_counts] = totals_counts;
    for (int m = 0; m < mappers; ++m) {
      if (round < shards[m].size()) {
        const InputFile& file = (*files)[shards[m][round]];
        feeds[g.filenames[m]] = Tensor::Scalar<std::string>(file.path);
        bytes_done += file.bytes;
        ++files_done;
      } else {
        // Nothing left for this mapper: its outputs are fed, so the step
        // does not run it.
        feeds[g.words[m]] = no_words;
        feeds[g.counts[m]] = no_counts;
      }
    }
    std::vector<Tensor> out;
    s = session.Run(feeds, {g.total_words, g.total_counts}, &out);
    if (!s.ok()) {
      if (bar) bar->Finish();
      return fail(s);
    }
    totals_words = out[0];
    totals_counts = out[1];
    if (bar) {
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - count_start).count();
      bar->Update(files_done, Megabytes(static_cast<double>(bytes_done)) + " " +
                                  (secs > 0 ? Megabytes(static_cast<double>(bytes_done) / secs) : "0 MB") + "/s");
    }
  }
  if (bar) bar->Finish();
  const auto end = std::chrono::steady_clock::now();

  // Most common first, ties by word.
  const int64_t distinct = totals_words.NumElements();
  const std::string* words = totals_words.data<std::string>();
  const int64_t* counts = totals_counts.data<int64_t>();
  std::vector<int64_t> rank(distinct);
  int64_t total = 0;
  for (int64_t i = 0; i < distinct; ++i) rank[i] = i, total += counts[i];
  std::sort(rank.begin(), rank.end(), [&](int64_t a, int64_t b) {
    return counts[a] != counts[b] ? counts[a] > counts[b] : words[a] < words[b];
  });
  if (!flags.output.empty()) {
    std::ofstream out(flags.output, std::ios::binary | std::ios::trunc);
    for (int64_t i : rank) out << words[i] << '\t' << counts[i] << '\n';
    out.close();
    if (!out) return fail(errors::Unavailable("cannot write --output '", flags.output, "'"));
  }
  uint64_t bytes = 0;
  for (const InputFile& f : *files) bytes += f.bytes;
  std::printf("words: %s (%s distinct) in %zu files, %s\n", FormatThousands(static_cast<double>(total)).c_str(),
              FormatThousands(static_cast<double>(distinct)).c_str(), files->size(),
              Megabytes(static_cast<double>(bytes)).c_str());
  for (int64_t k = 0; k < std::min<int64_t>(flags.top, distinct); ++k)
    std::printf("%10lld  %s\n", static_cast<long long>(counts[rank[k]]), words[rank[k]].c_str());
  const double secs = std::chrono::duration<double>(end - start).count();
  std::printf("counted %s in %.3f s: %.1f MB/s (%d mapper%s%s)\n", Megabytes(static_cast<double>(bytes)).c_str(), secs,
              secs > 0 ? static_cast<double>(bytes) / 1e6 / secs : 0.0, mappers, mappers == 1 ? "" : "s",
              on_cluster ? ", reducer on /job:worker/task:0" : ", in this process");
  return 0;
}

}  // namespace
}  // namespace flowvm::examples

int main(int argc, char** argv) { return flowvm::examples::Main(argc, argv); }
