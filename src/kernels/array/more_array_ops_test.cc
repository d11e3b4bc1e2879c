// Kernels of the array ops added for the TF 1.x front-end: PadV2,
// MirrorPad(Grad), ReverseV2, ReverseSequence, Where, GatherNd, ScatterNd,
// TensorScatterUpdate/Add, TopKV2, DepthToSpace / SpaceToDepth and Assert.
// Values are TensorFlow's documented examples or hand-computed; every bad
// index, padding, k or block size is an InvalidArgument, never a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "flowvm/graph_io.h"
#include "flowvm/session.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::TestNode;

template <typename T>
Tensor V(std::vector<T> v, TensorShape s) {
  return Tensor::FromVector<T>(v, s);
}
template <typename T>
Tensor V(std::vector<T> v) {
  return Tensor::FromVector<T>(v);
}
Tensor I32(std::vector<int32_t> v, TensorShape s) { return V<int32_t>(v, s); }
Tensor I32(std::vector<int32_t> v) { return V<int32_t>(v); }
Tensor I64(std::vector<int64_t> v, TensorShape s) { return V<int64_t>(v, s); }

// Inputs named in0, in1, ...; attrs set on `node` beforehand.
StatusOr<std::vector<Tensor>> RunAll(TestNode node, const std::vector<Tensor>& inputs, int threads = 1) {
  for (size_t i = 0; i < inputs.size(); ++i) node.Input("in" + std::to_string(i));
  testing::OpTest t;
  FLOWVM_RETURN_IF_ERROR(t.Init(node));
  if (threads > 1) t.set_num_threads(threads);
  for (const Tensor& in : inputs) t.AddInput(in);
  FLOWVM_RETURN_IF_ERROR(t.Run());
  std::vector<Tensor> out;
  for (int i = 0; i < t.num_outputs(); ++i) out.push_back(t.output(i));
  return out;
}
Tensor Run1(TestNode node, const std::vector<Tensor>& inputs, int threads = 1) {
  auto out = RunAll(node, inputs, threads);
  EXPECT_TRUE(out.ok()) << node.def().op() << ": " << out.status();
  return out.ok() ? (*out)[0] : Tensor();
}
void ExpectInvalid(TestNode node, const std::vector<Tensor>& inputs, const std::string& msg) {
  auto out = RunAll(node, inputs);
  ASSERT_FALSE(out.ok()) << node.def().op();
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find(msg), std::string::npos) << out.status();
}

TestNode Node(const char* op, DataType t) { return std::move(TestNode("n", op).Attr("T", t)); }
TestNode Mirror(const char* op, DataType t, const char* mode) {
  return std::move(TestNode("n", op).Attr("T", t).Attr("mode", std::string(mode)));
}

TEST(MoreArrayKernelsTest, PadV2FillsWithTheConstant) {
  Tensor x = V<float>({1, 2, 3, 4}, TensorShape({2, 2}));
  Tensor y = Run1(Node("PadV2", DT_FLOAT), {x, I32({1, 0, 0, 2}, TensorShape({2, 2})), Tensor::Scalar<float>(9)});
  ExpectTensorEqual(y, V<float>({9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9}, TensorShape({3, 4})));
  Tensor s = Run1(Node("PadV2", DT_STRING), {V<std::string>({"a"}), I32({1, 1}, TensorShape({1, 2})),
                                             Tensor::Scalar<std::string>("-")});
  ExpectTensorEqual(s, V<std::string>({"-", "a", "-"}));
  ExpectInvalid(Node("PadV2", DT_FLOAT), {x, I32({1, 0, 0, 2}, TensorShape({2, 2})), V<float>({1, 2})},
                "constant_values must be a scalar");
  ExpectInvalid(Node("PadV2", DT_FLOAT), {x, I32({-1, 0, 0, 2}, TensorShape({2, 2})), Tensor::Scalar<float>(0)},
                "non-negative");
  ExpectInvalid(Node("PadV2", DT_FLOAT), {x, I32({1, 0}, TensorShape({1, 2})), Tensor::Scalar<float>(0)},
                "rank of inputs");
}

TEST(MoreArrayKernelsTest, MirrorPadReflectAndSymmetric) {
  Tensor x = V<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Tensor p = I32({1, 1, 2, 2}, TensorShape({2, 2}));
  // TensorFlow's documented examples.
  ExpectTensorEqual(Run1(Mirror("MirrorPad", DT_INT32, "REFLECT"), {x, p}, 4),
                    V<int32_t>({6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1, 6, 5, 4, 5, 6, 5, 4, 3, 2, 1, 2, 3, 2, 1},
                               TensorShape({4, 7})));
  ExpectTensorEqual(Run1(Mirror("MirrorPad", DT_INT32, "SYMMETRIC"), {x, p}),
                    V<int32_t>({2, 1, 1, 2, 3, 3, 2, 2, 1, 1, 2, 3, 3, 2, 5, 4, 4, 5, 6, 6, 5, 5, 4, 4, 5, 6, 6, 5},
                               TensorShape({4, 7})));
  // Strings, int64 paddings, one side only.
  ExpectTensorEqual(Run1(Mirror("MirrorPad", DT_STRING, "REFLECT").Attr("Tpaddings", DT_INT64),
                         {V<std::string>({"a", "b", "c"}), I64({0, 2}, TensorShape({1, 2}))}),
                    V<std::string>({"a", "b", "c", "b", "a"}));
  // REFLECT pads at most dim - 1, SYMMETRIC at most dim.
  ExpectInvalid(Mirror("MirrorPad", DT_INT32, "REFLECT"), {x, I32({2, 0, 0, 0}, TensorShape({2, 2}))},
                "paddings must be less than the dimension size");
  ExpectInvalid(Mirror("MirrorPad", DT_INT32, "SYMMETRIC"), {x, I32({0, 0, 0, 4}, TensorShape({2, 2}))},
                "paddings must be less than or equal to the dimension size");
}

TEST(MoreArrayKernelsTest, MirrorPadGradFoldsTheBorders) {
  // TensorFlow's documented example: SYMMETRIC, paddings [[0, 1], [0, 1]].
  Tensor g = V<float>({1, 2, 3, 4, 5, 6, 7, 8, 9}, TensorShape({3, 3}));
  ExpectTensorEqual(Run1(Mirror("MirrorPadGrad", DT_FLOAT, "SYMMETRIC"), {g, I32({0, 1, 0, 1}, TensorShape({2, 2}))}),
                    V<float>({1, 5, 11, 28}, TensorShape({2, 2})));
  // REFLECT [1, 1] on a vector of 3 from 5: [a b c d e] -> [b+... ] by hand:
  // padded = [x1 x0 x1 x2 x1], so dx0 = g1, dx1 = g0 + g2 + g4, dx2 = g3.
  ExpectTensorEqual(Run1(Mirror("MirrorPadGrad", DT_DOUBLE, "REFLECT"),
                         {V<double>({1, 10, 100, 1000, 10000}), I32({1, 1}, TensorShape({1, 2}))}),
                    V<double>({10, 10101, 1000}));
  ExpectInvalid(Mirror("MirrorPadGrad", DT_FLOAT, "REFLECT"), {g, I32({2, 2, 0, 0}, TensorShape({2, 2}))},
                "larger than dimension");
}

TEST(MoreArrayKernelsTest, ReverseV2) {
  Tensor x = V<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  ExpectTensorEqual(Run1(Node("ReverseV2", DT_INT32), {x, I32({1})}), V<int32_t>({3, 2, 1, 6, 5, 4}, TensorShape({2, 3})));
  ExpectTensorEqual(Run1(Node("ReverseV2", DT_INT32), {x, I32({-2, 1})}),
                    V<int32_t>({6, 5, 4, 3, 2, 1}, TensorShape({2, 3})));
  ExpectTensorEqual(Run1(Node("ReverseV2", DT_INT32), {x, I32({})}), x);
  ExpectTensorEqual(Run1(Node("ReverseV2", DT_STRING), {V<std::string>({"a", "b"}), I32({0})}),
                    V<std::string>({"b", "a"}));
  ExpectInvalid(Node("ReverseV2", DT_INT32), {x, I32({1, -1})}, "specified more than once");
  ExpectInvalid(Node("ReverseV2", DT_INT32), {x, I32({2})}, "out of valid range");
}

TestNode RevSeq(DataType t, DataType tlen, int64_t seq_dim, int64_t batch_dim) {
  return std::move(TestNode("n", "ReverseSequence").Attr("T", t).Attr("Tlen", tlen).Attr("seq_dim", seq_dim)
                       .Attr("batch_dim", batch_dim));
}

TEST(MoreArrayKernelsTest, ReverseSequenceReversesEachPrefix) {
  // Rows reversed up to their lengths (2, 4, 0); the rest stays.
  Tensor x = V<int32_t>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, TensorShape({3, 4}));
  ExpectTensorEqual(Run1(RevSeq(DT_INT32, DT_INT64, 1, 0), {x, I64({2, 4, 0}, TensorShape({3}))}),
                    V<int32_t>({1, 0, 2, 3, 7, 6, 5, 4, 8, 9, 10, 11}, TensorShape({3, 4})));
  // Time-major [time 3, batch 2, depth 2], lengths (3, 1): batch 0 reversed
  // over all three steps, batch 1 (length 1) unchanged.
  Tensor y = V<float>({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, TensorShape({3, 2, 2}));
  ExpectTensorEqual(Run1(RevSeq(DT_FLOAT, DT_INT32, 0, 1), {y, I32({3, 1})}),
                    V<float>({8, 9, 2, 3, 4, 5, 6, 7, 0, 1, 10, 11}, TensorShape({3, 2, 2})));
  ExpectTensorEqual(Run1(RevSeq(DT_STRING, DT_INT32, 1, 0), {V<std::string>({"a", "b", "c"}, TensorShape({1, 3})),
                                                            I32({3})}),
                    V<std::string>({"c", "b", "a"}, TensorShape({1, 3})));
  ExpectInvalid(RevSeq(DT_INT32, DT_INT32, 1, 0), {x, I32({2, 5, 0})}, "seq_lens(1) > input.dims(1)");
  ExpectInvalid(RevSeq(DT_INT32, DT_INT32, 1, 0), {x, I32({2, -1, 0})}, "seq_lens(1) < 0");
  ExpectInvalid(RevSeq(DT_INT32, DT_INT32, 1, 0), {x, I32({2, 1})}, "Length of seq_lengths != input.dims(0)");
}

TEST(MoreArrayKernelsTest, WhereListsCoordinates) {
  ExpectTensorEqual(Run1(Node("Where", DT_BOOL), {V<bool>({true, false, false, true, true, false}, TensorShape({2, 3}))}),
                    V<int64_t>({0, 0, 1, 0, 1, 1}, TensorShape({3, 2})));
  ExpectTensorEqual(Run1(Node("Where", DT_FLOAT), {V<float>({0, 3, 0, -1})}), V<int64_t>({1, 3}, TensorShape({2, 1})));
  ExpectTensorEqual(Run1(Node("Where", DT_BOOL), {V<bool>({false, false})}), V<int64_t>({}, TensorShape({0, 1})));
  ExpectTensorEqual(Run1(Node("Where", DT_BOOL), {Tensor::Scalar<bool>(true)}), V<int64_t>({}, TensorShape({1, 0})));
}

TestNode Nd(const char* op, const char* tattr, DataType t, DataType index) {
  return std::move(TestNode("n", op).Attr(tattr, t).Attr("Tindices", index));
}

TEST(MoreArrayKernelsTest, GatherNd) {
  Tensor params = V<std::string>({"a", "b", "c", "d"}, TensorShape({2, 2}));
  // TensorFlow's documented examples: elements, then rows.
  ExpectTensorEqual(Run1(Nd("GatherNd", "Tparams", DT_STRING, DT_INT32), {params, I32({0, 0, 1, 1}, TensorShape({2, 2}))}),
                    V<std::string>({"a", "d"}));
  ExpectTensorEqual(Run1(Nd("GatherNd", "Tparams", DT_STRING, DT_INT64), {params, I64({1, 0}, TensorShape({2, 1}))}),
                    V<std::string>({"c", "d", "a", "b"}, TensorShape({2, 2})));
  // Batched indices [2, 1, 2] into a [2, 2, 2] tensor give [2, 1, 2].
  Tensor p3 = V<float>({1, 2, 3, 4, 5, 6, 7, 8}, TensorShape({2, 2, 2}));
  ExpectTensorEqual(Run1(Nd("GatherNd", "Tparams", DT_FLOAT, DT_INT32), {p3, I32({0, 1, 1, 0}, TensorShape({2, 1, 2}))}),
                    V<float>({3, 4, 5, 6}, TensorShape({2, 1, 2})));
  // Depth 0: the whole of params per index.
  ExpectTensorEqual(Run1(Nd("GatherNd", "Tparams", DT_FLOAT, DT_INT32), {V<float>({1, 2}), I32({}, TensorShape({2, 0}))}),
                    V<float>({1, 2, 1, 2}, TensorShape({2, 2})));
  ExpectInvalid(Nd("GatherNd", "Tparams", DT_STRING, DT_INT32), {params, I32({0, 0, 2, 0}, TensorShape({2, 2}))},
                "indices[1] = [2, 0] does not index into param shape [2,2]");
  ExpectInvalid(Nd("GatherNd", "Tparams", DT_STRING, DT_INT32), {params, I32({0, -1}, TensorShape({1, 2}))},
                "does not index into param shape");
  ExpectInvalid(Nd("GatherNd", "Tparams", DT_STRING, DT_INT32), {params, I32({0, 0, 0}, TensorShape({1, 3}))},
                "must be <= param shape rank");
}

TEST(MoreArrayKernelsTest, ScatterNdSumsDuplicates) {
  // TensorFlow's documented example.
  ExpectTensorEqual(Run1(Nd("ScatterNd", "T", DT_INT32, DT_INT32),
                         {I32({4, 3, 1, 7}, TensorShape({4, 1})), I32({9, 10, 11, 12}), I32({8})}),
                    I32({0, 11, 0, 10, 9, 0, 0, 12}));
  // Rows, with a duplicate index.
  ExpectTensorEqual(Run1(Nd("ScatterNd", "T", DT_FLOAT, DT_INT64),
                         {I64({2, 0, 2}, TensorShape({3, 1})), V<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2})),
                          V<int64_t>({3, 2})}),
                    V<float>({3, 4, 0, 0, 6, 8}, TensorShape({3, 2})));
  ExpectInvalid(Nd("ScatterNd", "T", DT_INT32, DT_INT32), {I32({4, 8}, TensorShape({2, 1})), I32({1, 2}), I32({8})},
                "indices[1] = [8] does not index into shape [8]");
  ExpectInvalid(Nd("ScatterNd", "T", DT_INT32, DT_INT32), {I32({4, 5}, TensorShape({2, 1})), I32({1, 2, 3}), I32({8})},
                "updates must have shape");
  ExpectInvalid(Nd("ScatterNd", "T", DT_INT32, DT_INT32), {I32({0}, TensorShape({1, 1})), I32({1}), I32({-1})},
                "negative");
}

TEST(MoreArrayKernelsTest, TensorScatterUpdateAndAdd) {
  Tensor t = V<float>({1, 1, 1, 1}, TensorShape({4}));
  Tensor idx = I32({3, 1, 3}, TensorShape({3, 1}));
  Tensor upd = V<float>({10, 20, 30});
  // Update: the last of duplicate indices wins, as TensorFlow's CPU kernel.
  ExpectTensorEqual(Run1(Nd("TensorScatterUpdate", "T", DT_FLOAT, DT_INT32), {t, idx, upd}), V<float>({1, 20, 1, 30}));
  ExpectTensorEqual(Run1(Nd("TensorScatterAdd", "T", DT_FLOAT, DT_INT32), {t, idx, upd}), V<float>({1, 21, 1, 41}));
  // The input itself is unchanged.
  ExpectTensorEqual(t, V<float>({1, 1, 1, 1}));
  ExpectTensorEqual(Run1(Nd("TensorScatterUpdate", "T", DT_STRING, DT_INT64),
                         {V<std::string>({"a", "b"}), I64({0}, TensorShape({1, 1})), V<std::string>({"z"})}),
                    V<std::string>({"z", "b"}));
  ExpectInvalid(Nd("TensorScatterAdd", "T", DT_FLOAT, DT_INT32), {t, I32({4}, TensorShape({1, 1})), V<float>({1})},
                "does not index into shape [4]");
}

TEST(MoreArrayKernelsTest, TopKV2) {
  TestNode top = Node("TopKV2", DT_FLOAT);
  auto out = RunAll(top, {V<float>({1, 3, 3, 2, 5, 4, 6, 0}, TensorShape({2, 4})), Tensor::Scalar<int32_t>(2)}, 4);
  ASSERT_TRUE(out.ok()) << out.status();
  // Ties: the lower index first.
  ExpectTensorEqual((*out)[0], V<float>({3, 3, 6, 5}, TensorShape({2, 2})));
  ExpectTensorEqual((*out)[1], I32({1, 2, 2, 0}, TensorShape({2, 2})));
  // k = n sorts the whole row; k = 0 gives empty outputs.
  auto all = RunAll(Node("TopKV2", DT_INT64), {V<int64_t>({-1, 7, 3}), Tensor::Scalar<int32_t>(3)});
  ASSERT_TRUE(all.ok());
  ExpectTensorEqual((*all)[0], V<int64_t>({7, 3, -1}));
  ExpectTensorEqual((*all)[1], I32({1, 2, 0}));
  auto none = RunAll(Node("TopKV2", DT_FLOAT), {V<float>({1, 2}), Tensor::Scalar<int32_t>(0)});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)[0].shape(), TensorShape({0}));
  ExpectInvalid(Node("TopKV2", DT_FLOAT), {V<float>({1, 2, 3}), Tensor::Scalar<int32_t>(5)},
                "input must have at least k columns. Had 3, needed 5");
  ExpectInvalid(Node("TopKV2", DT_FLOAT), {V<float>({1, 2, 3}), Tensor::Scalar<int32_t>(-1)}, "Need k >= 0");
  ExpectInvalid(Node("TopKV2", DT_FLOAT), {Tensor::Scalar<float>(1), Tensor::Scalar<int32_t>(1)}, ">= 1-D");
}

TEST(MoreArrayKernelsTest, DepthToSpaceAndBack) {
  // TensorFlow's documented example: [1, 2, 2, 4] <-> [1, 4, 4, 1].
  std::vector<int32_t> deep, wide = {1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16};
  for (int i = 1; i <= 16; ++i) deep.push_back(i);
  TestNode d2s = std::move(Node("DepthToSpace", DT_INT32).Attr("block_size", int64_t{2}));
  TestNode s2d = std::move(Node("SpaceToDepth", DT_INT32).Attr("block_size", int64_t{2}));
  ExpectTensorEqual(Run1(d2s, {I32(deep, TensorShape({1, 2, 2, 4}))}), I32(wide, TensorShape({1, 4, 4, 1})));
  ExpectTensorEqual(Run1(s2d, {I32(wide, TensorShape({1, 4, 4, 1}))}, 4), I32(deep, TensorShape({1, 2, 2, 4})));
  ExpectInvalid(d2s, {I32({1, 2, 3, 4, 5, 6}, TensorShape({1, 1, 1, 6}))}, "should be divisible by: 4");
  ExpectInvalid(s2d, {I32({1, 2, 3}, TensorShape({1, 1, 3, 1}))}, "should be divisible by block_size: 2");
  ExpectInvalid(d2s, {I32({1, 2, 3, 4})}, "Input rank should be: 4");
  auto nchw = RunAll(std::move(Node("DepthToSpace", DT_INT32).Attr("block_size", int64_t{2}).Attr("data_format",
                                                                                                 std::string("NCHW"))),
                  {I32(deep, TensorShape({1, 4, 2, 2}))});
  ASSERT_FALSE(nchw.ok());
  EXPECT_EQ(nchw.status().code(), Code::kInvalidArgument) << nchw.status();
}

TEST(MoreArrayKernelsTest, AssertPassesOrPrintsItsData) {
  TestNode a("n", "Assert");
  a.Attr("T", std::vector<DataType>{DT_STRING, DT_INT32}).Attr("summarize", int64_t{2});
  FLOWVM_ASSERT_OK(RunAll(a, {Tensor::Scalar<bool>(true), Tensor::Scalar<std::string>("x"), I32({1, 2, 3})}).status());
  ExpectInvalid(a, {Tensor::Scalar<bool>(false), Tensor::Scalar<std::string>("x > 0 failed:"), I32({1, 2, 3})},
                "assertion failed: [x > 0 failed:] [1 2...]");
  ExpectInvalid(a, {V<bool>({true}), Tensor::Scalar<std::string>("x"), I32({1})}, "should be a scalar");
}

// In a session, the step fails with the Assert node's name and its data;
// the node runs as a control dependency of the fetched value.
TEST(MoreArrayKernelsTest, AssertFailsTheStepNamingTheNode) {
  constexpr const char* kGraph = R"pb(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "zero" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 0 } } } }
node { name: "positive" op: "Greater" input: "x" input: "zero" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "msg" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
  attr { key: "value" value { tensor { dtype: DT_STRING tensor_shape {} string_val: "x must be positive:" } } } }
node { name: "check_x" op: "Assert" input: "positive" input: "msg" input: "x"
  attr { key: "T" value { list { type: DT_STRING type: DT_FLOAT } } } }
node { name: "y" op: "Identity" input: "x" input: "^check_x" attr { key: "T" value { type: DT_FLOAT } } }
)pb";
  auto graph = ParseGraphDef(kGraph, GraphFormat::kText);
  ASSERT_TRUE(graph.ok()) << graph.status();
  auto session = Session::Create(SessionOptions(), *graph);
  ASSERT_TRUE(session.ok()) << session.status();
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK((*session)->Run({{"x", Tensor::Scalar<float>(2)}}, {"y"}, {}, &out));
  ExpectTensorEqual(out[0], Tensor::Scalar<float>(2));
  Status s = (*session)->Run({{"x", Tensor::Scalar<float>(-1.5)}}, {"y"}, {}, &out);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("check_x"), std::string::npos) << s;
  EXPECT_NE(s.message().find("assertion failed: [x must be positive:] [-1.5]"), std::string::npos) << s;
}

}  // namespace
}  // namespace flowvm
