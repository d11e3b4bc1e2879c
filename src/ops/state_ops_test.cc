// Shape functions and signatures of the variable ops.
#include <gtest/gtest.h>

#include "graph/graph.h"
#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;
using testing::VariableNode;

TEST(StateOpsShapeTest, Variables) {
  auto s = InferShapes({VariableNode("v", DT_FLOAT, TensorShape({2, 3}))}, "v");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({2, 3}));
  s = InferShapes({VariableNode("v", DT_FLOAT, TensorShape())}, "v");
  EXPECT_EQ((*s)[0], PartialTensorShape(TensorShape()));
  // The legacy Variable cannot tell a scalar from unknown.
  s = InferShapes({TestNode("v", "Variable").Attr("dtype", DT_FLOAT).Attr("shape", TensorShape())}, "v");
  EXPECT_TRUE((*s)[0].unknown_rank());
  s = InferShapes({TestNode("v", "Variable").Attr("dtype", DT_FLOAT).Attr("shape", TensorShape({4}))}, "v");
  EXPECT_EQ((*s)[0], PartialTensorShape({4}));
}

TEST(StateOpsDefTest, VariableSignature) {
  for (const char* name : {"VariableV2", "Variable"}) {
    const OpDef& op = OpRegistry::Global()->LookUpOrNull(name)->op_def;
    EXPECT_TRUE(op.is_stateful());
    EXPECT_TRUE(op.output_arg(0).is_ref());
    Graph g;
    auto n = g.AddNode(VariableNode("v", DT_INT32, TensorShape({1})));
    ASSERT_TRUE(n.ok()) << n.status();
    EXPECT_EQ((*n)->output_type(0), DT_INT32_REF);
    std::string container, shared_name;
    FLOWVM_EXPECT_OK(GetNodeAttr((*n)->def(), "container", &container));
    FLOWVM_EXPECT_OK(GetNodeAttr((*n)->def(), "shared_name", &shared_name));
    EXPECT_EQ(container + shared_name, "");
  }
}

StatusOr<std::vector<PartialTensorShape>> Update(const std::string& op, PartialTensorShape var,
                                                 PartialTensorShape value, bool validate_shape = true) {
  TestNode n("a", op);
  n.Input("v").Input("x").Attr("T", DT_FLOAT);
  if (op == "Assign") n.Attr("validate_shape", validate_shape);
  return InferShapes({VariableNode("v", DT_FLOAT, var), PlaceholderNode("x", DT_FLOAT, value), n}, "a");
}

TEST(StateOpsShapeTest, AssignMergesShapes) {
  for (const char* op : {"Assign", "AssignAdd", "AssignSub"}) {
    auto s = Update(op, PartialTensorShape({-1, 3}), PartialTensorShape({2, -1}));
    ASSERT_TRUE(s.ok()) << op << ": " << s.status();
    EXPECT_EQ((*s)[0], PartialTensorShape({2, 3})) << op;
    auto bad = Update(op, PartialTensorShape({2, 3}), PartialTensorShape({3}));
    ASSERT_FALSE(bad.ok()) << op;
    EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
    EXPECT_NE(bad.status().message().find("lhs shape= [2,3] rhs shape= [3]"), std::string::npos) << bad.status();
  }
  // Without validate_shape the variable takes the value's shape.
  auto s = Update("Assign", PartialTensorShape({2, 3}), PartialTensorShape({3}), false);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({3}));
}

TEST(StateOpsDefTest, AssignSignatures) {
  const OpDef& assign = OpRegistry::Global()->LookUpOrNull("Assign")->op_def;
  EXPECT_TRUE(assign.allows_uninitialized_input());
  EXPECT_TRUE(assign.input_arg(0).is_ref());
  EXPECT_FALSE(assign.input_arg(1).is_ref());
  EXPECT_TRUE(assign.output_arg(0).is_ref());
  const OpDef& add = OpRegistry::Global()->LookUpOrNull("AssignAdd")->op_def;
  EXPECT_FALSE(add.allows_uninitialized_input());
  // A non-ref value cannot feed a ref input.
  GraphDef def;
  def.mutable_versions()->set_producer(1000);
  *def.add_node() = PlaceholderNode("x", DT_FLOAT, TensorShape());
  *def.add_node() = TestNode("a", "Assign").Input("x").Input("x").Attr("T", DT_FLOAT);
  Graph g;
  EXPECT_FALSE(ConvertGraphDefToGraph(def, &g).ok());
}

TEST(StateOpsShapeTest, IsVariableInitializedIsScalar) {
  auto s = InferShapes({VariableNode("v", DT_FLOAT, TensorShape({2})),
                        TestNode("i", "IsVariableInitialized").Input("v").Attr("dtype", DT_FLOAT)},
                       "i");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape(TensorShape()));
}

StatusOr<std::vector<PartialTensorShape>> Scatter(const std::string& op, PartialTensorShape var,
                                                  PartialTensorShape indices, PartialTensorShape updates,
                                                  DataType index_type = DT_INT32) {
  return InferShapes({VariableNode("v", DT_FLOAT, var), PlaceholderNode("i", index_type, indices),
                      PlaceholderNode("u", DT_FLOAT, updates),
                      TestNode("s", op).Input("v").Input("i").Input("u").Attr("T", DT_FLOAT).Attr("Tindices", index_type)},
                     "s");
}

TEST(StateOpsShapeTest, ScatterOps) {
  for (const char* op : {"ScatterUpdate", "ScatterAdd", "ScatterSub"}) {
    SCOPED_TRACE(op);
    // updates = indices.shape + var.shape[1:]; the output is the variable's shape.
    auto s = Scatter(op, PartialTensorShape({5, 3}), PartialTensorShape({2, 2}), PartialTensorShape({2, 2, 3}));
    ASSERT_TRUE(s.ok()) << s.status();
    EXPECT_EQ((*s)[0], PartialTensorShape({5, 3}));
    FLOWVM_EXPECT_OK(Scatter(op, PartialTensorShape({5, -1}), PartialTensorShape({-1}), PartialTensorShape({4, 7}),
                             DT_INT64)
                         .status());
    // A scalar update goes to every selected row; unknown ranks pass.
    FLOWVM_EXPECT_OK(Scatter(op, PartialTensorShape({5, 3}), PartialTensorShape({2}), TensorShape()).status());
    FLOWVM_EXPECT_OK(Scatter(op, PartialTensorShape(), PartialTensorShape({2}), PartialTensorShape({2, 9})).status());
    auto bad = Scatter(op, PartialTensorShape({5, 3}), PartialTensorShape({2}), PartialTensorShape({2, 4}));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
    EXPECT_NE(bad.status().message().find("'s'"), std::string::npos) << bad.status();
    EXPECT_NE(bad.status().message().find("updates.shape [2,4], indices.shape [2], params.shape [5,3]"),
              std::string::npos)
        << bad.status();
    bad = Scatter(op, TensorShape(), PartialTensorShape({2}), TensorShape());
    ASSERT_FALSE(bad.ok());
    EXPECT_NE(bad.status().message().find("params must be at least 1-D"), std::string::npos) << bad.status();
  }
}

TEST(StateOpsDefTest, ScatterSignatures) {
  for (const char* name : {"ScatterUpdate", "ScatterAdd", "ScatterSub"}) {
    SCOPED_TRACE(name);
    const OpDef& op = OpRegistry::Global()->LookUpOrNull(name)->op_def;
    ASSERT_EQ(op.input_arg_size(), 3);
    EXPECT_EQ(op.input_arg(0).name(), "ref");
    EXPECT_TRUE(op.input_arg(0).is_ref());
    EXPECT_EQ(op.input_arg(1).type_attr(), "Tindices");
    EXPECT_EQ(op.output_arg(0).name(), "output_ref");
    EXPECT_TRUE(op.output_arg(0).is_ref());
    bool use_locking = false, found = false;
    for (const auto& a : op.attr()) {
      if (a.name() != "use_locking") continue;
      found = true;
      use_locking = a.default_value().b();
    }
    EXPECT_TRUE(found);
    // As in TensorFlow: ScatterUpdate locks by default, the arithmetic ones do not.
    EXPECT_EQ(use_locking, std::string(name) == "ScatterUpdate");
  }
  // Only int32 and int64 indices.
  EXPECT_FALSE(Scatter("ScatterAdd", PartialTensorShape({2}), PartialTensorShape({1}), PartialTensorShape({1}),
                       DT_INT16)
                   .ok());
}

TEST(StateOpsShapeTest, CountUpTo) {
  auto count = [](PartialTensorShape shape, DataType dt = DT_INT64) {
    return InferShapes({VariableNode("v", dt, shape),
                        TestNode("c", "CountUpTo").Input("v").Attr("T", dt).Attr("limit", int64_t{3})},
                       "c");
  };
  auto s = count(TensorShape());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape(TensorShape()));
  s = count(PartialTensorShape(), DT_INT32);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape(TensorShape()));
  auto bad = count(TensorShape({2}));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("CountUpTo requires a scalar variable, got shape [2]"), std::string::npos)
      << bad.status();
  EXPECT_FALSE(count(TensorShape(), DT_FLOAT).ok());  // T: {int32, int64}
}

}  // namespace
}  // namespace flowvm
