// CountUpTo: counts to the limit, then OutOfRange without changing the
// variable; int32 and int64; errors; a Session error names the node; and
// concurrent callers each get a distinct value.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "flowvm/session.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ConstNode;
using testing::ExpectTensorEqual;
using testing::OpTest;
using testing::TestNode;
using testing::VariableNode;

template <typename T>
void CountsToTheLimit(DataType dt) {
  SCOPED_TRACE(DataTypeName(dt));
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("count", "CountUpTo").Input("v").Attr("T", dt).Attr("limit", int64_t{3})));
  auto var = t.AddVarInput("v", dt);
  var->tensor = Tensor::Scalar<T>(1).DeepCopy();
  for (T expected : {T{1}, T{2}}) {
    FLOWVM_ASSERT_OK(t.Run());
    ExpectTensorEqual(t.output(0), Tensor::Scalar<T>(expected));
  }
  ExpectTensorEqual(var->tensor, Tensor::Scalar<T>(3));
  for (int i = 0; i < 2; ++i) {
    Status s = t.Run();
    EXPECT_EQ(s.code(), Code::kOutOfRange) << s;
    EXPECT_NE(s.message().find("Reached limit of 3"), std::string::npos) << s;
    ExpectTensorEqual(var->tensor, Tensor::Scalar<T>(3));
  }
}

TEST(CountUpToOpTest, CountsToTheLimit) {
  CountsToTheLimit<int32_t>(DT_INT32);
  CountsToTheLimit<int64_t>(DT_INT64);
}

TEST(CountUpToOpTest, ReadersKeepTheOldValue) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("count", "CountUpTo").Input("v").Attr("T", DT_INT64).Attr("limit", int64_t{10})));
  auto var = t.AddVarInput("v", DT_INT64);
  var->tensor = Tensor::Scalar<int64_t>(5).DeepCopy();
  Tensor reader = var->tensor;
  FLOWVM_ASSERT_OK(t.Run());
  ExpectTensorEqual(reader, Tensor::Scalar<int64_t>(5));
  ExpectTensorEqual(var->tensor, Tensor::Scalar<int64_t>(6));
}

TEST(CountUpToOpTest, Errors) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("count", "CountUpTo").Input("v").Attr("T", DT_INT32).Attr("limit", int64_t{3})));
  auto var = t.AddVarInput("v", DT_INT32);
  Status s = t.Run();
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("Attempting to use uninitialized value v"), std::string::npos) << s;
  var->tensor = Tensor::FromVector<int32_t>({1, 2}).DeepCopy();
  s = t.Run();
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("input is not a scalar: [2]"), std::string::npos) << s;
  OpTest f;
  EXPECT_FALSE(f.Init(TestNode("count", "CountUpTo").Input("v").Attr("T", DT_FLOAT).Attr("limit", int64_t{3})).ok());
}

TEST(CountUpToOpTest, SessionConcurrentCountsAndTheLimitErrorNamesTheNode) {
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  *g.add_node() = VariableNode("epochs", DT_INT64, TensorShape());
  *g.add_node() = ConstNode("zero", Tensor::Scalar<int64_t>(0));
  *g.add_node() = TestNode("init", "Assign").Input("epochs").Input("zero").Attr("T", DT_INT64);
  *g.add_node() = TestNode("limit_epochs/count", "CountUpTo").Input("epochs").Attr("T", DT_INT64)
                      .Attr("limit", int64_t{40});
  SessionOptions options;
  options.num_threads = 2;
  auto session = Session::Create(options, g);
  ASSERT_TRUE(session.ok()) << session.status();
  FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"init"}, nullptr));
  // 4 threads x 10 steps: each of 0..39 exactly once.
  std::vector<std::vector<int64_t>> seen(4);
  std::vector<std::thread> threads;
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; i < 10; ++i) {
        std::vector<Tensor> out;
        Status st = (*session)->Run({}, {"limit_epochs/count:0"}, {}, &out);
        if (st.ok()) seen[k].push_back(out[0].data<int64_t>()[0]);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<int64_t> all;
  for (const auto& v : seen) all.insert(v.begin(), v.end());
  EXPECT_EQ(all.size(), 40u);
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), 39);
  std::vector<Tensor> out;
  Status s = (*session)->Run({}, {"limit_epochs/count:0"}, {}, &out);
  EXPECT_EQ(s.code(), Code::kOutOfRange) << s;
  EXPECT_NE(s.message().find("Reached limit of 40"), std::string::npos) << s;
  EXPECT_NE(s.message().find("limit_epochs/count"), std::string::npos) << s;
}

}  // namespace
}  // namespace flowvm
