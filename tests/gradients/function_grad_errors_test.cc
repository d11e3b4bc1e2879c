// Gradients that ops calling functions do not have: of SymbolicGradient
// itself (second order) and of the functional While. Asking for one is
// Unimplemented, naming the node.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "graph/attr_value_util.h"
#include "graph/gradients.h"

namespace flowvm::testing {
namespace {

constexpr char kDouble[] = R"pb(
  signature { name: "Twice" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "y" type: DT_FLOAT } }
  node_def { name: "s" op: "AddV2" input: "x" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "y" value: "s:z:0" })pb";
constexpr char kLess[] = R"pb(
  signature { name: "Positive" input_arg { name: "x" type: DT_FLOAT } output_arg { name: "c" type: DT_BOOL } }
  node_def { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
  node_def { name: "gt" op: "Greater" input: "x" input: "zero:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "c" value: "gt:z:0" })pb";

TEST(FunctionGradErrorsTest, SecondOrderAndWhileAreUnimplementedNamingTheNode) {
  for (const char* op : {"SymbolicGradient", "While", "StatelessWhile"}) {
    SCOPED_TRACE(op);
    Graph graph;
    for (const char* text : {kDouble, kLess}) {
      FunctionDef f;
      ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &f));
      ASSERT_TRUE(graph.mutable_library()->AddFunction(f).ok());
    }
    GraphScope root(&graph);
    NodeOut x = root.WithOpName("x").Op("Placeholder", {}, {{"dtype", MakeAttrValue(DT_FLOAT)},
                                                            {"shape", MakeAttrValue(TensorShape({}))}});
    AttrValue twice, positive;
    twice.mutable_func()->set_name("Twice");
    positive.mutable_func()->set_name("Positive");
    NodeOut y;
    if (std::string(op) == "SymbolicGradient") {
      y = root.WithOpName("node").Op(op, {OpInput::List({x, x})},
                                     {{"Tin", MakeAttrValue(std::vector<DataType>{DT_FLOAT, DT_FLOAT})},
                                      {"Tout", MakeAttrValue(std::vector<DataType>{DT_FLOAT})},
                                      {"f", twice}});
    } else {
      y = root.WithOpName("node").Op(op, {OpInput::List({x})}, {{"cond", positive}, {"body", twice}});
    }
    ASSERT_TRUE(root.ok()) << root.status();
    std::vector<NodeOut> dx;
    Status s = AddSymbolicGradients(root, {y}, {x}, {}, &dx);
    EXPECT_EQ(s.code(), Code::kUnimplemented) << s;
    EXPECT_NE(s.ToString().find("node 'node'"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace flowvm::testing
