// TensorDataset, TensorSliceDataset and RangeDataset through sessions, with
// TF's documented examples.
#include <gtest/gtest.h>

#include "kernels/data/dataset_test_util.h"

namespace flowvm::data::testing {
namespace {

std::vector<int64_t> RangeOf(int64_t start, int64_t stop, int64_t step) {
  Pipeline p;
  p.Range("range", start, stop, step);
  p.Iterate("range", {DT_INT64}, {ScalarShape()});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? Scalars<int64_t>(*got) : std::vector<int64_t>{};
}

TEST(RangeDatasetTest, MatchesPythonRange) {
  // TF's docs: range(5) == [0,1,2,3,4]; range(2, 5) == [2,3,4];
  // range(1, 5, 2) == [1,3]; range(1, 5, -2) == []; range(5, 1) == [];
  // range(5, 1, -2) == [5,3]; and range(0, 10, 3) == [0,3,6,9].
  EXPECT_EQ(RangeOf(0, 5, 1), (std::vector<int64_t>{0, 1, 2, 3, 4}));
  EXPECT_EQ(RangeOf(2, 5, 1), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(RangeOf(1, 5, 2), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(RangeOf(1, 5, -2), (std::vector<int64_t>{}));
  EXPECT_EQ(RangeOf(5, 1, 1), (std::vector<int64_t>{}));
  EXPECT_EQ(RangeOf(5, 1, -2), (std::vector<int64_t>{5, 3}));
  EXPECT_EQ(RangeOf(0, 10, 3), (std::vector<int64_t>{0, 3, 6, 9}));
}

TEST(RangeDatasetTest, NearTheInt64LimitStopsWithoutOverflow) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(RangeOf(max - 2, max, 5), (std::vector<int64_t>{max - 2}));
}

TEST(RangeDatasetTest, ZeroStepIsInvalidArgument) {
  Pipeline p;
  p.Range("range", 0, 10, 0);
  p.Iterate("range", {DT_INT64}, {ScalarShape()});
  auto s = p.NewSession();
  Status st = s->Run({}, {}, {"init"}, nullptr);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("step must be a non-zero integer"), std::string::npos) << st;
}

TEST(TensorDatasetTest, EmitsItsComponentsOnce) {
  Pipeline p;
  p.Const("a", Tensor::FromVector<float>({1, 2, 3}));
  p.Const("b", Tensor::Scalar<std::string>("x"));
  p.Add("t", "TensorDataset", {"a", "b"},
        {{"Toutput_types", TypesAttr({DT_FLOAT, DT_STRING})},
         {"output_shapes", ShapesAttr({PartialTensorShape({3}), ScalarShape()})}});
  p.Iterate("t", {DT_FLOAT, DT_STRING}, {PartialTensorShape({3}), ScalarShape()});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ(Flats<float>(*got)[0], (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(Scalars<std::string>(*got, 1)[0], "x");
}

TEST(TensorSliceDatasetTest, SlicesEveryComponentAlongDimensionZero) {
  // from_tensor_slices(([[1, 2], [3, 4], [5, 6]], ["a", "b", "c"])).
  Pipeline p;
  p.Const("m", Tensor::FromVector<int32_t>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2})));
  p.Const("s", Tensor::FromVector<std::string>({"a", "b", "c"}));
  p.Add("slices", "TensorSliceDataset", {"m", "s"},
        {{"Toutput_types", TypesAttr({DT_INT32, DT_STRING})},
         {"output_shapes", ShapesAttr({PartialTensorShape({2}), ScalarShape()})}});
  p.Iterate("slices", {DT_INT32, DT_STRING}, {PartialTensorShape({2}), ScalarShape()});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Flats<int32_t>(*got), (std::vector<std::vector<int32_t>>{{1, 2}, {3, 4}, {5, 6}}));
  EXPECT_EQ(Scalars<std::string>(*got, 1), (std::vector<std::string>{"a", "b", "c"}));
}

TEST(TensorSliceDatasetTest, ComponentsOfDifferentLengthsAreRefused) {
  Pipeline p;
  p.Const("a", Tensor::FromVector<int64_t>({1, 2, 3}));
  p.Const("b", Tensor::FromVector<int64_t>({1, 2}));
  p.Add("slices", "TensorSliceDataset", {"a", "b"},
        {{"Toutput_types", TypesAttr({DT_INT64, DT_INT64})}, {"output_shapes", ShapesAttr({ScalarShape(), ScalarShape()})}});
  p.Iterate("slices", {DT_INT64, DT_INT64}, {ScalarShape(), ScalarShape()});
  auto s = p.NewSession();
  Status st = s->Run({}, {}, {"init"}, nullptr);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("same size in the 0th dimension"), std::string::npos) << st;
}

TEST(TensorSliceDatasetTest, AnElementOfTheWrongShapeNamesTheDatasetAndBothShapes) {
  // Declared [3], but the slices are [2].
  Pipeline p;
  p.Const("m", Tensor::FromVector<float>({1, 2, 3, 4}, TensorShape({2, 2})));
  p.Add("slices", "TensorSliceDataset", {"m"},
        {{"Toutput_types", TypesAttr({DT_FLOAT})}, {"output_shapes", ShapesAttr({PartialTensorShape({3})})}});
  p.Iterate("slices", {DT_FLOAT}, {PartialTensorShape({3})});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_FALSE(got.ok());
  const Status& st = got.status();
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("TensorSliceDataset 'slices'"), std::string::npos) << st;
  EXPECT_NE(st.message().find("component 0"), std::string::npos) << st;
  EXPECT_NE(st.message().find("[2]"), std::string::npos) << st;
  EXPECT_NE(st.message().find("[3]"), std::string::npos) << st;
}

}  // namespace
}  // namespace flowvm::data::testing
