// ReadGraphDefFile / ParseGraphDef / WriteGraphDefFile: TensorFlow-written
// text and binary GraphDefs, and errors that name the file and the place.
#include "flowvm/graph_io.h"

#include <stdlib.h>

#include <fstream>
#include <sstream>

#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include "graph/graph.h"
#include "util/op_test_util.h"
#include "util/test_paths.h"

namespace flowvm {
namespace {

using testing::SourcePath;

std::string TempDir() {
  std::string tmpl = ::testing::TempDir() + "/graph_io_test_XXXXXX";
  EXPECT_NE(::mkdtemp(tmpl.data()), nullptr);
  return tmpl;
}

void WriteFile(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buf;
  buf << in.rdbuf();
  return buf.str();
}

void ExpectError(const Status& s, Code code, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s;
  for (const auto& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << "missing '" << p << "' in " << s;
}

const NodeDef* FindNode(const GraphDef& g, const std::string& name) {
  for (const auto& n : g.node())
    if (n.name() == name) return &n;
  return nullptr;
}

TEST(GraphIoTest, ReadsTensorFlowTextFixture) {
  auto g = ReadGraphDefFile(SourcePath("tests/data/graphs/tf2_linear.pbtxt"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->node_size(), 13);
  EXPECT_EQ(g->versions().producer(), 1205);
  EXPECT_TRUE(g->has_library());
  const NodeDef* x = FindNode(*g, "x");
  ASSERT_NE(x, nullptr);
  PartialTensorShape shape;
  FLOWVM_ASSERT_OK(GetNodeAttr(*x, "shape", &shape));
  EXPECT_EQ(shape, PartialTensorShape({-1, 3}));
  const NodeDef* assign = FindNode(*g, "w/Assign");
  ASSERT_NE(assign, nullptr);
  std::vector<std::string> cls;
  FLOWVM_ASSERT_OK(GetNodeAttr(*assign, "_class", &cls));
  EXPECT_EQ(cls, std::vector<std::string>{"loc:@w"});
  const NodeDef* init = FindNode(*g, "init");
  ASSERT_NE(init, nullptr);
  EXPECT_TRUE(init->attr().at("_output_shapes").has_list());
  EXPECT_EQ(init->input(0), "^w/Assign");

  // It is a valid graph: every op, attr, edge and type checks.
  Graph graph;
  FLOWVM_ASSERT_OK(ConvertGraphDefToGraph(*g, &graph));
  EXPECT_EQ(graph.FindNode("add")->op(), "AddV2");
  EXPECT_EQ(graph.FindNode("w")->output_type(0), DT_FLOAT_REF);
  EXPECT_EQ(graph.FindNode("w/read")->input_type(0), DT_FLOAT);
}

TEST(GraphIoTest, BinaryFixtureMatchesText) {
  auto text = ReadGraphDefFile(SourcePath("tests/data/graphs/tf2_linear.pbtxt"));
  auto binary = ReadGraphDefFile(SourcePath("tests/data/graphs/tf2_linear.pb"));
  ASSERT_TRUE(text.ok()) << text.status();
  ASSERT_TRUE(binary.ok()) << binary.status();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*text, *binary));
  // Auto-detection tells them apart by content.
  auto detected = ParseGraphDef(ReadFile(SourcePath("tests/data/graphs/tf2_linear.pb")));
  ASSERT_TRUE(detected.ok()) << detected.status();
  EXPECT_EQ(detected->node_size(), 13);
  detected = ParseGraphDef(ReadFile(SourcePath("tests/data/graphs/tf2_linear.pbtxt")));
  ASSERT_TRUE(detected.ok()) << detected.status();
  EXPECT_EQ(detected->node_size(), 13);
}

TEST(GraphIoTest, WriteAndReadBackBothFormats) {
  auto g = ReadGraphDefFile(SourcePath("tests/data/graphs/tf2_linear.pbtxt"));
  ASSERT_TRUE(g.ok()) << g.status();
  std::string dir = TempDir();
  for (const char* name : {"/out.pb", "/out.pbtxt", "/out.graphdef"}) {
    std::string path = dir + name;
    FLOWVM_ASSERT_OK(WriteGraphDefFile(path, *g));
    auto back = ReadGraphDefFile(path);
    ASSERT_TRUE(back.ok()) << name << ": " << back.status();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(*g, *back)) << name;
    std::ifstream tmp(path + ".tmp");
    EXPECT_FALSE(tmp.good()) << "temporary file left behind for " << name;
  }
  EXPECT_EQ(ReadFile(dir + "/out.pbtxt").find('\0'), std::string::npos);
}

TEST(GraphIoTest, TextWithCommentsAndEmptySections) {
  std::string dir = TempDir();
  std::string path = dir + "/commented.pbtxt";
  WriteFile(path, R"(# A graph written by hand.
node {
  name: "x"   # the input
  op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  experimental_debug_info {
  }
}
# trailing comment
versions {
}
library {
}
)");
  auto g = ReadGraphDefFile(path);
  ASSERT_TRUE(g.ok()) << g.status();
  ASSERT_EQ(g->node_size(), 1);
  EXPECT_EQ(g->node(0).name(), "x");
  EXPECT_TRUE(g->node(0).has_experimental_debug_info());
  EXPECT_TRUE(g->has_versions());
  EXPECT_EQ(g->versions().producer(), 0);
  EXPECT_TRUE(g->has_library());
  Graph graph;
  FLOWVM_EXPECT_OK(ConvertGraphDefToGraph(*g, &graph));
}

TEST(GraphIoTest, LegacyProducerFixtureHasUnknownPlaceholderShape) {
  auto g = ReadGraphDefFile(SourcePath("tests/data/graphs/legacy_producer21.pbtxt"));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->versions().producer(), 21);
  Graph graph;
  FLOWVM_ASSERT_OK(ConvertGraphDefToGraph(*g, &graph));
  PartialTensorShape shape;
  FLOWVM_ASSERT_OK(GetNodeAttr(graph.FindNode("x")->def(), "shape", &shape));
  EXPECT_TRUE(shape.unknown_rank());
}

TEST(GraphIoTest, TruncatedBinaryIsInvalidArgumentNamingFile) {
  std::string bytes = ReadFile(SourcePath("tests/data/graphs/tf2_linear.pb"));
  ASSERT_GT(bytes.size(), 100u);
  std::string dir = TempDir();
  for (size_t keep : {bytes.size() / 2, bytes.size() - 3, size_t{5}}) {
    std::string path = dir + "/truncated_" + std::to_string(keep) + ".pb";
    WriteFile(path, bytes.substr(0, keep));
    auto g = ReadGraphDefFile(path);
    ASSERT_FALSE(g.ok()) << "kept " << keep << " bytes";
    ExpectError(g.status(), Code::kInvalidArgument, {path});
  }
}

TEST(GraphIoTest, MissingFileIsNotFoundNamingFile) {
  std::string path = TempDir() + "/does_not_exist.pbtxt";
  auto g = ReadGraphDefFile(path);
  ASSERT_FALSE(g.ok());
  ExpectError(g.status(), Code::kNotFound, {path});
}

TEST(GraphIoTest, DirectoryIsAnErrorNotAnEmptyGraph) {
  std::string dir = TempDir();
  auto g = ReadGraphDefFile(dir);
  ASSERT_FALSE(g.ok());
  ExpectError(g.status(), Code::kInvalidArgument, {dir, "directory"});
}

TEST(GraphIoTest, TextSyntaxErrorGivesLineAndColumn) {
  std::string path = TempDir() + "/broken.pbtxt";
  WriteFile(path, "node {\n  name: \"x\"\n  op: Placeholder\n}\n");
  auto g = ReadGraphDefFile(path);
  ASSERT_FALSE(g.ok());
  ExpectError(g.status(), Code::kInvalidArgument, {path, "line 3:"});

  // An unknown field is an error too (with its place).
  auto bad_field = ParseGraphDef("node { name: \"x\" colour: 3 }", GraphFormat::kText);
  ASSERT_FALSE(bad_field.ok());
  ExpectError(bad_field.status(), Code::kInvalidArgument, {"line 1:", "colour"});
}

TEST(GraphIoTest, BinaryGarbageIsInvalidArgument) {
  auto g = ParseGraphDef(std::string("\xff\xff\xff\xff\x0f\x01\x02", 7), GraphFormat::kBinary);
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().code(), Code::kInvalidArgument) << g.status();
  // The empty GraphDef is valid binary.
  auto empty = ParseGraphDef("", GraphFormat::kBinary);
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->node_size(), 0);
}

TEST(GraphIoTest, UnknownExtensionIsDetected) {
  std::string dir = TempDir();
  WriteFile(dir + "/g.graph", ReadFile(SourcePath("tests/data/graphs/tf2_linear.pbtxt")));
  auto t = ReadGraphDefFile(dir + "/g.graph");
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->node_size(), 13);
  WriteFile(dir + "/g.bin", ReadFile(SourcePath("tests/data/graphs/tf2_linear.pb")));
  auto b = ReadGraphDefFile(dir + "/g.bin");
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ(b->node_size(), 13);
}

}  // namespace
}  // namespace flowvm
