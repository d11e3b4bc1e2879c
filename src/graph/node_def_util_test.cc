// ValidateNodeDef, InOutTypesForNode and GetNodeAttr: every error names the
// node (and the attr or input involved).
#include "graph/node_def_util.h"

#include <gtest/gtest.h>

#include "graph/graph.h"
#include "graph/op_registry.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::TestNode;

REGISTER_OP("NdTestConcat").Input("values: N * T").Output("out: T").Attr("N: int >= 2").Attr("T: {float, int32}");
REGISTER_OP("NdTestCall").Input("args: Tin").Output("rets: Tout").Attr("Tin: list(type) >= 1").Attr(
    "Tout: list(type)");
REGISTER_OP("NdTestPad").Input("x: float").Output("y: float").Attr("padding: {'SAME', 'VALID'} = 'SAME'").Attr(
    "k: int = 3");

// Looks the op up, fills defaults and validates, as Graph::AddNode does.
Status Validate(NodeDef def) {
  auto reg = OpRegistry::Global()->LookUp(def.op());
  if (!reg.ok()) return reg.status();
  AddDefaultsToNodeDef((*reg)->op_def, &def);
  return ValidateNodeDef(def, (*reg)->op_def);
}

// `s` is an error with `code` whose message contains every one of `parts`.
void ExpectError(const Status& s, Code code, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s;
  for (const auto& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << "missing '" << p << "' in " << s;
}

TestNode MatMul(const std::string& name = "mm") {
  TestNode n(name, "MatMul");
  n.Input("a").Input("b").Attr("T", DT_FLOAT);
  return n;
}

TEST(ValidateNodeDefTest, ValidNodeGetsDefaults) {
  NodeDef def = MatMul();
  FLOWVM_EXPECT_OK(Validate(def));
  AddDefaultsToNodeDef(OpRegistry::Global()->LookUpOrNull("MatMul")->op_def, &def);
  bool ta = true;
  FLOWVM_EXPECT_OK(GetNodeAttr(def, "transpose_a", &ta));
  EXPECT_FALSE(ta);
  // An explicit value is kept.
  NodeDef t = MatMul().Attr("transpose_b", true);
  AddDefaultsToNodeDef(OpRegistry::Global()->LookUpOrNull("MatMul")->op_def, &t);
  bool tb = false;
  FLOWVM_EXPECT_OK(GetNodeAttr(t, "transpose_b", &tb));
  EXPECT_TRUE(tb);
}

TEST(ValidateNodeDefTest, UnknownOpIsNotFound) {
  Graph g;
  auto n = g.AddNode(TestNode("mystery", "NoSuchOp").Input("x"));
  ASSERT_FALSE(n.ok());
  ExpectError(n.status(), Code::kNotFound, {"'mystery'", "NoSuchOp"});
}

TEST(ValidateNodeDefTest, MissingAttr) {
  NodeDef def = TestNode("mm", "MatMul").Input("a").Input("b");
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'mm' (MatMul)", "missing attr 'T'"});
}

TEST(ValidateNodeDefTest, IllTypedAttr) {
  NodeDef def = TestNode("mm", "MatMul").Input("a").Input("b").Attr("T", int64_t{1});
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'mm' (MatMul)", "'T'"});
  def = MatMul().Attr("transpose_a", "yes");
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'mm' (MatMul)", "'transpose_a'"});
  def = TestNode("c", "NdTestCall").Input("a").Attr("Tin", DT_FLOAT).Attr("Tout", std::vector<DataType>{});
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'c' (NdTestCall)", "'Tin'"});
}

TEST(ValidateNodeDefTest, DisallowedType) {
  NodeDef def = TestNode("mm", "MatMul").Input("a").Input("b").Attr("T", DT_BOOL);
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'mm' (MatMul)", "'T'", "bool"});
  def = TestNode("add", "AddV2").Input("a").Input("b").Attr("T", DT_BOOL);
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'add' (AddV2)", "bool"});
}

TEST(ValidateNodeDefTest, DisallowedString) {
  NodeDef def = TestNode("p", "NdTestPad").Input("x").Attr("padding", "FULL");
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'p' (NdTestPad)", "'padding'", "FULL"});
  FLOWVM_EXPECT_OK(Validate(TestNode("p", "NdTestPad").Input("x").Attr("padding", "VALID")));
}

TEST(ValidateNodeDefTest, WrongInputCount) {
  NodeDef one = TestNode("mm", "MatMul").Input("a").Attr("T", DT_FLOAT);
  ExpectError(Validate(one), Code::kInvalidArgument, {"node 'mm' (MatMul)", "expects 2 data inputs but has 1"});
  NodeDef three = MatMul().Input("c");
  ExpectError(Validate(three), Code::kInvalidArgument, {"node 'mm' (MatMul)", "but has 3"});
  // Control inputs do not count.
  FLOWVM_EXPECT_OK(Validate(MatMul().Input("^init")));
}

TEST(ValidateNodeDefTest, ControlInputBeforeDataInput) {
  NodeDef def = TestNode("mm", "MatMul").Input("a").Input("^init").Input("b").Attr("T", DT_FLOAT);
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'mm' (MatMul)", "'b'", "control input"});
}

TEST(ValidateNodeDefTest, UnknownAttr) {
  NodeDef def = MatMul().Attr("transpose_c", true);
  ExpectError(Validate(def), Code::kInvalidArgument, {"node 'mm' (MatMul)", "'transpose_c'"});
  // Attrs starting with '_' (colocation, output shapes) are allowed.
  NodeDef internal = MatMul().Attr("_class", std::vector<std::string>{"loc:@a"});
  FLOWVM_EXPECT_OK(Validate(internal));
}

TEST(ValidateNodeDefTest, BadNodeName) {
  for (const char* bad : {"has space", "_leading_underscore", "/abs", "semi;colon", "q?"}) {
    NodeDef def = MatMul(bad);
    ExpectError(Validate(def), Code::kInvalidArgument, {std::string("'") + bad + "'"});
  }
  ExpectError(Validate(MatMul("")), Code::kInvalidArgument, {"empty"});
  for (const char* good : {"layer/out", "a.b-c>d", "0x", ".hidden", "w/Initializer/random_uniform"})
    FLOWVM_EXPECT_OK(Validate(MatMul(good)));
  FLOWVM_EXPECT_OK(ValidateNodeName("x_1"));
  ExpectError(ValidateNodeName("x y"), Code::kInvalidArgument, {"'x y'"});
}

TEST(ValidateNodeDefTest, NumberTimesTypeArgs) {
  NodeDef def = TestNode("cat", "NdTestConcat").Input("a").Input("b").Input("c").Attr("N", 3).Attr("T", DT_INT32);
  FLOWVM_ASSERT_OK(Validate(def));
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("NdTestConcat")->op_def;
  DataTypeVector in, out;
  FLOWVM_ASSERT_OK(InOutTypesForNode(def, op, &in, &out));
  EXPECT_EQ(in, (DataTypeVector{DT_INT32, DT_INT32, DT_INT32}));
  EXPECT_EQ(out, (DataTypeVector{DT_INT32}));
  int start = -1, end = -1;
  FLOWVM_ASSERT_OK(NameRangeForArg(def, op, "values", true, &start, &end));
  EXPECT_EQ(start, 0);
  EXPECT_EQ(end, 3);
  ExpectError(NameRangeForArg(def, op, "nope", true, &start, &end), Code::kNotFound, {"'cat'", "'nope'"});

  // Below the ">= 2" minimum.
  NodeDef one = TestNode("cat", "NdTestConcat").Input("a").Attr("N", 1).Attr("T", DT_FLOAT);
  ExpectError(Validate(one), Code::kInvalidArgument, {"node 'cat' (NdTestConcat)", "'N'", "minimum 2"});
  // N says 3, two inputs given.
  NodeDef short_def = TestNode("cat", "NdTestConcat").Input("a").Input("b").Attr("N", 3).Attr("T", DT_FLOAT);
  ExpectError(Validate(short_def), Code::kInvalidArgument, {"node 'cat' (NdTestConcat)", "expects 3", "has 2"});
}

TEST(ValidateNodeDefTest, TypeListArgs) {
  NodeDef def = TestNode("call", "NdTestCall")
                    .Input("a")
                    .Input("b")
                    .Attr("Tin", std::vector<DataType>{DT_FLOAT, DT_INT64})
                    .Attr("Tout", std::vector<DataType>{DT_BOOL});
  FLOWVM_ASSERT_OK(Validate(def));
  DataTypeVector in, out;
  FLOWVM_ASSERT_OK(InOutTypesForNode(def, OpRegistry::Global()->LookUpOrNull("NdTestCall")->op_def, &in, &out));
  EXPECT_EQ(in, (DataTypeVector{DT_FLOAT, DT_INT64}));
  EXPECT_EQ(out, (DataTypeVector{DT_BOOL}));

  NodeDef none = TestNode("call", "NdTestCall")
                     .Attr("Tin", std::vector<DataType>{})
                     .Attr("Tout", std::vector<DataType>{DT_BOOL});
  ExpectError(Validate(none), Code::kInvalidArgument, {"node 'call' (NdTestCall)", "'Tin'", "minimum 1"});
}

TEST(ValidateNodeDefTest, RefArgsGiveRefTypes) {
  NodeDef def = TestNode("assign", "Assign").Input("v").Input("x").Attr("T", DT_FLOAT);
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("Assign")->op_def;
  AddDefaultsToNodeDef(op, &def);
  FLOWVM_ASSERT_OK(ValidateNodeDef(def, op));
  DataTypeVector in, out;
  FLOWVM_ASSERT_OK(InOutTypesForNode(def, op, &in, &out));
  EXPECT_EQ(in, (DataTypeVector{DT_FLOAT_REF, DT_FLOAT}));
  EXPECT_EQ(out, (DataTypeVector{DT_FLOAT_REF}));
}

TEST(GetNodeAttrTest, MissingAndWrongType) {
  NodeDef def = TestNode("n", "Identity").Attr("T", DT_FLOAT).Attr("k", int64_t{1} << 40).Attr("s", "hi");
  DataType t;
  FLOWVM_ASSERT_OK(GetNodeAttr(def, "T", &t));
  EXPECT_EQ(t, DT_FLOAT);
  int64_t k = 0;
  ExpectError(GetNodeAttr(def, "missing", &k), Code::kNotFound, {"node 'n' (Identity)", "'missing'"});
  ExpectError(GetNodeAttr(def, "s", &k), Code::kInvalidArgument, {"node 'n' (Identity)", "'s'"});
  int32_t small = 0;
  ExpectError(GetNodeAttr(def, "k", &small), Code::kInvalidArgument, {"node 'n' (Identity)", "'k'", "int32"});
  std::string s;
  FLOWVM_ASSERT_OK(GetNodeAttr(def, "s", &s));
  EXPECT_EQ(s, "hi");
  EXPECT_EQ(FindNodeAttr(def, "nope"), nullptr);
}

TEST(NodeLabelTest, AttachNodeOnce) {
  NodeDef def = TestNode("x", "Identity");
  EXPECT_EQ(NodeLabel(def), "node 'x' (Identity)");
  Status s = AttachNode(errors::InvalidArgument("bad"), def);
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'x' (Identity): bad");
  // Already named: not named twice.
  EXPECT_EQ(AttachNode(s, def).message(), s.message());
  FLOWVM_EXPECT_OK(AttachNode(Status::OK(), def));
}

}  // namespace
}  // namespace flowvm
