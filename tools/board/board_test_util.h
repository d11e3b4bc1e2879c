// Test helpers for the board: event files written directly with
// RecordWriter + Event (the way any writer frames them), and temporary
// log directories. Header-only; tests only.
#ifndef FLOWVM_TOOLS_BOARD_BOARD_TEST_UTIL_H_
#define FLOWVM_TOOLS_BOARD_BOARD_TEST_UTIL_H_

#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "flowvm/config.pb.h"
#include "flowvm/event.pb.h"
#include "flowvm/graph.pb.h"
#include "flowvm/record_io.h"

namespace flowvm::board::testing {

// A folder under the test's temporary directory, removed when done.
class TempDir {
 public:
  TempDir() {
    path_ = ::testing::TempDir() + "/flowvm_board_XXXXXX";
    if (::mkdtemp(path_.data()) == nullptr) ADD_FAILURE() << "mkdtemp failed";
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// One event file, written event by event. Flush() makes what was written
// visible to readers (RecordWriter buffers until then).
class EventFileForTest {
 public:
  // Creates `dir`/events.out.tfevents.<suffix> and writes the file_version
  // event.
  EventFileForTest(const std::string& dir, const std::string& suffix = "1700000000.test") {
    path_ = dir + "/events.out.tfevents." + suffix;
    auto w = RecordWriter::Create(path_);
    EXPECT_TRUE(w.ok()) << w.status();
    if (w.ok()) writer_ = std::move(w).value();
    Event e;
    e.set_wall_time(wall_time_);
    e.set_file_version("brain.Event:2");
    Write(e);
  }
  ~EventFileForTest() {
    if (writer_) {
      EXPECT_TRUE(writer_->Close().ok());
    }
  }

  void Write(const Event& e) {
    if (writer_) {
      EXPECT_TRUE(writer_->Write(e.SerializeAsString()).ok());
    }
  }
  void Flush() {
    if (writer_) {
      EXPECT_TRUE(writer_->Flush().ok());
    }
  }
  Event At(int64_t step) {
    Event e;
    e.set_wall_time(wall_time_ + step * 0.25);
    e.set_step(step);
    return e;
  }
  void Scalar(const std::string& tag, int64_t step, float value) {
    Event e = At(step);
    Summary::Value* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    v->set_simple_value(value);
    Write(e);
  }
  // TF2 style: a scalar float tensor; the "scalars" plugin named only when
  // `with_metadata`.
  void TensorScalar(const std::string& tag, int64_t step, double value, bool with_metadata) {
    Event e = At(step);
    Summary::Value* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    if (with_metadata) v->mutable_metadata()->mutable_plugin_data()->set_plugin_name("scalars");
    TensorProto* t = v->mutable_tensor();
    t->set_dtype(DT_DOUBLE);
    t->add_double_val(value);
    Write(e);
  }
  void Histogram(const std::string& tag, int64_t step, const HistogramProto& h) {
    Event e = At(step);
    Summary::Value* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    *v->mutable_histo() = h;
    Write(e);
  }
  void Image(const std::string& tag, int64_t step, int width, int height, const std::string& png) {
    Event e = At(step);
    Summary::Value* v = e.mutable_summary()->add_value();
    v->set_tag(tag);
    v->mutable_image()->set_width(width);
    v->mutable_image()->set_height(height);
    v->mutable_image()->set_colorspace(3);
    v->mutable_image()->set_encoded_image_string(png);
    Write(e);
  }
  void Graph(const GraphDef& g, int64_t step = 0) {
    Event e = At(step);
    e.set_graph_def(g.SerializeAsString());
    Write(e);
  }
  void Metadata(const std::string& tag, int64_t step, const RunMetadata& md) {
    Event e = At(step);
    e.mutable_tagged_run_metadata()->set_tag(tag);
    e.mutable_tagged_run_metadata()->set_run_metadata(md.SerializeAsString());
    Write(e);
  }
  // A restarted run: SessionLog START at `step`.
  void Start(int64_t step) {
    Event e = At(step);
    e.mutable_session_log()->set_status(SessionLog::START);
    Write(e);
  }

  const std::string& path() const { return path_; }
  double wall_time() const { return wall_time_; }

 private:
  std::string path_;
  std::unique_ptr<RecordWriter> writer_;
  double wall_time_ = 1700000000.5;
};

}  // namespace flowvm::board::testing

#endif  // FLOWVM_TOOLS_BOARD_BOARD_TEST_UTIL_H_
