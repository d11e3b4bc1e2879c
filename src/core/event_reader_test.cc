// Tailing event files: a file read while it grows, torn tails, damaged
// records skipped or stopping the reader, and listing a run's files.
#include "flowvm/event_reader.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "core/crc32c.h"
#include "flowvm/record_io.h"

namespace flowvm {
namespace {

std::string Fixed64(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}
std::string Fixed32(uint32_t v) {
  std::string s(4, '\0');
  for (int i = 0; i < 4; ++i) s[i] = static_cast<char>((v >> (8 * i)) & 0xff);
  return s;
}

// The TFRecord framing of `data`, byte for byte.
std::string Frame(const std::string& data) {
  const std::string len = Fixed64(data.size());
  return len + Fixed32(Crc32cMask(Crc32c(len.data(), 8))) + data +
         Fixed32(Crc32cMask(Crc32c(data.data(), data.size())));
}

std::string ScalarEvent(int64_t step, float value) {
  Event e;
  e.set_wall_time(1000.0 + step);
  e.set_step(step);
  Summary::Value* v = e.mutable_summary()->add_value();
  v->set_tag("loss");
  v->set_simple_value(value);
  return e.SerializeAsString();
}

class EventReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/event_reader_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
    path_ = dir_ + "/events.out.tfevents.1.host";
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  void Append(const std::string& bytes) {
    std::ofstream f(path_, std::ios::binary | std::ios::app);
    f << bytes;
  }
  std::unique_ptr<EventFileReader> OpenReader() {
    auto r = EventFileReader::Open(path_);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  std::string dir_, path_;
};

TEST_F(EventReaderTest, ReadsWhatRecordWriterWrote) {
  {
    auto w = RecordWriter::Create(path_);
    ASSERT_TRUE(w.ok()) << w.status();
    Event first;
    first.set_file_version("brain.Event:2");
    ASSERT_TRUE((*w)->Write(first.SerializeAsString()).ok());
    for (int i = 0; i < 3; ++i) ASSERT_TRUE((*w)->Write(ScalarEvent(i, 0.5f * i)).ok());
    ASSERT_TRUE((*w)->Close().ok());
  }
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  ASSERT_TRUE(reader->Next(&e).ok());
  EXPECT_EQ(e.file_version(), "brain.Event:2");
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(reader->Next(&e).ok());
    EXPECT_EQ(e.step(), i);
    EXPECT_FLOAT_EQ(e.summary().value(0).simple_value(), 0.5f * i);
  }
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
}

TEST_F(EventReaderTest, AGrowingFileIsReadInPieces) {
  Append("");
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
  // Every record arrives a few bytes at a time; until its last byte is
  // there, the reader has nothing, and then it has exactly that record.
  for (int step = 0; step < 5; ++step) {
    const std::string record = Frame(ScalarEvent(step, step * 1.5f));
    const uint64_t before = reader->offset();
    for (size_t i = 0; i + 3 < record.size(); i += 3) {
      Append(record.substr(i, 3));
      ASSERT_EQ(reader->Next(&e).code(), Code::kOutOfRange) << "step " << step << " byte " << i;
    }
    Append(record.substr((record.size() - 1) / 3 * 3));
    Status s = reader->Next(&e);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(e.step(), step);
    EXPECT_FLOAT_EQ(e.summary().value(0).simple_value(), step * 1.5f);
    EXPECT_EQ(reader->offset(), before + record.size());
  }
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
}

TEST_F(EventReaderTest, ATornTailWaitsAndIsReadOnceCompleted) {
  const std::string a = Frame(ScalarEvent(1, 1.0f));
  const std::string b = Frame(ScalarEvent(2, 2.0f));
  // Many records so that the torn one lies beyond the first read-ahead.
  std::string many;
  for (int i = 0; i < 20000; ++i) many += a;
  Append(many + b.substr(0, b.size() - 1));
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  for (int i = 0; i < 20000; ++i) ASSERT_TRUE(reader->Next(&e).ok()) << i;
  const uint64_t torn_at = reader->offset();
  Status s = reader->Next(&e);
  EXPECT_EQ(s.code(), Code::kOutOfRange) << s;
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
  EXPECT_EQ(reader->offset(), torn_at);
  Append(b.substr(b.size() - 1));
  s = reader->Next(&e);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(e.step(), 2);
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
}

TEST_F(EventReaderTest, ABadDataCrcIsDataLossAndSkipped) {
  std::string bad = Frame(ScalarEvent(2, 2.0f));
  bad[14] ^= 0x40;  // inside the data
  const std::string first = Frame(ScalarEvent(1, 1.0f));
  Append(first + bad + Frame(ScalarEvent(3, 3.0f)));
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  ASSERT_TRUE(reader->Next(&e).ok());
  EXPECT_EQ(e.step(), 1);
  Status s = reader->Next(&e);
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_NE(s.message().find(path_), std::string::npos) << s;
  EXPECT_NE(s.message().find("offset " + std::to_string(first.size())), std::string::npos) << s;
  ASSERT_TRUE(reader->Next(&e).ok());
  EXPECT_EQ(e.step(), 3);
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
}

// A record whose header declares more than any Event can be (here 4 GiB,
// in a sparse file) is skipped without being read into memory.
TEST_F(EventReaderTest, ARecordOverTwoGiBIsSkippedUnread) {
  const uint64_t huge = uint64_t{4} << 30;
  const std::string len = Fixed64(huge);
  const std::string first = Frame(ScalarEvent(1, 1.0f));
  Append(first + len + Fixed32(Crc32cMask(Crc32c(len.data(), 8))));
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  ASSERT_TRUE(reader->Next(&e).ok());
  // Not all there yet: waits, as for any torn tail.
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
  std::filesystem::resize_file(path_, first.size() + 12 + huge + 4);  // sparse: no disk used
  Append(Frame(ScalarEvent(3, 3.0f)));
  Status s = reader->Next(&e);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s;
  EXPECT_NE(s.message().find("over the 2 GiB"), std::string::npos) << s;
  ASSERT_TRUE(reader->Next(&e).ok());
  EXPECT_EQ(e.step(), 3);
}

// A writer that fails halfway through a write cuts the file back to its
// last whole record and writes again there: the bytes the reader saw of
// the failed write must not be trusted.
TEST_F(EventReaderTest, ATailCutBackAndRewrittenIsReadAfresh) {
  const std::string first = Frame(ScalarEvent(1, 1.0f));
  const std::string failed = Frame(ScalarEvent(99, 99.0f));
  Append(first + failed.substr(0, failed.size() / 2));
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  ASSERT_TRUE(reader->Next(&e).ok());
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
  std::filesystem::resize_file(path_, first.size());
  Append(Frame(ScalarEvent(2, 2.0f)) + Frame(ScalarEvent(3, 3.0f)));
  for (int64_t step : {2, 3}) {
    Status s = reader->Next(&e);
    ASSERT_TRUE(s.ok()) << s;
    EXPECT_EQ(e.step(), step);
  }
  EXPECT_EQ(reader->Next(&e).code(), Code::kOutOfRange);
}

TEST_F(EventReaderTest, ARecordThatIsNotAnEventIsSkipped) {
  Append(Frame(std::string("\xff\xff\xff", 3)) + Frame(ScalarEvent(4, 4.0f)));
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  Status s = reader->Next(&e);
  EXPECT_EQ(s.code(), Code::kDataLoss) << s;
  EXPECT_NE(s.message().find("not an Event"), std::string::npos) << s;
  ASSERT_TRUE(reader->Next(&e).ok());
  EXPECT_EQ(e.step(), 4);
}

TEST_F(EventReaderTest, ABadLengthCrcStopsTheReaderThere) {
  const std::string first = Frame(ScalarEvent(1, 1.0f));
  std::string bad = Frame(ScalarEvent(2, 2.0f));
  bad[9] ^= 0x01;  // the length's CRC
  Append(first + bad + Frame(ScalarEvent(3, 3.0f)));
  auto reader = OpenReader();
  ASSERT_NE(reader, nullptr);
  Event e;
  ASSERT_TRUE(reader->Next(&e).ok());
  Status s = reader->Next(&e);
  EXPECT_EQ(s.code(), Code::kDataLoss);
  EXPECT_NE(s.message().find("offset " + std::to_string(first.size())), std::string::npos) << s;
  EXPECT_TRUE(reader->stopped());
  Append(Frame(ScalarEvent(4, 4.0f)));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(reader->Next(&e), s);
  EXPECT_EQ(reader->offset(), first.size());
}

TEST_F(EventReaderTest, AMissingFileIsNotFound) {
  auto r = EventFileReader::Open(dir_ + "/events.out.tfevents.none");
  EXPECT_EQ(r.status().code(), Code::kNotFound);
  EXPECT_NE(r.status().message().find("events.out.tfevents.none"), std::string::npos);
}

TEST_F(EventReaderTest, ListsTheEventFilesOfOneFolderInNameOrder) {
  for (const char* name : {"events.out.tfevents.20.b", "events.out.tfevents.10.a", "checkpoint", "events.out.x"})
    std::ofstream(dir_ + "/" + name) << "";
  std::filesystem::create_directories(dir_ + "/sub");
  std::ofstream(dir_ + "/sub/events.out.tfevents.5.c") << "";
  std::filesystem::create_directories(dir_ + "/events.out.tfevents.1.dir");
  auto files = ListEventFiles(dir_);
  ASSERT_TRUE(files.ok()) << files.status();
  EXPECT_EQ(*files, (std::vector<std::string>{dir_ + "/events.out.tfevents.10.a", dir_ + "/events.out.tfevents.20.b"}));
  EXPECT_EQ(ListEventFiles(dir_ + "/missing").status().code(), Code::kNotFound);
  EXPECT_EQ(ListEventFiles(dir_ + "/checkpoint").status().code(), Code::kFailedPrecondition);
  EXPECT_FALSE(IsEventFileName("events.out.tfevents."));
  EXPECT_TRUE(IsEventFileName("events.out.tfevents.1.h"));
}

}  // namespace
}  // namespace flowvm
