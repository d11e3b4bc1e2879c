// The V2 summary write ops in a Session, as a training graph uses them: the
// writer resource opened by CreateSummaryFileWriter, every Write*Summary op
// over several Runs, Flush and Close, and the event file read back. Then a
// write to a closed writer (FailedPrecondition naming the node), reopening,
// and CreateSummaryFileWriter under a device's allowed directories.
#include <limits.h>
#include <stdlib.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "flowvm/event.pb.h"
#include "flowvm/graph_io.h"
#include "flowvm/record_io.h"
#include "flowvm/resource_handle.h"
#include "flowvm/session.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

namespace fs = std::filesystem;
using testing::OpTest;
using testing::TestNode;

constexpr const char* kWriterGraph = R"pb(
node { name: "writer" op: "SummaryWriter" attr { key: "shared_name" value { s: "train" } } }
node { name: "logdir" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
node { name: "max_queue" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 10 } } } }
node { name: "flush_millis" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
  attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 60000 } } } }
node { name: "suffix" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: ".v2" } } } }
node { name: "create" op: "CreateSummaryFileWriter"
  input: "writer" input: "logdir" input: "max_queue" input: "flush_millis" input: "suffix" }

node { name: "step" op: "Placeholder" attr { key: "dtype" value { type: DT_INT64 } } }
node { name: "loss" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "loss_tag" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "loss" } } } }
node { name: "write_loss" op: "WriteScalarSummary" input: "writer" input: "step" input: "loss_tag" input: "loss"
  attr { key: "T" value { type: DT_FLOAT } } }

node { name: "weights" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "weights_tag" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "layer1/weights" } } } }
node { name: "write_weights" op: "WriteHistogramSummary" input: "writer" input: "step" input: "weights_tag"
  input: "weights" attr { key: "T" value { type: DT_FLOAT } } }

node { name: "image" op: "Const" attr { key: "dtype" value { type: DT_UINT8 } }
  attr { key: "value" value { tensor { dtype: DT_UINT8 tensor_shape { dim { size: 1 } dim { size: 2 }
    dim { size: 2 } dim { size: 1 } } int_val: 0 int_val: 50 int_val: 100 int_val: 150 } } } }
node { name: "bad_color" op: "Const" attr { key: "dtype" value { type: DT_UINT8 } }
  attr { key: "value" value { tensor { dtype: DT_UINT8 tensor_shape { dim { size: 4 } }
    int_val: 255 int_val: 0 int_val: 0 int_val: 255 } } } }
node { name: "image_tag" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "input" } } } }
node { name: "write_image" op: "WriteImageSummary" input: "writer" input: "step" input: "image_tag"
  input: "image" input: "bad_color" attr { key: "T" value { type: DT_UINT8 } }
  attr { key: "max_images" value { i: 1 } } }

node { name: "acc" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "acc_tag" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "accuracy" } } } }
node { name: "acc_summary" op: "ScalarSummary" input: "acc_tag" input: "acc"
  attr { key: "T" value { type: DT_FLOAT } } }
node { name: "write_raw" op: "WriteRawProtoSummary" input: "writer" input: "step" input: "acc_summary" }

node { name: "tensor_tag" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "counts" } } } }
node { name: "no_metadata" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape { } string_val: "" } } } }
node { name: "counts" op: "Const" attr { key: "dtype" value { type: DT_INT64 } }
  attr { key: "value" value { tensor { dtype: DT_INT64 tensor_shape { dim { size: 3 } }
    int64_val: 7 int64_val: 8 int64_val: 9 } } } }
node { name: "write_tensor" op: "WriteSummary" input: "writer" input: "step" input: "counts" input: "tensor_tag"
  input: "no_metadata" attr { key: "T" value { type: DT_INT64 } } }

node { name: "graph_bytes" op: "Placeholder" attr { key: "dtype" value { type: DT_STRING } } }
node { name: "write_graph" op: "WriteGraphSummary" input: "writer" input: "step" input: "graph_bytes" }

node { name: "flush" op: "FlushSummaryWriter" input: "writer" }
node { name: "close" op: "CloseSummaryWriter" input: "writer" }
versions { producer: 1087 }
)pb";

class SummaryWriterOpsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "/summary_writer_ops_XXXXXX";
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    char real[PATH_MAX];
    ASSERT_NE(::realpath(tmpl.c_str(), real), nullptr);
    dir_ = real;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  // The event files under `dir`, sorted by name.
  static std::vector<std::string> EventFiles(const std::string& dir) {
    std::vector<std::string> files;
    if (!fs::exists(dir)) return files;
    for (const auto& e : fs::directory_iterator(dir))
      if (e.path().filename().string().find("tfevents") != std::string::npos) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    return files;
  }
  static std::vector<Event> ReadEvents(const std::string& path) {
    std::vector<Event> events;
    auto reader = RecordReader::Open(path);
    EXPECT_TRUE(reader.ok()) << reader.status();
    if (!reader.ok()) return events;
    uint64_t offset = 0;
    std::string record;
    while ((*reader)->ReadRecord(&offset, &record).ok()) {
      events.emplace_back();
      EXPECT_TRUE(events.back().ParseFromString(record));
    }
    return events;
  }

  std::string dir_;
};

TEST_F(SummaryWriterOpsTest, WritesEveryKindOfSummaryFromASession) {
  auto graph = ParseGraphDef(kWriterGraph, GraphFormat::kText);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = Session::Create(SessionOptions(), *graph);
  ASSERT_TRUE(session.ok()) << session.status();
  const std::string logdir = dir_ + "/logs/run1";
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK((*session)->Run({{"logdir", Tensor::Scalar<std::string>(logdir)}}, {}, {"create"}, &out));
  // A second create on the open writer does nothing (TensorFlow's rule).
  FLOWVM_ASSERT_OK((*session)->Run({{"logdir", Tensor::Scalar<std::string>(dir_ + "/other")}}, {}, {"create"}, &out));
  EXPECT_FALSE(fs::exists(dir_ + "/other"));

  for (int64_t step = 1; step <= 3; ++step) {
    FLOWVM_ASSERT_OK((*session)->Run({{"step", Tensor::Scalar<int64_t>(step)},
                                      {"loss", Tensor::Scalar<float>(1.0f / static_cast<float>(step))},
                                      {"weights", Tensor::FromVector<float>({0.5f, -0.25f, static_cast<float>(step)})},
                                      {"acc", Tensor::Scalar<float>(0.25f * static_cast<float>(step))}},
                                     {}, {"write_loss", "write_weights", "write_raw"}, &out));
  }
  GraphDef small;
  small.add_node()->set_name("only_node");
  FLOWVM_ASSERT_OK((*session)->Run({{"step", Tensor::Scalar<int64_t>(3)},
                                    {"graph_bytes", Tensor::Scalar<std::string>(small.SerializeAsString())}},
                                   {}, {"write_image", "write_tensor", "write_graph"}, &out));
  FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"flush"}, &out));

  std::vector<std::string> files = EventFiles(logdir);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].substr(files[0].size() - 3), ".v2");
  // Flushed: everything is in the file while the writer is still open.
  std::vector<Event> ev = ReadEvents(files[0]);
  ASSERT_EQ(ev.size(), 1u + 3 * 3 + 3);
  EXPECT_EQ(ev[0].file_version(), "brain.Event:2");

  int losses = 0, histograms = 0, accuracies = 0, images = 0, tensors = 0, graphs = 0;
  for (size_t i = 1; i < ev.size(); ++i) {
    const Event& e = ev[i];
    if (e.has_graph_def()) {
      GraphDef g;
      ASSERT_TRUE(g.ParseFromString(e.graph_def()));
      EXPECT_EQ(g.node(0).name(), "only_node");
      EXPECT_EQ(e.step(), 3);
      ++graphs;
      continue;
    }
    ASSERT_TRUE(e.has_summary()) << e.DebugString();
    ASSERT_EQ(e.summary().value_size(), 1);
    const Summary::Value& v = e.summary().value(0);
    if (v.tag() == "loss") {
      EXPECT_EQ(v.simple_value(), 1.0f / static_cast<float>(e.step()));
      ++losses;
    } else if (v.tag() == "layer1/weights") {
      EXPECT_EQ(v.histo().num(), 3);
      EXPECT_EQ(v.histo().max(), static_cast<double>(e.step()));
      ++histograms;
    } else if (v.tag() == "accuracy") {
      EXPECT_EQ(v.simple_value(), 0.25f * static_cast<float>(e.step()));
      ++accuracies;
    } else if (v.tag() == "input/image") {
      EXPECT_EQ(v.image().width(), 2);
      EXPECT_EQ(v.image().colorspace(), 1);
      ++images;
    } else if (v.tag() == "counts") {
      auto t = Tensor::FromProto(v.tensor());
      ASSERT_TRUE(t.ok()) << t.status();
      testing::ExpectTensorEqual(*t, Tensor::FromVector<int64_t>({7, 8, 9}));
      ++tensors;
    } else {
      ADD_FAILURE() << "unexpected tag " << v.tag();
    }
  }
  EXPECT_EQ(losses, 3);
  EXPECT_EQ(histograms, 3);
  EXPECT_EQ(accuracies, 3);
  EXPECT_EQ(images, 1);
  EXPECT_EQ(tensors, 1);
  EXPECT_EQ(graphs, 1);

  // Closed: writes fail naming the node, until a new file is opened.
  FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"close"}, &out));
  Status s = (*session)->Run({{"step", Tensor::Scalar<int64_t>(4)}, {"loss", Tensor::Scalar<float>(0)}}, {},
                             {"write_loss"}, &out);
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("write_loss"), std::string::npos) << s;
  EXPECT_NE(s.message().find("CreateSummaryFileWriter"), std::string::npos) << s;

  const std::string logdir2 = dir_ + "/logs/run2";
  FLOWVM_ASSERT_OK((*session)->Run({{"logdir", Tensor::Scalar<std::string>(logdir2)}}, {}, {"create"}, &out));
  FLOWVM_ASSERT_OK((*session)->Run({{"step", Tensor::Scalar<int64_t>(5)}, {"loss", Tensor::Scalar<float>(2)}}, {},
                                   {"write_loss"}, &out));
  FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"close"}, &out));
  files = EventFiles(logdir2);
  ASSERT_EQ(files.size(), 1u);
  ev = ReadEvents(files[0]);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[1].step(), 5);
  EXPECT_EQ(ev[1].summary().value(0).simple_value(), 2.0f);
}

TEST_F(SummaryWriterOpsTest, BadInputsNameTheNodeAndTag) {
  auto graph = ParseGraphDef(kWriterGraph, GraphFormat::kText);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = Session::Create(SessionOptions(), *graph);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  // Before CreateSummaryFileWriter there is no writer.
  Status s = (*session)->Run({{"step", Tensor::Scalar<int64_t>(1)}, {"loss", Tensor::Scalar<float>(0)}}, {},
                             {"write_loss"}, &out);
  EXPECT_EQ(s.code(), Code::kNotFound) << s;
  EXPECT_NE(s.message().find("write_loss"), std::string::npos) << s;
  EXPECT_NE(s.message().find("summary writer 'train'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("run CreateSummaryFileWriter first"), std::string::npos) << s;

  FLOWVM_ASSERT_OK((*session)->Run({{"logdir", Tensor::Scalar<std::string>(dir_)}}, {}, {"create"}, &out));
  s = (*session)->Run({{"step", Tensor::Scalar<int64_t>(1)}, {"weights", Tensor::FromVector<float>({1, NAN})}}, {},
                      {"write_weights"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("write_weights"), std::string::npos) << s;
  EXPECT_NE(s.message().find("Nan in summary histogram for: layer1/weights"), std::string::npos) << s;
  s = (*session)->Run({{"step", Tensor::Scalar<int64_t>(1)}, {"graph_bytes", Tensor::Scalar<std::string>("\xff")}},
                      {}, {"write_graph"}, &out);
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("write_graph"), std::string::npos) << s;
  FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"close"}, &out));
}

TEST_F(SummaryWriterOpsTest, CreateSummaryFileWriterStaysInsideTheAllowedDirectories) {
  fs::create_directories(dir_ + "/allowed");
  fs::create_directories(dir_ + "/outside");
  auto policy = PathPolicy::Create({dir_ + "/allowed"});
  ASSERT_TRUE(policy.ok()) << policy.status();
  auto run = [&](const std::string& logdir) {
    OpTest t;
    t.device()->set_path_policy(*policy);
    FLOWVM_RETURN_IF_ERROR(t.Init(TestNode("logs/create", "CreateSummaryFileWriter")
                                      .Input("w").Input("d").Input("q").Input("f").Input("s")));
    Tensor handle(DT_RESOURCE, TensorShape({}));
    handle.scalar<ResourceHandle>().name = "w";
    t.AddInput(handle);
    t.AddInput(Tensor::Scalar<std::string>(logdir));
    t.AddInput(Tensor::Scalar<int32_t>(10));
    t.AddInput(Tensor::Scalar<int32_t>(100));
    t.AddInput(Tensor::Scalar<std::string>(""));
    return t.Run();
  };
  FLOWVM_EXPECT_OK(run(dir_ + "/allowed/run1"));
  EXPECT_EQ(EventFiles(dir_ + "/allowed/run1").size(), 1u);
  Status s = run(dir_ + "/outside/run1");
  EXPECT_EQ(s.code(), Code::kPermissionDenied) << s;
  EXPECT_EQ(s.message().rfind("node 'logs/create' may not write '" + dir_ + "/outside/run1'", 0), 0u) << s;
  EXPECT_FALSE(fs::exists(dir_ + "/outside/run1"));
  s = run(dir_ + "/allowed/../outside/run2");
  EXPECT_EQ(s.code(), Code::kPermissionDenied) << s;
  EXPECT_FALSE(fs::exists(dir_ + "/outside/run2"));
}

}  // namespace
}  // namespace flowvm
