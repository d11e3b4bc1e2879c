// ScatterUpdate / ScatterAdd / ScatterSub kernels: values for several types
// and both index types, scalar updates, repeated indices, copy-on-write,
// errors (an out-of-range index leaves the variable untouched, and through a
// Session the error names the node).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flowvm/session.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::ExpectTensorEqual;
using testing::OpTest;
using testing::PlaceholderNode;
using testing::TestNode;
using testing::VariableNode;

struct ScatterTest {
  OpTest t;
  std::shared_ptr<Var> var;
  ScatterTest(const char* op, DataType dt, DataType index_type = DT_INT32) {
    Status s = t.Init(TestNode("scatter", op)
                          .Input("v")
                          .Input("indices")
                          .Input("updates")
                          .Attr("T", dt)
                          .Attr("Tindices", index_type));
    EXPECT_TRUE(s.ok()) << s;
    var = t.AddVarInput("v", dt);
  }
  Status Run(Tensor indices, Tensor updates) {
    t.ClearInputs();
    t.AddRefInput(&var->tensor, &var->mu);
    t.AddInput(std::move(indices));
    t.AddInput(std::move(updates));
    return t.Run();
  }
};

Tensor F(std::vector<float> v, TensorShape shape) { return Tensor::FromVector<float>(v, shape); }
Tensor I32(std::vector<int32_t> v) { return Tensor::FromVector<int32_t>(v); }

TEST(ScatterOpTest, UpdateAddSubRows) {
  ScatterTest u("ScatterUpdate", DT_FLOAT);
  u.var->tensor = F({1, 2, 3, 4, 5, 6}, TensorShape({3, 2})).DeepCopy();
  const void* buf = u.var->tensor.raw_data();
  FLOWVM_ASSERT_OK(u.Run(I32({2, 0}), F({10, 20, 30, 40}, TensorShape({2, 2}))));
  ExpectTensorEqual(u.var->tensor, F({30, 40, 3, 4, 10, 20}, TensorShape({3, 2})));
  EXPECT_EQ(u.var->tensor.raw_data(), buf);  // in place: nobody else held it
  ASSERT_TRUE(u.t.output_is_ref(0));
  EXPECT_EQ(u.t.output_slot(0).ref, &u.var->tensor);

  // Repeated indices add up; int64 indices; indices of rank 2.
  ScatterTest a("ScatterAdd", DT_FLOAT, DT_INT64);
  a.var->tensor = F({1, 2, 3, 4, 5, 6}, TensorShape({3, 2})).DeepCopy();
  FLOWVM_ASSERT_OK(a.Run(Tensor::FromVector<int64_t>({1, 1, 0, 1}, TensorShape({2, 2})),
                         F({1, 1, 2, 2, 3, 3, 4, 4}, TensorShape({2, 2, 2}))));
  ExpectTensorEqual(a.var->tensor, F({4, 5, 10, 11, 5, 6}, TensorShape({3, 2})));

  ScatterTest s("ScatterSub", DT_INT32);
  s.var->tensor = Tensor::FromVector<int32_t>({10, 20, 30}).DeepCopy();
  FLOWVM_ASSERT_OK(s.Run(I32({2, 2}), I32({1, 5})));
  ExpectTensorEqual(s.var->tensor, Tensor::FromVector<int32_t>({10, 20, 24}));
}

TEST(ScatterOpTest, ScalarUpdatesEveryRow) {
  ScatterTest a("ScatterAdd", DT_DOUBLE);
  a.var->tensor = Tensor::FromVector<double>({0, 0, 0, 0}, TensorShape({2, 2})).DeepCopy();
  FLOWVM_ASSERT_OK(a.Run(I32({1}), Tensor::Scalar<double>(2.5)));
  ExpectTensorEqual(a.var->tensor, Tensor::FromVector<double>({0, 0, 2.5, 2.5}, TensorShape({2, 2})));
}

TEST(ScatterOpTest, OtherTypes) {
  ScatterTest str("ScatterUpdate", DT_STRING);
  str.var->tensor = Tensor::FromVector<std::string>({"a", "b", "c"}).DeepCopy();
  FLOWVM_ASSERT_OK(str.Run(I32({1}), Tensor::FromVector<std::string>({"x"})));
  ExpectTensorEqual(str.var->tensor, Tensor::FromVector<std::string>({"a", "x", "c"}));
  ScatterTest h("ScatterSub", DT_HALF);
  h.var->tensor = Tensor::FromVector<half>({half(1.0f), half(2.0f)}).DeepCopy();
  FLOWVM_ASSERT_OK(h.Run(I32({0}), Tensor::FromVector<half>({half(0.5f)})));
  ExpectTensorEqual(h.var->tensor, Tensor::FromVector<half>({half(0.5f), half(2.0f)}));
  ScatterTest c("ScatterAdd", DT_COMPLEX64);
  c.var->tensor = Tensor::FromVector<complex64>({{1, 1}}).DeepCopy();
  FLOWVM_ASSERT_OK(c.Run(I32({0}), Tensor::FromVector<complex64>({{1, -2}})));
  ExpectTensorEqual(c.var->tensor, Tensor::FromVector<complex64>({{2, -1}}));
  // No arithmetic scatter on strings (T: numbertype).
  OpTest t;
  EXPECT_FALSE(t.Init(TestNode("s", "ScatterAdd").Input("v").Input("i").Input("u").Attr("T", DT_STRING)
                          .Attr("Tindices", DT_INT32)).ok());
}

TEST(ScatterOpTest, ReadersKeepTheOldValue) {
  ScatterTest u("ScatterUpdate", DT_FLOAT);
  u.var->tensor = F({1, 2}, TensorShape({2})).DeepCopy();
  Tensor reader = u.var->tensor;
  FLOWVM_ASSERT_OK(u.Run(I32({0}), F({9}, TensorShape({1}))));
  ExpectTensorEqual(reader, F({1, 2}, TensorShape({2})));
  ExpectTensorEqual(u.var->tensor, F({9, 2}, TensorShape({2})));
}

void ExpectError(const Status& s, Code code, const std::string& what) {
  EXPECT_EQ(s.code(), code) << s;
  EXPECT_NE(s.message().find(what), std::string::npos) << "want \"" << what << "\" in: " << s;
}

TEST(ScatterOpTest, Errors) {
  ScatterTest a("ScatterAdd", DT_FLOAT);
  ExpectError(a.Run(I32({0}), F({1}, TensorShape({1}))), Code::kFailedPrecondition,
              "Attempting to use uninitialized value v");
  a.var->tensor = F({1, 2, 3}, TensorShape({3})).DeepCopy();
  // Index 3 comes after a valid one: nothing is written.
  ExpectError(a.Run(I32({0, 3}), F({1, 1}, TensorShape({2}))), Code::kInvalidArgument,
              "indices[1] = 3 is not in [0, 3)");
  ExpectError(a.Run(I32({-1}), F({1}, TensorShape({1}))), Code::kInvalidArgument, "indices[0] = -1 is not in [0, 3)");
  ExpectTensorEqual(a.var->tensor, F({1, 2, 3}, TensorShape({3})));
  ExpectError(a.Run(I32({0, 1}), F({1, 1, 1}, TensorShape({3}))), Code::kInvalidArgument,
              "Must have updates.shape = indices.shape + params.shape[1:] or updates.shape = [], got updates.shape "
              "[3], indices.shape [2], params.shape [3]");
  a.var->tensor = Tensor::Scalar<float>(1).DeepCopy();
  ExpectError(a.Run(I32({0}), Tensor::Scalar<float>(1)), Code::kInvalidArgument, "params must be at least 1-D");
  // A value where the variable belongs.
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("s", "ScatterUpdate").Input("v").Input("i").Input("u").Attr("T", DT_FLOAT)
                              .Attr("Tindices", DT_INT32)));
  t.AddInput(F({1}, TensorShape({1})));
  t.AddInput(I32({0}));
  t.AddInput(F({1}, TensorShape({1})));
  ExpectError(t.Run(), Code::kInvalidArgument, "must be a reference to a variable");
}

// Through a Session: the out-of-range error names the scatter node.
TEST(ScatterOpTest, SessionErrorNamesTheNode) {
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  *g.add_node() = VariableNode("v", DT_FLOAT, TensorShape({3}));
  *g.add_node() = ConstNode("init_value", F({1, 2, 3}, TensorShape({3})));
  *g.add_node() = TestNode("init", "Assign").Input("v").Input("init_value").Attr("T", DT_FLOAT);
  *g.add_node() = PlaceholderNode("i", DT_INT32, PartialTensorShape({-1}));
  *g.add_node() = PlaceholderNode("u", DT_FLOAT, PartialTensorShape({-1}));
  *g.add_node() = TestNode("my_scatter", "ScatterSub").Input("v").Input("i").Input("u").Attr("T", DT_FLOAT)
                      .Attr("Tindices", DT_INT32);
  auto session = Session::Create(SessionOptions(), g);
  ASSERT_TRUE(session.ok()) << session.status();
  FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"init"}, nullptr));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK((*session)->Run({{"i", I32({2})}, {"u", F({1}, TensorShape({1}))}}, {"my_scatter:0"}, {}, &out));
  ExpectTensorEqual(out[0], F({1, 2, 2}, TensorShape({3})));
  Status s = (*session)->Run({{"i", I32({5})}, {"u", F({1}, TensorShape({1}))}}, {"my_scatter:0"}, {}, &out);
  ExpectError(s, Code::kInvalidArgument, "indices[0] = 5 is not in [0, 3)");
  EXPECT_NE(s.message().find("my_scatter"), std::string::npos) << s;
}

}  // namespace
}  // namespace flowvm
