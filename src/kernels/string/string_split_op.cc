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
// The tokens are copied once, from the input into the output's strings.
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

// Calls emit(token) for each token of `text`, in order.
template <typename Emit>
void SplitOnWhitespace(std::string_view text, int64_t maxsplit, Emit&& emit) {
  const char* p = text.data();
  const char* const end = p + text.size();
  int64_t n = 0;
  while (p != end && IsSpace(*p)) ++p;
  while (p != end) {
    const char* start = p;
    while (p != end && !IsSpace(*p)) ++p;
    emit(std::string_view(start, p - start));
    ++n;
    while (p != end && IsSpace(*p)) ++p;
    if (n == maxsplit) {  // the rest, possibly empty, is the last token
      emit(std::string_view(p, end - p));
      return;
    }
  }
}

template <typename Emit>
void SplitOnSeparator(std::string_view text, std::string_view sep, int64_t maxsplit, Emit&& emit) {
  int64_t splits = 0;
  while (splits != maxsplit) {
    const size_t pos = text.find(sep);
    if (pos == std::string_view::npos) break;
    emit(text.substr(0, pos));
    text.remove_prefix(pos + sep.size());
    ++splits;
  }
  emit(text);
}

template <typename Emit>
void Split(std::string_view text, std::string_view sep, int64_t maxsplit, Emit&& emit) {
  if (maxsplit == 0) emit(text);
  else if (sep.empty()) SplitOnWhitespace(text, maxsplit, emit);
  else SplitOnSeparator(text, sep, maxsplit, emit);
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

    // Two passes over the text: count the tokens of each row, then write
    // them straight into the outputs (no list of tokens in between). Rows
    // are independent: both passes shard over them.
    const int64_t num_rows = rows.size();
    int64_t bytes = 0;
    for (const std::string& r : rows) bytes += static_cast<int64_t>(r.size());
    const int64_t cost_per_row = 16 + 8 * bytes / std::max<int64_t>(num_rows, 1);
    std::vector<int64_t> starts(num_rows + 1, 0);  // first token of each row
    ctx->ParallelFor(num_rows, cost_per_row, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t n = 0;
        Split(rows[i], sep, maxsplit_, [&n](std::string_view) { ++n; });
        starts[i + 1] = n;
      }
    });
    int64_t max_row = 0;
    for (int64_t i = 0; i < num_rows; ++i) {
      max_row = std::max(max_row, starts[i + 1]);
      starts[i + 1] += starts[i];
    }

    const int64_t total = starts[num_rows];
    Tensor *indices, *values, *shape;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({total, 2}), &indices));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(1, TensorShape({total}), &values));
    OP_REQUIRES_OK(ctx, ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t* idx = indices->data<int64_t>();
    std::string* val = values->data<std::string>();
    ctx->ParallelFor(num_rows, cost_per_row, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        int64_t k = starts[i], j = 0;
        Split(rows[i], sep, maxsplit_, [&](std::string_view token) {
          idx[2 * k] = i;
          idx[2 * k + 1] = j++;
          val[k++].assign(token);
        });
      }
    });
    shape->data<int64_t>()[0] = rows.size();
    shape->data<int64_t>()[1] = max_row;
  }

 private:
  int64_t maxsplit_ = -1;
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("StringSplitV2").Device(DEVICE_CPU), StringSplitV2Op);

}  // namespace flowvm
