// Print: forwards input 0 and writes `message` then "[values]" per data
// tensor to stderr, one whole line per run (a single write under a mutex, so
// lines of concurrent Prints do not interleave). Values are summarized as
// TensorFlow 1.x's Tensor::SummarizeValue does: nested brackets without
// spaces between rows, at most `summarize` values (all when negative), "..."
// where values were left out. With first_n >= 0 only the first first_n runs
// of this kernel print; the rest just forward.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/framework/kernel_registry.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {
namespace {

// The shortest of %.<digits>g / %.<more>g that reads back as the same value.
template <typename F>
std::string RoundTrip(F v, int digits, int more) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
  F back;
  if constexpr (std::is_same_v<F, float>) back = std::strtof(buf, nullptr);
  else back = std::strtod(buf, nullptr);
  if (back != v) std::snprintf(buf, sizeof(buf), "%.*g", more, static_cast<double>(v));
  return buf;
}

std::string CEscape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '"': out += "\\\""; break;
      case '\'': out += "\\'"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c >= 32 && c < 127) {
          out += static_cast<char>(c);
        } else {
          char b[8];
          std::snprintf(b, sizeof(b), "\\%03o", c);
          out += b;
        }
    }
  }
  return out;
}

template <typename T>
std::string Element(const T& v) {
  if constexpr (std::is_same_v<T, float>) return RoundTrip<float>(v, 6, 9);
  else if constexpr (std::is_same_v<T, double>) return RoundTrip<double>(v, 15, 17);
  else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return RoundTrip<float>(static_cast<float>(v), 6, 9);
  else if constexpr (std::is_same_v<T, bool>) return v ? "1" : "0";
  else if constexpr (std::is_same_v<T, std::string>) return CEscape(v);
  else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>)
    return "(" + Element(v.real()) + "," + Element(v.imag()) + ")";
  else if constexpr (std::is_class_v<T>) return std::to_string(static_cast<int64_t>(v.value));  // quantized
  else return std::to_string(v);
}

// One dimension of the nested rendering; `index` counts values printed.
template <typename T>
void RenderDim(const T* data, const std::vector<int64_t>& dims, size_t dim, int64_t limit, int64_t* index,
               std::string* out) {
  if (*index >= limit) return;
  if (dim + 1 == dims.size()) {
    for (int64_t i = 0; i < dims[dim]; ++i) {
      if (*index >= limit) {
        if (dim != 0) *out += "...";
        return;
      }
      if (i > 0) *out += " ";
      *out += Element(data[(*index)++]);
    }
    return;
  }
  for (int64_t i = 0; i < dims[dim]; ++i) {
    const bool opened = *index < limit;
    if (opened) *out += "[";
    RenderDim(data, dims, dim + 1, limit, index, out);
    if (opened) *out += "]";
  }
}

std::string Summarize(const Tensor& t, int64_t summarize) {
  const int64_t n = t.NumElements();
  const int64_t limit = summarize < 0 ? n : std::min(n, summarize);
  std::string out;
  VisitDataType(t.dtype(), [&](auto zero) {
    using T = decltype(zero);
    const T* data = t.data<T>();
    const std::vector<int64_t>& dims = t.shape().dim_sizes();
    if (dims.empty()) {
      if (limit > 0) out += Element(data[0]);
    } else {
      int64_t index = 0;
      RenderDim(data, dims, 0, limit, &index, &out);
    }
    if (n > limit) out += "...";
  });
  return out;
}

class PrintOp : public OpKernel {
 public:
  explicit PrintOp(OpKernelConstruction* ctx) : OpKernel(ctx) {
    OP_REQUIRES_OK(ctx, ctx->GetAttr("message", &message_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("first_n", &first_n_));
    OP_REQUIRES_OK(ctx, ctx->GetAttr("summarize", &summarize_));
  }

  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, ctx->input(0));
    if (first_n_ >= 0) {
      std::lock_guard<std::mutex> lock(mu_);
      if (printed_ >= first_n_) return;
      ++printed_;
    }
    std::string line = message_;
    for (int i = 1; i < ctx->num_inputs(); ++i) line += "[" + Summarize(ctx->input(i), summarize_) + "]";
    line += "\n";
    static std::mutex* const stderr_mu = new std::mutex;
    std::lock_guard<std::mutex> lock(*stderr_mu);
    std::cerr << line << std::flush;
  }

 private:
  std::string message_;
  int64_t first_n_ = -1;
  int64_t summarize_ = 3;
  std::mutex mu_;
  int64_t printed_ = 0;  // guarded by mu_
};

}  // namespace

REGISTER_KERNEL_BUILDER(Name("Print").Device(DEVICE_CPU), PrintOp);

}  // namespace flowvm
