// Session::Run: feeds, fetches, targets, the step cache, pruning, errors
// (each naming the node or tensor), Extend, Close, and variable state.
#include "flowvm/session.h"

#include <algorithm>

#include <limits>

#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "kernels/framework/kernel_registry.h"
#include "util/op_test_util.h"

namespace flowvm {

// An op whose definition allows float and int32 but which has a CPU kernel
// for float only, as when a library lacks one type of an op.
REGISTER_OP("TestFloatOnlyKernel").Input("x: T").Output("y: T").Attr("T: {float, int32}").SetShapeFn(UnchangedShape);
namespace {
class TestFloatOnlyKernelOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, ctx->input(0)); }
};
}  // namespace
REGISTER_KERNEL_BUILDER(Name("TestFloatOnlyKernel").Device(DEVICE_CPU).TypeConstraint<float>("T"),
                        TestFloatOnlyKernelOp);

namespace {

using testing::ConstNode;
using testing::ExpectTensorNear;
using testing::PlaceholderNode;
using testing::TestNode;
using testing::VariableNode;

NodeDef Binary(const std::string& name, const std::string& op, const std::string& a, const std::string& b) {
  return TestNode(name, op).Input(a).Input(b).Attr("T", DT_FLOAT);
}
NodeDef Unary(const std::string& name, const std::string& op, const std::string& a) {
  return TestNode(name, op).Input(a).Attr("T", DT_FLOAT);
}

GraphDef MakeGraph(const std::vector<NodeDef>& nodes) {
  GraphDef g;
  g.mutable_versions()->set_producer(1205);
  for (const auto& n : nodes) *g.add_node() = n;
  return g;
}

Tensor F(std::vector<float> v, TensorShape shape) { return Tensor::FromVector<float>(v, shape); }

// y = x @ [[1,2],[3,4]];  z = y + 10;  side = 10 * 10 (not needed by z).
GraphDef BasicGraph() {
  return MakeGraph({PlaceholderNode("x", DT_FLOAT, PartialTensorShape({-1, 2})),
                    ConstNode("w", F({1, 2, 3, 4}, {2, 2})), ConstNode("c", Tensor::Scalar<float>(10)),
                    Binary("y", "MatMul", "x", "w"), Binary("z", "AddV2", "y", "c"), Binary("unused", "Mul", "c", "c"),
                    Unary("side", "Identity", "unused")});
}

std::unique_ptr<Session> NewSession(const GraphDef& g, int threads = 2) {
  SessionOptions options;
  options.num_threads = threads;
  auto s = Session::Create(options, g);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? std::move(*s) : nullptr;
}

void ExpectError(const Status& s, Code code, std::initializer_list<std::string> parts) {
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), code) << s;
  for (const auto& p : parts) EXPECT_NE(s.message().find(p), std::string::npos) << "missing '" << p << "' in " << s;
}

bool Contains(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(DirectSessionTest, RunFeedsFetchesAndTargets) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 1, 2, 0}, {2, 2})}}, {"y", "z:0"}, {"side"}, &out));
  ASSERT_EQ(out.size(), 2u);
  ExpectTensorNear(out[0], F({4, 6, 2, 4}, {2, 2}));
  ExpectTensorNear(out[1], F({14, 16, 12, 14}, {2, 2}));
  // Targets alone return no tensors.
  FLOWVM_ASSERT_OK(session->Run({}, {}, {"side"}, &out));
  EXPECT_TRUE(out.empty());
  ExpectError(session->Run({}, {}, {}, &out), Code::kInvalidArgument, {});
}

TEST(DirectSessionTest, StepCacheAndPruning) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  RunStats stats;
  int prepared = 0;
  auto run = [&](const std::vector<std::string>& fetches) {
    Status s = session->Run({{"x", F({1, 0}, {1, 2})}}, fetches, {}, &out, &stats);
    EXPECT_TRUE(s.ok()) << s;
    if (!stats.cache_hit) ++prepared;
    return stats.cache_hit;
  };
  EXPECT_FALSE(run({"z"}));
  EXPECT_EQ(stats.graph_nodes, 7);
  EXPECT_TRUE(Contains(stats.pruned, "unused"));
  EXPECT_TRUE(Contains(stats.pruned, "side"));
  for (const char* kept : {"w", "c", "y", "z"}) EXPECT_FALSE(Contains(stats.pruned, kept)) << kept;
  // _Arg, w, c, y, z, _Retval.
  EXPECT_EQ(stats.executed_nodes, 6);
  EXPECT_GT(stats.num_threads, 0);
  const int64_t first_step = stats.step_id;

  EXPECT_TRUE(run({"z"}));
  EXPECT_EQ(stats.prepare_ms, 0);
  EXPECT_NE(stats.step_id, first_step);
  EXPECT_EQ(stats.pruned.size(), 3u);  // x (fed), unused, side
  ExpectTensorNear(out[0], F({11, 12}, {1, 2}));

  EXPECT_FALSE(run({"y"}));  // another signature: a new prepared step
  EXPECT_TRUE(Contains(stats.pruned, "z"));
  EXPECT_TRUE(run({"y"}));
  EXPECT_TRUE(run({"z"}));   // the first one is still cached
  EXPECT_FALSE(run({"z", "y"}));
  EXPECT_EQ(prepared, 3);
}

TEST(DirectSessionTest, FeedingANonPlaceholderOverridesIt) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 0}, {1, 2})}, {"c:0", Tensor::Scalar<float>(100)}}, {"z"}, {}, &out));
  ExpectTensorNear(out[0], F({101, 102}, {1, 2}));
  // Feeding an intermediate makes its producers unnecessary: x need not be fed.
  RunStats stats;
  FLOWVM_ASSERT_OK(session->Run({{"y", F({5, 6, 7}, {3})}}, {"z"}, {}, &out, &stats));
  ExpectTensorNear(out[0], F({15, 16, 17}, {3}));
  EXPECT_TRUE(Contains(stats.pruned, "x"));
}

TEST(DirectSessionTest, FetchingAFedTensorReturnsTheFedValue) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"c", Tensor::Scalar<float>(-3)}, {"x", F({9, 8}, {1, 2})}}, {"c", "x:0", "z"}, {},
                                &out));
  ExpectTensorNear(out[0], Tensor::Scalar<float>(-3));
  ExpectTensorNear(out[1], F({9, 8}, {1, 2}));
  ExpectTensorNear(out[2], F({33 - 3, 50 - 3}, {1, 2}));
}

TEST(DirectSessionTest, NonexistentFeedFetchOrTargetIsNotFound) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  ExpectError(session->Run({{"nope", Tensor::Scalar<float>(1)}}, {"c"}, {}, &out), Code::kNotFound, {"'nope'"});
  ExpectError(session->Run({}, {"ghost:0"}, {}, &out), Code::kNotFound, {"'ghost"});
  ExpectError(session->Run({}, {"c"}, {"phantom"}, &out), Code::kNotFound, {"'phantom'"});
}

TEST(DirectSessionTest, FetchPortOutOfRange) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  ExpectError(session->Run({}, {"c:1"}, {}, &out), Code::kInvalidArgument, {"'c:1'", "node 'c' (Const)"});
  ExpectError(session->Run({{"y:2", F({1}, {1})}}, {"z"}, {}, &out), Code::kInvalidArgument, {"'y:2'"});
}

TEST(DirectSessionTest, PlaceholderFedWrongDtypeOrShape) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  ExpectError(session->Run({{"x", Tensor::FromVector<int32_t>({1, 2}, {1, 2})}}, {"y"}, {}, &out),
              Code::kInvalidArgument, {"'x:0'", "float", "int32"});
  ExpectError(session->Run({{"x", F({1, 2, 3}, {1, 3})}}, {"y"}, {}, &out), Code::kInvalidArgument,
              {"'x:0'", "[?,2]", "[1,3]"});
  ExpectError(session->Run({{"x", F({1, 2}, {2})}}, {"y"}, {}, &out), Code::kInvalidArgument, {"'x:0'"});
  // The same signature with a good feed still works.
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 0}, {1, 2})}}, {"y"}, {}, &out));
  ExpectTensorNear(out[0], F({1, 2}, {1, 2}));
}

TEST(DirectSessionTest, UnfedPlaceholderIsNamed) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  ExpectError(session->Run({}, {"z"}, {}, &out), Code::kInvalidArgument, {"'x'", "float"});
  EXPECT_TRUE(out.empty());
}

TEST(DirectSessionTest, RuntimeShapeMismatchNamesNode) {
  auto session = NewSession(MakeGraph({PlaceholderNode("a", DT_FLOAT, PartialTensorShape()),
                                       PlaceholderNode("b", DT_FLOAT, PartialTensorShape()),
                                       Binary("sum", "Add", "a", "b")}));
  std::vector<Tensor> out;
  ExpectError(session->Run({{"a", F({1, 2, 3, 4, 5, 6}, {2, 3})}, {"b", F({1, 2, 3, 4}, {4})}}, {"sum"}, {}, &out),
              Code::kInvalidArgument, {"node 'sum' (Add)"});
  FLOWVM_ASSERT_OK(session->Run({{"a", F({1, 2, 3, 4, 5, 6}, {2, 3})}, {"b", F({1, 2, 3}, {3})}}, {"sum"}, {}, &out));
  ExpectTensorNear(out[0], F({2, 4, 6, 5, 7, 9}, {2, 3}));
}

TEST(DirectSessionTest, CreateRejectsInvalidGraphs) {
  SessionOptions options;
  auto s = Session::Create(options, MakeGraph({TestNode("q", "NoSuchOp")}));
  ASSERT_FALSE(s.ok());
  ExpectError(s.status(), Code::kNotFound, {"'q'"});
  s = Session::Create(options, MakeGraph({ConstNode("a", F({1, 2, 3, 4, 5, 6}, {2, 3})),
                                          ConstNode("b", F(std::vector<float>(20, 1), {4, 5})),
                                          Binary("mm", "MatMul", "a", "b")}));
  ASSERT_FALSE(s.ok());
  ExpectError(s.status(), Code::kInvalidArgument, {"node 'mm' (MatMul)"});
  options.num_threads = -1;
  s = Session::Create(options, BasicGraph());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInvalidArgument);
}

TEST(DirectSessionTest, CreateRejectsATypeWithoutAKernel) {
  SessionOptions options;
  auto ok = Session::Create(options, MakeGraph({ConstNode("a", F({1, 2}, {2})),
                                                TestNode("f", "TestFloatOnlyKernel").Input("a").Attr("T", DT_FLOAT)}));
  ASSERT_TRUE(ok.ok()) << ok.status();
  auto s = Session::Create(options, MakeGraph({ConstNode("a", Tensor::FromVector<int32_t>({1, 2}, TensorShape({2}))),
                                               TestNode("f", "TestFloatOnlyKernel").Input("a").Attr("T", DT_INT32)}));
  ASSERT_FALSE(s.ok());
  ExpectError(s.status(), Code::kNotFound, {"node 'f' (TestFloatOnlyKernel)", "T=int32", "T=float"});
}

TEST(DirectSessionTest, UninitializedVariableReadNamesVariable) {
  auto session = NewSession(MakeGraph({VariableNode("sess_uninit_v", DT_FLOAT, TensorShape({2})),
                                       Unary("read", "Identity", "sess_uninit_v")}));
  std::vector<Tensor> out;
  ExpectError(session->Run({}, {"read"}, {}, &out), Code::kFailedPrecondition, {"sess_uninit_v"});
}

TEST(DirectSessionTest, ExtendAddsNodes) {
  auto session = NewSession(BasicGraph());
  FLOWVM_ASSERT_OK(session->Extend(MakeGraph({Binary("z2", "Mul", "z", "c")})));
  EXPECT_EQ(session->graph_def().node_size(), 8);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 0}, {1, 2})}}, {"z2"}, {}, &out));
  ExpectTensorNear(out[0], F({110, 120}, {1, 2}));
}

TEST(DirectSessionTest, ExtendWithDuplicateFailsAndLeavesSessionUsable) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 0}, {1, 2})}}, {"z"}, {}, &out));
  ExpectError(session->Extend(MakeGraph({Binary("y", "Mul", "c", "c")})), Code::kInvalidArgument, {"'y'"});
  ExpectError(session->Extend(MakeGraph({Binary("bad", "Mul", "c", "missing")})), Code::kInvalidArgument,
              {"'bad'", "'missing'"});
  EXPECT_EQ(session->graph_def().node_size(), 7);
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 0}, {1, 2})}}, {"z"}, {}, &out));
  ExpectTensorNear(out[0], F({11, 12}, {1, 2}));
  FLOWVM_ASSERT_OK(session->Extend(MakeGraph({Binary("y3", "Mul", "y", "c")})));
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 0}, {1, 2})}}, {"y3"}, {}, &out));
  ExpectTensorNear(out[0], F({10, 20}, {1, 2}));
}

// v = zeros(2); inc: v += x; read = v.
GraphDef CounterGraph(const std::string& var, const std::string& container = "") {
  return MakeGraph({TestNode(var, "VariableV2")
                        .Attr("dtype", DT_FLOAT)
                        .Attr("shape", PartialTensorShape({2}))
                        .Attr("container", container),
                    ConstNode("zeros", F({0, 0}, {2})), Binary("init", "Assign", var, "zeros"),
                    PlaceholderNode("x", DT_FLOAT, PartialTensorShape({2})), Binary("inc", "AssignAdd", var, "x"),
                    Unary("read", "Identity", var),
                    TestNode("is_init", "IsVariableInitialized").Input(var).Attr("dtype", DT_FLOAT)});
}

TEST(DirectSessionTest, HugeTimeoutsAreNoDeadline) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  for (int64_t timeout : {int64_t{1} << 40, int64_t{1} << 62, std::numeric_limits<int64_t>::max()}) {
    RunOptions options;
    options.set_timeout_in_ms(timeout);
    FLOWVM_ASSERT_OK(session->Run(options, {{"x", F({1, 1, 2, 0}, {2, 2})}}, {"y"}, {}, &out, nullptr));
  }
}

TEST(DirectSessionTest, FailedPrepareIsNotCached) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  ExpectError(session->Run({}, {"later"}, {}, &out), Code::kNotFound, {"'later'"});
  FLOWVM_ASSERT_OK(session->Extend(MakeGraph({Binary("later", "Mul", "c", "c")})));
  FLOWVM_ASSERT_OK(session->Run({}, {"later"}, {}, &out));
  ExpectTensorNear(out[0], Tensor::Scalar<float>(100));
}

TEST(DirectSessionTest, DuplicateFeedAndRefFeeds) {
  auto session = NewSession(CounterGraph("sess_feed_v"));
  std::vector<Tensor> out;
  ExpectError(session->Run({{"x", F({1, 1}, {2})}, {"x:0", F({1, 1}, {2})}}, {}, {"inc"}, &out),
              Code::kInvalidArgument, {"'x:0'"});
  // Feeding a variable replaces what its readers see (the variable is not read).
  FLOWVM_ASSERT_OK(session->Run({{"sess_feed_v", F({7, 8}, {2})}}, {"read"}, {}, &out));
  ExpectTensorNear(out[0], F({7, 8}, {2}));
  // ... but a consumer that updates it needs the variable itself.
  ExpectError(session->Run({{"sess_feed_v", F({7, 8}, {2})}, {"x", F({1, 1}, {2})}}, {}, {"inc"}, &out),
              Code::kInvalidArgument, {"'sess_feed_v:0'", "node 'inc' (AssignAdd)"});
}

TEST(DirectSessionTest, CloseThenRunFails) {
  auto session = NewSession(BasicGraph());
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({}, {"c"}, {}, &out));
  FLOWVM_ASSERT_OK(session->Close());
  ExpectError(session->Run({}, {"c"}, {}, &out), Code::kFailedPrecondition, {});
  ExpectError(session->Extend(MakeGraph({Binary("late", "Mul", "c", "c")})), Code::kFailedPrecondition, {});
  FLOWVM_EXPECT_OK(session->Close());
}

TEST(DirectSessionTest, VariableStatePersistsAcrossRuns) {
  auto session = NewSession(CounterGraph("sess_counter"));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(session->Run({}, {"is_init"}, {}, &out));
  EXPECT_FALSE(out[0].scalar<bool>());
  FLOWVM_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  FLOWVM_ASSERT_OK(session->Run({}, {"is_init"}, {}, &out));
  EXPECT_TRUE(out[0].scalar<bool>());
  const int kRepeats = 7;
  for (int i = 0; i < kRepeats; ++i) FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 2.5f}, {2})}}, {}, {"inc"}, &out));
  FLOWVM_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  ExpectTensorNear(out[0], F({kRepeats * 1.0f, kRepeats * 2.5f}, {2}));
  // Fetching the AssignAdd's ref output gives the updated value.
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 1}, {2})}}, {"inc"}, {}, &out));
  ExpectTensorNear(out[0], F({kRepeats + 1.0f, kRepeats * 2.5f + 1}, {2}));
  // A fetched value is a snapshot: later updates do not change it.
  Tensor snapshot = out[0];
  FLOWVM_ASSERT_OK(session->Run({{"x", F({1, 1}, {2})}}, {}, {"inc"}, &out));
  ExpectTensorNear(snapshot, F({kRepeats + 1.0f, kRepeats * 2.5f + 1}, {2}));
  // Re-running init resets the value. (A read in the same step as init
  // would not be ordered after it.)
  FLOWVM_ASSERT_OK(session->Run({}, {}, {"init"}, &out));
  FLOWVM_ASSERT_OK(session->Run({}, {"read"}, {}, &out));
  ExpectTensorNear(out[0], F({0, 0}, {2}));
}

// A local session owns its devices, so its variables are its own, in every
// container: two sessions of one graph never see each other's values.
TEST(DirectSessionTest, SessionsDoNotShareVariables) {
  for (const char* container : {"", "shared"}) {
    SCOPED_TRACE(container);
    auto a = NewSession(CounterGraph("sess_v", container));
    auto b = NewSession(CounterGraph("sess_v", container));
    std::vector<Tensor> out;
    FLOWVM_ASSERT_OK(a->Run({}, {}, {"init"}, &out));
    FLOWVM_ASSERT_OK(a->Run({{"x", F({3, 4}, {2})}}, {}, {"inc"}, &out));
    ExpectError(b->Run({}, {"read"}, {}, &out), Code::kFailedPrecondition, {"sess_v"});
    FLOWVM_ASSERT_OK(b->Run({}, {}, {"init"}, &out));
    FLOWVM_ASSERT_OK(b->Run({}, {"read"}, {}, &out));
    ExpectTensorNear(out[0], F({0, 0}, {2}));
    FLOWVM_ASSERT_OK(a->Run({}, {"read"}, {}, &out));
    ExpectTensorNear(out[0], F({3, 4}, {2}));
  }
}

// ResetContainers drops the named containers of the session's devices and
// leaves the others alone; a reset variable starts uninitialized again.
TEST(DirectSessionTest, ResetContainersDropsOnlyTheNamedOnes) {
  auto var = [](const std::string& name, const std::string& container) {
    return TestNode(name, "VariableV2")
        .Attr("dtype", DT_FLOAT)
        .Attr("shape", PartialTensorShape({2}))
        .Attr("container", container)
        .Attr("_class", std::vector<std::string>{});
  };
  GraphDef graph = MakeGraph({var("in_shared", "shared"), var("in_default", ""), ConstNode("zeros", F({0, 0}, {2})),
                              Binary("init_s", "Assign", "in_shared", "zeros"),
                              Binary("init_d", "Assign", "in_default", "zeros"),
                              TestNode("is_s", "IsVariableInitialized").Input("in_shared").Attr("dtype", DT_FLOAT),
                              TestNode("is_d", "IsVariableInitialized").Input("in_default").Attr("dtype", DT_FLOAT)});
  SessionOptions options;
  options.cpu_devices = 2;  // containers live on every device
  auto session = Session::Create(options, graph);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK((*session)->Run({}, {}, {"init_s", "init_d"}, &out));
  FLOWVM_ASSERT_OK((*session)->ResetContainers({"shared"}));
  FLOWVM_ASSERT_OK((*session)->Run({}, {"is_s", "is_d"}, {}, &out));
  EXPECT_FALSE(out[0].scalar<bool>());
  EXPECT_TRUE(out[1].scalar<bool>());
  FLOWVM_ASSERT_OK((*session)->ResetContainers({"", "no_such_container"}));
  FLOWVM_ASSERT_OK((*session)->Run({}, {"is_d"}, {}, &out));
  EXPECT_FALSE(out[0].scalar<bool>());
}

}  // namespace
}  // namespace flowvm
