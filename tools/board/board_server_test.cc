// BoardServer in-process on a free loopback port: every endpoint of
// tools/board/API.md queried with httplib's client and its JSON checked
// against the event files the test wrote; errors name the run or tag.
#include "board/board_server.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "board/board_test_util.h"
#include "flowvm/cluster.h"

namespace flowvm::board {
namespace {

using nlohmann::json;
using testing::EventFileForTest;
using testing::TempDir;

const char kCpu0[] = "/job:localhost/replica:0/task:0/device:CPU:0";
const char kCpu1[] = "/job:localhost/replica:0/task:0/device:CPU:1";

GraphDef SmallGraph() {
  GraphDef g;
  NodeDef* a = g.add_node();
  a->set_name("layer1/a");
  a->set_op("Const");
  (*a->mutable_attr())["dtype"].set_type(DT_FLOAT);
  TensorProto* t = (*a->mutable_attr())["value"].mutable_tensor();
  t->set_dtype(DT_FLOAT);
  t->mutable_tensor_shape()->add_dim()->set_size(2);
  t->add_float_val(1);
  t->add_float_val(2);
  NodeDef* b = g.add_node();
  b->set_name("layer1/b");
  b->set_op("Neg");
  b->add_input("layer1/a");
  b->set_device(kCpu0);
  (*b->mutable_attr())["T"].set_type(DT_FLOAT);
  return g;
}

NodeExecStats* AddNode(DeviceStepStats* dev, const std::string& name, const std::string& label, int64_t start) {
  NodeExecStats* ns = dev->add_node_stats();
  ns->set_node_name(name);
  ns->set_timeline_label(label);
  ns->set_all_start_micros(start);
  ns->set_op_end_rel_micros(5);
  ns->set_all_end_rel_micros(5);
  return ns;
}

// A traced step over two devices with one transfer, and its partitions.
RunMetadata TracedStep() {
  RunMetadata md;
  DeviceStepStats* d0 = md.mutable_step_stats()->add_dev_stats();
  d0->set_device(kCpu0);
  AddNode(d0, "layer1/a", "layer1/a = Const()", 1700000000000000);
  AddNode(d0, "a/_send", std::string("a/_send = _Send(layer1/a) layer1/a:0 from ") + kCpu0 + " to " + kCpu1,
          1700000000000006);
  DeviceStepStats* d1 = md.mutable_step_stats()->add_dev_stats();
  d1->set_device(kCpu1);
  AddNode(d1, "a/_recv", std::string("a/_recv = _Recv() layer1/a:0 from ") + kCpu0 + " to " + kCpu1,
          1700000000000001);
  AddNode(d1, "layer1/b", "layer1/b = Neg(a/_recv)", 1700000000000012);
  GraphDef* p0 = md.add_partition_graphs();
  NodeDef* n = p0->add_node();
  n->set_name("layer1/a");
  n->set_device(kCpu0);
  GraphDef* p1 = md.add_partition_graphs();
  n = p1->add_node();
  n->set_name("layer1/b");
  n->set_device(kCpu1);
  return md;
}

class BoardServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    logdir_ = tmp_.path() + "/logs";
    std::filesystem::create_directories(logdir_ + "/train");
    std::filesystem::create_directories(logdir_ + "/eval");
    {
      EventFileForTest train(logdir_ + "/train");
      for (int i = 0; i < 50; ++i) train.Scalar("loss", i, 5.0f - 0.1f * i);
      train.Scalar("weird", 0, NAN);
      train.Scalar("weird", 1, INFINITY);
      HistogramProto h;
      h.set_min(-0.5);
      h.set_max(0.7);
      h.set_num(4);
      h.set_sum(0.5);
      h.set_sum_squares(1.25);
      h.add_bucket_limit(0);
      h.add_bucket_limit(1);
      h.add_bucket(1);
      h.add_bucket(3);
      train.Histogram("weights/w1", 10, h);
      train.Image("inputs/image/0", 10, 8, 4, png_);
      train.Graph(SmallGraph());
      train.Metadata("step_49", 49, TracedStep());
      EventFileForTest eval(logdir_ + "/eval");
      eval.Scalar("loss", 10, 3.0f);
      eval.Scalar("accuracy", 10, 0.8f);
    }
    graph_file_ = tmp_.path() + "/model.pbtxt";
    std::ofstream(graph_file_) << "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
    trace_file_ = tmp_.path() + "/step.json";
    std::ofstream(trace_file_) << R"({"traceEvents": [{"name": "op", "ph": "X", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]})";

    BoardOptions o;
    o.logdir = logdir_;
    StatusOr<int> port = PickUnusedLoopbackPort();
    ASSERT_TRUE(port.ok()) << port.status();
    o.port = *port;
    o.reload_ms = 20;
    o.graph_files = {graph_file_};
    o.trace_files = {trace_file_};
    auto server = BoardServer::Create(o);
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = std::move(server).value();
    server_->Start();
    client_ = std::make_unique<httplib::Client>("127.0.0.1", server_->port());
    client_->set_connection_timeout(5);
    client_->set_read_timeout(10);
    // Wait (bounded) until the tailer has read both runs.
    for (int i = 0; i < 500; ++i) {
      json runs = Get("/api/runs");
      if (runs.is_object() && runs["runs"].size() == 2 && runs["runs"][1]["last_step"] == 49 &&
          runs["runs"][0]["last_step"] == 10)
        return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "the board did not read the logdir: " << Get("/api/runs").dump();
  }
  void TearDown() override {
    client_.reset();
    if (server_) server_->Stop();
  }

  // The JSON body of a 200 response (null otherwise, with a failure).
  json Get(const std::string& path) {
    auto res = client_->Get(path);
    if (!res) {
      ADD_FAILURE() << "GET " << path << ": no response";
      return json();
    }
    EXPECT_EQ(res->status, 200) << path << ": " << res->body;
    EXPECT_EQ(res->get_header_value("Content-Type"), "application/json; charset=utf-8") << path;
    return json::parse(res->body, nullptr, false);
  }
  // The "error" object of a failed request, after checking its status.
  json Error(const std::string& path, int status) {
    auto res = client_->Get(path);
    if (!res) {
      ADD_FAILURE() << "GET " << path << ": no response";
      return json();
    }
    EXPECT_EQ(res->status, status) << path << ": " << res->body;
    json body = json::parse(res->body, nullptr, false);
    EXPECT_TRUE(body.contains("error")) << res->body;
    return body.is_object() ? body["error"] : json();
  }

  TempDir tmp_;
  std::string logdir_, graph_file_, trace_file_;
  const std::string png_ = std::string("\x89PNG\r\n\x1a\n", 8) + "not really";
  std::unique_ptr<BoardServer> server_;
  std::unique_ptr<httplib::Client> client_;
};

// A board on loopback answers only requests that name a loopback host: a
// page of another site that resolved its own name to 127.0.0.1 (DNS
// rebinding) is refused.
TEST_F(BoardServerTest, RequestsNamingAnotherHostAreRefused) {
  auto ok = client_->Get("/api/runs", {{"Host", "localhost:6006"}});
  ASSERT_TRUE(ok);
  EXPECT_EQ(ok->status, 200);
  for (const char* host : {"evil.example:6006", "evil.example", "10.0.0.1:80"}) {
    auto res = client_->Get("/api/runs", {{"Host", host}});
    ASSERT_TRUE(res) << host;
    EXPECT_EQ(res->status, 403) << host;
    EXPECT_NE(res->body.find("PERMISSION_DENIED"), std::string::npos) << res->body;
    res = client_->Get("/", {{"Host", host}});
    ASSERT_TRUE(res) << host;
    EXPECT_EQ(res->status, 403) << host;
  }
  auto v6 = client_->Get("/api/runs", {{"Host", "[::1]:6006"}});
  ASSERT_TRUE(v6);
  EXPECT_EQ(v6->status, 200);
}

TEST_F(BoardServerTest, TwoGraphOrTraceFilesOfOneNameAreRefused) {
  std::filesystem::create_directories(tmp_.path() + "/other");
  const std::string second = tmp_.path() + "/other/model.pbtxt";
  std::filesystem::copy_file(graph_file_, second);
  BoardOptions o;
  o.logdir = logdir_;
  o.port = 0;
  o.graph_files = {graph_file_, second};
  auto board = BoardServer::Create(o);
  ASSERT_FALSE(board.ok());
  EXPECT_EQ(board.status().code(), Code::kInvalidArgument);
  EXPECT_NE(board.status().message().find(second), std::string::npos) << board.status();
  EXPECT_NE(board.status().message().find("'model.pbtxt'"), std::string::npos) << board.status();
}

TEST_F(BoardServerTest, RunsListsRunsTagsAndFiles) {
  json j = Get("/api/runs");
  EXPECT_EQ(j["logdir"], std::filesystem::absolute(logdir_).lexically_normal().string());
  EXPECT_GT(j["generation"].get<int64_t>(), 0);
  ASSERT_EQ(j["runs"].size(), 2u);
  const json& eval = j["runs"][0];
  const json& train = j["runs"][1];
  EXPECT_EQ(eval["name"], "eval");
  EXPECT_EQ(eval["scalar_tags"], json({"accuracy", "loss"}));
  EXPECT_EQ(eval["has_graph"], false);
  EXPECT_EQ(train["name"], "train");
  EXPECT_EQ(train["scalar_tags"], json({"loss", "weird"}));
  EXPECT_EQ(train["histogram_tags"], json({"weights/w1"}));
  EXPECT_EQ(train["image_tags"], json({"inputs/image/0"}));
  EXPECT_EQ(train["run_metadata_tags"], json({"step_49"}));
  EXPECT_EQ(train["has_graph"], true);
  EXPECT_DOUBLE_EQ(train["first_wall_time"].get<double>(), 1700000000.5);
  EXPECT_GT(train["generation"].get<int64_t>(), 0);
  EXPECT_EQ(j["graph_files"], json({"model.pbtxt"}));
  EXPECT_EQ(j["trace_files"], json({"step.json"}));
}

TEST_F(BoardServerTest, ScalarsAreColumnarPerRun) {
  json j = Get("/api/scalars?tag=loss");
  EXPECT_EQ(j["tag"], "loss");
  ASSERT_EQ(j["runs"].size(), 2u);
  const json& train = j["runs"]["train"];
  ASSERT_EQ(train["step"].size(), 50u);
  EXPECT_EQ(train["kept"], 50);
  EXPECT_EQ(train["seen"], 50);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ(train["step"][i], i);
    EXPECT_EQ(train["value"][i].get<double>(), static_cast<double>(5.0f - 0.1f * i)) << i;
    EXPECT_DOUBLE_EQ(train["wall_time"][i].get<double>(), 1700000000.5 + 0.25 * i);
  }
  EXPECT_EQ(j["runs"]["eval"]["value"][0].get<double>(), 3.0);

  json some = Get("/api/scalars?tag=loss&run=train&max_points=7&min_step=10&max_step=40");
  ASSERT_EQ(some["runs"].size(), 1u);
  const json& s = some["runs"]["train"];
  ASSERT_EQ(s["step"].size(), 7u);
  EXPECT_EQ(s["step"][0], 10);
  EXPECT_EQ(s["step"][6], 40);
  EXPECT_EQ(s["kept"], 31);
  EXPECT_EQ(s["seen"], 50);

  json weird = Get("/api/scalars?tag=weird");
  EXPECT_TRUE(weird["runs"]["train"]["value"][0].is_null());
  EXPECT_TRUE(weird["runs"]["train"]["value"][1].is_null());
}

TEST_F(BoardServerTest, ScalarErrorsNameTheTagOrRun) {
  json e = Error("/api/scalars?tag=nope", 404);
  EXPECT_EQ(e["code"], "NOT_FOUND");
  EXPECT_NE(e["message"].get<std::string>().find("'nope'"), std::string::npos) << e;
  // Runs are named one per parameter; one that does not exist (deleted
  // since the page listed it) is left out; if none is left, NotFound.
  json two = Get("/api/scalars?tag=loss&run=train&run=gone");
  EXPECT_EQ(two["runs"].size(), 1u);
  EXPECT_TRUE(two["runs"].contains("train"));
  e = Error("/api/scalars?tag=loss&run=gone", 404);
  EXPECT_EQ(e["code"], "NOT_FOUND");
  EXPECT_NE(e["message"].get<std::string>().find("'loss'"), std::string::npos) << e;
  e = Error("/api/scalars", 400);
  EXPECT_EQ(e["code"], "INVALID_ARGUMENT");
  e = Error("/api/scalars?tag=loss&max_points=zero", 400);
  EXPECT_NE(e["message"].get<std::string>().find("max_points"), std::string::npos) << e;
  Error("/api/scalars?tag=loss&max_points=0", 400);
  Error("/api/nothing", 404);
}

TEST_F(BoardServerTest, HistogramsAndImages) {
  json h = Get("/api/histograms?run=train&tag=weights/w1");
  EXPECT_EQ(h["run"], "train");
  EXPECT_EQ(h["tag"], "weights/w1");
  ASSERT_EQ(h["histograms"].size(), 1u);
  const json& one = h["histograms"][0];
  EXPECT_EQ(one["step"], 10);
  EXPECT_EQ(one["min"], -0.5);
  EXPECT_EQ(one["max"], 0.7);
  EXPECT_EQ(one["num"], 4);
  EXPECT_EQ(one["sum"], 0.5);
  EXPECT_EQ(one["sum_squares"], 1.25);
  EXPECT_EQ(one["bucket_limit"], json({0, 1}));
  EXPECT_EQ(one["bucket"], json({1, 3}));
  json e = Error("/api/histograms?run=train&tag=nope", 404);
  EXPECT_NE(e["message"].get<std::string>().find("'nope'"), std::string::npos) << e;
  EXPECT_NE(e["message"].get<std::string>().find("'train'"), std::string::npos) << e;
  e = Error("/api/histograms?run=test&tag=weights/w1", 404);
  EXPECT_NE(e["message"].get<std::string>().find("'test'"), std::string::npos) << e;

  json images = Get("/api/images?run=train&tag=inputs/image/0");
  ASSERT_EQ(images["images"].size(), 1u);
  const json& img = images["images"][0];
  EXPECT_EQ(img["step"], 10);
  EXPECT_EQ(img["width"], 8);
  EXPECT_EQ(img["height"], 4);
  auto res = client_->Get("/api/image?run=train&tag=inputs/image/0&index=" + std::to_string(img["index"].get<int>()));
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "image/png");
  EXPECT_EQ(res->body, png_);
  Error("/api/image?run=train&tag=inputs/image/0&index=99", 404);
  Error("/api/images?run=eval&tag=inputs/image/0", 404);
}

TEST_F(BoardServerTest, GraphOfARunShowsPlacementAndOfAFile) {
  json g = Get("/api/graph?run=train");
  EXPECT_EQ(g["source"], "train");
  ASSERT_EQ(g["nodes"].size(), 2u);
  const json& a = g["nodes"][0];
  const json& b = g["nodes"][1];
  EXPECT_EQ(a["name"], "layer1/a");
  EXPECT_EQ(a["op"], "Const");
  EXPECT_EQ(a["device"], kCpu0);  // where it ran
  EXPECT_EQ(a["requested_device"], "");
  EXPECT_EQ(a["outputs"], json({"float [2]"}));
  EXPECT_EQ(b["inputs"], json({"layer1/a"}));
  EXPECT_EQ(b["device"], kCpu1);
  EXPECT_EQ(b["requested_device"], kCpu0);
  bool has_t = false;
  for (const json& attr : b["attrs"]) has_t |= attr[0] == "T" && attr[1] == "float";
  EXPECT_TRUE(has_t) << b["attrs"];
  EXPECT_EQ(g["devices"], json({kCpu0, kCpu1}));
  EXPECT_TRUE(g["errors"].is_array());

  json f = Get("/api/graph?file=model.pbtxt");
  EXPECT_EQ(f["source"], "model.pbtxt");
  ASSERT_EQ(f["nodes"].size(), 1u);
  EXPECT_EQ(f["nodes"][0]["op"], "Placeholder");

  Error("/api/graph?run=eval", 404);
  Error("/api/graph?file=other.pb", 404);
  Error("/api/graph", 400);
}

TEST_F(BoardServerTest, TraceOfARunMetadataLinksSendToRecv) {
  json t = Get("/api/trace?run=train&tag=step_49");
  ASSERT_TRUE(t.contains("traceEvents")) << t.dump();
  int slices = 0, starts = 0, finishes = 0;
  for (const json& e : t["traceEvents"]) {
    slices += e["ph"] == "X";
    if (e["ph"] == "s" && e["cat"] == "transfer") ++starts;
    if (e["ph"] == "f" && e["cat"] == "transfer") ++finishes;
  }
  EXPECT_EQ(slices, 4);
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(finishes, 1);

  auto res = client_->Get("/api/trace?file=step.json");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  std::ifstream in(trace_file_);
  EXPECT_EQ(res->body, std::string(std::istreambuf_iterator<char>(in), {}));

  json e = Error("/api/trace?run=train&tag=step_1", 404);
  EXPECT_NE(e["message"].get<std::string>().find("'step_1'"), std::string::npos) << e;
  Error("/api/trace?file=nope.json", 404);
}

TEST_F(BoardServerTest, ServesTheFrontEnd) {
  auto res = client_->Get("/");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_NE(res->body.find("<"), std::string::npos);
  // Sent as embedded, never compressed per request (brotli is slow).
  res = client_->Get("/board.js", {{"Accept-Encoding", "br, gzip"}});
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 200);
  EXPECT_EQ(res->get_header_value("Content-Type"), "text/javascript; charset=utf-8");
  EXPECT_FALSE(res->has_header("Content-Encoding"));
  EXPECT_FALSE(res->body.empty());
  res = client_->Get("/no/such/file");
  ASSERT_TRUE(res);
  EXPECT_EQ(res->status, 404);
}

TEST_F(BoardServerTest, NewEventsRaiseTheGeneration) {
  const int64_t before = Get("/api/runs")["generation"];
  {
    EventFileForTest more(logdir_ + "/train", "1800000000.more");
    more.Scalar("loss", 50, 0.25f);
  }
  json last;
  for (int i = 0; i < 500; ++i) {
    last = Get("/api/scalars?tag=loss&run=train");
    if (last["runs"]["train"]["step"].size() == 51) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(last["runs"]["train"]["step"].back(), 50);
  EXPECT_EQ(last["runs"]["train"]["value"].back(), 0.25);
  EXPECT_GT(Get("/api/runs")["generation"].get<int64_t>(), before);
}

TEST(BoardServerCreateTest, BadGraphOrTraceFilesAreErrorsNamingTheFile) {
  TempDir tmp;
  const std::string bad_graph = tmp.path() + "/bad.pbtxt";
  std::ofstream(bad_graph) << "node { name: ";
  BoardOptions o;
  o.logdir = tmp.path();
  o.port = 0;
  o.graph_files = {bad_graph};
  auto s = BoardServer::Create(o);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find(bad_graph), std::string::npos) << s.status();

  const std::string bad_trace = tmp.path() + "/bad.json";
  std::ofstream(bad_trace) << "{\"traceEvents\": [";
  o.graph_files.clear();
  o.trace_files = {bad_trace};
  s = BoardServer::Create(o);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find(bad_trace), std::string::npos) << s.status();

  o.trace_files = {tmp.path() + "/missing.json"};
  s = BoardServer::Create(o);
  EXPECT_EQ(s.status().code(), Code::kNotFound);
}

TEST(BoardServerCreateTest, PortZeroPicksAFreePortAndLoopbackIsRecognized) {
  TempDir tmp;
  BoardOptions o;
  o.logdir = tmp.path() + "/not-yet";
  o.port = 0;
  auto s = BoardServer::Create(o);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_GT((*s)->port(), 0);
  EXPECT_EQ((*s)->url(), "http://127.0.0.1:" + std::to_string((*s)->port()) + "/");
  (*s)->Start();
  (*s)->Stop();
  EXPECT_TRUE(IsLoopbackHost("127.0.0.1"));
  EXPECT_TRUE(IsLoopbackHost("127.1.2.3"));
  EXPECT_TRUE(IsLoopbackHost("localhost"));
  EXPECT_TRUE(IsLoopbackHost("::1"));
  EXPECT_FALSE(IsLoopbackHost("0.0.0.0"));
  EXPECT_FALSE(IsLoopbackHost("10.0.0.1"));
}

}  // namespace
}  // namespace flowvm::board
