// Graph and ConvertGraphDefToGraph: edges, type checks, cycles, the
// GraphDef round trip, legacy shapes, and static shape inference errors.
#include "graph/graph.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "flowvm/graph_io.h"
#include "flowvm/inspect.h"
#include "graph/shape_inference.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

REGISTER_OP("GraphTestTwoOut").Output("a: float").Output("b: float").SetShapeFn(UnknownShape);

GraphDef Text(const std::string& text) {
  auto g = ParseGraphDef(text, GraphFormat::kText);
  EXPECT_TRUE(g.ok()) << g.status();
  return g.ok() ? *g : GraphDef();
}

Status Convert(const std::string& text, Graph* g) { return ConvertGraphDefToGraph(Text(text), g); }

void ExpectError(const Status& s, Code code, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s;
  for (const auto& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << "missing '" << p << "' in " << s;
}

const char kPh[] = R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } } )";
const char kIdentity[] = R"(node { name: "%s" op: "Identity" input: "%s" attr { key: "T" value { type: DT_FLOAT } } } )";

std::string IdentityNode(const std::string& name, const std::string& input) {
  char buf[512];
  std::snprintf(buf, sizeof(buf), kIdentity, name.c_str(), input.c_str());
  return buf;
}

TEST(GraphTest, ConvertsAndConnects) {
  Graph g;
  FLOWVM_ASSERT_OK(Convert(std::string(kPh) + IdentityNode("y", "x") + IdentityNode("z", "y") +
                               R"(node { name: "init" op: "NoOp" input: "^z" })",
                           &g));
  EXPECT_EQ(g.num_nodes(), 4);
  Node* y = g.FindNode("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->op(), "Identity");
  EXPECT_EQ(y->num_inputs(), 1);
  EXPECT_EQ(y->input_type(0), DT_FLOAT);
  ASSERT_NE(y->input_edge(0), nullptr);
  EXPECT_EQ(y->input_edge(0)->src()->name(), "x");
  EXPECT_EQ(y->label(), "node 'y' (Identity)");
  Node* init = g.FindNode("init");
  ASSERT_EQ(init->in_edges().size(), 1u);
  EXPECT_TRUE(init->in_edges()[0]->IsControlEdge());
  std::vector<Node*> order;
  FLOWVM_ASSERT_OK(g.TopologicalOrder(&order));
  auto pos = [&](const char* n) { return std::find(order.begin(), order.end(), g.FindNode(n)) - order.begin(); };
  EXPECT_LT(pos("x"), pos("y"));
  EXPECT_LT(pos("y"), pos("z"));
  EXPECT_LT(pos("z"), pos("init"));
  EXPECT_EQ(g.FindNode("nope"), nullptr);
}

TEST(GraphTest, UnknownOpIsNotFound) {
  Graph g;
  ExpectError(Convert(R"(node { name: "m" op: "FancyOp" })", &g), Code::kNotFound, {"'m'", "FancyOp"});
}

TEST(GraphTest, DanglingInput) {
  Graph g;
  ExpectError(Convert(std::string(kPh) + IdentityNode("y", "ghost"), &g), Code::kInvalidArgument,
              {"node 'y' (Identity)", "'ghost'"});
  Graph g2;
  ExpectError(Convert(std::string(kPh) + R"(node { name: "n" op: "NoOp" input: "^ghost" })", &g2),
              Code::kInvalidArgument, {"node 'n' (NoOp)", "'ghost'"});
}

TEST(GraphTest, BadPort) {
  Graph g;
  ExpectError(Convert(std::string(kPh) + IdentityNode("y", "x:1"), &g), Code::kInvalidArgument,
              {"node 'y' (Identity)", "node 'x' (Placeholder)", "output 1"});
  Graph g2;
  FLOWVM_ASSERT_OK(Convert(R"(node { name: "two" op: "GraphTestTwoOut" } )" + IdentityNode("y", "two:1"), &g2));
  EXPECT_EQ(g2.FindNode("y")->input_edge(0)->src_output(), 1);
}

TEST(GraphTest, TypeMismatchOnEdge) {
  Graph g;
  ExpectError(Convert(R"(node { name: "i" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } } )" +
                          IdentityNode("y", "i"),
                      &g),
              Code::kInvalidArgument, {"node 'y' (Identity)", "'i:0'", "int32", "float"});
}

TEST(GraphTest, NonRefIntoRefInput) {
  Graph g;
  ExpectError(Convert(std::string(kPh) + R"(node { name: "v" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
      node { name: "assign" op: "Assign" input: "v" input: "x" attr { key: "T" value { type: DT_FLOAT } } })",
                      &g),
              Code::kInvalidArgument, {"node 'assign' (Assign)", "reference", "'v:0'"});
  // A variable's ref output may feed a non-ref input (it is read).
  Graph ok;
  FLOWVM_ASSERT_OK(Convert(R"(node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
      attr { key: "shape" value { shape { dim { size: 2 } } } } } )" + IdentityNode("r", "w"),
                           &ok));
  EXPECT_EQ(ok.FindNode("w")->output_type(0), DT_FLOAT_REF);
}

TEST(GraphTest, DuplicateNames) {
  Graph g;
  ExpectError(Convert(std::string(kPh) + kPh, &g), Code::kInvalidArgument, {"node 'x' (Placeholder)", "already"});
}

TEST(GraphTest, ThreeNodeCycleIsNamed) {
  Graph g;
  Status s = Convert(std::string(kPh) + IdentityNode("a", "c") + IdentityNode("b", "a") + IdentityNode("c", "b") +
                         IdentityNode("out", "c"),
                     &g);
  ExpectError(s, Code::kInvalidArgument, {"cycle", "'a'", "'b'", "'c'"});
  EXPECT_EQ(s.message().find("'x'"), std::string::npos) << s;
  EXPECT_EQ(s.message().find("'out'"), std::string::npos) << s;
  // A control edge closes a cycle too.
  Graph g2;
  ExpectError(Convert(std::string(kPh) + IdentityNode("p", "x") +
                          R"(node { name: "q" op: "Identity" input: "p" input: "^q" attr { key: "T" value { type: DT_FLOAT } } })",
                      &g2),
              Code::kInvalidArgument, {"cycle", "'q'"});
}

TEST(GraphTest, ToGraphDefRoundTrip) {
  Graph g;
  FLOWVM_ASSERT_OK(Convert(R"(node { name: "two" op: "GraphTestTwoOut" }
      node { name: "init" op: "NoOp" }
      node { name: "mm" op: "MatMul" input: "two:1" input: "two" input: "^init" device: "/device:CPU:0"
             attr { key: "T" value { type: DT_FLOAT } } attr { key: "_class" value { list { s: "loc:@two" } } } }
      versions { producer: 1205 min_consumer: 12 })",
                           &g));
  GraphDef out;
  g.ToGraphDef(&out);
  EXPECT_EQ(out.versions().producer(), 1205);
  EXPECT_EQ(out.versions().min_consumer(), 12);
  ASSERT_EQ(out.node_size(), 3);
  const NodeDef& mm = out.node(2);
  EXPECT_EQ(mm.name(), "mm");
  EXPECT_EQ(mm.device(), "/device:CPU:0");
  ASSERT_EQ(mm.input_size(), 3);
  EXPECT_EQ(mm.input(0), "two:1");
  EXPECT_EQ(mm.input(1), "two");
  EXPECT_EQ(mm.input(2), "^init");
  // Defaults are filled in; internal attrs are kept.
  EXPECT_TRUE(mm.attr().count("transpose_a"));
  EXPECT_TRUE(mm.attr().count("_class"));

  // Converting the output again gives the same GraphDef.
  Graph g2;
  FLOWVM_ASSERT_OK(ConvertGraphDefToGraph(out, &g2));
  GraphDef again;
  g2.ToGraphDef(&again);
  ASSERT_EQ(again.node_size(), out.node_size());
  for (int i = 0; i < out.node_size(); ++i) {
    EXPECT_EQ(again.node(i).name(), out.node(i).name());
    EXPECT_EQ(again.node(i).op(), out.node(i).op());
    EXPECT_EQ(std::vector<std::string>(again.node(i).input().begin(), again.node(i).input().end()),
              std::vector<std::string>(out.node(i).input().begin(), out.node(i).input().end()));
    EXPECT_EQ(again.node(i).attr_size(), out.node(i).attr_size());
  }
}

TEST(GraphTest, ConvertNeedsEmptyGraph) {
  Graph g;
  FLOWVM_ASSERT_OK(Convert(kPh, &g));
  Status s = Convert(kPh, &g);
  EXPECT_FALSE(s.ok());
}

TEST(GraphTest, RemoveNodeDropsEdges) {
  Graph g;
  FLOWVM_ASSERT_OK(Convert(std::string(kPh) + IdentityNode("y", "x") + IdentityNode("z", "y"), &g));
  g.RemoveNode(g.FindNode("y"));
  EXPECT_EQ(g.num_nodes(), 2);
  EXPECT_EQ(g.FindNode("y"), nullptr);
  EXPECT_TRUE(g.FindNode("x")->out_edges().empty());
  EXPECT_EQ(g.FindNode("z")->input_edge(0), nullptr);
  GraphDef out;
  g.ToGraphDef(&out);
  EXPECT_EQ(out.node_size(), 2);
}

PartialTensorShape PlaceholderShapeAfterImport(int producer) {
  Graph g;
  Status s = Convert(R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
                        attr { key: "shape" value { shape { } } } } versions { producer: )" +
                         std::to_string(producer) + " }",
                     &g);
  EXPECT_TRUE(s.ok()) << s;
  PartialTensorShape shape;
  EXPECT_TRUE(GetNodeAttr(g.FindNode("x")->def(), "shape", &shape).ok());
  return shape;
}

TEST(GraphTest, LegacyScalarPlaceholderShapeMeansUnknown) {
  EXPECT_TRUE(PlaceholderShapeAfterImport(21).unknown_rank());
  EXPECT_TRUE(PlaceholderShapeAfterImport(8).unknown_rank());
  PartialTensorShape modern = PlaceholderShapeAfterImport(22);
  EXPECT_FALSE(modern.unknown_rank());
  EXPECT_EQ(modern.dims(), 0);
}

// MatMul of constants shaped [2,3] and [4,5].
std::string BadMatMulGraph() {
  auto konst = [](const char* name, int rows, int cols) {
    return std::string(R"(node { name: ")") + name +
           R"(" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } attr { key: "value" value { tensor {
           dtype: DT_FLOAT tensor_shape { dim { size: )" + std::to_string(rows) + " } dim { size: " +
           std::to_string(cols) + " } } float_val: 1 } } } } ";
  };
  return konst("a", 2, 3) + konst("b", 4, 5) + R"(node { name: "product" op: "MatMul" input: "a" input: "b"
         attr { key: "T" value { type: DT_FLOAT } } })";
}

TEST(ShapeInferenceTest, MatMulMismatchNamesNode) {
  Graph g;
  FLOWVM_ASSERT_OK(Convert(BadMatMulGraph(), &g));
  ShapeRefiner refiner;
  ExpectError(refiner.InferAll(g), Code::kInvalidArgument, {"node 'product' (MatMul)"});
  ExpectError(ValidateGraphDef(Text(BadMatMulGraph())), Code::kInvalidArgument, {"node 'product' (MatMul)"});
}

TEST(ShapeInferenceTest, BroadcastMismatchNamesNode) {
  Graph g;
  FLOWVM_ASSERT_OK(Convert(R"(
      node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
      node { name: "q" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "shape" value { shape { dim { size: 4 } } } } }
      node { name: "sum" op: "Add" input: "p" input: "q" attr { key: "T" value { type: DT_FLOAT } } })",
                           &g));
  ShapeRefiner refiner;
  ExpectError(refiner.InferAll(g), Code::kInvalidArgument, {"node 'sum' (Add)", "[2,3]", "[4]"});
}

TEST(ShapeInferenceTest, PropagatesPartialShapes) {
  Graph g;
  FLOWVM_ASSERT_OK(Convert(R"(
      node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "shape" value { shape { dim { size: -1 } dim { size: 3 } } } } }
      node { name: "w" op: "VariableV2" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "shape" value { shape { dim { size: 3 } dim { size: 2 } } } } }
      node { name: "mm" op: "MatMul" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } } }
      node { name: "y" op: "Identity" input: "mm" attr { key: "T" value { type: DT_FLOAT } } })",
                           &g));
  ShapeRefiner refiner;
  FLOWVM_ASSERT_OK(refiner.InferAll(g));
  const auto& y = refiner.OutputShapes(g.FindNode("y")->id());
  ASSERT_EQ(y.size(), 1u);
  EXPECT_EQ(y[0], PartialTensorShape({-1, 2})) << y[0].DebugString();
  EXPECT_TRUE(refiner.OutputShapes(9999).empty());
}

}  // namespace
}  // namespace flowvm
