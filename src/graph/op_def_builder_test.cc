// OpDefBuilder: parsing TensorFlow-style op spec strings into OpDefs, and the
// errors (naming the op and the spec) for malformed specs.
#include <algorithm>

#include <gtest/gtest.h>

#include "graph/attr_value_util.h"
#include "graph/op_registry.h"

namespace flowvm {
namespace {

OpDef Build(const OpDefBuilder& b) {
  OpRegistrationData data;
  Status s = b.Finalize(&data);
  EXPECT_TRUE(s.ok()) << s;
  return data.op_def;
}

const OpDef::AttrDef* Attr(const OpDef& op, const std::string& name) {
  for (const auto& a : op.attr())
    if (a.name() == name) return &a;
  ADD_FAILURE() << "no attr " << name;
  return nullptr;
}

// Finalize fails with InvalidArgument naming the op and the bad spec.
void ExpectBadSpec(const OpDefBuilder& b, const std::string& op, const std::string& spec) {
  OpRegistrationData data;
  Status s = b.Finalize(&data);
  ASSERT_FALSE(s.ok()) << spec;
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("op " + op), std::string::npos) << s;
  EXPECT_NE(s.message().find(spec), std::string::npos) << s;
}

TEST(OpDefBuilderTest, Defaults) {
  OpDef op = Build(OpDefBuilder("SpecDefaults")
                       .Output("y: float")
                       .Attr("transpose_a: bool = false")
                       .Attr("k: int = -3")
                       .Attr("alpha: float = 0.5")
                       .Attr("padding: string = 'SAME'")
                       .Attr("T: type = DT_INT32")
                       .Attr("U: type = float")
                       .Attr("dims: list(int) = [1, 2]")
                       .Attr("empty: list(int) = []")
                       .Attr("s: shape = [2, -1]")
                       .Attr("u: shape = <unknown>"));
  EXPECT_EQ(op.name(), "SpecDefaults");
  ASSERT_EQ(op.attr_size(), 10);
  EXPECT_EQ(Attr(op, "transpose_a")->type(), "bool");
  EXPECT_FALSE(Attr(op, "transpose_a")->default_value().b());
  EXPECT_TRUE(Attr(op, "transpose_a")->has_default_value());
  EXPECT_EQ(Attr(op, "k")->default_value().i(), -3);
  EXPECT_FLOAT_EQ(Attr(op, "alpha")->default_value().f(), 0.5f);
  EXPECT_EQ(Attr(op, "padding")->default_value().s(), "SAME");
  EXPECT_EQ(Attr(op, "T")->default_value().type(), DT_INT32);
  EXPECT_EQ(Attr(op, "U")->default_value().type(), DT_FLOAT);
  const auto& dims = Attr(op, "dims")->default_value().list().i();
  ASSERT_EQ(dims.size(), 2);
  EXPECT_EQ(dims[0], 1);
  EXPECT_EQ(dims[1], 2);
  EXPECT_EQ(Attr(op, "empty")->type(), "list(int)");
  EXPECT_TRUE(Attr(op, "empty")->default_value().has_list());
  EXPECT_EQ(Attr(op, "empty")->default_value().list().i_size(), 0);
  const auto& s = Attr(op, "s")->default_value().shape();
  ASSERT_EQ(s.dim_size(), 2);
  EXPECT_EQ(s.dim(0).size(), 2);
  EXPECT_EQ(s.dim(1).size(), -1);
  EXPECT_TRUE(Attr(op, "u")->default_value().shape().unknown_rank());
}

TEST(OpDefBuilderTest, NoDefaultMeansRequired) {
  OpDef op = Build(OpDefBuilder("SpecRequired").Attr("T: type").Input("x: T").Output("y: T"));
  EXPECT_FALSE(Attr(op, "T")->has_default_value());
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
  EXPECT_EQ(op.output_arg(0).type_attr(), "T");
}

TEST(OpDefBuilderTest, AllowedTypesAndStrings) {
  OpDef op = Build(OpDefBuilder("SpecAllowed")
                       .Attr("T: {float, int32, DT_INT64}")
                       .Attr("N: numbertype")
                       .Attr("padding: {'SAME', 'VALID'} = 'VALID'")
                       .Attr("Tl: list({float, double})"));
  const auto* t = Attr(op, "T");
  EXPECT_EQ(t->type(), "type");
  ASSERT_EQ(t->allowed_values().list().type_size(), 3);
  EXPECT_EQ(t->allowed_values().list().type(0), DT_FLOAT);
  EXPECT_EQ(t->allowed_values().list().type(1), DT_INT32);
  EXPECT_EQ(t->allowed_values().list().type(2), DT_INT64);
  const auto* n = Attr(op, "N");
  EXPECT_EQ(n->type(), "type");
  bool has_float = false, has_bool = false;
  for (int x : n->allowed_values().list().type()) {
    has_float |= x == DT_FLOAT;
    has_bool |= x == DT_BOOL;
  }
  EXPECT_TRUE(has_float);
  EXPECT_FALSE(has_bool);
  const auto* p = Attr(op, "padding");
  EXPECT_EQ(p->type(), "string");
  ASSERT_EQ(p->allowed_values().list().s_size(), 2);
  EXPECT_EQ(p->allowed_values().list().s(0), "SAME");
  EXPECT_EQ(p->allowed_values().list().s(1), "VALID");
  EXPECT_EQ(p->default_value().s(), "VALID");
  const auto* tl = Attr(op, "Tl");
  EXPECT_EQ(tl->type(), "list(type)");
  EXPECT_EQ(tl->allowed_values().list().type_size(), 2);
}

TEST(OpDefBuilderTest, Minimums) {
  OpDef op = Build(OpDefBuilder("SpecMin")
                       .Attr("N: int >= 2")
                       .Attr("M: int >= 0 = 4")
                       .Attr("L: list(type) >= 1")
                       .Attr("plain: int"));
  EXPECT_TRUE(Attr(op, "N")->has_minimum());
  EXPECT_EQ(Attr(op, "N")->minimum(), 2);
  EXPECT_EQ(Attr(op, "N")->type(), "int");
  EXPECT_EQ(Attr(op, "M")->minimum(), 0);
  EXPECT_TRUE(Attr(op, "M")->has_minimum());
  EXPECT_EQ(Attr(op, "M")->default_value().i(), 4);
  EXPECT_EQ(Attr(op, "L")->minimum(), 1);
  EXPECT_EQ(Attr(op, "L")->type(), "list(type)");
  EXPECT_FALSE(Attr(op, "plain")->has_minimum());
}

TEST(OpDefBuilderTest, RefNumberAndTypeListArgs) {
  OpDef op = Build(OpDefBuilder("SpecArgs")
                       .Input("ref: Ref(T)")
                       .Input("values: N * T")
                       .Input("mixed: Tin")
                       .Input("fixed: int64")
                       .Output("out: Ref(float)")
                       .Output("outs: Tout")
                       .Attr("T: type")
                       .Attr("N: int >= 1")
                       .Attr("Tin: list(type)")
                       .Attr("Tout: list(type) >= 0")
                       .SetIsStateful());
  ASSERT_EQ(op.input_arg_size(), 4);
  EXPECT_TRUE(op.input_arg(0).is_ref());
  EXPECT_EQ(op.input_arg(0).type_attr(), "T");
  EXPECT_EQ(op.input_arg(1).number_attr(), "N");
  EXPECT_EQ(op.input_arg(1).type_attr(), "T");
  EXPECT_FALSE(op.input_arg(1).is_ref());
  EXPECT_EQ(op.input_arg(2).type_list_attr(), "Tin");
  EXPECT_EQ(op.input_arg(3).type(), DT_INT64);
  EXPECT_TRUE(op.output_arg(0).is_ref());
  EXPECT_EQ(op.output_arg(0).type(), DT_FLOAT);
  EXPECT_EQ(op.output_arg(1).type_list_attr(), "Tout");
  EXPECT_TRUE(op.is_stateful());
  EXPECT_FALSE(op.is_commutative());
}

TEST(OpDefBuilderTest, Flags) {
  OpDef op = Build(OpDefBuilder("SpecFlags")
                       .SetIsCommutative()
                       .SetIsAggregate()
                       .SetAllowsUninitializedInput()
                       .Doc("Does things."));
  EXPECT_TRUE(op.is_commutative());
  EXPECT_TRUE(op.is_aggregate());
  EXPECT_TRUE(op.allows_uninitialized_input());
  EXPECT_FALSE(op.is_stateful());
  EXPECT_EQ(op.summary(), "Does things.");
}

TEST(OpDefBuilderTest, MalformedSpecs) {
  ExpectBadSpec(OpDefBuilder("BadA").Attr("T type"), "BadA", "T type");
  ExpectBadSpec(OpDefBuilder("BadB").Attr("T: sometype"), "BadB", "T: sometype");
  ExpectBadSpec(OpDefBuilder("BadC").Attr("T: {float, notatype}"), "BadC", "T: {float, notatype}");
  ExpectBadSpec(OpDefBuilder("BadD").Attr("N: int >= x"), "BadD", "N: int >= x");
  ExpectBadSpec(OpDefBuilder("BadE").Attr("b: bool = 3"), "BadE", "b: bool = 3");
  ExpectBadSpec(OpDefBuilder("BadF").Attr("k: int = 1.5"), "BadF", "k: int = 1.5");
  ExpectBadSpec(OpDefBuilder("BadG").Attr("p: string = SAME"), "BadG", "p: string = SAME");
  // An arg must name a concrete type or a type / list(type) attr.
  ExpectBadSpec(OpDefBuilder("BadH").Input("x: T"), "BadH", "x: T");
  ExpectBadSpec(OpDefBuilder("BadI").Attr("k: int").Input("x: k"), "BadI", "x: k");
  // "N * T" needs an int attr N.
  ExpectBadSpec(OpDefBuilder("BadJ").Attr("T: type").Input("xs: N * T"), "BadJ", "xs: N * T");
  ExpectBadSpec(OpDefBuilder("BadK").Attr("T: type").Attr("N: float").Input("xs: N * T"), "BadK", "xs: N * T");
  ExpectBadSpec(OpDefBuilder("BadL").Output("y"), "BadL", "y");
}

TEST(OpDefBuilderTest, TensorDefaultsInTextFormat) {
  OpDef op = Build(OpDefBuilder("SpecTensorDefault")
                       .Output("y: float")
                       .Attr("c: tensor = { dtype: DT_UINT8 tensor_shape: { dim { size: 2 } } int_val: 7 "
                             "int_val: 9 }"));
  const TensorProto& c = Attr(op, "c")->default_value().tensor();
  EXPECT_EQ(c.dtype(), DT_UINT8);
  EXPECT_EQ(c.tensor_shape().dim(0).size(), 2);
  ASSERT_EQ(c.int_val_size(), 2);
  EXPECT_EQ(c.int_val(1), 9);
  ExpectBadSpec(OpDefBuilder("BadT1").Attr("c: tensor = dtype: DT_UINT8"), "BadT1", "c: tensor");
  ExpectBadSpec(OpDefBuilder("BadT2").Attr("c: tensor = { no_such_field: 1 }"), "BadT2", "c: tensor");
}

TEST(OpRegistryTest, LookUp) {
  auto found = OpRegistry::Global()->LookUp("MatMul");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ((*found)->op_def.name(), "MatMul");
  EXPECT_TRUE((*found)->shape_fn != nullptr);
  EXPECT_NE(OpRegistry::Global()->LookUpOrNull("VariableV2"), nullptr);
  EXPECT_EQ(OpRegistry::Global()->LookUpOrNull("NoSuchOpAnywhere"), nullptr);

  auto missing = OpRegistry::Global()->LookUp("NoSuchOpAnywhere");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_NE(missing.status().message().find("NoSuchOpAnywhere"), std::string::npos) << missing.status();

  std::vector<std::string> ops = OpRegistry::Global()->ListOps();
  for (const char* name : {"Const", "Placeholder", "Identity", "NoOp", "Add", "AddV2", "MatMul", "VariableV2",
                           "Assign", "AssignAdd", "IsVariableInitialized"})
    EXPECT_NE(std::find(ops.begin(), ops.end(), name), ops.end()) << name;
}

TEST(OpRegistryTest, MatMulSignatureMatchesTensorFlow) {
  const OpDef& op = OpRegistry::Global()->LookUpOrNull("MatMul")->op_def;
  ASSERT_EQ(op.input_arg_size(), 2);
  EXPECT_EQ(op.input_arg(0).name(), "a");
  EXPECT_EQ(op.input_arg(1).name(), "b");
  EXPECT_EQ(op.output_arg(0).name(), "product");
  for (const auto& a : op.attr()) {
    if (a.name() == "transpose_a" || a.name() == "transpose_b") {
      EXPECT_EQ(a.type(), "bool");
      EXPECT_FALSE(a.default_value().b());
    }
  }
  const OpDef& assign = OpRegistry::Global()->LookUpOrNull("Assign")->op_def;
  EXPECT_TRUE(assign.input_arg(0).is_ref());
  EXPECT_TRUE(assign.output_arg(0).is_ref());
  EXPECT_TRUE(assign.allows_uninitialized_input());
}

}  // namespace
}  // namespace flowvm
