// Print: forwards its input; writes message and TensorFlow 1.x-style
// summaries of the data tensors to stderr; first_n; summarize.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::OpTest;
using testing::TestNode;

struct PrintTest {
  OpTest t;
  PrintTest(DataType input_type, const std::vector<DataType>& data_types, const std::string& message,
            int64_t first_n = -1, int64_t summarize = 3) {
    TestNode n("print", "Print");
    n.Input("x");
    for (size_t i = 0; i < data_types.size(); ++i) n.Input("d" + std::to_string(i));
    n.Attr("T", input_type).Attr("U", data_types).Attr("message", message).Attr("first_n", first_n)
        .Attr("summarize", summarize);
    Status s = t.Init(n);
    EXPECT_TRUE(s.ok()) << s;
  }
  // Runs with `inputs` (x first) and returns what was written to stderr.
  std::string Run(const std::vector<Tensor>& inputs) {
    t.ClearInputs();
    for (const Tensor& in : inputs) t.AddInput(in);
    ::testing::internal::CaptureStderr();
    Status s = t.Run();
    std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_TRUE(s.ok()) << s;
    return err;
  }
};

TEST(PrintOpTest, ForwardsTheInputAndPrintsTheData) {
  PrintTest p(DT_FLOAT, {DT_INT32, DT_FLOAT}, "values: ");
  const Tensor x = Tensor::FromVector<float>({1.5f, -2});
  EXPECT_EQ(p.Run({x, Tensor::FromVector<int32_t>({1, 2, 3, 4, 5}), Tensor::Scalar<float>(0.1f)}),
            "values: [1 2 3...][0.1]\n");
  ExpectTensorEqual(p.t.output(0), x);
  EXPECT_TRUE(p.t.output(0).SharesBufferWith(x));  // passed through, not copied
}

TEST(PrintOpTest, NestedSummariesAsTensorFlow) {
  // Rows are bracketed without spaces between them; "..." marks the cut.
  PrintTest p(DT_INT32, {DT_INT64, DT_INT64, DT_BOOL, DT_STRING, DT_DOUBLE}, "", -1, 3);
  const Tensor x = Tensor::Scalar<int32_t>(0);
  EXPECT_EQ(p.Run({x, Tensor::FromVector<int64_t>({1, 2, 3, 4}, TensorShape({2, 2})),
                   Tensor::FromVector<int64_t>({1, 2, 3}, TensorShape({3, 1})),
                   Tensor::FromVector<bool>({true, false}), Tensor::FromVector<std::string>({"a\nb", "c"}),
                   Tensor::FromVector<double>({1.0 / 3})}),
            "[[1 2][3...]...][[1][2][3]][1 0][a\\nb c][0.33333333333333331]\n");
  // summarize < 0 prints everything; empty tensors print "[]".
  PrintTest all(DT_INT32, {DT_FLOAT, DT_FLOAT}, "m", -1, -1);
  EXPECT_EQ(all.Run({x, Tensor::FromVector<float>({1, 2, 3, 4, 5}),
                     Tensor::FromVector<float>(std::vector<float>{}, TensorShape({0, 2}))}),
            "m[1 2 3 4 5][]\n");
}

TEST(PrintOpTest, FirstN) {
  PrintTest p(DT_FLOAT, {DT_FLOAT}, "step", 2);
  const Tensor x = Tensor::Scalar<float>(1);
  EXPECT_EQ(p.Run({x, x}), "step[1]\n");
  EXPECT_EQ(p.Run({x, x}), "step[1]\n");
  EXPECT_EQ(p.Run({x, x}), "");
  ExpectTensorEqual(p.t.output(0), x);  // still forwarded
  PrintTest none(DT_FLOAT, {}, "only the message");
  EXPECT_EQ(none.Run({x}), "only the message\n");
}

}  // namespace
}  // namespace flowvm
