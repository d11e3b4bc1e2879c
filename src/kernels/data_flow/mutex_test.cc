// Mutex: waiters in arrival order, release when the last copy of the lock
// goes, cancelled waiters, and exclusive read-modify-write from concurrent
// steps of a session.
#include "kernels/data_flow/mutex.h"

#include <thread>

#include <gtest/gtest.h>

#include "flowvm/session.h"
#include "graph/attr_value_util.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

TEST(MutexTest, WaitersGetTheLockInOrderWhenItIsReleased) {
  auto m = std::make_shared<Mutex>("m");
  std::shared_ptr<Mutex::Lock> first, second, third;
  m->AcquireAsync(nullptr, [&](const Status& s, std::shared_ptr<Mutex::Lock> l) { first = std::move(l); });
  ASSERT_NE(first, nullptr);
  m->AcquireAsync(nullptr, [&](const Status& s, std::shared_ptr<Mutex::Lock> l) { second = std::move(l); });
  CancellationManager cm;
  Status cancelled;
  m->AcquireAsync(&cm, [&](const Status& s, std::shared_ptr<Mutex::Lock> l) { cancelled = s; });
  m->AcquireAsync(nullptr, [&](const Status& s, std::shared_ptr<Mutex::Lock> l) { third = std::move(l); });
  EXPECT_EQ(second, nullptr);
  cm.StartCancel(errors::DeadlineExceeded("too late"));
  EXPECT_EQ(cancelled.code(), Code::kDeadlineExceeded);
  auto copy = first;
  first.reset();
  EXPECT_EQ(second, nullptr);  // a copy of the lock still holds it
  copy.reset();
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(third, nullptr);
  second.reset();
  ASSERT_NE(third, nullptr);  // the cancelled waiter was skipped
  third.reset();
  EXPECT_FALSE(m->IsLocked());
}

TEST(MutexTest, ConcurrentStepsUpdateAVariableOneAtATime) {
  // lock; v' = read(v) + 1 (after the lock); assign; consume the lock after
  // the assign. Read and assign are separate ops: without the mutex,
  // concurrent steps would lose updates.
  auto node = [](const std::string& name, const std::string& op, std::vector<std::string> inputs,
                 std::map<std::string, AttrValue> attrs = {}) {
    testing::TestNode n(name, op);
    for (auto& in : inputs) n.Input(in);
    NodeDef def = n;
    for (auto& [k, v] : attrs) (*def.mutable_attr())[k] = v;
    return def;
  };
  auto f = MakeAttrValue(DT_FLOAT);
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  for (NodeDef n : {node("m", "MutexV2", {}),
                    node("v", "VariableV2", {}, {{"dtype", f}, {"shape", MakeAttrValue(PartialTensorShape(std::initializer_list<int64_t>{}))}}),
                    testing::ConstNode("zero", Tensor::Scalar<float>(0)), testing::ConstNode("one", Tensor::Scalar<float>(1)),
                    node("init", "Assign", {"v", "zero"}, {{"T", f}}), node("lock", "MutexLock", {"m"}),
                    node("read", "Identity", {"v", "^lock"}, {{"T", f}}), node("plus", "Add", {"read", "one"}, {{"T", f}}),
                    node("write", "Assign", {"v", "plus"}, {{"T", f}}),
                    node("release", "ConsumeMutexLock", {"lock", "^write"})})
    *g.add_node() = n;
  auto created = Session::Create(SessionOptions(), g);
  ASSERT_TRUE(created.ok()) << created.status();
  Session* s = created->get();
  ASSERT_TRUE(s->Run({}, {}, {"init"}, nullptr).ok());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([s] {
      for (int i = 0; i < 50; ++i) {
        Status st = s->Run({}, {}, {"release"}, nullptr);
        EXPECT_TRUE(st.ok()) << st;
      }
    });
  for (auto& t : threads) t.join();
  std::vector<Tensor> out;
  ASSERT_TRUE(s->Run({}, {"v"}, {}, &out).ok());
  EXPECT_EQ(out[0].scalar<float>(), 200.f);
}

}  // namespace
}  // namespace flowvm
