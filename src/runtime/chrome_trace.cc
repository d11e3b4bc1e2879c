// StepStats -> Chrome trace-event JSON (include/flowvm/trace.h).
//
// The format: https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU
// Perfetto's importer is the stricter reader, and several choices below are
// for it: pid/tid 0 are its idle task (and a tid of 0 is replaced by the
// pid), flow events bind to the slice open on their track at their ts (so
// they sit strictly inside the slice, not on its edge), and v1 flows are
// matched by (id, cat, name).
#include "flowvm/trace.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/file_util.h"
#include "flowvm/dtype.h"
#include "runtime/timeline_label.h"

namespace flowvm {

namespace {

// Keys stay in the order written: events read the same in a text editor.
using Json = nlohmann::ordered_json;

// One NodeExecStats with its track and absolute times resolved.
struct Slice {
  const NodeExecStats* stats;
  int64_t pid;
  int64_t tid;
  int64_t start_ns;  // op start
  int64_t end_ns;    // op end, >= start_ns
  TimelineLabel label;
};

// A non-metadata event with its sort keys: by time; at equal times slices
// before counters before flows, and longer slices before the ones they
// enclose, which is the order trace viewers build their slice stacks in.
struct Event {
  int64_t ts_ns;
  int rank;
  int64_t dur_ns;
  Json json;
};

// A *_nanos field when recorded (non-zero), else its *_micros twin.
bool PickNanos(int64_t nanos, int64_t micros, int64_t* out) {
  if (nanos != 0) {
    *out = nanos;
    return true;
  }
  return !__builtin_mul_overflow(micros, 1000, out);
}

Status ResolveTimes(const std::string& device, const NodeExecStats& ns, Slice* s) {
  int64_t all_start, op_start, op_end;
  bool ok = PickNanos(ns.all_start_nanos(), ns.all_start_micros(), &all_start) &&
            PickNanos(ns.op_start_rel_nanos(), ns.op_start_rel_micros(), &op_start) &&
            PickNanos(ns.op_end_rel_nanos(), ns.op_end_rel_micros(), &op_end) &&
            !__builtin_add_overflow(all_start, op_start, &s->start_ns) &&
            !__builtin_add_overflow(all_start, op_end, &s->end_ns);
  if (!ok)
    return errors::InvalidArgument("node '", ns.node_name(), "' on device '", device,
                                   "': its times do not fit in 64-bit nanoseconds");
  s->end_ns = std::max(s->end_ns, s->start_ns);
  return Status::OK();
}

std::string ShapeString(const TensorShapeProto& shape) {
  if (shape.unknown_rank()) return "<unknown>";
  std::string s = "[";
  for (int i = 0; i < shape.dim_size(); ++i) {
    if (i > 0) s += ",";
    int64_t n = shape.dim(i).size();
    s += n < 0 ? "?" : std::to_string(n);
  }
  return s + "]";
}

Json SliceArgs(const Slice& s) {
  Json args = {{"op", s.label.op}, {"timeline_label", s.stats->timeline_label()}, {"inputs", s.label.inputs}};
  Json outputs = Json::array();
  for (const NodeOutput& out : s.stats->output()) {
    const TensorDescription& t = out.tensor_description();
    outputs.push_back({{"slot", out.slot()},
                       {"dtype", DataTypeName(t.dtype())},
                       {"shape", ShapeString(t.shape())},
                       {"requested_bytes", t.allocation_description().requested_bytes()}});
  }
  args["outputs"] = std::move(outputs);
  return args;
}

Json Metadata(const char* name, int64_t pid, int64_t tid, Json args) {
  return Json{{"ph", "M"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"args", std::move(args)}};
}

// Flow arrows from each Send to its Recv. Pairs are matched by what the
// rendezvous key is made of (tensor, sending and receiving device); a key
// sent several times in one step (a loop) pairs its Sends and Recvs in order.
void AddTransferFlows(const std::vector<Slice>& slices, std::vector<Event>* events) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::pair<std::vector<const Slice*>, std::vector<const Slice*>>> ends;
  for (const Slice& s : slices) {
    if (!s.label.has_transfer) continue;
    Key key{s.label.tensor_name, s.label.send_device, s.label.recv_device};
    if (IsSendOp(s.label.op)) ends[key].first.push_back(&s);
    if (IsRecvOp(s.label.op)) ends[key].second.push_back(&s);
  }
  auto by_start = [](const Slice* a, const Slice* b) { return a->start_ns < b->start_ns; };
  int64_t next_id = 1;
  for (auto& [key, pair] : ends) {
    auto& [sends, recvs] = pair;
    std::stable_sort(sends.begin(), sends.end(), by_start);
    std::stable_sort(recvs.begin(), recvs.end(), by_start);
    for (size_t i = 0; i < std::min(sends.size(), recvs.size()); ++i) {
      const Slice& send = *sends[i];
      const Slice& recv = *recvs[i];
      const std::string& name = std::get<0>(key);
      int64_t id = next_id++;
      // Strictly inside each slice (unless it is empty): a flow event on a
      // slice's edge can bind to the neighbouring slice or to none.
      int64_t send_ts = send.start_ns + (send.end_ns - send.start_ns) / 2;
      int64_t recv_ts = recv.end_ns > recv.start_ns ? recv.end_ns - 1 : recv.end_ns;
      events->push_back({send_ts, 2, 0,
                         Json{{"ph", "s"}, {"name", name}, {"cat", "transfer"}, {"id", id},
                              {"pid", send.pid}, {"tid", send.tid}, {"ts", nullptr}}});
      events->push_back({recv_ts, 2, 0,
                         Json{{"ph", "f"}, {"bp", "e"}, {"name", name}, {"cat", "transfer"}, {"id", id},
                              {"pid", recv.pid}, {"tid", recv.tid}, {"ts", nullptr}}});
    }
  }
}

}  // namespace

StatusOr<std::string> StepStatsToChromeTrace(const StepStats& stats) {
  std::vector<Json> metadata;
  std::vector<Slice> slices;
  for (int d = 0; d < stats.dev_stats_size(); ++d) {
    const DeviceStepStats& dev = stats.dev_stats(d);
    const int64_t pid = d + 1;
    std::string device = dev.device().empty() ? "device " + std::to_string(d) : dev.device();
    metadata.push_back(Metadata("process_name", pid, 0, {{"name", device}}));
    metadata.push_back(Metadata("process_sort_index", pid, 0, {{"sort_index", d}}));
    std::set<uint32_t> threads;
    for (const NodeExecStats& ns : dev.node_stats()) {
      Slice s{&ns, pid, int64_t{ns.thread_id()} + 1, 0, 0, ParseTimelineLabel(ns.timeline_label())};
      Status st = ResolveTimes(dev.device(), ns, &s);
      if (!st.ok()) return st;
      threads.insert(ns.thread_id());
      slices.push_back(std::move(s));
    }
    for (uint32_t t : threads) {
      auto it = dev.thread_names().find(t);
      std::string name = it != dev.thread_names().end() ? it->second : "thread " + std::to_string(t);
      metadata.push_back(Metadata("thread_name", pid, int64_t{t} + 1, {{"name", name}}));
      metadata.push_back(Metadata("thread_sort_index", pid, int64_t{t} + 1, {{"sort_index", t}}));
    }
  }

  std::vector<Event> events;
  for (const Slice& s : slices) {
    const std::string& name = s.stats->node_name().empty() ? s.label.node : s.stats->node_name();
    events.push_back({s.start_ns, 0, s.end_ns - s.start_ns,
                      Json{{"ph", "X"}, {"name", name}, {"cat", s.label.op}, {"pid", s.pid}, {"tid", s.tid},
                           {"ts", nullptr}, {"dur", nullptr}, {"args", SliceArgs(s)}}});
    // allocator_bytes_in_use is a snapshot taken when the node finished.
    for (const AllocatorMemoryUsed& mem : s.stats->memory()) {
      events.push_back({s.end_ns, 1, 0,
                        Json{{"ph", "C"}, {"name", mem.allocator_name()}, {"cat", "memory"}, {"pid", s.pid},
                             {"tid", s.tid}, {"ts", nullptr},
                             {"args", {{"bytes_in_use", mem.allocator_bytes_in_use()},
                                       {"peak_bytes", mem.peak_bytes()}}}}});
    }
  }
  AddTransferFlows(slices, &events);
  std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) {
    return std::tie(a.ts_ns, a.rank, b.dur_ns) < std::tie(b.ts_ns, b.rank, a.dur_ns);
  });

  // Times relative to the first op start: epoch microseconds (~1.7e15) as a
  // double keep no nanoseconds, small offsets keep them all.
  int64_t origin = 0;
  if (!slices.empty())
    origin = std::min_element(slices.begin(), slices.end(), [](const Slice& a, const Slice& b) {
               return a.start_ns < b.start_ns;
             })->start_ns;
  std::string out = "{\"traceEvents\": [";
  bool first = true;
  auto append = [&](const Json& event) {
    out += first ? "\n" : ",\n";
    first = false;
    // Stats carry arbitrary bytes; invalid UTF-8 becomes U+FFFD instead of
    // an exception.
    out += event.dump(-1, ' ', false, Json::error_handler_t::replace);
  };
  for (const Json& m : metadata) append(m);
  for (Event& e : events) {
    int64_t rel;
    if (__builtin_sub_overflow(e.ts_ns, origin, &rel))
      return errors::InvalidArgument("the step's times span more than 2^63 nanoseconds");
    e.json["ts"] = static_cast<double>(rel) / 1000.0;
    if (e.json.contains("dur")) e.json["dur"] = static_cast<double>(e.dur_ns) / 1000.0;
    append(e.json);
  }
  out += "\n],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": {\"start_unix_nanos\": " + std::to_string(origin) + "}}\n";
  return out;
}

Status WriteChromeTraceFile(const std::string& path, const StepStats& stats) {
  auto json = StepStatsToChromeTrace(stats);
  if (!json.ok()) return json.status().WithContext("chrome trace file '" + path + "'");
  // A unique temporary name beside the target, so that concurrent writers
  // never share one and the rename stays on one file system. No fsync: a
  // trace is a diagnostic, the rename already keeps readers from seeing
  // half of one.
  std::string tmp = path + ".tmp." + RandomHex64();
  Status st = [&]() -> Status {
    auto file = WritableFile::Create(tmp);
    if (!file.ok()) return file.status();
    Status s = (*file)->Append(*json);
    s.Update((*file)->Close());
    s.Update(s.ok() ? RenameFile(tmp, path) : Status::OK());
    return s;
  }();
  if (!st.ok()) {
    RemoveFileQuietly(tmp);
    return st.WithContext("writing chrome trace file '" + path + "'");
  }
  return Status::OK();
}

}  // namespace flowvm
