// StringSplitV2 kernel: TensorFlow's (Python's str.split) semantics for both
// modes, maxsplit, empty and all-whitespace elements, leading and trailing
// separators, the SparseTensor layout, and InvalidArgument for bad ranks.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::ExpectTensorEqual;
using testing::TestNode;

NodeDef Split(int64_t maxsplit = -1) {
  return TestNode("split", "StringSplitV2").Input("input").Input("sep").Attr("maxsplit", maxsplit);
}

struct Sparse {
  std::vector<std::vector<std::string>> rows;  // the tokens of each input element
  int64_t max_row = 0;
};

// Runs the kernel and checks the SparseTensor's layout: indices in row-major
// order, one [i, j] per value, dense_shape [rows, longest row].
Sparse RunSplit(const std::vector<std::string>& input, const std::string& sep, int64_t maxsplit = -1) {
  auto out = testing::RunOpKernel(Split(maxsplit), {Tensor::FromVector<std::string>(input),
                                                    Tensor::Scalar<std::string>(sep)});
  EXPECT_TRUE(out.ok()) << out.status();
  if (!out.ok()) return {};
  const Tensor& indices = (*out)[0];
  const Tensor& values = (*out)[1];
  const Tensor& shape = (*out)[2];
  const int64_t n = values.NumElements();
  EXPECT_EQ(indices.dtype(), DT_INT64);
  EXPECT_EQ(indices.shape(), TensorShape({n, 2}));
  EXPECT_EQ(values.dtype(), DT_STRING);
  EXPECT_EQ(values.dims(), 1);
  EXPECT_EQ(shape.dtype(), DT_INT64);
  EXPECT_EQ(shape.shape(), TensorShape({2}));
  Sparse s;
  s.rows.resize(input.size());
  for (int64_t k = 0; k < n; ++k) {
    const int64_t i = indices.data<int64_t>()[2 * k], j = indices.data<int64_t>()[2 * k + 1];
    EXPECT_TRUE(i >= 0 && i < static_cast<int64_t>(input.size())) << i;
    if (i < 0 || i >= static_cast<int64_t>(input.size())) return s;
    EXPECT_EQ(j, static_cast<int64_t>(s.rows[i].size())) << "indices out of order at " << k;
    if (k > 0) {
      EXPECT_GE(i, indices.data<int64_t>()[2 * k - 2]);
    }
    s.rows[i].push_back(values.data<std::string>()[k]);
  }
  for (const auto& r : s.rows) s.max_row = std::max<int64_t>(s.max_row, r.size());
  EXPECT_EQ(shape.data<int64_t>()[0], static_cast<int64_t>(input.size()));
  EXPECT_EQ(shape.data<int64_t>()[1], s.max_row);
  return s;
}

using Rows = std::vector<std::vector<std::string>>;

TEST(StringSplitV2Test, WhitespaceRunsDropEmptyTokens) {
  // TensorFlow's own test case.
  Sparse s = RunSplit({"pigs on the wing", "animals"}, "");
  EXPECT_EQ(s.rows, (Rows{{"pigs", "on", "the", "wing"}, {"animals"}}));
  EXPECT_EQ(s.max_row, 4);
  // Leading, trailing and repeated whitespace of every kind.
  s = RunSplit({"  a \t\tb\nc\r\nd\v\fe  ", "x"}, "");
  EXPECT_EQ(s.rows, (Rows{{"a", "b", "c", "d", "e"}, {"x"}}));
  // Empty and all-whitespace elements have no tokens.
  s = RunSplit({"", " \t\n ", "one"}, "");
  EXPECT_EQ(s.rows, (Rows{{}, {}, {"one"}}));
  EXPECT_EQ(s.max_row, 1);
  // Only ASCII whitespace splits: other bytes (UTF-8, NBSP's 0xa0) are token bytes.
  s = RunSplit({"caf\xc3\xa9 na\xc3\xafve\xa0x"}, "");
  EXPECT_EQ(s.rows, (Rows{{"caf\xc3\xa9", "na\xc3\xafve\xa0x"}}));
}

TEST(StringSplitV2Test, SeparatorKeepsEmptyTokens) {
  // TensorFlow's own test case: a multi-character separator.
  Sparse s = RunSplit({"1<>2<>3", "<><>4<>5<><>6<>"}, "<>");
  EXPECT_EQ(s.rows, (Rows{{"1", "2", "3"}, {"", "", "4", "5", "", "6", ""}}));
  EXPECT_EQ(s.max_row, 7);
  // Leading and trailing separators give empty tokens; an empty element gives one.
  s = RunSplit({",a,", "", ",", "a,,b"}, ",");
  EXPECT_EQ(s.rows, (Rows{{"", "a", ""}, {""}, {"", ""}, {"a", "", "b"}}));
  // No separator in the element: the element itself.
  s = RunSplit({"a b"}, ",");
  EXPECT_EQ(s.rows, (Rows{{"a b"}}));
  // Whitespace is an ordinary separator when given; matches do not overlap.
  s = RunSplit({" a  b "}, " ");
  EXPECT_EQ(s.rows, (Rows{{"", "a", "", "b", ""}}));
  s = RunSplit({"aaa", "aaaa"}, "aa");
  EXPECT_EQ(s.rows, (Rows{{"", "a"}, {"", "", ""}}));
  // A separator longer than the element.
  s = RunSplit({"ab"}, "abc");
  EXPECT_EQ(s.rows, (Rows{{"ab"}}));
}

TEST(StringSplitV2Test, MaxSplit) {
  // TensorFlow's own test cases.
  Sparse s = RunSplit({"1,2,3", "4,5,,6,"}, ",", 1);
  EXPECT_EQ(s.rows, (Rows{{"1", "2,3"}, {"4", "5,,6,"}}));
  s = RunSplit({"1 2 3", "  4  5    6  "}, "", 1);
  EXPECT_EQ(s.rows, (Rows{{"1", "2 3"}, {"4", "5    6  "}}));
  // More splits allowed than there are separators.
  s = RunSplit({"a,b"}, ",", 5);
  EXPECT_EQ(s.rows, (Rows{{"a", "b"}}));
  s = RunSplit({"a,b,c,d"}, ",", 2);
  EXPECT_EQ(s.rows, (Rows{{"a", "b", "c,d"}}));
  s = RunSplit({"a b c d"}, "", 2);
  EXPECT_EQ(s.rows, (Rows{{"a", "b", "c d"}}));
  // As TensorFlow: with an empty sep, the rest after the last split is a
  // token even when nothing but whitespace followed (Python drops it).
  s = RunSplit({"a ", "a b  "}, "", 1);
  EXPECT_EQ(s.rows, (Rows{{"a", ""}, {"a", "b  "}}));
  s = RunSplit({"a,"}, ",", 1);
  EXPECT_EQ(s.rows, (Rows{{"a", ""}}));
  // maxsplit 0: every element whole, even empty or all whitespace.
  s = RunSplit({"  a b ", "", "x,y"}, "", 0);
  EXPECT_EQ(s.rows, (Rows{{"  a b "}, {""}, {"x,y"}}));
  s = RunSplit({"x,y"}, ",", 0);
  EXPECT_EQ(s.rows, (Rows{{"x,y"}}));
  // Any negative maxsplit means no limit.
  s = RunSplit({"a,b,c"}, ",", -7);
  EXPECT_EQ(s.rows, (Rows{{"a", "b", "c"}}));
}

TEST(StringSplitV2Test, EmptyInput) {
  auto out = testing::RunOpKernel(Split(), {Tensor(DT_STRING, TensorShape({0})), Tensor::Scalar<std::string>("")});
  ASSERT_TRUE(out.ok()) << out.status();
  ExpectTensorEqual((*out)[0], Tensor(DT_INT64, TensorShape({0, 2})));
  ExpectTensorEqual((*out)[1], Tensor(DT_STRING, TensorShape({0})));
  ExpectTensorEqual((*out)[2], Tensor::FromVector<int64_t>({0, 0}));
  // Elements with no tokens at all: shape [3, 0].
  out = testing::RunOpKernel(Split(), {Tensor::FromVector<std::string>({"", " ", "\n"}),
                                       Tensor::Scalar<std::string>("")});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[1].NumElements(), 0);
  ExpectTensorEqual((*out)[2], Tensor::FromVector<int64_t>({3, 0}));
}

TEST(StringSplitV2Test, ManyWords) {
  // A text of 200k words over a small vocabulary, split both ways.
  std::string text;
  std::vector<std::string> words;
  uint32_t r = 12345;
  for (int i = 0; i < 200000; ++i) {
    r = r * 1103515245u + 12345u;
    words.push_back("w" + std::to_string((r >> 8) % 5000));
    text += words.back();
    text += (i % 10 == 9) ? "\n" : (i % 7 == 0 ? "  " : " ");
  }
  Sparse s = RunSplit({text}, "");
  ASSERT_EQ(s.rows.size(), 1u);
  EXPECT_EQ(s.rows[0], words);
  std::string csv;
  for (size_t i = 0; i < words.size(); ++i) csv += (i ? "," : "") + words[i];
  s = RunSplit({csv, ""}, ",");
  ASSERT_EQ(s.rows.size(), 2u);
  EXPECT_EQ(s.rows[0], words);
  EXPECT_EQ(s.rows[1], std::vector<std::string>{""});
}

TEST(StringSplitV2Test, ManyRowsShardedOverThreads) {
  // 20k lines of 0..9 words each; the rows are split on several threads.
  std::vector<std::string> lines;
  std::vector<std::vector<std::string>> expected;
  for (int i = 0; i < 20000; ++i) {
    std::string line = (i % 3 == 0) ? " " : "";
    expected.emplace_back();
    for (int w = 0; w < i % 10; ++w) {
      expected.back().push_back("l" + std::to_string(i) + "w" + std::to_string(w));
      line += expected.back().back() + (w % 2 ? "\t" : "  ");
    }
    lines.push_back(line);
  }
  testing::OpTest t;
  FLOWVM_ASSERT_OK(t.Init(Split()));
  t.set_num_threads(3);
  t.AddInput(Tensor::FromVector<std::string>(lines));
  t.AddInput(Tensor::Scalar<std::string>(""));
  FLOWVM_ASSERT_OK(t.Run());
  const Tensor indices = t.output(0), values = t.output(1);
  std::vector<std::vector<std::string>> rows(lines.size());
  for (int64_t k = 0; k < values.NumElements(); ++k) {
    const int64_t i = indices.data<int64_t>()[2 * k], j = indices.data<int64_t>()[2 * k + 1];
    ASSERT_EQ(j, static_cast<int64_t>(rows[i].size()));
    rows[i].push_back(values.data<std::string>()[k]);
  }
  EXPECT_EQ(rows, expected);
  ExpectTensorEqual(t.output(2), Tensor::FromVector<int64_t>({20000, 9}));
}

void ExpectRankError(const Tensor& input, const Tensor& sep, const std::string& msg) {
  auto out = testing::RunOpKernel(Split(), {input, sep});
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Code::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find(msg), std::string::npos) << out.status();
}

TEST(StringSplitV2Test, RankErrorsNameTheInput) {
  const Tensor sep = Tensor::Scalar<std::string>(",");
  ExpectRankError(Tensor::Scalar<std::string>("a,b"), sep, "input must be a vector, but has shape []");
  ExpectRankError(Tensor::FromVector<std::string>({"a", "b"}, TensorShape({1, 2})), sep,
                  "input must be a vector, but has shape [1,2]");
  ExpectRankError(Tensor::FromVector<std::string>({"a"}), Tensor::FromVector<std::string>({","}),
                  "sep must be a scalar, but has shape [1]");
}

}  // namespace
}  // namespace flowvm
