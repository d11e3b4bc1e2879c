// SummaryWriter: what it writes reads back with RecordReader and
// flowvm::Event; when it writes (queue, timer, Flush, Close); a crash-torn
// last record leaves the rest readable; several threads at once; and a
// failed write (file size limit) is reported naming the file, with the
// file left whole.
#include "flowvm/summary_writer.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/record_io.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;

class SummaryWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/summary_writer_test_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string dir_;
};

// Every whole record of `path` as an Event; stops at the end or at the
// first damaged record (its status in *tail).
std::vector<Event> ReadEvents(const std::string& path, Status* tail = nullptr) {
  std::vector<Event> events;
  auto reader = RecordReader::Open(path);
  EXPECT_TRUE(reader.ok()) << reader.status();
  if (!reader.ok()) return events;
  uint64_t offset = 0;
  std::string record;
  Status s;
  while ((s = (*reader)->ReadRecord(&offset, &record)).ok()) {
    Event e;
    EXPECT_TRUE(e.ParseFromString(record)) << "record at " << offset;
    events.push_back(std::move(e));
  }
  if (tail) *tail = s;
  return events;
}

// Polls until `path` holds `n` events; false after 20 s.
bool WaitForEvents(const std::string& path, size_t n) {
  for (int i = 0; i < 2000; ++i) {
    if (ReadEvents(path).size() >= n) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST_F(SummaryWriterTest, WritesEveryKindOfEventAndReadsBack) {
  auto w = SummaryWriter::Create(dir_ + "/run1/nested");
  ASSERT_TRUE(w.ok()) << w.status();
  const std::string path = (*w)->path();
  const std::string name = fs::path(path).filename().string();
  EXPECT_EQ(fs::path(path).parent_path(), fs::path(dir_ + "/run1/nested"));
  EXPECT_EQ(name.rfind("events.out.tfevents.", 0), 0u) << name;

  ASSERT_TRUE((*w)->AddScalar("loss", 0.5, 1).ok());
  ASSERT_TRUE((*w)->AddScalar("loss", 0.25, 2).ok());
  ASSERT_TRUE((*w)->AddHistogram("w", Tensor::FromVector<float>({1, 2, 3}), 2).ok());
  Tensor image(DT_UINT8, TensorShape({2, 3, 3}));
  for (int i = 0; i < 18; ++i) image.data<uint8_t>()[i] = static_cast<uint8_t>(i * 10);
  ASSERT_TRUE((*w)->AddImage("input", image, 3).ok());
  GraphDef graph;
  graph.add_node()->set_name("x");
  graph.mutable_node(0)->set_op("Const");
  ASSERT_TRUE((*w)->AddGraph(graph).ok());
  RunMetadata md;
  md.mutable_step_stats()->add_dev_stats()->set_device("/device:CPU:0");
  ASSERT_TRUE((*w)->AddRunMetadata("step_3", md, 3).ok());
  Summary merged;
  merged.add_value()->set_tag("a");
  merged.mutable_value(0)->set_simple_value(7);
  ASSERT_TRUE((*w)->AddSerializedSummary(merged.SerializeAsString(), 4).ok());
  Event custom;
  custom.set_step(9);
  custom.set_wall_time(123.5);
  custom.mutable_log_message()->set_message("hello");
  ASSERT_TRUE((*w)->AddEvent(custom).ok());
  ASSERT_TRUE((*w)->Close().ok());

  std::vector<Event> ev = ReadEvents(path);
  ASSERT_EQ(ev.size(), 9u);
  EXPECT_EQ(ev[0].file_version(), "brain.Event:2");
  EXPECT_GT(ev[0].wall_time(), 1.5e9);
  EXPECT_EQ(ev[1].step(), 1);
  EXPECT_EQ(ev[1].summary().value(0).tag(), "loss");
  EXPECT_EQ(ev[1].summary().value(0).simple_value(), 0.5f);
  EXPECT_EQ(ev[2].summary().value(0).simple_value(), 0.25f);
  EXPECT_GE(ev[2].wall_time(), ev[1].wall_time());
  const HistogramProto& h = ev[3].summary().value(0).histo();
  EXPECT_EQ(h.num(), 3);
  EXPECT_EQ(h.min(), 1);
  EXPECT_EQ(h.max(), 3);
  EXPECT_EQ(h.sum(), 6);
  EXPECT_EQ(h.sum_squares(), 14);
  const Summary::Image& img = ev[4].summary().value(0).image();
  EXPECT_EQ(ev[4].summary().value(0).tag(), "input");
  EXPECT_EQ(img.height(), 2);
  EXPECT_EQ(img.width(), 3);
  EXPECT_EQ(img.colorspace(), 3);
  EXPECT_EQ(img.encoded_image_string().substr(1, 3), "PNG");
  GraphDef g;
  ASSERT_TRUE(g.ParseFromString(ev[5].graph_def()));
  EXPECT_EQ(g.node(0).name(), "x");
  EXPECT_EQ(ev[6].tagged_run_metadata().tag(), "step_3");
  RunMetadata m;
  ASSERT_TRUE(m.ParseFromString(ev[6].tagged_run_metadata().run_metadata()));
  EXPECT_EQ(m.step_stats().dev_stats(0).device(), "/device:CPU:0");
  EXPECT_EQ(ev[6].step(), 3);
  EXPECT_EQ(ev[7].summary().value(0).tag(), "a");
  EXPECT_EQ(ev[7].step(), 4);
  EXPECT_EQ(ev[8].wall_time(), 123.5);
  EXPECT_EQ(ev[8].log_message().message(), "hello");
}

// AddScalar encodes its event by hand (the hot path of a trainer): the
// bytes must be exactly what protobuf writes for the same Event, for every
// kind of step, tag and value, and a tag too long for the fast path still
// works.
TEST_F(SummaryWriterTest, ScalarsAreByteForByteWhatProtobufWrites) {
  auto w = SummaryWriter::Create(dir_);
  ASSERT_TRUE(w.ok()) << w.status();
  const std::string long_tag(300, 't');
  struct Case {
    std::string tag;
    double value;
    int64_t step;
  };
  const std::vector<Case> cases = {{"loss", 0.25, 7},         {"zero/step", -1.5, 0},
                                   {"", 3.0, 1},              {"negative", 0.0, -5},
                                   {"big", 1e30, int64_t{1} << 62}, {long_tag, 2.0, 300},
                                   {"nan", std::nan(""), 1},  {"x", 1.0, INT64_MIN}};
  for (const Case& c : cases) ASSERT_TRUE((*w)->AddScalar(c.tag, c.value, c.step).ok());
  // Several in one event, and as many as to need the slow path.
  ASSERT_TRUE((*w)->AddScalars({{"a", 1.0}, {"", 2.0}, {"c", -3.0}}, 12).ok());
  std::vector<SummaryWriter::Scalar> many;
  for (int i = 0; i < 100; ++i) many.push_back({"many", static_cast<double>(i)});
  ASSERT_TRUE((*w)->AddScalars(many.data(), many.size(), 13).ok());
  ASSERT_TRUE((*w)->Close().ok());
  auto reader = RecordReader::Open((*w)->path());
  ASSERT_TRUE(reader.ok());
  uint64_t offset = 0;
  std::string record;
  ASSERT_TRUE((*reader)->ReadRecord(&offset, &record).ok());  // file_version
  for (const Case& c : cases) {
    ASSERT_TRUE((*reader)->ReadRecord(&offset, &record).ok()) << c.tag;
    Event e;
    ASSERT_TRUE(e.ParseFromString(record)) << c.tag;
    EXPECT_EQ(e.SerializeAsString(), record) << c.tag;
    EXPECT_EQ(e.step(), c.step);
    EXPECT_GT(e.wall_time(), 0);
    ASSERT_EQ(e.summary().value_size(), 1);
    EXPECT_EQ(e.summary().value(0).tag(), c.tag);
    ASSERT_TRUE(e.summary().value(0).has_simple_value()) << c.tag;
    const float expected = static_cast<float>(c.value);
    if (std::isnan(expected)) {
      EXPECT_TRUE(std::isnan(e.summary().value(0).simple_value()));
    } else {
      EXPECT_EQ(e.summary().value(0).simple_value(), expected) << c.tag;
    }
  }
  for (int64_t step : {12, 13}) {
    ASSERT_TRUE((*reader)->ReadRecord(&offset, &record).ok());
    Event e;
    ASSERT_TRUE(e.ParseFromString(record));
    EXPECT_EQ(e.SerializeAsString(), record) << step;
    EXPECT_EQ(e.step(), step);
    ASSERT_EQ(e.summary().value_size(), step == 12 ? 3 : 100);
    EXPECT_EQ(e.summary().value(step == 12 ? 2 : 99).simple_value(), step == 12 ? -3.0f : 99.0f);
  }
}

// Tags are UTF-8 strings in the file: a tag that is not would make its
// whole event unreadable, so it is refused, named with its bad bytes shown.
TEST_F(SummaryWriterTest, ATagThatIsNotUtf8IsRefused) {
  auto w = SummaryWriter::Create(dir_);
  ASSERT_TRUE(w.ok()) << w.status();
  for (const std::string bad : {std::string("r\xe9sum\xe9"), std::string("\xc0\x80"), std::string("x\xed\xa0\x80"),
                                std::string("cut\xe2\x82")}) {
    Status s = (*w)->AddScalar(bad, 1.0, 1);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
    EXPECT_NE(s.message().find("is not UTF-8"), std::string::npos) << s;
    Summary summary;
    summary.add_value()->set_tag(bad);
    EXPECT_EQ((*w)->AddSummary(summary, 1).code(), Code::kInvalidArgument);
  }
  Status s = (*w)->AddScalar("r\xe9sum\xe9", 1.0, 1);
  EXPECT_NE(s.message().find("'r\\xe9sum\\xe9'"), std::string::npos) << s;
  // Well-formed multi-byte tags are fine.
  EXPECT_TRUE((*w)->AddScalars({{"r\xc3\xa9sum\xc3\xa9", 1.0}, {"\xe2\x82\xac", 2.0}, {"\xf0\x9f\x99\x82", 3.0}}, 2).ok());
  ASSERT_TRUE((*w)->Close().ok());
  std::vector<Event> events = ReadEvents((*w)->path());
  ASSERT_EQ(events.size(), 2u);  // file_version and the good one
  EXPECT_EQ(events[1].summary().value(1).tag(), "\xe2\x82\xac");
}

TEST_F(SummaryWriterTest, FileVersionIsOnDiskAtOnceAndFlushWritesTheRest) {
  SummaryWriterOptions opt;
  opt.flush_interval_ms = 0;  // no timer
  opt.max_queue = 1000;
  auto w = SummaryWriter::Create(dir_, opt);
  ASSERT_TRUE(w.ok()) << w.status();
  EXPECT_EQ(ReadEvents((*w)->path()).size(), 1u);
  ASSERT_TRUE((*w)->AddScalar("x", 1, 1).ok());
  EXPECT_EQ(ReadEvents((*w)->path()).size(), 1u);  // pending, in memory
  ASSERT_TRUE((*w)->Flush().ok());
  EXPECT_EQ(ReadEvents((*w)->path()).size(), 2u);
}

TEST_F(SummaryWriterTest, MaxQueueEventsStartAWrite) {
  SummaryWriterOptions opt;
  opt.flush_interval_ms = 0;
  opt.max_queue = 3;
  auto w = SummaryWriter::Create(dir_, opt);
  ASSERT_TRUE(w.ok()) << w.status();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE((*w)->AddScalar("x", i, i).ok());
  EXPECT_TRUE(WaitForEvents((*w)->path(), 4));
}

TEST_F(SummaryWriterTest, TheTimerWritesPendingEvents) {
  SummaryWriterOptions opt;
  opt.flush_interval_ms = 20;
  opt.max_queue = 1000;
  auto w = SummaryWriter::Create(dir_, opt);
  ASSERT_TRUE(w.ok()) << w.status();
  ASSERT_TRUE((*w)->AddScalar("x", 1, 1).ok());
  EXPECT_TRUE(WaitForEvents((*w)->path(), 2));
}

TEST_F(SummaryWriterTest, ATornLastRecordLeavesTheOthersReadable) {
  std::string path;
  {
    auto w = SummaryWriter::Create(dir_);
    ASSERT_TRUE(w.ok()) << w.status();
    path = (*w)->path();
    for (int i = 0; i < 20; ++i) ASSERT_TRUE((*w)->AddScalar("x", i, i).ok());
    // The destructor closes.
  }
  const uintmax_t size = fs::file_size(path);
  ASSERT_EQ(ReadEvents(path).size(), 21u);
  fs::resize_file(path, size - 5);  // a crash in the middle of the last record
  Status tail;
  std::vector<Event> ev = ReadEvents(path, &tail);
  ASSERT_EQ(ev.size(), 20u);
  EXPECT_EQ(ev.back().step(), 18);
  EXPECT_EQ(tail.code(), Code::kDataLoss) << tail;
}

TEST_F(SummaryWriterTest, SeveralThreadsAddAtOnce) {
  SummaryWriterOptions opt;
  opt.max_queue = 7;
  opt.flush_interval_ms = 1;
  auto w = SummaryWriter::Create(dir_, opt);
  ASSERT_TRUE(w.ok()) << w.status();
  constexpr int kThreads = 6, kEach = 400;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        if (!(*w)->AddScalar("thread" + std::to_string(t), i, i).ok()) failures++;
        if (i % 100 == 0 && !(*w)->Flush().ok()) failures++;
      }
    });
  }
  for (auto& th : threads) th.join();
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(failures.load(), 0);
  std::vector<Event> ev = ReadEvents((*w)->path());
  ASSERT_EQ(ev.size(), 1u + kThreads * kEach);
  std::vector<int64_t> next(kThreads, 0);
  for (size_t i = 1; i < ev.size(); ++i) {
    const int t = std::stoi(ev[i].summary().value(0).tag().substr(6));
    EXPECT_EQ(ev[i].step(), next[t]) << "thread " << t << "'s events out of order";
    next[t] = ev[i].step() + 1;
  }
}

TEST_F(SummaryWriterTest, NeverOverwritesAnExistingFile) {
  auto a = SummaryWriter::Create(dir_);
  auto b = SummaryWriter::Create(dir_);
  auto c = SummaryWriter::Create(dir_, {.filename_suffix = ".v2"});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_NE((*a)->path(), (*b)->path());
  EXPECT_EQ((*c)->path().substr((*c)->path().size() - 3), ".v2");
  ASSERT_TRUE((*a)->AddScalar("a", 1, 1).ok());
  ASSERT_TRUE((*b)->AddScalar("b", 1, 1).ok());
  ASSERT_TRUE((*a)->Close().ok());
  ASSERT_TRUE((*b)->Close().ok());
  EXPECT_EQ(ReadEvents((*a)->path()).at(1).summary().value(0).tag(), "a");
  EXPECT_EQ(ReadEvents((*b)->path()).at(1).summary().value(0).tag(), "b");
}

TEST_F(SummaryWriterTest, BadInputIsInvalidArgumentNamingTheTag) {
  auto w = SummaryWriter::Create(dir_);
  ASSERT_TRUE(w.ok());
  Status s = (*w)->AddSerializedSummary("\xff\xff\xff", 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  s = (*w)->AddHistogram("weights", Tensor::FromVector<float>({1, NAN}), 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("weights"), std::string::npos) << s;
  s = (*w)->AddImage("pic", Tensor::FromVector<float>({1, 2}), 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("pic"), std::string::npos) << s;
  s = (*w)->AddImage("pic", Tensor(DT_UINT8, TensorShape({2, 2, 5})), 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  s = (*w)->AddImage("empty", Tensor(DT_UINT8, TensorShape({0, 2, 3})), 1);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s;
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ(ReadEvents((*w)->path()).size(), 1u);
}

TEST_F(SummaryWriterTest, CallsAfterCloseAreFailedPrecondition) {
  auto w = SummaryWriter::Create(dir_);
  ASSERT_TRUE(w.ok());
  ASSERT_TRUE((*w)->Close().ok());
  EXPECT_EQ((*w)->AddScalar("x", 1, 1).code(), Code::kFailedPrecondition);
  EXPECT_EQ((*w)->Flush().code(), Code::kFailedPrecondition);
  EXPECT_EQ((*w)->Close().code(), Code::kFailedPrecondition);
}

TEST_F(SummaryWriterTest, AnUnwritableLogdirIsAnError) {
  const std::string file = dir_ + "/plain_file";
  { std::ofstream(file) << "x"; }
  auto w = SummaryWriter::Create(file + "/sub");
  EXPECT_FALSE(w.ok());
  EXPECT_NE(w.status().message().find(file), std::string::npos) << w.status();
  EXPECT_EQ(SummaryWriter::Create("").status().code(), Code::kInvalidArgument);
}

// In a child process (a death test): a file size limit (RLIMIT_FSIZE, as a
// full disk) makes a write fail; the error is ResourceExhausted naming the
// file, the file is cut back to whole records, and writing goes on once
// there is room again.
// Returns 0, or the number of the first check that failed.
int WriteIntoAFileSizeLimit(const std::string& dir) {
  ::signal(SIGXFSZ, SIG_IGN);
  auto w = SummaryWriter::Create(dir, {.flush_interval_ms = 0, .max_queue = 1000, .filename_suffix = ""});
  if (!w.ok()) return 10;
  if (!(*w)->AddScalar("small", 1, 1).ok() || !(*w)->Flush().ok()) return 11;
  const uintmax_t good = fs::file_size((*w)->path());
  struct rlimit old_limit;
  ::getrlimit(RLIMIT_FSIZE, &old_limit);
  struct rlimit limit = old_limit;
  limit.rlim_cur = good + 100;
  if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 12;
  std::vector<float> big(4096, 1.0f);
  for (int i = 0; i < 4096; ++i) big[i] = static_cast<float>(i);
  if (!(*w)->AddHistogram("big", Tensor::FromVector<float>(big), 2).ok()) return 13;
  for (int i = 0; i < 20; ++i) (*w)->AddScalar("lost", i, 3).IgnoreError();
  Status s = (*w)->Flush();
  if (s.code() != Code::kResourceExhausted) return 14;
  if (s.message().find((*w)->path()) == std::string::npos) return 15;
  if (s.message().find("21 summary events lost") == std::string::npos) return 16;
  if (fs::file_size((*w)->path()) != good) return 17;
  limit.rlim_cur = old_limit.rlim_cur;
  if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) return 18;
  if (!(*w)->AddScalar("after", 4, 4).ok() || !(*w)->Close().ok()) return 19;
  Status tail;
  std::vector<Event> ev = ReadEvents((*w)->path(), &tail);
  if (ev.size() != 3 || ev[2].summary().value(0).tag() != "after") return 20;
  if (tail.code() != Code::kOutOfRange) return 21;
  return 0;
}

// The child's exit: its own temporary directory (made by its SetUp) is
// removed first, since _exit skips TearDown.
void ExitAfterFileSizeLimitCheck(const std::string& dir) {
  const int code = WriteIntoAFileSizeLimit(dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  _exit(code);
}

TEST_F(SummaryWriterTest, AFailedWriteIsReportedAndUndone) {
  // Re-executed rather than forked: earlier tests leave threads behind
  // (the global timer), and a forked child must not depend on their locks.
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(ExitAfterFileSizeLimitCheck(dir_), ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace flowvm
