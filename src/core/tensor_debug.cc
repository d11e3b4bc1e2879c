// Human-readable renderings of tensor values, for the CLI and error messages.
#include <algorithm>
#include <cstdio>
#include <string>

#include "flowvm/tensor.h"

namespace flowvm {

namespace {

std::string FormatFloat(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, v);
  return buf;
}

template <typename T>
std::string Format(const T& v) {
  if constexpr (std::is_same_v<T, float>) return FormatFloat(v, 7);
  else if constexpr (std::is_same_v<T, double>) return FormatFloat(v, 15);
  else if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) return FormatFloat(static_cast<float>(v), 4);
  else if constexpr (std::is_same_v<T, bool>) return v ? "True" : "False";
  else if constexpr (std::is_same_v<T, std::string>) {
    std::string out = "\"";
    for (unsigned char c : v) {
      if (c == '"' || c == '\\') { out += '\\'; out += static_cast<char>(c); }
      else if (c >= 32 && c < 127) out += static_cast<char>(c);
      else { char b[8]; std::snprintf(b, sizeof(b), "\\x%02x", c); out += b; }
    }
    return out + "\"";
  } else if constexpr (std::is_same_v<T, complex64> || std::is_same_v<T, complex128>) {
    return "(" + FormatFloat(v.real(), 7) + (v.imag() < 0 ? "" : "+") + FormatFloat(v.imag(), 7) + "j)";
  } else if constexpr (std::is_class_v<T>) {  // quantized
    return std::to_string(static_cast<int64_t>(v.value));
  } else {
    return std::to_string(v);
  }
}

// Renders values in nested brackets, NumPy style; stops after max_values,
// or when `budget` (calls left) runs out: an empty tensor with huge
// dimensions, e.g. [1000000000000,0], has no values to stop at.
template <typename T>
void Render(const T* data, const std::vector<int64_t>& dims, int dim, int64_t& index, int64_t limit,
            int64_t& budget, std::string& out) {
  --budget;
  if (dim == static_cast<int>(dims.size())) {
    out += Format(data[index++]);
    return;
  }
  out += "[";
  for (int64_t i = 0; i < dims[dim]; ++i) {
    if (index >= limit || budget <= 0) {
      out += "...";
      break;
    }
    if (i) out += " ";
    Render(data, dims, dim + 1, index, limit, budget, out);
  }
  out += "]";
}

}  // namespace

std::string Tensor::ValuesString(int max_values) const {
  if (!IsInitialized()) return "<uninitialized>";
  std::string out;
  VisitDataType(dtype_, [&](auto zero) {
    using T = decltype(zero);
    int64_t index = 0;
    // Enough to reach max_values values: each needs at most dims() + 1 calls.
    int64_t budget = (std::max(max_values, 0) + int64_t{1}) * (shape_.dims() + 1);
    Render(data<T>(), shape_.dim_sizes(), 0, index, max_values, budget, out);
  });
  return out;
}

std::string Tensor::DebugString(int max_values) const {
  return DataTypeName(dtype_) + " " + shape_.DebugString() + " " + ValuesString(max_values);
}

}  // namespace flowvm
