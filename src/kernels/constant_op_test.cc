// Const, Placeholder, PlaceholderWithDefault, Identity and NoOp kernels.
#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::OpTest;
using testing::TestNode;

TEST(ConstOpTest, OutputsItsValueForEachType) {
  std::vector<Tensor> values = {
      Tensor::FromVector<float>({1.5f, -2, 3, 4}, TensorShape({2, 2})),
      Tensor::FromVector<double>({1e300}),
      Tensor::FromVector<int32_t>({1, 2, 3}),
      Tensor::FromVector<int64_t>({int64_t{1} << 40}),
      Tensor::Scalar<bool>(true),
      Tensor::FromVector<std::string>({"a", "bc"}),
      Tensor::FromVector<complex64>({complex64(1, 2)}),
      Tensor::Scalar<half>(half(0.5f)),
      Tensor(DT_FLOAT, TensorShape({0, 3})),
  };
  for (const Tensor& v : values) {
    auto out = testing::RunOpKernel(TestNode("c", "Const").Attr("dtype", v.dtype()).Attr("value", v), {});
    ASSERT_TRUE(out.ok()) << out.status();
    ExpectTensorEqual((*out)[0], v);
  }
}

TEST(ConstOpTest, SharesOneBufferAcrossSteps) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("c", "Const").Attr("dtype", DT_FLOAT).Attr("value", Tensor::FromVector<float>({1, 2}))));
  EXPECT_FALSE(t.kernel()->IsExpensive());
  FLOWVM_ASSERT_OK(t.Run());
  Tensor first = t.output(0);
  FLOWVM_ASSERT_OK(t.Run());
  EXPECT_TRUE(first.SharesBufferWith(t.output(0)));
  EXPECT_FALSE(first.RefCountIsOne());  // the kernel keeps its own reference
}

TEST(ConstOpTest, DtypeMismatchIsAnError) {
  OpTest t;
  Status s = t.Init(TestNode("c", "Const").Attr("dtype", DT_INT32).Attr("value", Tensor::FromVector<float>({1})));
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_NE(s.message().find("Type mismatch between value (float) and dtype (int32)"), std::string::npos) << s;
  EXPECT_NE(s.message().find("'c'"), std::string::npos) << s;
}

TEST(ConstOpTest, MissingValueIsAnError) {
  OpTest t;
  EXPECT_FALSE(t.Init(TestNode("c", "Const").Attr("dtype", DT_FLOAT)).ok());
}

TEST(PlaceholderOpTest, FailsWithFeedMessage) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("x", "Placeholder").Attr("dtype", DT_FLOAT).Attr("shape", PartialTensorShape({-1, 3}))));
  Status s = t.Run();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]");
}

TEST(PlaceholderOpTest, UnknownShapeMessageHasNoShape) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("p", "Placeholder").Attr("dtype", DT_INT32)));  // shape defaults to <unknown>
  Status s = t.Run();
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "You must feed a value for placeholder tensor 'p' with dtype int32");
}

TEST(PlaceholderWithDefaultOpTest, PassesInputThrough) {
  Tensor in = Tensor::FromVector<float>({1, 2, 3});
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("p", "PlaceholderWithDefault")
                              .Input("d")
                              .Attr("dtype", DT_FLOAT)
                              .Attr("shape", PartialTensorShape({-1}))));
  t.AddInput(in);
  FLOWVM_ASSERT_OK(t.Run());
  EXPECT_TRUE(t.output(0).SharesBufferWith(in));
}

TEST(IdentityOpTest, PassesValueSharingBuffer) {
  for (const Tensor& in : {Tensor::FromVector<float>({1, 2}), Tensor::FromVector<std::string>({"s"}),
                           Tensor(DT_INT64, TensorShape({0}))}) {
    OpTest t;
    FLOWVM_ASSERT_OK(t.Init(TestNode("id", "Identity").Input("x").Attr("T", in.dtype())));
    EXPECT_FALSE(t.kernel()->IsExpensive());
    t.AddInput(in);
    FLOWVM_ASSERT_OK(t.Run());
    ExpectTensorEqual(t.output(0), in);
    EXPECT_TRUE(t.output(0).SharesBufferWith(in) || in.NumElements() == 0);
  }
}

TEST(IdentityOpTest, ReadsRefInputsCurrentValue) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("id", "Identity").Input("v").Attr("T", DT_FLOAT)));
  auto var = t.AddVarInput("v", DT_FLOAT);
  Status s = t.Run();
  EXPECT_EQ(s.code(), Code::kFailedPrecondition) << s;
  EXPECT_NE(s.message().find("uninitialized value v"), std::string::npos) << s;
  var->tensor = Tensor::FromVector<float>({7});
  FLOWVM_ASSERT_OK(t.Run());
  ASSERT_FALSE(t.output_is_ref(0));
  ExpectTensorEqual(t.output(0), Tensor::FromVector<float>({7}));
}

TEST(NoOpTest, DoesNothing) {
  OpTest t;
  FLOWVM_ASSERT_OK(t.Init(TestNode("n", "NoOp")));
  EXPECT_EQ(t.num_outputs(), 0);
  FLOWVM_ASSERT_OK(t.Run());
  EXPECT_FALSE(t.kernel()->IsExpensive());
}

}  // namespace
}  // namespace flowvm
