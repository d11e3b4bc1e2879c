// The TensorArrayV3 ops through a session: every op, TensorFlow's rules
// and its errors (each naming the array and the node), dynamic_size,
// clear_after_read, element shapes, and gradient arrays. Loops and
// concurrency: tensor_array_loop_test.cc.
#include <gtest/gtest.h>

#include "util/tensor_array_test_util.h"

namespace flowvm {
namespace {

using namespace tensor_array_testing;  // NOLINT

const Code kInvalid = Code::kInvalidArgument;

TEST(TensorArrayOpsTest, WriteThenReadEachElement) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 3, DT_FLOAT);
  NodeOut w0 = Write(s, "w0", ta.handle, I32(s, 0), F32(s, {1, 2}, TensorShape({2})), ta.flow);
  NodeOut w1 = Write(s, "w1", ta.handle, I32(s, 1), F32(s, {3, 4}, TensorShape({2})), w0);
  NodeOut w2 = Write(s, "w2", ta.handle, I32(s, 2), F32(s, {5, 6}, TensorShape({2})), w1);
  Read(s, "r0", ta.handle, I32(s, 0), w2);
  Read(s, "r1", ta.handle, I32(s, 1), w2);
  Read(s, "r2", ta.handle, I32(s, 2), w2);
  Size(s, "size", ta.handle, w2);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"r0", "r1", "r2", "size", "w2"}, &out));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{1, 2}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{3, 4}));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{5, 6}));
  EXPECT_EQ(out[3].scalar<int32_t>(), 3);
  EXPECT_EQ(out[4].dtype(), DT_FLOAT);
  EXPECT_EQ(out[4].shape(), TensorShape());
  // Every step makes its own array: writing index 0 again is no error.
  FLOWVM_ASSERT_OK(t.Run({"r0", "r1", "r2"}, &out));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{5, 6}));
}

TEST(TensorArrayOpsTest, ScatterThenGatherAndStack) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 4, DT_FLOAT, {{"clear_after_read", MakeAttrValue(false)}});
  // value[i] goes to indices[i]: rows 0..3 of a [4, 2] to 2, 0, 3, 1.
  NodeOut f = Scatter(s, "scatter", ta.handle, I32s(s, {2, 0, 3, 1}),
                      F32(s, {0, 1, 10, 11, 20, 21, 30, 31}, TensorShape({4, 2})), ta.flow);
  Gather(s, "stack", ta.handle, I32s(s, {0, 1, 2, 3}), f);
  Gather(s, "some", ta.handle, I32s(s, {3, 3, 0}), f);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"stack", "some"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({4, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{10, 11, 30, 31, 0, 1, 20, 21}));
  EXPECT_EQ(out[1].shape(), TensorShape({3, 2}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{20, 21, 20, 21, 10, 11}));
}

TEST(TensorArrayOpsTest, SplitThenConcatGivesTheValueAndLengths) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 3, DT_FLOAT, {{"clear_after_read", MakeAttrValue(false)}});
  // Rows of a [6, 2] split 1, 3, 2.
  std::vector<float> v = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  NodeOut f = Split(s, "split", ta.handle, F32(s, v, TensorShape({6, 2})), I64s(s, {1, 3, 2}), ta.flow);
  Concat(s, "concat", ta.handle, f);
  Read(s, "r1", ta.handle, I32(s, 1), f);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"concat:0", "concat:1", "r1"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({6, 2}));
  EXPECT_EQ(Floats(out[0]), v);
  EXPECT_EQ(out[1].dtype(), DT_INT64);
  EXPECT_EQ(std::vector<int64_t>(out[1].flat<int64_t>().begin(), out[1].flat<int64_t>().end()),
            (std::vector<int64_t>{1, 3, 2}));
  EXPECT_EQ(out[2].shape(), TensorShape({3, 2}));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{2, 3, 4, 5, 6, 7}));
}

TEST(TensorArrayOpsTest, StringsAndIntegers) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 2, DT_STRING);
  Tensor words(DT_STRING, TensorShape({2}));
  words.flat<std::string>()[0] = "tensor";
  words.flat<std::string>()[1] = "array";
  NodeOut f = Scatter(s, "scatter", ta.handle, I32s(s, {1, 0}), ConstOp(s, words), ta.flow);
  Gather(s, "stack", ta.handle, I32s(s, {0, 1}), f, DT_STRING);
  Ta ints = NewTa(s, "ints", 1, DT_INT64);
  NodeOut wi = Write(s, "wi", ints.handle, I32(s, 0), I64s(s, {7, 8, 9}), ints.flow);
  Read(s, "ri", ints.handle, I32(s, 0), wi, DT_INT64);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"stack", "ri"}, &out));
  EXPECT_EQ(out[0].flat<std::string>()[0], "array");
  EXPECT_EQ(out[0].flat<std::string>()[1], "tensor");
  EXPECT_EQ(out[1].flat<int64_t>()[2], 9);
}

TEST(TensorArrayOpsTest, ReadingAnUnwrittenIndexFails) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 5, DT_FLOAT);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32Scalar(s, 1), ta.flow);
  Read(s, "read", ta.handle, I32(s, 3), w);
  t.ExpectError({"read"}, kInvalid,
                {"TensorArray foo_", ": Could not read from TensorArray index 3 because it has not yet been written to",
                 "node 'read'"});
}

TEST(TensorArrayOpsTest, ReadingAnUnwrittenIndexOfAKnownShapeGivesZeros) {
  // TensorFlow 1.15: an element never written reads as zeros when the
  // array's element shape is fully defined.
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 3, DT_FLOAT, {{"element_shape", MakeAttrValue(PartialTensorShape({2}))}});
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32(s, {1, 2}, TensorShape({2})), ta.flow);
  Read(s, "read", ta.handle, I32(s, 2), w);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"read"}, &out));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 0}));
}

TEST(TensorArrayOpsTest, IndexOutOfRange) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 3, DT_FLOAT);
  NodeOut index = Feed(s, "index", DT_INT32);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32Scalar(s, 1), ta.flow);
  Read(s, "read", ta.handle, index, w);
  Write(s, "write", ta.handle, index, F32Scalar(s, 2), ta.flow);
  t.ExpectError({"read"}, kInvalid, {"Tried to read from index 5 but array size is: 3", "node 'read'"},
                {{"index", Tensor::Scalar<int32_t>(5)}});
  t.ExpectError({"read"}, kInvalid, {"Tried to read from index -1 but array size is: 3"},
                {{"index", Tensor::Scalar<int32_t>(-1)}});
  t.ExpectError({"write"}, kInvalid,
                {"TensorArray foo_", ": Tried to write to index 3 but array is not resizeable and size is: 3",
                 "node 'write'"},
                {{"index", Tensor::Scalar<int32_t>(3)}});
  t.ExpectError({"write"}, kInvalid, {"Tried to write to index -1"}, {{"index", Tensor::Scalar<int32_t>(-1)}});
}

TEST(TensorArrayOpsTest, WritingAnIndexTwiceFails) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 3, DT_FLOAT);
  NodeOut w1 = Write(s, "w1", ta.handle, I32(s, 2), F32Scalar(s, 3), ta.flow);
  Write(s, "w2", ta.handle, I32(s, 2), F32Scalar(s, 3), w1);
  t.ExpectError({"w2"}, kInvalid,
                {"TensorArray foo_", "Could not write to TensorArray index 2 because it has already been written to.",
                 "node 'w2'"});
}

TEST(TensorArrayOpsTest, WritingAfterAReadFails) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 3, DT_FLOAT, {{"clear_after_read", MakeAttrValue(false)},
                                         {"element_shape", MakeAttrValue(PartialTensorShape(TensorShape()))}});
  // Index 1 read as zeros, then written.
  NodeOut r = Read(s, "r", ta.handle, I32(s, 1), ta.flow);
  Write(s, "w", ta.handle, I32(s, 1), F32Scalar(s, 3), s.WithControlDependencies({r.node}).Op("Identity", {ta.flow}));
  t.ExpectError({"w"}, kInvalid, {"Could not write to TensorArray index 1 because it has already been read."});
}

TEST(TensorArrayOpsTest, ClearAfterReadAllowsOneRead) {
  for (bool clear : {true, false}) {
    TaSession t;
    const GraphScope& s = t.root();
    Ta ta = NewTa(s, "foo", 2, DT_FLOAT, {{"clear_after_read", MakeAttrValue(clear)}});
    NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32Scalar(s, 7), ta.flow);
    NodeOut r1 = Read(s, "r1", ta.handle, I32(s, 0), w);
    NodeOut r2 = Read(s, "r2", ta.handle, I32(s, 0), s.WithControlDependencies({r1.node}).Op("Identity", {w}));
    std::vector<Tensor> out;
    Status st = t.Run({"r1", "r2"}, &out);
    if (clear) {
      ASSERT_FALSE(st.ok());
      EXPECT_EQ(st.code(), kInvalid);
      EXPECT_NE(st.message().find("Could not read index 0 twice because it was cleared after a previous read "
                                  "(perhaps try setting clear_after_read = false?)"),
                std::string::npos)
          << st;
      EXPECT_NE(st.message().find("node 'r2'"), std::string::npos) << st;
    } else {
      ASSERT_TRUE(st.ok()) << st;
      EXPECT_EQ(out[0].scalar<float>(), 7);
      EXPECT_EQ(out[1].scalar<float>(), 7);
    }
  }
}

TEST(TensorArrayOpsTest, DynamicSizeGrows) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 0, DT_FLOAT, {{"dynamic_size", MakeAttrValue(true)}});
  NodeOut w = Write(s, "w", ta.handle, I32(s, 4), F32Scalar(s, 4), ta.flow);
  Size(s, "size", ta.handle, w);
  Read(s, "r4", ta.handle, I32(s, 4), w);
  Read(s, "r2", ta.handle, I32(s, 2), w);
  // Scatter and Split grow it too.
  Ta sc = NewTa(s, "sc", 1, DT_FLOAT, {{"dynamic_size", MakeAttrValue(true)}});
  NodeOut fs = Scatter(s, "scatter", sc.handle, I32s(s, {0, 6}), F32(s, {1, 2}, TensorShape({2})), sc.flow);
  Size(s, "scatter_size", sc.handle, fs);
  Ta sp = NewTa(s, "sp", 0, DT_FLOAT, {{"dynamic_size", MakeAttrValue(true)}});
  NodeOut fp = Split(s, "split", sp.handle, F32(s, {1, 2, 3}, TensorShape({3})), I64s(s, {1, 0, 2}), sp.flow);
  Size(s, "split_size", sp.handle, fp);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"size", "r4", "scatter_size", "split_size"}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>(), 5);
  EXPECT_EQ(out[1].scalar<float>(), 4);
  EXPECT_EQ(out[2].scalar<int32_t>(), 7);
  EXPECT_EQ(out[3].scalar<int32_t>(), 3);
  // The indices it grew past were never written, and their shape is unknown.
  t.ExpectError({"r2"}, kInvalid, {"Could not read from TensorArray index 2"});
}

TEST(TensorArrayOpsTest, ElementShapeIsChecked) {
  TaSession t;
  const GraphScope& s = t.root();
  NodeOut value = Feed(s, "value", DT_FLOAT);
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT, {{"element_shape", MakeAttrValue(PartialTensorShape({-1, 2}))}});
  Write(s, "w", ta.handle, I32(s, 0), value, ta.flow);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"w"}, &out, {{"value", Tensor(DT_FLOAT, TensorShape({5, 2}))}}));
  t.ExpectError({"w"}, kInvalid,
                {"TensorArray foo_", "Could not write to TensorArray index 0 because the value shape is [2,3] which is "
                 "incompatible with the TensorArray's inferred element shape: [?,2] (consider setting "
                 "infer_shape=False).",
                 "node 'w'"},
                {{"value", Tensor(DT_FLOAT, TensorShape({2, 3}))}});
}

TEST(TensorArrayOpsTest, IdenticalElementShapesTakesTheFirstWrittenShape) {
  TaSession t;
  const GraphScope& s = t.root();
  NodeOut a = Feed(s, "a", DT_FLOAT);
  NodeOut b = Feed(s, "b", DT_FLOAT);
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT, {{"identical_element_shapes", MakeAttrValue(true)}});
  NodeOut w0 = Write(s, "w0", ta.handle, I32(s, 0), a, ta.flow);
  NodeOut w1 = Write(s, "w1", ta.handle, I32(s, 1), b, w0);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"w1"}, &out, {{"a", Tensor(DT_FLOAT, TensorShape({3}))}, {"b", Tensor(DT_FLOAT, TensorShape({3}))}}));
  t.ExpectError({"w1"}, kInvalid,
                {"Could not write to TensorArray index 1 because the value shape is [4] which is incompatible with "
                 "the TensorArray's inferred element shape: [3]",
                 "node 'w1'"},
                {{"a", Tensor(DT_FLOAT, TensorShape({3}))}, {"b", Tensor(DT_FLOAT, TensorShape({4}))}});
  // Without it, elements may differ.
  TaSession u;
  const GraphScope& r = u.root();
  NodeOut c = Feed(r, "a", DT_FLOAT);
  NodeOut d = Feed(r, "b", DT_FLOAT);
  Ta free = NewTa(r, "free", 2, DT_FLOAT);
  NodeOut v0 = Write(r, "w0", free.handle, I32(r, 0), c, free.flow);
  Write(r, "w1", free.handle, I32(r, 1), d, v0);
  FLOWVM_ASSERT_OK(u.Run({"w1"}, &out, {{"a", Tensor(DT_FLOAT, TensorShape({3}))}, {"b", Tensor(DT_FLOAT, TensorShape({4}))}}));
}

TEST(TensorArrayOpsTest, AWrongElementShapeIsRefusedWhenTheGraphIsBuilt) {
  // Statically known shapes: shape inference refuses the write.
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT, {{"element_shape", MakeAttrValue(PartialTensorShape({2}))}});
  Write(s, "w", ta.handle, I32(s, 0), F32(s, {1, 2, 3}, TensorShape({3})), ta.flow);
  t.ExpectError({"w"}, kInvalid, {"node 'w'", "[3]", "whose elements have shape [2]"});
}

TEST(TensorArrayOpsTest, DtypeMismatch) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32Scalar(s, 1), ta.flow);
  Write(s, "wi", ta.handle, I32(s, 1), I32(s, 1), ta.flow);
  Read(s, "ri", ta.handle, I32(s, 0), w, DT_INT32);
  Gather(s, "gi", ta.handle, I32s(s, {0}), w, DT_INT32);
  Scatter(s, "si", ta.handle, I32s(s, {0}), I32s(s, {1}), ta.flow);
  t.ExpectError({"wi"}, kInvalid, {"TensorArray foo_", "TensorArray dtype is float but Op is trying to write dtype int32.", "node 'wi'"});
  t.ExpectError({"ri"}, kInvalid, {"TensorArray dtype is float but Op requested dtype int32.", "node 'ri'"});
  t.ExpectError({"gi"}, kInvalid, {"TensorArray dtype is float but Op requested dtype int32."});
  t.ExpectError({"si"}, kInvalid, {"TensorArray dtype is float but Op is trying to write dtype int32."});
}

TEST(TensorArrayOpsTest, UseAfterCloseFails) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32Scalar(s, 1), ta.flow);
  Node* close = Close(s, "close", ta.handle);
  s.graph()->AddControlEdge(w.node, close);
  NodeOut after = s.WithControlDependencies({close}).Op("Identity", {w});
  Read(s, "read", ta.handle, I32(s, 0), after);
  Size(s, "size", ta.handle, after);
  Write(s, "write", ta.handle, I32(s, 1), F32Scalar(s, 1), after);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({}, &out, {}, {"close"}));
  for (const char* op : {"read", "size", "write"})
    t.ExpectError({op}, kInvalid, {"TensorArray foo_", " has already been closed.", std::string("node '") + op + "'"});
}

TEST(TensorArrayOpsTest, ConcatOfDifferingElementsFails) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT);
  NodeOut w0 = Write(s, "w0", ta.handle, I32(s, 0), F32(s, {1, 2, 3, 4}, TensorShape({2, 2})), ta.flow);
  NodeOut w1 = Write(s, "w1", ta.handle, I32(s, 1), F32(s, {1, 2, 3}, TensorShape({1, 3})), w0);
  Concat(s, "concat", ta.handle, w1);
  t.ExpectError({"concat:0"}, kInvalid,
                {"TensorArray has inconsistent shapes.  Index 0 has (excepting dimension 0) shape: [2] but index 1 "
                 "has (excepting dimension 0) shape: [3]",
                 "node 'concat'"});
  TaSession u;
  const GraphScope& r = u.root();
  Ta sc = NewTa(r, "scalars", 1, DT_FLOAT);
  NodeOut ws = Write(r, "w", sc.handle, I32(r, 0), F32Scalar(r, 1), sc.flow);
  Concat(r, "concat", sc.handle, ws);
  u.ExpectError({"concat:0"}, kInvalid, {"Concat saw a scalar shape at index 0 but requires at least vectors."});
}

TEST(TensorArrayOpsTest, ConcatElementShapeExcept0MustMatch) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 1, DT_FLOAT);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32(s, {1, 2, 3, 4}, TensorShape({2, 2})), ta.flow);
  Concat(s, "concat", ta.handle, w, DT_FLOAT, {{"element_shape_except0", MakeAttrValue(PartialTensorShape({3}))}});
  t.ExpectError({"concat:0"}, kInvalid,
                {"TensorArray was passed element_shape_except0 [3] but index 0 has (excepting dimension 0) shape: [2]"});
}

TEST(TensorArrayOpsTest, GatherOfDifferingElementsFails) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT);
  NodeOut w0 = Write(s, "w0", ta.handle, I32(s, 0), F32(s, {1, 2}, TensorShape({2})), ta.flow);
  NodeOut w1 = Write(s, "w1", ta.handle, I32(s, 1), F32(s, {1, 2, 3}, TensorShape({3})), w0);
  Gather(s, "stack", ta.handle, I32s(s, {0, 1}), w1);
  t.ExpectError({"stack"}, kInvalid,
                {"TensorArray has inconsistent shapes.  Index 0 has shape: [2] but index 1 has shape: [3]",
                 "node 'stack'"});
}

TEST(TensorArrayOpsTest, SplitLengthsMustSumToTheFirstDimension) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 2, DT_FLOAT);
  NodeOut value = F32(s, std::vector<float>(12, 1), TensorShape({6, 2}));
  Split(s, "bad_sum", ta.handle, value, I64s(s, {2, 3}), ta.flow);
  Split(s, "bad_count", ta.handle, value, I64s(s, {2, 3, 1}), ta.flow);
  Split(s, "negative", ta.handle, value, I64s(s, {7, -1}), ta.flow);
  t.ExpectError({"bad_sum"}, kInvalid,
                {"TensorArray foo_", "Expected sum of lengths to be equal to values.shape[0], but sum of lengths is 5 "
                 "and value's shape is: [6,2]",
                 "node 'bad_sum'"});
  t.ExpectError({"bad_count"}, kInvalid,
                {"TensorArray's size is not equal to the size of lengths (2 vs. 3), and the TensorArray is not marked "
                 "as dynamically resizeable"});
  t.ExpectError({"negative"}, kInvalid, {"lengths[1] is -1"});
}

TEST(TensorArrayOpsTest, ScatterErrors) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "foo", 3, DT_FLOAT);
  NodeOut value = Feed(s, "value", DT_FLOAT);
  NodeOut indices = Feed(s, "indices", DT_INT32);
  Scatter(s, "scatter", ta.handle, indices, value, ta.flow);
  const Tensor two_rows(DT_FLOAT, TensorShape({2, 2}));
  t.ExpectError({"scatter"}, kInvalid, {"Expected len(indices) == values.shape[0], but saw: 3 vs. 2"},
                {{"value", two_rows}, {"indices", Tensor::FromVector<int32_t>({0, 1, 2})}});
  t.ExpectError({"scatter"}, kInvalid, {"Max scatter index must be < array size (5 vs. 3)", "node 'scatter'"},
                {{"value", two_rows}, {"indices", Tensor::FromVector<int32_t>({0, 5})}});
  t.ExpectError({"scatter"}, kInvalid, {"Input value for unpack must be at least a vector but received shape: []"},
                {{"value", Tensor::Scalar<float>(1)}, {"indices", Tensor::FromVector<int32_t>({0})}});
  t.ExpectError({"scatter"}, kInvalid, {"Could not write to TensorArray index 1 because it has already been written to."},
                {{"value", two_rows}, {"indices", Tensor::FromVector<int32_t>({1, 1})}});
}

TEST(TensorArrayOpsTest, GatherOfNothing) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta known = NewTa(s, "known", 0, DT_FLOAT, {{"element_shape", MakeAttrValue(PartialTensorShape({2, 3}))}});
  Gather(s, "empty", known.handle, ConstOp(s, Tensor(DT_INT32, TensorShape({0}))), known.flow);
  Ta unknown = NewTa(s, "unknown", 0, DT_FLOAT);
  Gather(s, "unknown_empty", unknown.handle, ConstOp(s, Tensor(DT_INT32, TensorShape({0}))), unknown.flow);
  Concat(s, "concat_empty", known.handle, known.flow, DT_FLOAT,
         {{"element_shape_except0", MakeAttrValue(PartialTensorShape({3}))}});
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"empty", "concat_empty:0", "concat_empty:1"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({0, 2, 3}));
  EXPECT_EQ(out[1].shape(), TensorShape({0, 3}));
  EXPECT_EQ(out[2].shape(), TensorShape({0}));
  t.ExpectError({"unknown_empty"}, Code::kUnimplemented,
                {"TensorArray has size zero, but element shape <unknown> is not fully defined. Currently only static "
                 "shapes are supported when packing zero-size TensorArrays."});
}

TEST(TensorArrayOpsTest, BadSizeAndIndex) {
  TaSession t;
  const GraphScope& s = t.root();
  NodeOut size = Feed(s, "size", DT_INT32);
  NodeOut index = Feed(s, "index", DT_INT32);
  Ta ta = NewTa(s, "foo", size, DT_FLOAT);
  Write(s, "w", ta.handle, index, F32Scalar(s, 1), ta.flow);
  t.ExpectError({"w"}, kInvalid, {"Size should be >= 0"}, {{"size", Tensor::Scalar<int32_t>(-1)}, {"index", Tensor::Scalar<int32_t>(0)}});
  t.ExpectError({"w"}, kInvalid, {"TensorArray size must be scalar"},
                {{"size", Tensor::FromVector<int32_t>({1})}, {"index", Tensor::Scalar<int32_t>(0)}});
  t.ExpectError({"w"}, kInvalid, {"TensorArray index must be scalar, but had shape: [1]"},
                {{"size", Tensor::Scalar<int32_t>(1)}, {"index", Tensor::FromVector<int32_t>({0})}});
}

// ---- gradient arrays ----

TEST(TensorArrayGradTest, OneGradientArrayPerSourceThatAddsWrites) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 2, DT_FLOAT);
  NodeOut w0 = Write(s, "w0", ta.handle, I32(s, 0), F32(s, {1, 1}, TensorShape({2})), ta.flow);
  NodeOut w1 = Write(s, "w1", ta.handle, I32(s, 1), F32(s, {1, 1}, TensorShape({2})), w0);
  // Two grad ops of one source share an array; a second source has its own.
  Ta g1 = Grad(s, "g1", ta.handle, w1);
  Ta g2 = Grad(s, "g2", ta.handle, w1);
  Ta other = Grad(s, "other", ta.handle, w1, "gradients_1");
  NodeOut a = Write(s, "a", g1.handle, I32(s, 0), F32(s, {1, 2}, TensorShape({2})), g1.flow);
  NodeOut b = Write(s, "b", g2.handle, I32(s, 0), F32(s, {10, 20}, TensorShape({2})), a);
  NodeOut c = Write(s, "c", g1.handle, I32(s, 0), F32(s, {100, 200}, TensorShape({2})), b);
  Read(s, "sum", g2.handle, I32(s, 0), c);
  // Index 1 got no gradient: zeros of the forward element's shape.
  Read(s, "none", g1.handle, I32(s, 1), c);
  Read(s, "other_read", other.handle, I32(s, 0), other.flow);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"sum", "none", "other_read"}, &out));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{111, 222}));
  EXPECT_EQ(Floats(out[1]), (std::vector<float>{0, 0}));
  EXPECT_EQ(Floats(out[2]), (std::vector<float>{0, 0}));
}

TEST(TensorArrayGradTest, AggregationNeedsEqualShapes) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 1, DT_FLOAT);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32(s, {1, 1}, TensorShape({2})), ta.flow);
  Ta g = Grad(s, "g", ta.handle, w);
  Write(s, "bad", g.handle, I32(s, 0), F32(s, {1, 1, 1}, TensorShape({3})), g.flow);
  t.ExpectError({"bad"}, kInvalid,
                {"@gradients: Could not aggregate to TensorArray index 0 because the existing shape is [2] but the "
                 "new input shape is [3]."});
}

TEST(TensorArrayGradTest, TheForwardArrayStopsGrowing) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 0, DT_FLOAT, {{"dynamic_size", MakeAttrValue(true)}});
  NodeOut w = Write(s, "w", ta.handle, I32(s, 2), F32Scalar(s, 1), ta.flow);
  Ta g = Grad(s, "g", ta.handle, w);
  Size(s, "grad_size", g.handle, g.flow);
  Write(s, "late", ta.handle, I32(s, 3), F32Scalar(s, 1), g.flow);
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"grad_size"}, &out));
  EXPECT_EQ(out[0].scalar<int32_t>(), 3);
  t.ExpectError({"late"}, kInvalid, {"Tried to write to index 3 but array is not resizeable and size is: 3"});
}

TEST(TensorArrayGradTest, NoGradientArrayOfAnAggregatedArray) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 1, DT_FLOAT);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32Scalar(s, 1), ta.flow);
  Ta g = Grad(s, "g", ta.handle, w);
  NodeOut a = Write(s, "a", g.handle, I32(s, 0), F32Scalar(s, 1), g.flow);
  NodeOut b = Write(s, "b", g.handle, I32(s, 0), F32Scalar(s, 2), a);
  Ta gg = Grad(s, "gg", g.handle, b, "gradients_1");
  t.ExpectError({"gg:0"}, kInvalid,
                {"Unable to create a gradients TensorArray for ta_", "@gradients.  Perhaps you used the "
                 "multiple_writes_aggregate flag on a previous write?",
                 "node 'gg'"});
}

TEST(TensorArrayGradTest, GradWithShapePrependsDims) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 2, DT_FLOAT);
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32(s, {1, 1, 1}, TensorShape({3})), ta.flow);
  Node* g = s.WithOpName("g").AddNode("TensorArrayGradWithShape", {ta.handle, w, I32s(s, {2})},
                                      {{"source", MakeAttrValue(std::string("gradients"))}});
  Read(s, "zeros", NodeOut(g, 0), I32(s, 0), NodeOut(g, 1));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(t.Run({"zeros"}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 3}));
  EXPECT_EQ(Floats(out[0]), std::vector<float>(6, 0));
}

TEST(TensorArrayGradTest, GradientArraysReadOnce) {
  TaSession t;
  const GraphScope& s = t.root();
  Ta ta = NewTa(s, "ta", 1, DT_FLOAT, {{"clear_after_read", MakeAttrValue(false)}});
  NodeOut w = Write(s, "w", ta.handle, I32(s, 0), F32Scalar(s, 1), ta.flow);
  Ta g = Grad(s, "g", ta.handle, w);
  NodeOut gw = Write(s, "gw", g.handle, I32(s, 0), F32Scalar(s, 5), g.flow);
  NodeOut r1 = Read(s, "r1", g.handle, I32(s, 0), gw);
  Read(s, "r2", g.handle, I32(s, 0), s.WithControlDependencies({r1.node}).Op("Identity", {gw}));
  t.ExpectError({"r2"}, kInvalid, {"Could not read index 0 twice"});
}

}  // namespace
}  // namespace flowvm
