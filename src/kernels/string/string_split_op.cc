// StringSplitV2: each element of a string vector split as Python's str.split
// (and TensorFlow's kernel) does, into a SparseTensor (indices, values,
// dense_shape) whose row i holds the tokens of input[i].
//
// - sep empty: split on runs of ASCII whitespace (' ', \t, \n, \v, \f, \r);
//   no empty tokens, so "" and "  " give none.
// - sep not empty: split on each occurrence of sep, left to right; empty
//   tokens are kept ("a,,b" -> "a", "", "b"; "" -> one empty token).
// - maxsplit > 0: at most that many splits; the rest of the element (after
//   the whitespace that follows the last split, with an empty sep) is the
//   last token, even when it is empty. maxsplit == 0: the element, whole,
//   is the only token. maxsplit < 0: no limit.
//
// The tokens are found as views into the input and copied once, into the
// output's strings.
#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// absl::ascii_isspace's set, independent of the locale.
constexpr std::array<bool, 256> MakeSpaceTable() {
  std::array<bool, 256> t{};
  for (unsigned char c : {' ', '\t', '\n', '\v', '\f', '\r'}) t[c] = true;
  return t;
}
constexpr std::array<bool, 256> kIsSpace = MakeSpaceTable();
inline bool IsSpace(char c) { return kIsSpace[static_cast<unsigned char>(c)]; }

// Appends the tokens of `text` to `out`; returns how many.
int64_t SplitOnWhitespace(std::string_view text, int64_t maxsplit, std::vector<std::string_view>* out) {
  const char* p = text.data();
  const char* const end = p + text.size();
  int64_t n = 0;
  while (p != end && IsSpace(*p)) ++p;
  while (p != end) {
    const char* start = p;
    while (p != end && !IsSpace(*p)) ++p;
    out->emplace_back(start, p - start);
    ++n;
    while (p != end && IsSpace(*p)) ++p;
    if (n == maxsplit) {  // the rest, possibly empty, is the last token
      out->emplace_back(p, end - p);
      return n + 1;
    }
  }
  return n;
}

int64_t SplitOnSeparator(std::string_view text, std::string_view sep, int64_t maxsplit,
                         std::vector<std::string_view>* out) {
  int64_t splits = 0;
  while (splits != maxsplit) {
    const size_t pos = text.find(sep);
    if (pos == std::string_view::npos) break;
    out->push_back(text.substr(0, pos));
    text.remove_prefix(pos + sep.size());
    ++splits;
  }
  out->push_back(text);
  return splits + 1;
}

class StringSplitV2Op : public OpKernel {
 public:
  explicit StringSplitV2Op(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("maxsplit", &maxsplit_));
  }

  void Compute(OpKernelContext* ctx) override {
    const Tensor& input = ctx->input(0);
    const Tensor& sep_t = ctx->input(1);
    OP_REQUIRES(ctx, input.dims() == 1,
                errors::InvalidArgument("input must be a vector, but has shape ", input.shape().DebugString()));
    OP_REQUIRES(ctx, sep_t.dims() == 0,
                errors::InvalidArgument("sep must be a scalar, but has shape ", sep_t.shape().DebugString()));
    const std::string_view sep = sep_t.scalar<std::string>();
    const Span<std::string> rows = input.flat<std::string>();

    std::vector<std::string_view> tokens;
    std::vector<int64_t> row_sizes(rows.size());
    int64_t max_row = 0;
    for (int64_t i = 0; i < rows.size(); ++i) {
      const std::string_view text = rows[i];
      int64_t n;
      if (maxsplit_ == 0) {
        tokens.push_back(text);
        n = 1;
      } else if (sep.empty()) {
        n = SplitOnWhitespace(text, maxsplit_, &tokens);
      } else {
        n = SplitOnSeparator(text, sep, maxsplit_, &tokens);
      }
      row_sizes[i] = n;
      max_row = std::max(max_row, n);
    }

    const int64_t total = static_cast<int64_t>(tokens.size());
    Tensor *indices, *values, *shape;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({total, 2}), &indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t* idx = indices->data<int64_t>();
    std::string* val = values->data<std::string>();
    int64_t k = 0;
    for (int64_t i = 0; i < rows.size(); ++i) {
      for (int64_t j = 0; j < row_sizes[i]; ++j, ++k) {
        idx[2 * k] = i;
        idx[2 * k + 1] = j;
        val[k].assign(tokens[k]);
      }
    }
    shape->data<int64_t>()[0] = rows.size();
    shape->data<int64_t>()[1] = max_row;
  }

 private:
  int64_t maxsplit_ = -1;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("StringSplitV2").Device(DEVICE_CPU), StringSplitV2Op);

}  // namespace flowvm
