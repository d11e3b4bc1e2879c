// The transformations that run no function, through sessions, against
// TF's documented examples and hand-computed expectations.
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>

#include <gtest/gtest.h>

#include "kernels/data/dataset_test_util.h"

namespace flowvm::data::testing {
namespace {

const std::vector<PartialTensorShape> kScalar = {ScalarShape()};

std::vector<int64_t> DrainInts(Pipeline& p) {
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? Scalars<int64_t>(*got) : std::vector<int64_t>{};
}

// range(0, n) |> op(count).
std::vector<int64_t> Counted(const std::string& op, int64_t n, int64_t count) {
  Pipeline p;
  p.Range("range", 0, n);
  p.Const("count", Tensor::Scalar<int64_t>(count));
  p.Dataset("d", op, {"range", "count"}, {DT_INT64}, kScalar);
  p.Iterate("d", {DT_INT64}, kScalar);
  return DrainInts(p);
}

TEST(RepeatTakeSkipTest, Counts) {
  EXPECT_EQ(Counted("RepeatDataset", 3, 2), (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));
  EXPECT_EQ(Counted("RepeatDataset", 3, 0), (std::vector<int64_t>{}));
  EXPECT_EQ(Counted("TakeDataset", 10, 3), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Counted("TakeDataset", 3, -1), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Counted("TakeDataset", 3, 10), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Counted("SkipDataset", 5, 2), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(Counted("SkipDataset", 5, -1), (std::vector<int64_t>{}));
  EXPECT_EQ(Counted("SkipDataset", 5, 9), (std::vector<int64_t>{}));
}

TEST(RepeatTakeSkipTest, RepeatForeverUnderTakeAndOfAnEmptyInput) {
  Pipeline p;
  p.Range("range", 0, 3);
  p.Const("forever", Tensor::Scalar<int64_t>(-1));
  p.Const("seven", Tensor::Scalar<int64_t>(7));
  p.Dataset("repeat", "RepeatDataset", {"range", "forever"}, {DT_INT64}, kScalar);
  p.Dataset("take", "TakeDataset", {"repeat", "seven"}, {DT_INT64}, kScalar);
  p.Iterate("take", {DT_INT64}, kScalar);
  EXPECT_EQ(DrainInts(p), (std::vector<int64_t>{0, 1, 2, 0, 1, 2, 0}));
  // An empty input repeated for ever ends instead of spinning.
  Pipeline e;
  e.Range("range", 0, 0);
  e.Const("forever", Tensor::Scalar<int64_t>(-1));
  e.Dataset("repeat", "RepeatDataset", {"range", "forever"}, {DT_INT64}, kScalar);
  e.Iterate("repeat", {DT_INT64}, kScalar);
  EXPECT_EQ(DrainInts(e), (std::vector<int64_t>{}));
}

std::vector<std::vector<int64_t>> Batched(int64_t n, int64_t batch, bool drop_remainder) {
  Pipeline p;
  p.Range("range", 0, n);
  p.Const("batch_size", Tensor::Scalar<int64_t>(batch));
  p.Const("drop", Tensor::Scalar<bool>(drop_remainder));
  const PartialTensorShape out({drop_remainder ? batch : -1});
  p.Dataset("batch", "BatchDatasetV2", {"range", "batch_size", "drop"}, {DT_INT64}, {out});
  p.Iterate("batch", {DT_INT64}, {out});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? Flats<int64_t>(*got) : std::vector<std::vector<int64_t>>{};
}

TEST(BatchDatasetTest, BatchesWithAndWithoutTheRemainder) {
  // TF's docs: range(8).batch(3) == [[0,1,2],[3,4,5],[6,7]]; with
  // drop_remainder, [[0,1,2],[3,4,5]]; range(10).batch(3) likewise.
  EXPECT_EQ(Batched(8, 3, false), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7}}));
  EXPECT_EQ(Batched(8, 3, true), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}}));
  EXPECT_EQ(Batched(10, 3, false), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}, {9}}));
  EXPECT_EQ(Batched(10, 3, true), (std::vector<std::vector<int64_t>>{{0, 1, 2}, {3, 4, 5}, {6, 7, 8}}));
  EXPECT_EQ(Batched(2, 3, true), (std::vector<std::vector<int64_t>>{}));
}

TEST(BatchDatasetTest, BatchesMatricesAndStringsIntoOneTensor) {
  Pipeline p;
  p.Const("m", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, TensorShape({3, 2, 2})));
  p.Const("s", Tensor::FromVector<std::string>({"a", "b", "c"}));
  p.Add("slices", "TensorSliceDataset", {"m", "s"},
        {{"Toutput_types", TypesAttr({DT_FLOAT, DT_STRING})},
         {"output_shapes", ShapesAttr({PartialTensorShape({2, 2}), ScalarShape()})}});
  p.Const("batch_size", Tensor::Scalar<int64_t>(2));
  p.Const("drop", Tensor::Scalar<bool>(false));
  const std::vector<PartialTensorShape> shapes = {PartialTensorShape({-1, 2, 2}), PartialTensorShape({-1})};
  p.Dataset("batch", "BatchDatasetV2", {"slices", "batch_size", "drop"}, {DT_FLOAT, DT_STRING}, shapes);
  p.Iterate("batch", {DT_FLOAT, DT_STRING}, shapes);
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_EQ((*got)[0][0].shape(), TensorShape({2, 2, 2}));
  EXPECT_EQ((*got)[1][0].shape(), TensorShape({1, 2, 2}));
  EXPECT_EQ(Flats<float>(*got)[0], (std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(Flats<float>(*got)[1], (std::vector<float>{9, 10, 11, 12}));
  EXPECT_EQ(Flats<std::string>(*got, 1)[0], (std::vector<std::string>{"a", "b"}));
}

// A dataset of int32 vectors of the given values (and lengths): TensorDatasets
// concatenated.
std::string Vectors(Pipeline& p, const std::vector<std::vector<int32_t>>& values) {
  const std::vector<PartialTensorShape> vec = {PartialTensorShape({-1})};
  std::string last;
  for (size_t i = 0; i < values.size(); ++i) {
    const std::string n = "v" + std::to_string(i);
    p.Const(n + "/value", Tensor::FromVector<int32_t>(values[i]));
    p.Add(n, "TensorDataset", {n + "/value"}, {{"Toutput_types", TypesAttr({DT_INT32})}, {"output_shapes", ShapesAttr(vec)}});
    if (i > 0) {
      p.Dataset("cat" + std::to_string(i), "ConcatenateDataset", {last, n}, {DT_INT32}, vec);
      last = "cat" + std::to_string(i);
    } else {
      last = n;
    }
  }
  return last;
}

// [1,2,3], [4,5], [6].
std::string RaggedDataset(Pipeline& p) { return Vectors(p, {{1, 2, 3}, {4, 5}, {6}}); }

TEST(BatchDatasetTest, DifferentShapesInABatchAreInvalidArgumentAsInTF) {
  Pipeline p;
  std::string ragged = RaggedDataset(p);
  p.Const("batch_size", Tensor::Scalar<int64_t>(3));
  p.Const("drop", Tensor::Scalar<bool>(false));
  p.Dataset("batch", "BatchDatasetV2", {ragged, "batch_size", "drop"}, {DT_INT32}, {PartialTensorShape({-1, -1})});
  p.Iterate("batch", {DT_INT32}, {PartialTensorShape({-1, -1})});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << got.status();
  EXPECT_NE(got.status().message().find("Cannot batch tensors with different shapes in component 0. First element "
                                        "had shape [3] and element 1 had shape [2]."),
            std::string::npos)
      << got.status();
}

TEST(PaddedBatchDatasetTest, PadsToTheLongestOrToTheGivenShapeWithTheValue) {
  for (int64_t padded_len : {-1, 5}) {
    Pipeline p;
    std::string ragged = RaggedDataset(p);
    p.Const("batch_size", Tensor::Scalar<int64_t>(2));
    p.Const("shape", Tensor::FromVector<int64_t>({padded_len}));
    p.Const("value", Tensor::Scalar<int32_t>(-7));
    p.Const("drop", Tensor::Scalar<bool>(false));
    const std::vector<PartialTensorShape> out = {PartialTensorShape({-1, padded_len})};
    p.Add("padded", "PaddedBatchDatasetV2", {ragged, "batch_size", "shape", "value", "drop"},
          {{"Toutput_types", TypesAttr({DT_INT32})}, {"output_shapes", ShapesAttr(out)}, {"N", MakeAttrValue(int64_t{1})}});
    p.Iterate("padded", {DT_INT32}, out);
    auto s = p.NewSession();
    auto got = Drain(s.get(), p.NextFetches());
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->size(), 2u);
    if (padded_len < 0) {
      EXPECT_EQ((*got)[0][0].shape(), TensorShape({2, 3}));
      EXPECT_EQ(Flats<int32_t>(*got)[0], (std::vector<int32_t>{1, 2, 3, 4, 5, -7}));
      EXPECT_EQ((*got)[1][0].shape(), TensorShape({1, 1}));
      EXPECT_EQ(Flats<int32_t>(*got)[1], (std::vector<int32_t>{6}));
    } else {
      EXPECT_EQ((*got)[0][0].shape(), TensorShape({2, 5}));
      EXPECT_EQ(Flats<int32_t>(*got)[0], (std::vector<int32_t>{1, 2, 3, -7, -7, 4, 5, -7, -7, -7}));
      EXPECT_EQ((*got)[1][0].shape(), TensorShape({1, 5}));
      EXPECT_EQ(Flats<int32_t>(*got)[1], (std::vector<int32_t>{6, -7, -7, -7, -7}));
    }
  }
}

TEST(PaddedBatchDatasetTest, PadsMatricesAndStringsAndRefusesTooSmallAShape) {
  // Two [r, c] matrices padded to [-1, 3]: [[1,2],[3,4]] and [[5]].
  Pipeline p;
  p.Const("a", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  p.Const("b", Tensor::FromVector<float>({5}, TensorShape({1, 1})));
  const std::vector<PartialTensorShape> m = {PartialTensorShape({-1, -1})};
  p.Add("ta", "TensorDataset", {"a"}, {{"Toutput_types", TypesAttr({DT_FLOAT})}, {"output_shapes", ShapesAttr(m)}});
  p.Add("tb", "TensorDataset", {"b"}, {{"Toutput_types", TypesAttr({DT_FLOAT})}, {"output_shapes", ShapesAttr(m)}});
  p.Dataset("ab", "ConcatenateDataset", {"ta", "tb"}, {DT_FLOAT}, m);
  p.Const("batch_size", Tensor::Scalar<int64_t>(2));
  p.Const("shape", Tensor::FromVector<int64_t>({-1, 3}));
  p.Const("value", Tensor::Scalar<float>(0.5f));
  p.Const("drop", Tensor::Scalar<bool>(false));
  const std::vector<PartialTensorShape> out = {PartialTensorShape({-1, -1, 3})};
  p.Add("padded", "PaddedBatchDatasetV2", {"ab", "batch_size", "shape", "value", "drop"},
        {{"Toutput_types", TypesAttr({DT_FLOAT})}, {"output_shapes", ShapesAttr(out)}, {"N", MakeAttrValue(int64_t{1})}});
  p.Iterate("padded", {DT_FLOAT}, out);
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0][0].shape(), TensorShape({2, 2, 3}));
  EXPECT_EQ(Flats<float>(*got)[0], (std::vector<float>{1, 2, 0.5f, 3, 4, 0.5f, 5, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}));

  // A padded shape smaller than an element.
  Pipeline q;
  std::string ragged = RaggedDataset(q);
  q.Const("batch_size", Tensor::Scalar<int64_t>(2));
  q.Const("shape", Tensor::FromVector<int64_t>({2}));
  q.Const("value", Tensor::Scalar<int32_t>(0));
  q.Const("drop", Tensor::Scalar<bool>(false));
  q.Add("padded", "PaddedBatchDatasetV2", {ragged, "batch_size", "shape", "value", "drop"},
        {{"Toutput_types", TypesAttr({DT_INT32})},
         {"output_shapes", ShapesAttr({PartialTensorShape({-1, 2})})},
         {"N", MakeAttrValue(int64_t{1})}});
  q.Iterate("padded", {DT_INT32}, {PartialTensorShape({-1, 2})});
  auto qs = q.NewSession();
  auto bad = Drain(qs.get(), q.NextFetches());
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("Attempted to pad to a smaller size than the input element"),
            std::string::npos)
      << bad.status();
}

// range(n).shuffle(buffer, seed, seed2, reshuffle) repeated `epochs` times.
std::vector<int64_t> Shuffled(int64_t n, int64_t buffer, int64_t seed, int64_t seed2, bool reshuffle, int64_t epochs) {
  Pipeline p;
  p.Range("range", 0, n);
  p.Const("buffer", Tensor::Scalar<int64_t>(buffer));
  p.Const("seed", Tensor::Scalar<int64_t>(seed));
  p.Const("seed2", Tensor::Scalar<int64_t>(seed2));
  p.Const("epochs", Tensor::Scalar<int64_t>(epochs));
  p.Dataset("shuffle", "ShuffleDataset", {"range", "buffer", "seed", "seed2"}, {DT_INT64}, kScalar,
            {{"reshuffle_each_iteration", MakeAttrValue(reshuffle)}});
  p.Dataset("repeat", "RepeatDataset", {"shuffle", "epochs"}, {DT_INT64}, kScalar);
  p.Iterate("repeat", {DT_INT64}, kScalar);
  return DrainInts(p);
}

TEST(ShuffleDatasetTest, AFixedSeedGivesAPermutationThatIsTheSameRunAfterRun) {
  const std::vector<int64_t> a = Shuffled(100, 100, 7, 3, true, 1);
  const std::vector<int64_t> b = Shuffled(100, 100, 7, 3, true, 1);
  EXPECT_EQ(a, b);  // a new session, the same order
  std::vector<int64_t> sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, Iota(0, 100));
  EXPECT_NE(a, Iota(0, 100));
  EXPECT_NE(a, Shuffled(100, 100, 8, 3, true, 1));  // another seed, another order
}

TEST(ShuffleDatasetTest, ReshuffleEachIterationChangesTheOrderBetweenEpochs) {
  const std::vector<int64_t> two = Shuffled(50, 50, 1, 2, true, 2);
  ASSERT_EQ(two.size(), 100u);
  std::vector<int64_t> first(two.begin(), two.begin() + 50), second(two.begin() + 50, two.end());
  EXPECT_NE(first, second);
  std::sort(second.begin(), second.end());
  EXPECT_EQ(second, Iota(0, 50));
  EXPECT_EQ(two, Shuffled(50, 50, 1, 2, true, 2));  // the sequence of epochs is reproducible
  // Without reshuffling every epoch has the same order.
  const std::vector<int64_t> same = Shuffled(50, 50, 1, 2, false, 2);
  EXPECT_EQ(std::vector<int64_t>(same.begin(), same.begin() + 50), std::vector<int64_t>(same.begin() + 50, same.end()));
}

TEST(ShuffleDatasetTest, ReinitializingTheIteratorReshufflesAsInTF) {
  // TF 1.15 keeps a shuffle's seed generator in the iterator resource:
  // each MakeIterator of a reshuffling dataset gives a new order, in the
  // same sequence in every session.
  auto orders = [](bool reshuffle) {
    Pipeline p;
    p.Range("range", 0, 30);
    p.Const("buffer", Tensor::Scalar<int64_t>(30));
    p.Const("seed", Tensor::Scalar<int64_t>(5));
    p.Dataset("shuffle", "ShuffleDataset", {"range", "buffer", "seed", "seed"}, {DT_INT64}, kScalar,
              {{"reshuffle_each_iteration", MakeAttrValue(reshuffle)}});
    p.Iterate("shuffle", {DT_INT64}, kScalar);
    auto s = p.NewSession();
    std::vector<std::vector<int64_t>> epochs;
    for (int e = 0; e < 3; ++e) {
      auto got = Drain(s.get(), p.NextFetches());  // runs init first
      EXPECT_TRUE(got.ok()) << got.status();
      epochs.push_back(got.ok() ? Scalars<int64_t>(*got) : std::vector<int64_t>{});
    }
    return epochs;
  };
  const auto a = orders(true);
  EXPECT_NE(a[0], a[1]);
  EXPECT_NE(a[1], a[2]);
  EXPECT_EQ(orders(true), a);
  const auto fixed = orders(false);
  EXPECT_EQ(fixed[0], fixed[1]);
  EXPECT_EQ(fixed[1], fixed[2]);
}

TEST(ShuffleDatasetTest, ShuffleAndRepeatReshufflesEachEpoch) {
  Pipeline p;
  p.Range("range", 0, 20);
  p.Const("buffer", Tensor::Scalar<int64_t>(20));
  p.Const("seed", Tensor::Scalar<int64_t>(9));
  p.Const("count", Tensor::Scalar<int64_t>(2));
  p.Dataset("sr", "ShuffleAndRepeatDataset", {"range", "buffer", "seed", "seed", "count"}, {DT_INT64}, kScalar);
  p.Iterate("sr", {DT_INT64}, kScalar);
  const std::vector<int64_t> got = DrainInts(p);
  ASSERT_EQ(got.size(), 40u);
  std::vector<int64_t> first(got.begin(), got.begin() + 20), second(got.begin() + 20, got.end());
  EXPECT_NE(first, second);
  std::sort(first.begin(), first.end());
  std::sort(second.begin(), second.end());
  EXPECT_EQ(first, Iota(0, 20));
  EXPECT_EQ(second, Iota(0, 20));
}

TEST(ShuffleDatasetTest, ASmallBufferOnlyMovesElementsLocallyAndZeroSeedsAreRandom) {
  // With a buffer of 2, the element output i is one of the first i + 2.
  const std::vector<int64_t> local = Shuffled(30, 2, 5, 5, true, 1);
  ASSERT_EQ(local.size(), 30u);
  for (size_t i = 0; i < local.size(); ++i) EXPECT_LE(local[i], static_cast<int64_t>(i) + 1);
  // Seeds 0, 0: nondeterministic; two sessions of 100 elements almost surely differ.
  EXPECT_NE(Shuffled(100, 100, 0, 0, true, 1), Shuffled(100, 100, 0, 0, true, 1));
}

TEST(ZipConcatenateTest, ZipEndsWithTheShortestAndConcatenateAppends) {
  Pipeline p;
  p.Range("a", 0, 3);
  p.Range("b", 10, 20);
  p.Dataset("zip", "ZipDataset", {"a", "b"}, {DT_INT64, DT_INT64}, {ScalarShape(), ScalarShape()},
            {{"N", MakeAttrValue(int64_t{2})}});
  p.Iterate("zip", {DT_INT64, DT_INT64}, {ScalarShape(), ScalarShape()});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Scalars<int64_t>(*got, 0), (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(Scalars<int64_t>(*got, 1), (std::vector<int64_t>{10, 11, 12}));

  Pipeline c;
  c.Range("a", 1, 4);
  c.Range("b", 4, 8);
  c.Dataset("cat", "ConcatenateDataset", {"a", "b"}, {DT_INT64}, kScalar);
  c.Iterate("cat", {DT_INT64}, kScalar);
  EXPECT_EQ(DrainInts(c), (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7}));
}

TEST(ZipConcatenateTest, ConcatenatingDifferentTypesIsRefused) {
  Pipeline c;
  c.Range("a", 1, 4);
  c.Const("f", Tensor::FromVector<float>({1, 2}));
  c.Add("b", "TensorSliceDataset", {"f"}, {{"Toutput_types", TypesAttr({DT_FLOAT})}, {"output_shapes", ShapesAttr(kScalar)}});
  c.Dataset("cat", "ConcatenateDataset", {"a", "b"}, {DT_INT64}, kScalar);
  c.Iterate("cat", {DT_INT64}, kScalar);
  auto s = c.NewSession();
  Status st = s->Run({}, {}, {"init"}, nullptr);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("different types"), std::string::npos) << st;
}

TEST(PrefetchDatasetTest, DeliversTheSameElementsForAnyBufferSize) {
  for (int64_t buffer : {0, 1, 3, 100, -1}) {
    Pipeline p;
    p.Range("range", 0, 50);
    p.Const("batch_size", Tensor::Scalar<int64_t>(4));
    p.Const("drop", Tensor::Scalar<bool>(false));
    p.Dataset("batch", "BatchDatasetV2", {"range", "batch_size", "drop"}, {DT_INT64}, {PartialTensorShape({-1})});
    p.Const("buffer", Tensor::Scalar<int64_t>(buffer));
    p.Dataset("prefetch", "PrefetchDataset", {"batch", "buffer"}, {DT_INT64}, {PartialTensorShape({-1})});
    p.Iterate("prefetch", {DT_INT64}, {PartialTensorShape({-1})});
    auto s = p.NewSession();
    auto got = Drain(s.get(), p.NextFetches());
    ASSERT_TRUE(got.ok()) << got.status();
    std::vector<int64_t> flat;
    for (const auto& b : Flats<int64_t>(*got)) flat.insert(flat.end(), b.begin(), b.end());
    EXPECT_EQ(flat, Iota(0, 50)) << "buffer_size " << buffer;
    EXPECT_EQ(got->size(), 13u);
  }
}

TEST(PrefetchDatasetTest, ErrorsArriveInOrderThroughTheBuffer) {
  // batch(2) of [1,2], [3,4], [5], [6,7], [8], [9]: the second batch fails,
  // the third is fine.
  Pipeline p;
  std::string v = Vectors(p, {{1, 2}, {3, 4}, {5}, {6, 7}, {8}, {9}});
  p.Const("batch_size", Tensor::Scalar<int64_t>(2));
  p.Const("drop", Tensor::Scalar<bool>(false));
  p.Dataset("batch", "BatchDatasetV2", {v, "batch_size", "drop"}, {DT_INT32}, {PartialTensorShape({-1, -1})});
  p.Const("buffer", Tensor::Scalar<int64_t>(3));
  p.Dataset("prefetch", "PrefetchDataset", {"batch", "buffer"}, {DT_INT32}, {PartialTensorShape({-1, -1})});
  p.Iterate("prefetch", {DT_INT32}, {PartialTensorShape({-1, -1})});
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({}, {"next:0"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 2}));
  Status st = s->Run({}, {"next:0"}, {}, &out);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  FLOWVM_ASSERT_OK(s->Run({}, {"next:0"}, {}, &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 1}));
  st = s->Run({}, {"next:0"}, {}, &out);
  EXPECT_EQ(st.code(), Code::kOutOfRange) << st;
}

class CacheDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/cache_XXXXXX";
    ASSERT_NE(::mkdtemp(dir_.data()), nullptr);
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  // shuffle(range(20), seed) |> cache(filename) |> repeat(3): a cached
  // pass replays the first epoch's order, so all three epochs agree.
  std::vector<int64_t> ThreeEpochs(const std::string& filename, int64_t seed) {
    Pipeline p;
    p.Range("range", 0, 20);
    p.Const("buffer", Tensor::Scalar<int64_t>(20));
    p.Const("seed", Tensor::Scalar<int64_t>(seed));
    p.Dataset("shuffle", "ShuffleDataset", {"range", "buffer", "seed", "seed"}, {DT_INT64}, kScalar);
    p.Const("filename", Tensor::Scalar<std::string>(filename));
    p.Dataset("cache", "CacheDataset", {"shuffle", "filename"}, {DT_INT64}, kScalar);
    p.Const("epochs", Tensor::Scalar<int64_t>(3));
    p.Dataset("repeat", "RepeatDataset", {"cache", "epochs"}, {DT_INT64}, kScalar);
    p.Iterate("repeat", {DT_INT64}, kScalar);
    return DrainInts(p);
  }
  std::string dir_;
};

TEST_F(CacheDatasetTest, TheMemoryCacheReplaysTheFirstPass) {
  const std::vector<int64_t> all = ThreeEpochs("", 11);
  ASSERT_EQ(all.size(), 60u);
  const std::vector<int64_t> first(all.begin(), all.begin() + 20);
  EXPECT_NE(first, Iota(0, 20));  // really shuffled, so the equality below means something
  EXPECT_EQ(std::vector<int64_t>(all.begin() + 20, all.begin() + 40), first);
  EXPECT_EQ(std::vector<int64_t>(all.begin() + 40, all.end()), first);
}

TEST_F(CacheDatasetTest, TheFileCacheIsWrittenOnceAndReadBackInALaterSession) {
  const std::string prefix = dir_ + "/c";
  const std::vector<int64_t> all = ThreeEpochs(prefix, 11);
  ASSERT_EQ(all.size(), 60u);
  const std::vector<int64_t> first(all.begin(), all.begin() + 20);
  EXPECT_EQ(std::vector<int64_t>(all.begin() + 40, all.end()), first);
  EXPECT_TRUE(std::filesystem::exists(prefix + ".flowvm_cache"));
  // Another seed, but the file is there: its order comes back.
  const std::vector<int64_t> again = ThreeEpochs(prefix, 12);
  EXPECT_EQ(std::vector<int64_t>(again.begin(), again.begin() + 20), first);
  // No temporary files are left.
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1);
}

TEST_F(CacheDatasetTest, ADamagedCacheFileIsDataLoss) {
  const std::string prefix = dir_ + "/c";
  ThreeEpochs(prefix, 11);
  const std::string path = prefix + ".flowvm_cache";
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(60);
    f.put('\x7f');
  }
  Pipeline p;
  p.Range("range", 0, 20);
  p.Const("filename", Tensor::Scalar<std::string>(prefix));
  p.Dataset("cache", "CacheDataset", {"range", "filename"}, {DT_INT64}, kScalar);
  p.Iterate("cache", {DT_INT64}, kScalar);
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  EXPECT_EQ(got.status().code(), Code::kDataLoss) << got.status();
  EXPECT_NE(got.status().message().find(path), std::string::npos) << got.status();
}

TEST(ShardDatasetTest, EachShardTakesEveryNthElement) {
  auto shard = [](int64_t n, int64_t num_shards, int64_t index) {
    Pipeline p;
    p.Range("range", 0, n);
    p.Const("num_shards", Tensor::Scalar<int64_t>(num_shards));
    p.Const("index", Tensor::Scalar<int64_t>(index));
    p.Dataset("shard", "ShardDataset", {"range", "num_shards", "index"}, {DT_INT64}, kScalar);
    p.Iterate("shard", {DT_INT64}, kScalar);
    return DrainInts(p);
  };
  EXPECT_EQ(shard(10, 3, 0), (std::vector<int64_t>{0, 3, 6, 9}));
  EXPECT_EQ(shard(10, 3, 1), (std::vector<int64_t>{1, 4, 7}));
  EXPECT_EQ(shard(10, 3, 2), (std::vector<int64_t>{2, 5, 8}));
  Pipeline bad;
  bad.Range("range", 0, 4);
  bad.Const("num_shards", Tensor::Scalar<int64_t>(2));
  bad.Const("index", Tensor::Scalar<int64_t>(2));
  bad.Dataset("shard", "ShardDataset", {"range", "num_shards", "index"}, {DT_INT64}, kScalar);
  bad.Iterate("shard", {DT_INT64}, kScalar);
  auto s = bad.NewSession();
  Status st = s->Run({}, {}, {"init"}, nullptr);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("Index must be between 0 and 1"), std::string::npos) << st;
}

TEST(UnbatchDatasetTest, UndoesBatching) {
  // range(7).batch(3).unbatch() == range(7).
  Pipeline p;
  p.Range("range", 0, 7);
  p.Const("batch_size", Tensor::Scalar<int64_t>(3));
  p.Const("drop", Tensor::Scalar<bool>(false));
  p.Dataset("batch", "BatchDatasetV2", {"range", "batch_size", "drop"}, {DT_INT64}, {PartialTensorShape({-1})});
  p.Dataset("unbatch", "UnbatchDataset", {"batch"}, {DT_INT64}, kScalar);
  p.Iterate("unbatch", {DT_INT64}, kScalar);
  EXPECT_EQ(DrainInts(p), Iota(0, 7));
}

TEST(PassThroughDatasetTest, ModelAndOptimizeDatasetsChangeNothing) {
  Pipeline p;
  p.Range("range", 0, 4);
  p.Const("optimizations", Tensor::FromVector<std::string>({"map_and_batch_fusion", "noop_elimination"}));
  p.Dataset("optimize", "OptimizeDataset", {"range", "optimizations"}, {DT_INT64}, kScalar);
  p.Dataset("model", "ModelDataset", {"optimize"}, {DT_INT64}, kScalar, {{"cpu_budget", MakeAttrValue(int64_t{0})}});
  p.Iterate("model", {DT_INT64}, kScalar);
  EXPECT_EQ(DrainInts(p), (std::vector<int64_t>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace flowvm::data::testing
