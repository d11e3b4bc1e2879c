#include "kernels/data_flow/queue_element.h"

#include <gtest/gtest.h>

namespace flowvm {
namespace {

Tensor Strings(const std::vector<std::string>& v, TensorShape shape) {
  Tensor t(DT_STRING, shape);
  for (size_t i = 0; i < v.size(); ++i) t.flat<std::string>()[i] = v[i];
  return t;
}

TEST(QueueElementTest, ARowSharesItsBatchAndHasTheRowShape) {
  Tensor batch(DT_FLOAT, TensorShape({3, 2}));
  for (int i = 0; i < 6; ++i) batch.flat<float>()[i] = static_cast<float>(i);
  auto shared = std::make_shared<const QueueElement::Tuple>(QueueElement::Tuple{batch});
  QueueElement row = QueueElement::Row(shared, 2);
  EXPECT_EQ(row.num_components(), 1u);
  EXPECT_EQ(row.dims(0), 1);
  EXPECT_EQ(row.dim_size(0, 0), 2);
  EXPECT_TRUE(row.ShapeEquals(0, TensorShape({2})));
  EXPECT_FALSE(row.ShapeEquals(0, TensorShape({3, 2})));
  QueueElement::Tuple t = row.ToTuple();
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].shape(), TensorShape({2}));
  EXPECT_EQ(t[0].flat<float>()[0], 4);
  EXPECT_EQ(t[0].flat<float>()[1], 5);
}

TEST(QueueElementTest, CopyIntoFillsARowAndPadsASmallerElement) {
  Tensor batch(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) batch.flat<float>()[i] = -1;
  Tensor rows(DT_FLOAT, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) rows.flat<float>()[i] = static_cast<float>(i + 1);
  auto shared = std::make_shared<const QueueElement::Tuple>(QueueElement::Tuple{rows});
  QueueElement::Row(shared, 1).CopyInto(0, 0, &batch);  // [3, 4] into a row of 3
  Tensor whole(DT_FLOAT, TensorShape({3}));
  for (int i = 0; i < 3; ++i) whole.flat<float>()[i] = static_cast<float>(10 + i);
  QueueElement::Whole({whole}).CopyInto(0, 1, &batch);
  auto f = batch.flat<float>();
  EXPECT_EQ(std::vector<float>(f.begin(), f.end()), (std::vector<float>{3, 4, -1, 10, 11, 12}));
}

TEST(QueueElementTest, StringRowsAreCopiedAsObjects) {
  Tensor rows = Strings({"a", "bb", "ccc", "dddd"}, TensorShape({2, 2}));
  auto shared = std::make_shared<const QueueElement::Tuple>(QueueElement::Tuple{rows});
  Tensor batch(DT_STRING, TensorShape({2, 2}));
  QueueElement::Row(shared, 1).CopyInto(0, 0, &batch);
  QueueElement::Row(shared, 0).CopyInto(0, 1, &batch);
  auto f = batch.flat<std::string>();
  EXPECT_EQ(std::vector<std::string>(f.begin(), f.end()), (std::vector<std::string>{"ccc", "dddd", "a", "bb"}));
  EXPECT_EQ(QueueElement::Row(shared, 0).ToTuple()[0].flat<std::string>()[1], "bb");
}

TEST(QueueElementTest, EmptyElementsCopyNothing) {
  Tensor rows(DT_FLOAT, TensorShape({2, 0}));
  auto shared = std::make_shared<const QueueElement::Tuple>(QueueElement::Tuple{rows});
  Tensor batch(DT_FLOAT, TensorShape({1, 0}));
  QueueElement::Row(shared, 1).CopyInto(0, 0, &batch);
  EXPECT_EQ(QueueElement::Row(shared, 1).ToTuple()[0].shape(), TensorShape({0}));
}

}  // namespace
}  // namespace flowvm
