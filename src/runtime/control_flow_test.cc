// Control flow (paper 4.4) in the executor, through sessions: loops and
// conditionals written as TensorFlow 1.x writes them (Switch, Merge, Enter,
// Exit, NextIteration, LoopCond), dead values, nesting, parallel
// iterations, loops and conditionals across devices, and malformed loops.
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <vector>

#include <gtest/gtest.h>

#include "flowvm/graph_io.h"
#include "graph/shape_inference.h"
#include "kernels/framework/cancellation.h"
#include "kernels/framework/kernel_registry.h"
#include "runtime/control_flow_test_util.h"
#include "runtime/runtime_test_util.h"
#include "util/test_paths.h"

namespace flowvm {

// Waits until `group` calls are waiting at once (in any step), then lets
// them all pass; fails with the step's reason when the step is cancelled.
// Holds no thread. A loop only gets through it if `group` of its
// iterations run at the same time.
REGISTER_OP("TestBarrier").Input("x: int32").Output("y: int32").Attr("group: int").SetIsStateful().SetShapeFn(
    UnchangedShape);

namespace {

struct BarrierState {
  std::mutex mu;
  std::vector<std::function<void()>> waiting;
  int passed = 0;
};
BarrierState& Barrier() {
  static BarrierState* s = new BarrierState;
  return *s;
}

class BarrierOp : public AsyncOpKernel {
 public:
  explicit BarrierOp(OpKernelConstruction* ctx) : AsyncOpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("group", &group_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    ctx->set_output(0, ctx->input(0));
    auto once = std::make_shared<std::atomic<bool>>(false);
    auto finish = [once, done] {
      if (!once->exchange(true)) done();
    };
    CancellationManager* cm = ctx->cancellation_manager();
    if (cm != nullptr) {
      auto token = cm->Register([ctx, finish] {
        ctx->SetStatus(errors::Cancelled("the barrier was cancelled"));
        finish();
      });
      if (token == CancellationManager::kInvalidToken) {
        ctx->SetStatus(errors::Cancelled("the step was already cancelled"));
        finish();
        return;
      }
    }
    std::vector<std::function<void()>> release;
    {
      BarrierState& b = Barrier();
      std::lock_guard<std::mutex> lock(b.mu);
      b.waiting.push_back(finish);
      if (static_cast<int64_t>(b.waiting.size()) == group_) {
        release.swap(b.waiting);
        b.passed += static_cast<int>(release.size());
      }
    }
    for (auto& f : release) f();
  }

 private:
  int64_t group_ = 1;
};
REGISTER_KERNEL_BUILDER(Name("TestBarrier").Device(DEVICE_CPU), BarrierOp);

using namespace runtime_testing;  // NOLINT
using namespace control_flow_testing;  // NOLINT

TEST(ControlFlowTest, WhileLoopComputesASum) {
  GraphDef g = GraphOf(Concat({IntConst("zero", 0), PlaceholderNode("limit", DT_INT32, PartialTensorShape({}))},
                              SumLoop("", "loop", "zero", "limit", "zero")));
  auto session = NewSessionOrDie(g);
  ASSERT_NE(session, nullptr);
  for (int limit : {0, 1, 10, 1000}) {
    EXPECT_EQ(RunScalar(session.get(), {{"limit", Tensor::Scalar<int32_t>(limit)}}, "exit_acc"),
              limit * (limit - 1) / 2)
        << limit;
    EXPECT_EQ(RunScalar(session.get(), {{"limit", Tensor::Scalar<int32_t>(limit)}}, "exit_i"), limit);
  }
}

TEST(ControlFlowTest, OneIterationAtATimeGivesTheSameSum) {
  GraphDef g = GraphOf(Concat({IntConst("zero", 0), IntConst("limit", 200)},
                              SumLoop("", "loop", "zero", "limit", "zero", /*parallel=*/1)));
  auto session = NewSessionOrDie(g);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunScalar(session.get(), {}, "exit_acc"), 199 * 200 / 2);
}

TEST(ControlFlowTest, NestedLoops) {
  // for i in 0..outer: acc += sum(j for j in 0..i)
  std::vector<NodeDef> nodes = {IntConst("zero", 0), IntConst("outer_limit", 6)};
  nodes = Concat(nodes, SumLoop("o_", "outer", "zero", "outer_limit", "zero"));
  // Replace the outer body's term: acc += inner(i).
  for (auto& n : nodes)
    if (n.name() == "o_acc_plus") n.set_input(1, "in_exit_acc");
  nodes.push_back(IntConst("o_zero", 0, "o_body_i"));
  nodes = Concat(nodes, SumLoop("in_", "inner", "o_zero", "o_body_i", "o_zero"));
  auto session = NewSessionOrDie(GraphOf(nodes));
  ASSERT_NE(session, nullptr);
  int expected = 0;
  for (int i = 0; i < 6; ++i) expected += i * (i - 1) / 2;
  EXPECT_EQ(RunScalar(session.get(), {}, "o_exit_acc"), expected);
}

TEST(ControlFlowTest, CondTakesEitherBranch) {
  GraphDef g = GraphOf(Concat({BoolPlaceholder("pred"), IntConst("x", 7)}, CondNodes("x")));
  auto session = NewSessionOrDie(g);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(true)}}, "merge"), 14);
  EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "merge"), 107);
  EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(true)}}, "merge:1"), 1);
  EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "merge:1"), 0);
}

TEST(ControlFlowTest, CondWithABranchOnAnotherDevice) {
  GraphDef g = GraphOf(Concat({BoolPlaceholder("pred"), IntConst("x", 7)}, CondNodes("x", kCpu1)));
  SessionOptions options;
  options.cpu_devices = 2;
  auto session = NewSessionOrDie(g, options);
  ASSERT_NE(session, nullptr);
  for (int round = 0; round < 3; ++round) {
    EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(true)}}, "merge"), 14);
    EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "merge"), 107);
  }
}

TEST(ControlFlowTest, FetchingAnUntakenBranchIsAnErrorNamingIt) {
  GraphDef g = GraphOf(Concat({BoolPlaceholder("pred"), IntConst("x", 7)}, CondNodes("x")));
  auto session = NewSessionOrDie(g);
  ASSERT_NE(session, nullptr);
  Status s;
  RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "then", &s);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("then"), std::string::npos) << s;
  EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(true)}}, "then"), 14);
}

TEST(ControlFlowTest, ALoopInAnUntakenBranchIsDeadAndTheMergeTakesTheOther) {
  // if pred: sum(0..limit) else: -1
  std::vector<NodeDef> nodes = {BoolPlaceholder("pred"), IntConst("limit", 5), IntConst("x", 0),
                                N("sw", "Switch", {"x", "pred"}), N("pivot_f", "Identity", {"sw:0"}),
                                IntConst("minus_one", -1, "pivot_f"),
                                N("else", "Identity", {"minus_one"})};
  nodes = Concat(nodes, SumLoop("", "loop", "sw:1", "limit", "sw:1"));
  nodes.push_back(MergeNode("merge", {"else", "exit_acc"}));
  auto session = NewSessionOrDie(GraphOf(nodes));
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(true)}}, "merge"), 10);
  EXPECT_EQ(RunScalar(session.get(), {{"pred", Tensor::Scalar<bool>(false)}}, "merge"), -1);
}

TEST(ControlFlowTest, IterationsRunConcurrentlyUpToParallelIterations) {
  // Each iteration waits at a barrier that opens only when 4 iterations wait
  // there at once: the loop finishes only if 4 run concurrently.
  GraphDef g = GraphOf(Concat({IntConst("zero", 0), IntConst("limit", 16)},
                              SumLoop("", "loop", "zero", "limit", "zero", /*parallel=*/4, /*barrier_group=*/4)));
  auto session = NewSessionOrDie(g);
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(RunScalar(session.get(), {}, "exit_acc"), 15 * 16 / 2);
}

TEST(ControlFlowTest, ADeadlineStopsALoopThatCannotFinish) {
  // Only 2 iterations may run at once, but the barrier needs 3: the loop can
  // never finish, and the deadline ends the step.
  GraphDef g = GraphOf(Concat({IntConst("zero", 0), IntConst("limit", 6)},
                              SumLoop("", "loop", "zero", "limit", "zero", /*parallel=*/2, /*barrier_group=*/3)));
  auto session = NewSessionOrDie(g);
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.set_timeout_in_ms(300);
  std::vector<Tensor> out;
  Status s = session->Run(options, {}, {"exit_acc"}, {}, &out, nullptr);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
  EXPECT_NE(s.message().find("barrier"), std::string::npos) << s;
  std::lock_guard<std::mutex> lock(Barrier().mu);
  Barrier().waiting.clear();
}

TEST(ControlFlowTest, LoopCondStopsARunawayLoopAtTheDeadline) {
  // while true: i += 1
  std::vector<NodeDef> nodes = {IntConst("zero", 0),
                                EnterNode("enter_i", "zero", "forever", false),
                                MergeNode("merge_i", {"enter_i", "next_i"}),
                                ConstNode("yes", Tensor::Scalar<bool>(true)),
                                N("enter_yes", "Enter", {"yes"}, DT_BOOL),
                                N("cond", "LoopCond", {"enter_yes"}, DT_INVALID),
                                N("switch_i", "Switch", {"merge_i", "cond"}),
                                N("exit_i", "Exit", {"switch_i:0"}),
                                N("body_i", "Identity", {"switch_i:1"}),
                                IntConst("one", 1, "body_i"),
                                N("add", "Add", {"body_i", "one"}),
                                N("next_i", "NextIteration", {"add"})};
  for (auto& n : nodes) {
    if (n.name() != "enter_yes") continue;
    (*n.mutable_attr())["frame_name"] = MakeAttrValue(std::string("forever"));
    (*n.mutable_attr())["is_constant"] = MakeAttrValue(true);
  }
  auto session = NewSessionOrDie(GraphOf(nodes));
  ASSERT_NE(session, nullptr);
  RunOptions options;
  options.set_timeout_in_ms(200);
  std::vector<Tensor> out;
  Status s = session->Run(options, {}, {"exit_i"}, {}, &out, nullptr);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded) << s;
}

TEST(ControlFlowTest, ALoopWhoseBodySpansTwoDevices) {
  SessionOptions options;
  options.cpu_devices = 2;
  for (int parallel : {1, 10}) {
    GraphDef g = GraphOf(Concat({IntConst("zero", 0), PlaceholderNode("limit", DT_INT32, PartialTensorShape({}))},
                                SumLoop("", "loop", "zero", "limit", "zero", parallel, 0, kCpu1)));
    auto session = NewSessionOrDie(g, options);
    ASSERT_NE(session, nullptr);
    for (int limit : {0, 1, 7, 300})
      EXPECT_EQ(RunScalar(session.get(), {{"limit", Tensor::Scalar<int32_t>(limit)}}, "exit_acc"),
                limit * (limit - 1) / 2)
          << limit << " parallel " << parallel;
  }
}

TEST(ControlFlowTest, NestedLoopsWhoseInnerBodyIsOnAnotherDevice) {
  std::vector<NodeDef> nodes = {IntConst("zero", 0), IntConst("outer_limit", 5)};
  nodes = Concat(nodes, SumLoop("o_", "outer", "zero", "outer_limit", "zero"));
  for (auto& n : nodes)
    if (n.name() == "o_acc_plus") n.set_input(1, "in_exit_acc");
  nodes.push_back(IntConst("o_zero", 0, "o_body_i"));
  nodes = Concat(nodes, SumLoop("in_", "inner", "o_zero", "o_body_i", "o_zero", 10, 0, kCpu1));
  SessionOptions options;
  options.cpu_devices = 2;
  auto session = NewSessionOrDie(GraphOf(nodes), options);
  ASSERT_NE(session, nullptr);
  int expected = 0;
  for (int i = 0; i < 5; ++i) expected += i * (i - 1) / 2;
  for (int round = 0; round < 3; ++round) EXPECT_EQ(RunScalar(session.get(), {}, "o_exit_acc"), expected);
}

TEST(ControlFlowTest, ACycleWithoutABackEdgeIsRefusedNamingItsNodes) {
  GraphDef g = GraphOf({IntConst("zero", 0), N("a", "Add", {"zero", "b"}), N("b", "Identity", {"a"})});
  auto s = Session::Create(SessionOptions(), g);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(HasError(s.status(), Code::kInvalidArgument, {"cycle", "'a'", "'b'"}));
}

TEST(ControlFlowTest, ANextIterationOutsideALoopIsRefused) {
  GraphDef g = GraphOf({IntConst("zero", 0), MergeNode("m", {"zero", "next"}), N("next", "NextIteration", {"m"})});
  auto s = Session::Create(SessionOptions(), g);
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(HasError(s.status(), Code::kInvalidArgument, {"next", "inside a loop"}));
}

TEST(ControlFlowTest, AValueThatSkipsEnterIsRefusedNamingBothFrames) {
  std::vector<NodeDef> nodes = {IntConst("zero", 0), IntConst("limit", 3), IntConst("outside", 5)};
  nodes = Concat(nodes, SumLoop("", "loop", "zero", "limit", "zero"));
  for (auto& n : nodes)
    if (n.name() == "acc_plus") n.set_input(1, "outside");
  auto s = Session::Create(SessionOptions(), GraphOf(nodes));
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(HasError(s.status(), Code::kInvalidArgument, {"acc_plus", "different frames", "loop", "outside"}));
}

}  // namespace
}  // namespace flowvm

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT

// A while loop in the form TensorFlow 1.x exports it (tests/data/graphs/
// README.md), run unmodified: the counter and a tensor that doubles in
// size each iteration, also with the loop's body on a second device.
TEST(ControlFlowTest, ATensorFlowExportedWhileLoopRunsUnmodified) {
  auto def = ReadGraphDefFile(testing::SourcePath("tests/data/graphs/tf1_while_loop.pbtxt"));
  ASSERT_TRUE(def.ok()) << def.status();
  for (int devices : {1, 2}) {
    GraphDef g = *def;
    if (devices == 2)
      for (auto& n : *g.mutable_node())
        if (n.name() == "while/concat" || n.name() == "while/add") n.set_device(kCpu1);
    SessionOptions options;
    options.cpu_devices = devices;
    auto session = NewSessionOrDie(g, options);
    ASSERT_NE(session, nullptr);
    for (int n : {0, 3}) {
      std::vector<Tensor> out;
      FLOWVM_ASSERT_OK(session->Run({{"n", Tensor::Scalar<int32_t>(n)}}, {"while/Exit", "while/Exit_1"}, {}, &out));
      EXPECT_EQ(out[0].scalar<int32_t>(), n);
      EXPECT_EQ(out[1].shape(), TensorShape({2 << n, 2}));
      for (float v : out[1].flat<float>()) ASSERT_EQ(v, 1.0f);
    }
  }
}

}  // namespace
}  // namespace flowvm
