// StepStatsToChromeTrace / WriteChromeTraceFile: the JSON is parsed back and
// its tracks, slices, flows, counters, times and escaping are checked.
#include "flowvm/trace.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace flowvm {
namespace {

using nlohmann::json;

const char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
const char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";
constexpr int64_t kT0 = 1700000000000000;  // a realistic epoch time in µs

NodeExecStats* AddNode(DeviceStepStats* dev, const std::string& name, const std::string& label, int64_t start_us,
                       int64_t op_start_rel_us, int64_t op_end_rel_us, uint32_t thread = 0) {
  NodeExecStats* ns = dev->add_node_stats();
  ns->set_node_name(name);
  ns->set_timeline_label(label);
  ns->set_all_start_micros(start_us);
  ns->set_op_start_rel_micros(op_start_rel_us);
  ns->set_op_end_rel_micros(op_end_rel_us);
  ns->set_all_end_rel_micros(op_end_rel_us);
  ns->set_thread_id(thread);
  return ns;
}

json Convert(const StepStats& stats) {
  auto text = StepStatsToChromeTrace(stats);
  EXPECT_TRUE(text.ok()) << text.status();
  if (!text.ok()) return json();
  json j = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not valid JSON:\n" << *text;
  return j;
}

std::vector<json> EventsWithPhase(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const json& e : trace["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

json Metadata(const json& trace, const std::string& name, int64_t pid, int64_t tid = -1) {
  for (const json& e : EventsWithPhase(trace, "M"))
    if (e["name"] == name && e["pid"] == pid && (tid < 0 || e["tid"] == tid)) return e;
  ADD_FAILURE() << "no " << name << " metadata for pid " << pid << " tid " << tid;
  return json();
}

json Slice(const json& trace, const std::string& name) {
  for (const json& e : EventsWithPhase(trace, "X"))
    if (e["name"] == name) return e;
  ADD_FAILURE() << "no slice named " << name;
  return json();
}

TEST(ChromeTraceTest, EmptyStats) {
  json j = Convert(StepStats());
  ASSERT_TRUE(j["traceEvents"].is_array());
  EXPECT_TRUE(j["traceEvents"].empty());
  EXPECT_EQ(j["displayTimeUnit"], "ns");
}

TEST(ChromeTraceTest, ProcessPerDeviceAndThreadPerThreadId) {
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  d0->set_device(kCpu0);
  (*d0->mutable_thread_names())[3] = "inter-op 3";
  AddNode(d0, "x", "x = Const()", kT0, 0, 2, 3);
  AddNode(d0, "y", "y = Neg(x)", kT0 + 5, 1, 4, 7);
  DeviceStepStats* d1 = stats.add_dev_stats();
  d1->set_device(kCpu1);
  AddNode(d1, "z", "z = MatMul(x, y:1, ^init)", kT0 + 10, 0, 3, 0);
  json j = Convert(stats);

  EXPECT_EQ(Metadata(j, "process_name", 1)["args"]["name"], kCpu0);
  EXPECT_EQ(Metadata(j, "process_name", 2)["args"]["name"], kCpu1);
  EXPECT_EQ(Metadata(j, "process_sort_index", 1)["args"]["sort_index"], 0);
  EXPECT_EQ(Metadata(j, "process_sort_index", 2)["args"]["sort_index"], 1);
  // tid = thread_id + 1; names from thread_names, else "thread N".
  EXPECT_EQ(Metadata(j, "thread_name", 1, 4)["args"]["name"], "inter-op 3");
  EXPECT_EQ(Metadata(j, "thread_name", 1, 8)["args"]["name"], "thread 7");
  EXPECT_EQ(Metadata(j, "thread_name", 2, 1)["args"]["name"], "thread 0");
  EXPECT_EQ(EventsWithPhase(j, "M").size(), 2u * 2 + 3u * 2);  // names and sort indices

  json x = Slice(j, "x"), y = Slice(j, "y"), z = Slice(j, "z");
  EXPECT_EQ(x["pid"], 1);
  EXPECT_EQ(x["tid"], 4);
  EXPECT_EQ(y["pid"], 1);
  EXPECT_EQ(y["tid"], 8);
  EXPECT_EQ(z["pid"], 2);
  EXPECT_EQ(z["tid"], 1);
  EXPECT_EQ(z["cat"], "MatMul");
  EXPECT_EQ(z["args"]["op"], "MatMul");
  EXPECT_EQ(z["args"]["timeline_label"], "z = MatMul(x, y:1, ^init)");
  EXPECT_EQ(z["args"]["inputs"], json({"x", "y:1", "^init"}));
  // Relative to the first op start (x's): y's op starts 5 + 1 µs later.
  EXPECT_DOUBLE_EQ(x["ts"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(x["dur"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(y["ts"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(y["dur"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(z["ts"].get<double>(), 10.0);
  EXPECT_EQ(j["otherData"]["start_unix_nanos"], kT0 * 1000);
}

TEST(ChromeTraceTest, SubMicrosecondTimesFromNanos) {
  StepStats stats;
  DeviceStepStats* d = stats.add_dev_stats();
  d->set_device(kCpu0);
  NodeExecStats* a = AddNode(d, "a", "a = Const()", kT0, 0, 1);
  a->set_all_start_nanos(kT0 * 1000 + 123);
  a->set_op_start_rel_nanos(250);
  a->set_op_end_rel_nanos(1750);
  NodeExecStats* b = AddNode(d, "b", "b = Neg(a)", kT0, 2, 3);  // micros only
  b->set_op_start_rel_nanos(0);
  json j = Convert(stats);
  json sa = Slice(j, "a"), sb = Slice(j, "b");
  // a's op starts at kT0 µs + 373 ns; b's at kT0 + 2 µs, the origin is a's.
  EXPECT_NEAR(sa["ts"].get<double>(), 0.0, 1e-9);
  EXPECT_NEAR(sa["dur"].get<double>(), 1.5, 1e-9);
  EXPECT_NEAR(sb["ts"].get<double>(), 2.0 - 0.373, 1e-9);
  EXPECT_NEAR(sb["dur"].get<double>(), 1.0, 1e-9);
  EXPECT_EQ(j["otherData"]["start_unix_nanos"], kT0 * 1000 + 373);
}

TEST(ChromeTraceTest, SendRecvPairIsLinkedByAFlow) {
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  d0->set_device(kCpu0);
  AddNode(d0, "a", "a = Const()", kT0, 0, 1, 2);
  AddNode(d0, "a/_send", std::string("a/_send = _Send(a) a:0 from ") + kCpu0 + " to " + kCpu1, kT0 + 2, 0, 4, 2);
  DeviceStepStats* d1 = stats.add_dev_stats();
  d1->set_device(kCpu1);
  AddNode(d1, "b/_recv", std::string("b/_recv = _Recv() a:0 from ") + kCpu0 + " to " + kCpu1, kT0, 0, 9, 5);
  json j = Convert(stats);

  std::vector<json> starts = EventsWithPhase(j, "s"), ends = EventsWithPhase(j, "f");
  ASSERT_EQ(starts.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  const json &s = starts[0], &f = ends[0];
  EXPECT_EQ(s["id"], f["id"]);
  EXPECT_EQ(s["cat"], "transfer");
  EXPECT_EQ(f["cat"], "transfer");
  EXPECT_EQ(s["name"], f["name"]);  // Perfetto matches v1 flows by id, cat and name
  EXPECT_EQ(f["bp"], "e");
  json send = Slice(j, "a/_send"), recv = Slice(j, "b/_recv");
  EXPECT_EQ(send["cat"], "_Send");
  EXPECT_EQ(recv["cat"], "_Recv");
  EXPECT_EQ(s["pid"], send["pid"]);
  EXPECT_EQ(s["tid"], send["tid"]);
  EXPECT_EQ(f["pid"], recv["pid"]);
  EXPECT_EQ(f["tid"], recv["tid"]);
  EXPECT_EQ(s["pid"], 1);
  EXPECT_EQ(f["pid"], 2);
  // Inside the Send's slice; at the Recv's end, just inside it.
  double send_ts = send["ts"], send_end = send_ts + send["dur"].get<double>();
  EXPECT_GT(s["ts"].get<double>(), send_ts);
  EXPECT_LT(s["ts"].get<double>(), send_end);
  double recv_end = recv["ts"].get<double>() + recv["dur"].get<double>();
  EXPECT_LT(f["ts"].get<double>(), recv_end);
  EXPECT_NEAR(f["ts"].get<double>(), recv_end, 0.0015);
}

TEST(ChromeTraceTest, UnpairedTransfersGetNoFlow) {
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  d0->set_device(kCpu0);
  // A Send with no Recv, and a Recv of another tensor (same devices)...
  AddNode(d0, "a/_send", std::string("a/_send = _Send(a) a:0 from ") + kCpu0 + " to " + kCpu1, kT0, 0, 4);
  DeviceStepStats* d1 = stats.add_dev_stats();
  d1->set_device(kCpu1);
  AddNode(d1, "c/_recv", std::string("c/_recv = _Recv() c:0 from ") + kCpu0 + " to " + kCpu1, kT0, 0, 4);
  // ...and one of the right tensor between other devices.
  AddNode(d1, "a/_recv", std::string("a/_recv = _Recv() a:0 from ") + kCpu1 + " to " + kCpu0, kT0, 0, 4);
  json j = Convert(stats);
  EXPECT_EQ(EventsWithPhase(j, "X").size(), 3u);
  EXPECT_TRUE(EventsWithPhase(j, "s").empty());
  EXPECT_TRUE(EventsWithPhase(j, "f").empty());
}

TEST(ChromeTraceTest, RepeatedTransfersPairInOrder) {
  // A loop sends the same tensor twice: first Send -> first Recv.
  StepStats stats;
  DeviceStepStats* d0 = stats.add_dev_stats();
  DeviceStepStats* d1 = stats.add_dev_stats();
  std::string suffix = std::string(" x:0 from ") + kCpu0 + " to " + kCpu1;
  AddNode(d0, "s2", "s2 = _Send(x)" + suffix, kT0 + 20, 0, 2);
  AddNode(d0, "s1", "s1 = _Send(x)" + suffix, kT0, 0, 2);
  AddNode(d1, "r1", "r1 = _Recv()" + suffix, kT0 + 1, 0, 3);
  AddNode(d1, "r2", "r2 = _Recv()" + suffix, kT0 + 21, 0, 3);
  json j = Convert(stats);
  std::vector<json> starts = EventsWithPhase(j, "s"), ends = EventsWithPhase(j, "f");
  ASSERT_EQ(starts.size(), 2u);
  ASSERT_EQ(ends.size(), 2u);
  for (const json& s : starts) {
    bool first = s["ts"].get<double>() < 10;
    int matched = 0;
    for (const json& f : ends)
      if (f["id"] == s["id"]) {
        ++matched;
        EXPECT_EQ(f["ts"].get<double>() < 10, first) << "a Send paired with the other iteration's Recv";
      }
    EXPECT_EQ(matched, 1);
  }
  EXPECT_NE(starts[0]["id"], starts[1]["id"]);
}

TEST(ChromeTraceTest, StringsAreEscaped) {
  const std::string nasty = std::string("q\"uote\\back\nline\ttab\x01\x1f end/\xc3\xa9", 29);
  StepStats stats;
  DeviceStepStats* d = stats.add_dev_stats();
  d->set_device("dev \"0\"\\");
  (*d->mutable_thread_names())[0] = "t\n0";
  AddNode(d, nasty, nasty + " = Identity(" + nasty + ")", kT0, 0, 1);
  AddNode(d, "bad\xff utf8", "garbage\xfe", kT0, 0, 1);
  auto text = StepStatsToChromeTrace(stats);
  ASSERT_TRUE(text.ok()) << text.status();
  for (char c : *text) EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 && c != '\n') << int(c);
  json j = Convert(stats);
  json s = Slice(j, nasty);
  EXPECT_EQ(s["args"]["op"], "Identity");
  EXPECT_EQ(s["args"]["inputs"], json({nasty}));
  EXPECT_EQ(Metadata(j, "process_name", 1)["args"]["name"], "dev \"0\"\\");
  EXPECT_EQ(Metadata(j, "thread_name", 1, 1)["args"]["name"], "t\n0");
  // Bytes that are not UTF-8 are replaced, not passed through or thrown.
  json bad = Slice(j, "bad\xef\xbf\xbd utf8");
  EXPECT_EQ(bad["cat"], "unknown");
  EXPECT_EQ(bad["args"]["op"], "unknown");
  EXPECT_EQ(bad["args"]["timeline_label"], "garbage\xef\xbf\xbd");
}

TEST(ChromeTraceTest, OutputsMemoryAndOrder) {
  StepStats stats;
  DeviceStepStats* d = stats.add_dev_stats();
  d->set_device(kCpu0);
  AddNode(d, "late", "late = Neg(early)", kT0 + 50, 0, 1);
  NodeExecStats* early = AddNode(d, "early", "early = Fill(dims, v)", kT0, 1, 11);
  NodeOutput* out = early->add_output();
  out->set_slot(0);
  TensorDescription* t = out->mutable_tensor_description();
  t->set_dtype(DT_FLOAT);
  t->mutable_shape()->add_dim()->set_size(2);
  t->mutable_shape()->add_dim()->set_size(-1);
  t->mutable_allocation_description()->set_requested_bytes(24);
  AllocatorMemoryUsed* mem = early->add_memory();
  mem->set_allocator_name("cpu");
  mem->set_allocator_bytes_in_use(4096);
  mem->set_peak_bytes(512);
  AddNode(d, "backwards", "backwards = NoOp()", kT0 + 20, 5, 2);  // ends before it starts
  json j = Convert(stats);

  json o = Slice(j, "early")["args"]["outputs"];
  ASSERT_EQ(o.size(), 1u);
  EXPECT_EQ(o[0]["slot"], 0);
  EXPECT_EQ(o[0]["dtype"], "float");
  EXPECT_EQ(o[0]["shape"], "[2,?]");
  EXPECT_EQ(o[0]["requested_bytes"], 24);
  EXPECT_DOUBLE_EQ(Slice(j, "backwards")["dur"].get<double>(), 0.0);

  std::vector<json> counters = EventsWithPhase(j, "C");
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0]["name"], "cpu");
  EXPECT_EQ(counters[0]["pid"], 1);
  EXPECT_EQ(counters[0]["args"]["bytes_in_use"], 4096);
  EXPECT_EQ(counters[0]["args"]["peak_bytes"], 512);
  EXPECT_DOUBLE_EQ(counters[0]["ts"].get<double>(), 10.0);  // at the op's end

  // Metadata first, then everything by ts.
  double last = -1;
  bool seen_timed = false;
  std::vector<std::string> slice_order;
  for (const json& e : j["traceEvents"]) {
    if (e["ph"] == "M") {
      EXPECT_FALSE(seen_timed) << "metadata after a timed event";
      continue;
    }
    seen_timed = true;
    EXPECT_GE(e["ts"].get<double>(), last);
    last = e["ts"].get<double>();
    if (e["ph"] == "X") slice_order.push_back(e["name"]);
  }
  EXPECT_EQ(slice_order, (std::vector<std::string>{"early", "backwards", "late"}));
}

TEST(ChromeTraceTest, TimesThatOverflowAreAnError) {
  StepStats stats;
  DeviceStepStats* d = stats.add_dev_stats();
  d->set_device(kCpu0);
  AddNode(d, "huge", "huge = NoOp()", INT64_MAX / 10, 0, 1);
  auto text = StepStatsToChromeTrace(stats);
  ASSERT_FALSE(text.ok());
  EXPECT_EQ(text.status().code(), Code::kInvalidArgument);
  EXPECT_NE(text.status().message().find("'huge'"), std::string::npos) << text.status();
  EXPECT_NE(text.status().message().find(kCpu0), std::string::npos) << text.status();
}

TEST(ChromeTraceTest, WriteFileIsAtomicAndNamesThePath) {
  std::string dir = ::testing::TempDir() + "/chrome_trace_test_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  StepStats stats;
  DeviceStepStats* d = stats.add_dev_stats();
  d->set_device(kCpu0);
  AddNode(d, "x", "x = Const()", kT0, 0, 1);
  std::string path = dir + "/step.json";
  {
    std::ofstream old(path);
    old << "old contents";
  }
  ASSERT_TRUE(WriteChromeTraceFile(path, stats).ok());
  std::ifstream in(path);
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(buf.str(), *StepStatsToChromeTrace(stats));
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(entry.path().filename().string(), "step.json");
  }
  EXPECT_EQ(files, 1) << "temporary file left behind";

  std::string missing = dir + "/no/such/dir/step.json";
  Status st = WriteChromeTraceFile(missing, stats);
  EXPECT_EQ(st.code(), Code::kNotFound) << st;
  EXPECT_NE(st.message().find("'" + missing + "'"), std::string::npos) << st;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace flowvm
