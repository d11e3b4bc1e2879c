// The function library: GraphDef.library parsed with TensorFlow's field
// names, validation of signatures, instantiation of bodies (attrs, list
// arguments, TensorFlow's "node:arg:index" tensor names), shape inference
// through calls, and the errors, each naming the function and its node.
#include "graph/function_library.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "graph/function_body.h"
#include "graph/graph.h"
#include "graph/shape_inference.h"

namespace flowvm {
namespace {

FunctionDef ParseFunction(const std::string& text) {
  FunctionDef f;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &f)) << text;
  return f;
}

GraphDef ParseGraph(const std::string& text) {
  GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g)) << text;
  return g;
}

::testing::AssertionResult HasError(const Status& s, Code code, const std::vector<std::string>& parts) {
  if (s.code() != code) return ::testing::AssertionFailure() << "wrong code: " << s;
  for (const auto& p : parts)
    if (s.message().find(p) == std::string::npos) return ::testing::AssertionFailure() << "no '" << p << "' in: " << s;
  return ::testing::AssertionSuccess();
}

// What TensorFlow 1.x writes for
//   @function.Defun(tf.float32, tf.float32)
//   def MulAdd(x, y): return x * y + 1.0
constexpr char kMulAdd[] = R"pb(
  signature {
    name: "MulAdd"
    input_arg { name: "x" type: DT_FLOAT }
    input_arg { name: "y" type: DT_FLOAT }
    output_arg { name: "add" type: DT_FLOAT }
  }
  node_def {
    name: "mul"
    op: "Mul"
    input: "x"
    input: "y"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  node_def {
    name: "one"
    op: "Const"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 1 } } }
  }
  node_def {
    name: "add"
    op: "AddV2"
    input: "mul:z:0"
    input: "one:output:0"
    attr { key: "T" value { type: DT_FLOAT } }
  }
  ret { key: "add" value: "add:z:0" }
)pb";

// A polymorphic function with a list argument: the sum of N tensors of
// type T (TensorFlow's attr placeholders).
constexpr char kSumN[] = R"pb(
  signature {
    name: "SumN"
    input_arg { name: "xs" type_attr: "T" number_attr: "N" }
    output_arg { name: "sum" type_attr: "T" }
    attr { name: "T" type: "type" }
    attr { name: "N" type: "int" has_minimum: true minimum: 1 }
  }
  node_def {
    name: "addn"
    op: "AddN"
    input: "xs"
    attr { key: "T" value { placeholder: "T" } }
    attr { key: "N" value { placeholder: "N" } }
  }
  ret { key: "sum" value: "addn:sum:0" }
)pb";

TEST(FunctionLibraryTest, ParsesTensorFlowLibraryAndResolvesCalls) {
  GraphDef def = ParseGraph(std::string(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { unknown_rank: true } } } }
    node { name: "call" op: "MulAdd" input: "a" input: "b" }
    versions { producer: 27 min_consumer: 12 }
    library { function {)pb") + kMulAdd + "} }");
  Graph g;
  ASSERT_TRUE(ConvertGraphDefToGraph(def, &g).ok());
  Node* call = g.FindNode("call");
  ASSERT_NE(call, nullptr);
  EXPECT_EQ(call->num_inputs(), 2);
  EXPECT_EQ(call->output_type(0), DT_FLOAT);
  EXPECT_TRUE(g.library().Contains("MulAdd"));

  // Shapes go through the body: [2,3] * <unknown rank> may broadcast to any
  // rank, so the result's rank is unknown.
  ShapeRefiner refiner;
  ASSERT_TRUE(refiner.InferAll(g).ok());
  EXPECT_TRUE(refiner.OutputShapes(call->id())[0].unknown_rank());

  // Written back, the library is there again.
  GraphDef out;
  g.ToGraphDef(&out);
  ASSERT_EQ(out.library().function_size(), 1);
  EXPECT_EQ(out.library().function(0).signature().name(), "MulAdd");
}

TEST(FunctionLibraryTest, ShapeInferenceSeesThroughCalls) {
  GraphDef def = ParseGraph(std::string(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } dim { size: 3 } } } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 1 } dim { size: 3 } } } } }
    node { name: "call" op: "MulAdd" input: "a" input: "b" }
    node { name: "sum" op: "SumN" input: "a" input: "call" input: "a"
           attr { key: "T" value { type: DT_FLOAT } } attr { key: "N" value { i: 3 } } }
    library { function {)pb") + kMulAdd + "} function {" + kSumN + "} }");
  Graph g;
  ASSERT_TRUE(ConvertGraphDefToGraph(def, &g).ok());
  ShapeRefiner refiner;
  ASSERT_TRUE(refiner.InferAll(g).ok());
  EXPECT_EQ(refiner.OutputShapes(g.FindNode("call")->id())[0], PartialTensorShape({2, 3}));
  EXPECT_EQ(refiner.OutputShapes(g.FindNode("sum")->id())[0], PartialTensorShape({2, 3}));
}

TEST(FunctionLibraryTest, ShapeErrorInsideTheBodyNamesTheFunction) {
  GraphDef def = ParseGraph(std::string(R"pb(
    node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 2 } } } } }
    node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
           attr { key: "shape" value { shape { dim { size: 3 } } } } }
    node { name: "call" op: "MulAdd" input: "a" input: "b" }
    library { function {)pb") + kMulAdd + "} }");
  Graph g;
  ASSERT_TRUE(ConvertGraphDefToGraph(def, &g).ok());
  ShapeRefiner refiner;
  EXPECT_TRUE(HasError(refiner.InferAll(g), Code::kInvalidArgument, {"call", "function 'MulAdd'", "mul"}));
}

TEST(FunctionLibraryTest, InstantiatesAttrsListsAndTensorNames) {
  auto lib = std::make_shared<FunctionLibraryDefinition>();
  ASSERT_TRUE(lib->AddFunction(ParseFunction(kSumN)).ok());
  NameAttrList f;
  f.set_name("SumN");
  (*f.mutable_attr())["T"].set_type(DT_INT32);
  (*f.mutable_attr())["N"].set_i(3);
  auto body = InstantiateFunction(lib, f);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ((*body)->arg_types, (DataTypeVector{DT_INT32, DT_INT32, DT_INT32}));
  EXPECT_EQ((*body)->ret_types, (DataTypeVector{DT_INT32}));
  EXPECT_EQ((*body)->arg_names, (std::vector<std::string>{"xs:0", "xs:1", "xs:2"}));
  Node* addn = (*body)->graph->FindNode("addn");
  ASSERT_NE(addn, nullptr);
  EXPECT_EQ(addn->num_inputs(), 3);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(addn->input_edge(i)->src(), (*body)->arg_nodes[i]);
  // Body nodes say which function they belong to.
  EXPECT_EQ(addn->label(), "node 'addn' (AddN) in function 'SumN'");

  // A missing attr names the function and the attr.
  NameAttrList missing;
  missing.set_name("SumN");
  (*missing.mutable_attr())["T"].set_type(DT_FLOAT);
  EXPECT_TRUE(HasError(InstantiateFunction(lib, missing).status(), Code::kInvalidArgument,
                       {"function 'SumN'", "attr 'N'"}));
}

TEST(FunctionLibraryTest, BodyErrorsNameTheFunctionAndNode) {
  auto lib = std::make_shared<FunctionLibraryDefinition>();
  FunctionDef bad_input = ParseFunction(kMulAdd);
  bad_input.mutable_signature()->set_name("BadInput");
  bad_input.mutable_node_def(2)->set_input(0, "mul:nope:0");
  ASSERT_TRUE(lib->AddFunction(bad_input).ok());
  NameAttrList f;
  f.set_name("BadInput");
  EXPECT_TRUE(HasError(InstantiateFunction(lib, f).status(), Code::kInvalidArgument,
                       {"function 'BadInput'", "add", "no output named 'nope'"}));

  FunctionDef unknown = ParseFunction(kMulAdd);
  unknown.mutable_signature()->set_name("CallsUndefined");
  unknown.mutable_node_def(0)->set_op("NoSuchFunction");
  ASSERT_TRUE(lib->AddFunction(unknown).ok());
  f.set_name("CallsUndefined");
  EXPECT_TRUE(HasError(InstantiateFunction(lib, f).status(), Code::kNotFound,
                       {"function 'CallsUndefined'", "mul", "NoSuchFunction"}));

  FunctionDef wrong_type = ParseFunction(kMulAdd);
  wrong_type.mutable_signature()->set_name("WrongType");
  wrong_type.mutable_signature()->mutable_output_arg(0)->set_type(DT_INT32);
  ASSERT_TRUE(lib->AddFunction(wrong_type).ok());
  f.set_name("WrongType");
  EXPECT_TRUE(HasError(InstantiateFunction(lib, f).status(), Code::kInvalidArgument,
                       {"function 'WrongType'", "output 'add'", "int32"}));

  f.set_name("Missing");
  EXPECT_TRUE(HasError(InstantiateFunction(lib, f).status(), Code::kNotFound, {"function 'Missing'", "not defined"}));
}

TEST(FunctionLibraryTest, ValidatesDefinitions) {
  FunctionLibraryDefinition lib;
  ASSERT_TRUE(lib.AddFunction(ParseFunction(kMulAdd)).ok());
  EXPECT_TRUE(lib.AddFunction(ParseFunction(kMulAdd)).ok());  // the same again: fine
  FunctionDef changed = ParseFunction(kMulAdd);
  changed.mutable_node_def(0)->set_op("Sub");
  EXPECT_TRUE(HasError(lib.AddFunction(changed), Code::kInvalidArgument, {"function 'MulAdd'", "different"}));

  FunctionDef op_name = ParseFunction(kMulAdd);
  op_name.mutable_signature()->set_name("MatMul");
  EXPECT_TRUE(HasError(lib.AddFunction(op_name), Code::kInvalidArgument, {"'MatMul'", "registered op"}));

  FunctionDef no_ret = ParseFunction(kMulAdd);
  no_ret.mutable_signature()->set_name("NoRet");
  no_ret.clear_ret();
  EXPECT_TRUE(HasError(lib.AddFunction(no_ret), Code::kInvalidArgument, {"function 'NoRet'", "output 'add'", "ret"}));

  FunctionDef undeclared_attr = ParseFunction(kSumN);
  undeclared_attr.mutable_signature()->clear_attr();
  EXPECT_TRUE(HasError(lib.AddFunction(undeclared_attr), Code::kInvalidArgument, {"function 'SumN'", "attr 'T'"}));

  // A library with a bad function adds nothing.
  FunctionDefLibrary mixed;
  FunctionDef fine = ParseFunction(kSumN);
  *mixed.add_function() = fine;
  *mixed.add_function() = changed;
  EXPECT_FALSE(lib.AddLibrary(mixed).ok());
  EXPECT_FALSE(lib.Contains("SumN"));
}

TEST(FunctionLibraryTest, UnknownOpInAGraphSaysSoAndStatefulnessFollowsTheBody) {
  GraphDef def = ParseGraph(R"pb(node { name: "x" op: "NoSuchOpOrFunction" })pb");
  Graph g;
  EXPECT_TRUE(HasError(ConvertGraphDefToGraph(def, &g), Code::kNotFound, {"'x'", "NoSuchOpOrFunction"}));

  FunctionLibraryDefinition lib;
  FunctionDef stateful = ParseFunction(R"pb(
    signature { name: "Draw" output_arg { name: "r" type: DT_FLOAT } }
    node_def { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }
    node_def { name: "u" op: "RandomUniform" input: "shape:output:0"
               attr { key: "T" value { type: DT_INT32 } } attr { key: "dtype" value { type: DT_FLOAT } } }
    ret { key: "r" value: "u:output:0" })pb");
  ASSERT_TRUE(lib.AddFunction(stateful).ok());
  ASSERT_TRUE(lib.AddFunction(ParseFunction(kMulAdd)).ok());
  EXPECT_TRUE(lib.LookUpFunctionOp("Draw")->op_def.is_stateful());
  EXPECT_FALSE(lib.LookUpFunctionOp("MulAdd")->op_def.is_stateful());
}

TEST(FunctionLibraryTest, ReachableFunctionsAndExtend) {
  FunctionLibraryDefinition lib;
  ASSERT_TRUE(lib.AddFunction(ParseFunction(kMulAdd)).ok());
  ASSERT_TRUE(lib.AddFunction(ParseFunction(kSumN)).ok());
  FunctionDef outer = ParseFunction(kMulAdd);
  outer.mutable_signature()->set_name("Outer");
  outer.mutable_node_def(0)->set_op("MulAdd");
  outer.mutable_node_def(0)->clear_attr();
  outer.mutable_node_def(2)->set_input(0, "mul:add:0");
  ASSERT_TRUE(lib.AddFunction(outer).ok());
  GradientDef grad;
  grad.set_function_name("MulAdd");
  grad.set_gradient_func("SumN");
  ASSERT_TRUE(lib.AddGradient(grad).ok());
  FunctionDefLibrary reach;
  lib.ReachableProto({"Outer"}, &reach);
  std::set<std::string> names;
  for (const auto& f : reach.function()) names.insert(f.signature().name());
  EXPECT_EQ(names, (std::set<std::string>{"Outer", "MulAdd", "SumN"}));
  ASSERT_EQ(reach.gradient_size(), 1);

  GraphDef base, more;
  *base.mutable_library()->add_function() = ParseFunction(kMulAdd);
  *more.mutable_library()->add_function() = ParseFunction(kSumN);
  more.add_node()->set_name("n");
  ASSERT_TRUE(ExtendGraphDef(more, &base).ok());
  EXPECT_EQ(base.library().function_size(), 2);
  EXPECT_EQ(base.node_size(), 1);
  GraphDef clash;
  FunctionDef changed = ParseFunction(kMulAdd);
  changed.mutable_node_def(0)->set_op("Sub");
  *clash.mutable_library()->add_function() = changed;
  clash.add_node()->set_name("m");
  EXPECT_TRUE(HasError(ExtendGraphDef(clash, &base), Code::kInvalidArgument, {"function 'MulAdd'"}));
  EXPECT_EQ(base.node_size(), 1);  // nothing changed
}

TEST(FunctionLibraryTest, GradientBodyOfAFunction) {
  auto lib = std::make_shared<FunctionLibraryDefinition>();
  ASSERT_TRUE(lib->AddFunction(ParseFunction(kMulAdd)).ok());
  NameAttrList f;
  f.set_name("MulAdd");
  auto grad = InstantiateGradient(lib, f);
  ASSERT_TRUE(grad.ok()) << grad.status();
  // (x, y, d_add) -> (dx, dy)
  EXPECT_EQ((*grad)->arg_types, (DataTypeVector{DT_FLOAT, DT_FLOAT, DT_FLOAT}));
  EXPECT_EQ((*grad)->ret_types, (DataTypeVector{DT_FLOAT, DT_FLOAT}));
}

}  // namespace
}  // namespace flowvm

namespace flowvm {
namespace {

// Protobuf wire encoding by hand, so that the test depends on TensorFlow's
// field numbers and nothing else.
std::string Varint(uint64_t v) {
  std::string out;
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
  return out;
}
std::string Field(int number, const std::string& bytes) {  // length-delimited
  return Varint((static_cast<uint64_t>(number) << 3) | 2) + Varint(bytes.size()) + bytes;
}
std::string IntField(int number, uint64_t v) { return Varint(static_cast<uint64_t>(number) << 3) + Varint(v); }
std::string MapEntry(int number, const std::string& key, const std::string& value_bytes) {
  return Field(number, Field(1, key) + value_bytes);
}

// GraphDef{node=1, library=2, versions=4}; NodeDef{name=1, op=2, input=3,
// attr=5}; AttrValue{type=6, tensor=8}; TensorProto{dtype=1,
// tensor_shape=2, float_val=5}; FunctionDefLibrary{function=1};
// FunctionDef{signature=1, node_def=3, ret=4}; OpDef{name=1, input_arg=2,
// output_arg=3}; ArgDef{name=1, type=3}. DT_FLOAT = 1.
TEST(FunctionLibraryWireTest, AGraphDefWithALibraryInTensorFlowsFieldNumbersLoads) {
  const std::string float_type = IntField(6, 1);  // AttrValue.type
  auto arg = [](const std::string& name) { return Field(1, name) + IntField(3, 1); };
  std::string signature = Field(1, "AddOne") + Field(2, arg("x")) + Field(3, arg("y"));
  std::string one = Field(1, "one") + Field(2, "Const") + MapEntry(5, "dtype", Field(2, float_type)) +
                    MapEntry(5, "value", Field(2, Field(8, IntField(1, 1) + Field(2, "") +
                                                             Field(5, std::string("\x00\x00\x80\x3f", 4)))));
  std::string add = Field(1, "add") + Field(2, "AddV2") + Field(3, "x") + Field(3, "one:output:0") +
                    MapEntry(5, "T", Field(2, float_type));
  std::string function = Field(1, signature) + Field(3, one) + Field(3, add) + MapEntry(4, "y", Field(2, "add:z:0"));
  std::string placeholder = Field(1, "p") + Field(2, "Placeholder") + MapEntry(5, "dtype", Field(2, float_type));
  std::string call = Field(1, "call") + Field(2, "AddOne") + Field(3, "p");
  std::string graph = Field(1, placeholder) + Field(1, call) + Field(2, Field(1, function)) +
                      Field(4, IntField(1, 27));
  GraphDef def;
  ASSERT_TRUE(def.ParseFromString(graph));
  ASSERT_EQ(def.library().function_size(), 1);
  Graph g;
  ASSERT_TRUE(ConvertGraphDefToGraph(def, &g).ok());
  auto lib = g.shared_library();
  NameAttrList f;
  f.set_name("AddOne");
  auto body = InstantiateFunction(lib, f);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ((*body)->ret_nodes[0]->input_edge(0)->src()->name(), "add");
  EXPECT_EQ(g.FindNode("call")->output_type(0), DT_FLOAT);
}

}  // namespace
}  // namespace flowvm
