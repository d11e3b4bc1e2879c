// TensorShape (validation, overflow, edits, protos) and PartialTensorShape
// (unknown rank and dims, compatibility, merging).
#include "flowvm/tensor_shape.h"

#include <limits>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();

void ExpectInvalid(const Status& s, const std::string& fragment) {
  EXPECT_EQ(s.code(), Code::kInvalidArgument) << s;
  EXPECT_NE(s.message().find(fragment), std::string::npos) << s;
}

TEST(TensorShapeTest, Basics) {
  TensorShape scalar;
  EXPECT_EQ(scalar.dims(), 0);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.DebugString(), "[]");
  TensorShape m({2, 3});
  EXPECT_EQ(m.dims(), 2);
  EXPECT_EQ(m.dim_size(1), 3);
  EXPECT_EQ(m.num_elements(), 6);
  EXPECT_EQ(m.DebugString(), "[2,3]");
  EXPECT_EQ(m.dim_sizes(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(TensorShape({2, 0, 5}).num_elements(), 0);
  EXPECT_EQ(m, TensorShape({2, 3}));
  EXPECT_NE(m, TensorShape({3, 2}));
  EXPECT_TRUE(m.IsSameSize(TensorShape({2, 3})));
}

TEST(TensorShapeTest, FromDimsValidates) {
  StatusOr<TensorShape> ok = TensorShape::FromDims({4, 5});
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->num_elements(), 20);
  ExpectInvalid(TensorShape::FromDims({3, -4}).status(), "dimension 1 of a shape is negative (-4)");
  ExpectInvalid(TensorShape::FromDims({-1}).status(), "negative");
  ExpectInvalid(TensorShape::FromDims(std::vector<int64_t>(255, 1)).status(), "rank 255");
  EXPECT_TRUE(TensorShape::FromDims(std::vector<int64_t>(254, 1)).ok());
}

TEST(TensorShapeTest, FromDimsRejectsOverflow) {
  const int64_t max = TensorShape::kMaxElements;  // 2^62
  EXPECT_EQ(TensorShape::FromDims({max})->num_elements(), max);
  EXPECT_EQ(TensorShape::FromDims({max / 2, 2})->num_elements(), max);
  ExpectInvalid(TensorShape::FromDims({max / 2 + 1, 2}).status(), "more than 2^62 elements");
  ExpectInvalid(TensorShape::FromDims({max + 1}).status(), "more than 2^62");
  ExpectInvalid(TensorShape::FromDims({kInt64Max}).status(), "more than 2^62");
  ExpectInvalid(TensorShape::FromDims({int64_t{1} << 31, int64_t{1} << 31, 4}).status(), "more than 2^62");
  // 2^32 * 2^32 wraps to 0 in 64 bits; it must still be caught.
  ExpectInvalid(TensorShape::FromDims({int64_t{1} << 32, int64_t{1} << 32}).status(), "more than 2^62");
  // A zero dimension makes the product zero whatever the others are.
  EXPECT_EQ(TensorShape::FromDims({0, kInt64Max})->num_elements(), 0);
}

TEST(TensorShapeTest, FromProto) {
  TensorShapeProto p;
  p.add_dim()->set_size(2);
  p.add_dim()->set_size(7);
  EXPECT_EQ(*TensorShape::FromProto(p), TensorShape({2, 7}));
  p.mutable_dim(1)->set_size(-1);
  ExpectInvalid(TensorShape::FromProto(p).status(), "unknown dimension");
  TensorShapeProto u;
  u.set_unknown_rank(true);
  ExpectInvalid(TensorShape::FromProto(u).status(), "unknown rank");
  TensorShapeProto big;
  big.add_dim()->set_size(kInt64Max);
  big.add_dim()->set_size(2);
  ExpectInvalid(TensorShape::FromProto(big).status(), "more than 2^62");
}

TEST(TensorShapeTest, EditsKeepElementCount) {
  TensorShape s({2, 3});
  s.AddDim(4);
  EXPECT_EQ(s.DebugString(), "[2,3,4]");
  EXPECT_EQ(s.num_elements(), 24);
  s.set_dim(0, 5);
  EXPECT_EQ(s.num_elements(), 60);
  s.RemoveDim(1);
  EXPECT_EQ(s.DebugString(), "[5,4]");
  EXPECT_EQ(s.num_elements(), 20);
  s.InsertDim(0, 0);
  EXPECT_EQ(s.DebugString(), "[0,5,4]");
  EXPECT_EQ(s.num_elements(), 0);
  s.RemoveDim(0);
  EXPECT_EQ(s.num_elements(), 20);
}

TEST(TensorShapeTest, ProtoRoundTrip) {
  for (const TensorShape& s : {TensorShape(), TensorShape({0}), TensorShape({3, 1, 4})}) {
    TensorShapeProto p;
    p.set_unknown_rank(true);  // cleared by AsProto
    s.AsProto(&p);
    EXPECT_FALSE(p.unknown_rank());
    EXPECT_EQ(*TensorShape::FromProto(p), s);
  }
}

// ---- PartialTensorShape --------------------------------------------------------

TEST(PartialTensorShapeTest, UnknownRankAndDims) {
  PartialTensorShape u;
  EXPECT_TRUE(u.unknown_rank());
  EXPECT_EQ(u.dims(), -1);
  EXPECT_FALSE(u.IsFullyDefined());
  EXPECT_EQ(u.num_elements(), -1);
  EXPECT_EQ(u.DebugString(), "<unknown>");
  EXPECT_EQ(PartialTensorShape::Unknown(), u);

  PartialTensorShape p({-1, 3});
  EXPECT_FALSE(p.unknown_rank());
  EXPECT_EQ(p.dims(), 2);
  EXPECT_EQ(p.dim_size(0), -1);
  EXPECT_FALSE(p.IsFullyDefined());
  EXPECT_EQ(p.num_elements(), -1);
  EXPECT_EQ(p.DebugString(), "[?,3]");
  EXPECT_EQ(PartialTensorShape::UnknownOfRank(3).DebugString(), "[?,?,?]");
  EXPECT_EQ(PartialTensorShape::UnknownOfRank(0).DebugString(), "[]");

  PartialTensorShape full(TensorShape({2, 5}));
  EXPECT_TRUE(full.IsFullyDefined());
  EXPECT_EQ(full.num_elements(), 10);
  EXPECT_EQ(full.AsTensorShape(), TensorShape({2, 5}));
  EXPECT_EQ(PartialTensorShape({}).num_elements(), 1);
  EXPECT_EQ(PartialTensorShape({int64_t{1} << 40, int64_t{1} << 40}).num_elements(), -1);  // overflow
}

TEST(PartialTensorShapeTest, FromDimsAndProto) {
  EXPECT_EQ(*PartialTensorShape::FromDims({-1, 2}), PartialTensorShape({-1, 2}));
  ExpectInvalid(PartialTensorShape::FromDims({3, -2}).status(), "dimension 1 of a shape is -2");
  ExpectInvalid(PartialTensorShape::FromDims(std::vector<int64_t>(255, 1)).status(), "rank 255");

  TensorShapeProto p;
  p.set_unknown_rank(true);
  EXPECT_TRUE(PartialTensorShape::FromProto(p)->unknown_rank());
  p.add_dim()->set_size(2);
  ExpectInvalid(PartialTensorShape::FromProto(p).status(), "unknown_rank set and dimensions");
  p.set_unknown_rank(false);
  p.add_dim()->set_size(-1);
  EXPECT_EQ(*PartialTensorShape::FromProto(p), PartialTensorShape({2, -1}));

  for (const PartialTensorShape& s : {PartialTensorShape(), PartialTensorShape({}), PartialTensorShape({-1, 4})}) {
    TensorShapeProto q;
    s.AsProto(&q);
    EXPECT_EQ(*PartialTensorShape::FromProto(q), s) << s.DebugString();
  }
}

TEST(PartialTensorShapeTest, Compatibility) {
  PartialTensorShape a({-1, 3});
  EXPECT_TRUE(a.IsCompatibleWith(TensorShape({7, 3})));
  EXPECT_FALSE(a.IsCompatibleWith(TensorShape({7, 4})));
  EXPECT_FALSE(a.IsCompatibleWith(TensorShape({3})));
  EXPECT_TRUE(a.IsCompatibleWith(PartialTensorShape({2, -1})));
  EXPECT_TRUE(a.IsCompatibleWith(PartialTensorShape()));
  EXPECT_TRUE(PartialTensorShape().IsCompatibleWith(TensorShape({1, 2, 3})));
  EXPECT_FALSE(PartialTensorShape({}).IsCompatibleWith(TensorShape({1})));
  EXPECT_TRUE(PartialTensorShape({}).IsCompatibleWith(TensorShape()));
}

TEST(PartialTensorShapeTest, Merge) {
  EXPECT_EQ(*PartialTensorShape({-1, 3}).MergeWith(PartialTensorShape({2, -1})), PartialTensorShape({2, 3}));
  EXPECT_EQ(*PartialTensorShape().MergeWith(PartialTensorShape({-1, 4})), PartialTensorShape({-1, 4}));
  EXPECT_EQ(*PartialTensorShape({5}).MergeWith(PartialTensorShape()), PartialTensorShape({5}));
  EXPECT_TRUE(PartialTensorShape().MergeWith(PartialTensorShape())->unknown_rank());
  EXPECT_EQ(*PartialTensorShape({-1}).MergeWith(PartialTensorShape({-1})), PartialTensorShape({-1}));
  ExpectInvalid(PartialTensorShape({2, 3}).MergeWith(PartialTensorShape({2, 4})).status(),
                "shapes [2,3] and [2,4] are incompatible");
  ExpectInvalid(PartialTensorShape({2}).MergeWith(PartialTensorShape({2, 1})).status(), "incompatible");
}

}  // namespace
}  // namespace flowvm
