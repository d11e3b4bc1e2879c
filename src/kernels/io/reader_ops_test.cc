// Input pipelines: readers fed by a queue of file names, through sessions,
// and the decoding ops.
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "flowvm/record_io.h"
#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::OpTest;
using testing::PlaceholderNode;
using testing::TestNode;

NodeDef Node(const std::string& name, const std::string& op, const std::vector<std::string>& inputs,
             std::map<std::string, AttrValue> attrs = {}) {
  TestNode n(name, op);
  for (const auto& in : inputs) n.Input(in);
  NodeDef def = n;
  for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
  return def;
}

class ReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/reader_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::string WriteRecords(const std::string& name, const std::vector<std::string>& records) {
    std::string path = dir_ + "/" + name;
    auto w = RecordWriter::Create(path);
    EXPECT_TRUE(w.ok()) << w.status();
    for (const auto& r : records) EXPECT_TRUE((*w)->Write(r).ok());
    EXPECT_TRUE((*w)->Close().ok());
    return path;
  }
  // files: a FIFOQueueV2 of file names, fed by `enqueue_files` (feed
  // "names") and closed by `close_files`; `read` and `read_up_to` (feed
  // "n") read from a reader of kind `reader`.
  std::unique_ptr<Session> Pipeline(const std::string& reader, std::map<std::string, AttrValue> reader_attrs = {}) {
    GraphDef g;
    g.mutable_versions()->set_producer(1205);
    auto strings = MakeAttrValue(DataTypeVector{DT_STRING});
    for (NodeDef n : {Node("files", "FIFOQueueV2", {}, {{"component_types", strings}}),
                      PlaceholderNode("names", DT_STRING, PartialTensorShape({-1})),
                      PlaceholderNode("n", DT_INT64, PartialTensorShape(std::initializer_list<int64_t>{})),
                      Node("enqueue_files", "QueueEnqueueManyV2", {"files", "names"}, {{"Tcomponents", strings}}),
                      Node("close_files", "QueueCloseV2", {"files"}), Node("reader", reader, {}, reader_attrs),
                      Node("read", "ReaderReadV2", {"reader", "files"}),
                      Node("read_up_to", "ReaderReadUpToV2", {"reader", "files", "n"}),
                      Node("produced", "ReaderNumRecordsProducedV2", {"reader"})})
      *g.add_node() = n;
    auto s = Session::Create(SessionOptions(), g);
    EXPECT_TRUE(s.ok()) << s.status();
    return s.ok() ? std::move(*s) : nullptr;
  }
  Status Feed(Session* s, const std::vector<std::string>& names, bool close = true) {
    FLOWVM_RETURN_IF_ERROR(s->Run({{"names", Tensor::FromVector<std::string>(names)}}, {}, {"enqueue_files"}, nullptr));
    return close ? s->Run({}, {}, {"close_files"}, nullptr) : Status::OK();
  }
  StatusOr<std::pair<std::string, std::string>> Read(Session* s) {
    std::vector<Tensor> out;
    FLOWVM_RETURN_IF_ERROR(s->Run({}, {"read:0", "read:1"}, {}, &out));
    return std::make_pair(out[0].scalar<std::string>(), out[1].scalar<std::string>());
  }
  std::string dir_;
};

TEST_F(ReaderTest, TFRecordReaderReadsEveryFileThenEndsTheEpoch) {
  std::string a = WriteRecords("a.tfrecord", {"a0", "a1"});
  std::string b = WriteRecords("b.tfrecord", {});
  std::string c = WriteRecords("c.tfrecord", {"c0"});
  auto s = Pipeline("TFRecordReaderV2");
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(Feed(s.get(), {a, b, c}));
  std::vector<std::string> keys, values;
  for (int i = 0; i < 3; ++i) {
    auto r = Read(s.get());
    ASSERT_TRUE(r.ok()) << r.status();
    keys.push_back(r->first);
    values.push_back(r->second);
  }
  EXPECT_EQ(values, (std::vector<std::string>{"a0", "a1", "c0"}));
  EXPECT_EQ(keys, (std::vector<std::string>{a + ":0", a + ":18", c + ":0"}));
  auto end = Read(s.get());
  EXPECT_EQ(end.status().code(), Code::kOutOfRange) << end.status();
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({}, {"produced"}, {}, &out));
  EXPECT_EQ(out[0].scalar<int64_t>(), 3);
}

TEST_F(ReaderTest, ReadUpToCrossesFilesAndReturnsTheRestAtTheEnd) {
  std::string a = WriteRecords("a.tfrecord", {"1", "2", "3"});
  std::string b = WriteRecords("b.tfrecord", {"4", "5"});
  auto s = Pipeline("TFRecordReaderV2");
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(Feed(s.get(), {a, b}));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({{"n", Tensor::Scalar<int64_t>(4)}}, {"read_up_to:1"}, {}, &out));
  auto v = out[0].flat<std::string>();
  EXPECT_EQ(std::vector<std::string>(v.begin(), v.end()), (std::vector<std::string>{"1", "2", "3", "4"}));
  FLOWVM_ASSERT_OK(s->Run({{"n", Tensor::Scalar<int64_t>(4)}}, {"read_up_to:1"}, {}, &out));
  EXPECT_EQ(out[0].NumElements(), 1);
  Status end = s->Run({{"n", Tensor::Scalar<int64_t>(4)}}, {"read_up_to:1"}, {}, &out);
  EXPECT_EQ(end.code(), Code::kOutOfRange) << end;
}

TEST_F(ReaderTest, AReadWaitsForFileNamesWithoutAThread) {
  std::string a = WriteRecords("a.tfrecord", {"x"});
  auto s = Pipeline("TFRecordReaderV2");
  ASSERT_NE(s, nullptr);
  std::thread feeder([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    EXPECT_TRUE(Feed(s.get(), {a}, /*close=*/false).ok());
  });
  auto r = Read(s.get());
  feeder.join();
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->second, "x");
}

TEST_F(ReaderTest, ADamagedRecordIsDataLossNamingFileAndOffset) {
  std::string a = WriteRecords("a.tfrecord", {"good", "bad!"});
  {
    std::fstream f(a, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(20 + 12 + 1);  // inside the second record's data
    f.put('X');
  }
  auto s = Pipeline("TFRecordReaderV2");
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(Feed(s.get(), {a}));
  EXPECT_EQ(Read(s.get())->second, "good");
  auto bad = Read(s.get());
  EXPECT_EQ(bad.status().code(), Code::kDataLoss) << bad.status();
  EXPECT_NE(bad.status().message().find(a), std::string::npos);
  EXPECT_NE(bad.status().message().find("offset 20"), std::string::npos) << bad.status();
  EXPECT_NE(bad.status().message().find("'read'"), std::string::npos) << bad.status();  // the node
}

TEST_F(ReaderTest, TextLineAndWholeFileReaders) {
  std::string path = dir_ + "/lines.csv";
  std::ofstream(path) << "header\n1,2\r\n3,4\n";
  auto s = Pipeline("TextLineReaderV2", {{"skip_header_lines", MakeAttrValue(int64_t{1})}});
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(Feed(s.get(), {path}));
  EXPECT_EQ(Read(s.get())->second, "1,2");
  auto second = Read(s.get());
  EXPECT_EQ(second->second, "3,4");
  EXPECT_EQ(second->first, path + ":3");
  EXPECT_EQ(Read(s.get()).status().code(), Code::kOutOfRange);

  auto whole = Pipeline("WholeFileReaderV2");
  ASSERT_NE(whole, nullptr);
  FLOWVM_ASSERT_OK(Feed(whole.get(), {path, dir_ + "/missing"}));
  auto r = Read(whole.get());
  EXPECT_EQ(r->first, path);
  EXPECT_EQ(r->second, "header\n1,2\r\n3,4\n");
  EXPECT_EQ(Read(whole.get()).status().code(), Code::kNotFound);
}

TEST(ParsingOpsTest, DecodeRaw) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("d", "DecodeRaw").Input("b").Attr("out_type", DT_INT16)));
  t.AddInput(Tensor::FromVector<std::string>({std::string("\x01\x00\x02\x01", 4), std::string("\xff\xff\x00\x00", 4)}));
  FLOWVM_ASSERT_OK(t.Run());
  EXPECT_EQ(t.output(0).shape(), TensorShape({2, 2}));
  auto v = t.output(0).flat<int16_t>();
  EXPECT_EQ(std::vector<int16_t>(v.begin(), v.end()), (std::vector<int16_t>{1, 258, -1, 0}));
  OpTest big;
  FLOWVM_ASSERT_OK(big.Init(TestNode("d", "DecodeRaw").Input("b").Attr("out_type", DT_INT16).Attr("little_endian", false)));
  big.AddInput(Tensor::Scalar<std::string>(std::string("\x01\x02", 2)));
  FLOWVM_ASSERT_OK(big.Run());
  EXPECT_EQ(big.output(0).flat<int16_t>()[0], 258);
  OpTest uneven;
  FLOWVM_ASSERT_OK(uneven.Init(TestNode("d", "DecodeRaw").Input("b").Attr("out_type", DT_FLOAT)));
  uneven.AddInput(Tensor::FromVector<std::string>({"abcd", "abcdefgh"}));
  EXPECT_EQ(uneven.Run().code(), Code::kInvalidArgument);
}

TEST(ParsingOpsTest, DecodeCSVWithDefaultsQuotesAndSelectedColumns) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("csv", "DecodeCSV")
                              .Input("r")
                              .Input("d0")
                              .Input("d1")
                              .Input("d2")
                              .Attr("OUT_TYPE", DataTypeVector{DT_INT32, DT_FLOAT, DT_STRING})));
  t.AddInput(Tensor::FromVector<std::string>({"1,2.5,\"a,b\"", ",,x", "7,1e3,\"say \"\"hi\"\"\""}));
  t.AddInput(Tensor::FromVector<int32_t>({-1}));
  t.AddInput(Tensor::FromVector<float>({0.5f}));
  t.AddInput(Tensor::FromVector<std::string>({"none"}));
  FLOWVM_ASSERT_OK(t.Run());
  auto c0 = t.output(0).flat<int32_t>();
  auto c1 = t.output(1).flat<float>();
  auto c2 = t.output(2).flat<std::string>();
  EXPECT_EQ(std::vector<int32_t>(c0.begin(), c0.end()), (std::vector<int32_t>{1, -1, 7}));
  EXPECT_EQ(std::vector<float>(c1.begin(), c1.end()), (std::vector<float>{2.5f, 0.5f, 1000.f}));
  EXPECT_EQ(std::vector<std::string>(c2.begin(), c2.end()), (std::vector<std::string>{"a,b", "x", "say \"hi\""}));

  OpTest required;
  FLOWVM_ASSERT_OK(required.Init(TestNode("csv", "DecodeCSV").Input("r").Input("d0").Attr("OUT_TYPE", DataTypeVector{DT_INT64})));
  required.AddInput(Tensor::FromVector<std::string>({"", "x"}));
  required.AddInput(Tensor(DT_INT64, TensorShape({0})));
  Status s = required.Run();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("record 0"), std::string::npos) << s;

  OpTest picked;
  FLOWVM_ASSERT_OK(picked.Init(TestNode("csv", "DecodeCSV")
                                   .Input("r")
                                   .Input("d0")
                                   .Attr("OUT_TYPE", DataTypeVector{DT_DOUBLE})
                                   .Attr("select_cols", std::vector<int64_t>{2})));
  picked.AddInput(Tensor::FromVector<std::string>({"a,b,3.25"}));
  picked.AddInput(Tensor::FromVector<double>({0}));
  FLOWVM_ASSERT_OK(picked.Run());
  EXPECT_EQ(picked.output(0).flat<double>()[0], 3.25);
}

TEST(ParsingOpsTest, SerializeAndParseTensorRoundTrip) {
  OpTest ser;
  FLOWVM_ASSERT_OK(ser.Init(TestNode("s", "SerializeTensor").Input("t").Attr("T", DT_FLOAT)));
  ser.AddInput(Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  FLOWVM_ASSERT_OK(ser.Run());
  OpTest parse;
  FLOWVM_ASSERT_OK(parse.Init(TestNode("p", "ParseTensor").Input("s").Attr("out_type", DT_FLOAT)));
  parse.AddInput(ser.output(0));
  FLOWVM_ASSERT_OK(parse.Run());
  EXPECT_EQ(parse.output(0).shape(), TensorShape({2, 2}));
  EXPECT_EQ(parse.output(0).flat<float>()[3], 4.f);
  OpTest wrong;
  FLOWVM_ASSERT_OK(wrong.Init(TestNode("p", "ParseTensor").Input("s").Attr("out_type", DT_INT32)));
  wrong.AddInput(ser.output(0));
  EXPECT_EQ(wrong.Run().code(), Code::kInvalidArgument);
  OpTest junk;
  FLOWVM_ASSERT_OK(junk.Init(TestNode("p", "ParseTensor").Input("s").Attr("out_type", DT_INT32)));
  junk.AddInput(Tensor::Scalar<std::string>("\xff\xff\xff"));
  EXPECT_EQ(junk.Run().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace flowvm
