// `flowvm run`: load a GraphDef, feed .npy files, run a step, print and save
// the fetched tensors.
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cli_args.h"
#include "credential_flags.h"
#include "commands.h"
#include "flowvm/graph_io.h"
#include "flowvm/npy.h"
#include "flowvm/session.h"
#include "flowvm/simd.h"
#include "flowvm/trace.h"

namespace flowvm::cli {

namespace {

// "name:port" for a fetch written as "name" or "name:port".
std::string CanonicalTensorName(const std::string& name) {
  size_t colon = name.rfind(':');
  if (colon != std::string::npos && colon + 1 < name.size() &&
      name.find_first_not_of("0123456789", colon + 1) == std::string::npos)
    return name;
  return name + ":0";
}

std::string OutputFileName(const std::string& canonical) {
  size_t colon = canonical.rfind(':');
  std::string node = canonical.substr(0, colon);
  std::string safe;
  for (char c : node) {
    if (c == '/') safe += "__";
    else safe += c;
  }
  return safe + "_" + canonical.substr(colon + 1) + ".npy";
}

void PrintLines(const char* title, const std::vector<std::string>& lines, size_t limit = 100) {
  if (lines.empty()) return;
  std::fprintf(stderr, "flowvm:   %s:\n", title);
  for (size_t i = 0; i < lines.size() && i < limit; ++i) std::fprintf(stderr, "flowvm:     %s\n", lines[i].c_str());
  if (lines.size() > limit) std::fprintf(stderr, "flowvm:     ... (%zu more)\n", lines.size() - limit);
}

// One line when every node went to the only device there is.
void PrintPlacement(const std::vector<std::string>& lines) {
  bool only = !lines.empty();
  for (const std::string& l : lines) only = only && l.size() > 17 && l.compare(l.size() - 17, 17, "(the only device)") == 0;
  if (only) {
    std::fprintf(stderr, "flowvm:   placement: all %zu nodes on the only device\n", lines.size());
    return;
  }
  PrintLines("placement (node -> device (why))", lines);
}

void Explain(bool verbose, const char* what, const RunStats& stats) {
  if (!verbose) return;
  std::fprintf(stderr, "flowvm: %s step %lld: %s", what, static_cast<long long>(stats.step_id),
               stats.cache_hit ? "reused the cached prepared step" : "prepared a new step");
  if (!stats.cache_hit) std::fprintf(stderr, " in %.3f ms", stats.prepare_ms);
  std::fprintf(stderr, "; ran %d nodes (incl. feed/fetch nodes) of a %d-node graph", stats.executed_nodes,
               stats.graph_nodes);
  // A cluster's steps run on its tasks' thread pools, not this process's.
  if (stats.num_threads > 0) {
    std::fprintf(stderr, " on up to %d thread%s", stats.num_threads, stats.num_threads == 1 ? "" : "s");
  } else {
    std::fprintf(stderr, " on %d device%s of the cluster", stats.partitions, stats.partitions == 1 ? "" : "s");
  }
  std::fprintf(stderr, " in %.3f ms\n", stats.run_ms);
  if (!stats.cache_hit) {
    if (stats.pruned.empty()) {
      std::fprintf(stderr, "flowvm:   pruned nothing\n");
    } else {
      std::string list;
      for (size_t i = 0; i < stats.pruned.size() && i < 20; ++i) list += (i ? ", " : "") + stats.pruned[i];
      if (stats.pruned.size() > 20) list += ", ...";
      std::fprintf(stderr, "flowvm:   pruned %zu node%s not needed: %s\n", stats.pruned.size(),
                   stats.pruned.size() == 1 ? "" : "s", list.c_str());
    }
    if (stats.optimizations.empty()) std::fprintf(stderr, "flowvm:   optimization passes changed nothing\n");
    PrintLines("optimization passes", stats.optimizations);
    PrintPlacement(stats.placement);
    std::fprintf(stderr, "flowvm:   %d partition%s, %zu transfer%s between devices\n", stats.partitions,
                 stats.partitions == 1 ? "" : "s", stats.transfers.size(), stats.transfers.size() == 1 ? "" : "s");
    PrintLines("transfers (a _Send/_Recv pair each)", stats.transfers);
    PrintLines("Recvs scheduled late (paper 5.2)", stats.scheduled_recvs);
  }
}

}  // namespace

Status RunCommand(const std::vector<std::string>& raw) {
  FLOWVM_ASSIGN_OR_RETURN(
      ParsedArgs args,
      ParseArgs(raw,
                WithCredentialFlags({"--fetch", "--feed", "--target", "--init", "--repeat", "--output-dir",
                                     "--threads", "--cpu-devices", "--trace", "--timeout-ms", "--target-server",
                                     "--device-filter", "--connect-timeout-ms", "--health-check-interval-ms",
                                     "--health-check-timeout-ms", "--max-step-memory-bytes"}),
                {"-v", "--soft-placement"}));
  if (args.positional.size() != 1)
    return errors::InvalidArgument("usage: flowvm run GRAPH --fetch NAME[:PORT]... (one graph file, got ",
                                   args.positional.size(), ")");
  const auto& fetches_raw = args.all("--fetch");
  const auto& targets = args.all("--target");
  if (fetches_raw.empty() && targets.empty())
    return errors::InvalidArgument("usage: flowvm run needs at least one --fetch or --target");
  bool verbose = args.has("-v");
  SessionOptions options;
  FLOWVM_ASSIGN_OR_RETURN(int64_t threads, ParseCount("--threads", args.last("--threads", "0")));
  options.num_threads = static_cast<int>(threads);
  FLOWVM_ASSIGN_OR_RETURN(int64_t cpu_devices, ParseCount("--cpu-devices", args.last("--cpu-devices", "1")));
  if (cpu_devices < 1) return errors::InvalidArgument("--cpu-devices must be at least 1");
  options.cpu_devices = static_cast<int>(cpu_devices);
  options.allow_soft_placement = args.has("--soft-placement");
  // A cluster: the master at grpc://host:port runs the graph over its tasks.
  options.target = args.last("--target-server", "");
  options.device_filters = args.all("--device-filter");
  FLOWVM_ASSIGN_OR_RETURN(options.credentials, CredentialsFromFlags(args));
  FLOWVM_ASSIGN_OR_RETURN(options.max_step_memory_bytes,
                          ParseCount("--max-step-memory-bytes", args.last("--max-step-memory-bytes", "0")));
  FLOWVM_ASSIGN_OR_RETURN(options.connect_timeout_ms,
                          ParseCount("--connect-timeout-ms", args.last("--connect-timeout-ms", "30000")));
  FLOWVM_ASSIGN_OR_RETURN(options.health_check_interval_ms,
                          ParseCount("--health-check-interval-ms", args.last("--health-check-interval-ms", "2000")));
  FLOWVM_ASSIGN_OR_RETURN(options.health_check_timeout_ms,
                          ParseCount("--health-check-timeout-ms", args.last("--health-check-timeout-ms", "4000")));
  RunOptions run_options;
  FLOWVM_ASSIGN_OR_RETURN(int64_t timeout_ms, ParseCount("--timeout-ms", args.last("--timeout-ms", "0")));
  run_options.set_timeout_in_ms(timeout_ms);
  const std::string trace_path = args.last("--trace", "");
  FLOWVM_ASSIGN_OR_RETURN(int64_t repeat, ParseCount("--repeat", args.last("--repeat", "1")));
  if (repeat < 1) return errors::InvalidArgument("--repeat must be at least 1");
  std::string out_dir = args.last("--output-dir", ".");

  FLOWVM_ASSIGN_OR_RETURN(GraphDef graph, ReadGraphDefFile(args.positional[0]));
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const std::string& f : args.all("--feed")) {
    size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == f.size())
      return errors::InvalidArgument("--feed '", f, "' must look like NAME[:PORT]=FILE.npy");
    FLOWVM_ASSIGN_OR_RETURN(Tensor t, ReadNpyFile(f.substr(eq + 1)));
    feeds.emplace_back(f.substr(0, eq), std::move(t));
  }
  std::vector<std::string> fetches;
  for (const auto& f : fetches_raw) fetches.push_back(CanonicalTensorName(f));

  FLOWVM_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Session::Create(options, graph));
  if (verbose) {
    std::fprintf(stderr, "flowvm: loaded %s: %d nodes, valid\n", args.positional[0].c_str(), graph.node_size());
    std::fprintf(stderr, "flowvm: element-wise kernels use %s\n", DescribeSimdLevel().c_str());
  }
  RunStats stats;
  std::vector<Tensor> outputs;
  const auto& inits = args.all("--init");
  if (!inits.empty()) {
    FLOWVM_RETURN_IF_ERROR(session->Run(run_options, {}, {}, inits, &outputs, nullptr, &stats).WithContext("--init"));
    Explain(verbose, "init", stats);
  }
  for (int64_t i = 0; i < repeat; ++i) {
    // The last step is the one traced: by then the step is prepared and warm.
    const bool traced = !trace_path.empty() && i + 1 == repeat;
    RunOptions step_options = run_options;
    if (traced) step_options.set_trace_level(RunOptions::FULL_TRACE);
    RunMetadata metadata;
    FLOWVM_RETURN_IF_ERROR(session->Run(step_options, feeds, fetches, targets, &outputs, &metadata, &stats));
    Explain(verbose, "main", stats);
    if (traced) {
      FLOWVM_RETURN_IF_ERROR(WriteChromeTraceFile(trace_path, metadata.step_stats()));
      size_t nodes = 0;
      for (const auto& d : metadata.step_stats().dev_stats()) nodes += d.node_stats_size();
      std::fprintf(stderr, "flowvm: wrote a trace of step %lld (%zu nodes on %d device%s) to %s; open it in "
                   "https://ui.perfetto.dev or chrome://tracing\n",
                   static_cast<long long>(stats.step_id), nodes, metadata.step_stats().dev_stats_size(),
                   metadata.step_stats().dev_stats_size() == 1 ? "" : "s", trace_path.c_str());
    }
  }
  if (!fetches.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) return errors::PermissionDenied("cannot create output directory '", out_dir, "': ", ec.message());
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    const Tensor& t = outputs[i];
    std::string line = fetches[i] + " " + DataTypeName(t.dtype()) + " " + t.shape().DebugString();
    if (t.NumElements() <= 16) line += " " + t.ValuesString(16);
    std::printf("%s\n", line.c_str());
    std::string path = (std::filesystem::path(out_dir) / OutputFileName(fetches[i])).string();
    if (t.dtype() == DT_STRING) {
      if (verbose) std::fprintf(stderr, "flowvm: %s is a string tensor; .npy cannot hold it, not written\n", fetches[i].c_str());
      continue;
    }
    FLOWVM_RETURN_IF_ERROR(WriteNpyFile(path, t));
    if (verbose) std::fprintf(stderr, "flowvm: wrote %s\n", path.c_str());
  }
  std::fflush(stdout);
  return session->Close();
}

}  // namespace flowvm::cli
