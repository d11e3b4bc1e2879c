// Atan2, SquaredDifference, TruncateDiv and TruncateMod through the BinaryOp
// framework of cwise_ops.h (NumPy broadcasting, buffer forwarding). Integer
// TruncateDiv / TruncateMod by zero is an InvalidArgument error, checked
// before anything is computed, as in Div.
#include <cmath>
#include <complex>

#include "kernels/cwise_ops.h"

namespace flowvm {
namespace cwise {
namespace {

// Atan2(y, x): the op's first input is y.
struct Atan2Fn {
  template <typename T>
  static T Apply(T y, T x) { return std::atan2(y, x); }
};

// (x - y) * conj(x - y): the square for real types, |x - y|^2 for complex.
struct SquaredDifferenceFn {
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsComplex<T>) {
      const T d = a - b;
      return d * std::conj(d);
    } else {
      const T d = SubFn::Apply(a, b);
      return MulFn::Apply(d, d);
    }
  }
};

// Integers: C's truncating division (DivFn, which also wraps MIN / -1);
// floating: the quotient rounded toward zero.
struct TruncateDivFn {
  static constexpr Check kCheck = Check::kNonZeroDivisor;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsInt<T>) {
      return DivFn::Apply(a, b);
    } else {
      return std::trunc(a / b);
    }
  }
};

// The remainder with the sign of the dividend (C's % and fmod). MIN % -1 is
// undefined behaviour in C++; its value is 0.
struct TruncateModFn {
  static constexpr Check kCheck = Check::kNonZeroDivisor;
  template <typename T>
  static T Apply(T a, T b) {
    if constexpr (kIsInt<T>) {
      if constexpr (std::is_signed_v<T>) {
        if (b == -1) return T(0);
      }
      return static_cast<T>(a % b);
    } else {
      return std::fmod(a, b);
    }
  }
};

}  // namespace
}  // namespace cwise

#define FLOWVM_REGISTER_FLOATING(T)                                        \
  FLOWVM_REGISTER_CWISE("Atan2", cwise::Atan2Fn, T);                       \
  FLOWVM_REGISTER_CWISE("SquaredDifference", cwise::SquaredDifferenceFn, T); \
  FLOWVM_REGISTER_CWISE("TruncateDiv", cwise::TruncateDivFn, T);           \
  FLOWVM_REGISTER_CWISE("TruncateMod", cwise::TruncateModFn, T);
FLOWVM_REGISTER_FLOATING(float)
FLOWVM_REGISTER_FLOATING(double)
FLOWVM_REGISTER_FLOATING(half)
FLOWVM_REGISTER_FLOATING(bfloat16)
#undef FLOWVM_REGISTER_FLOATING

FLOWVM_REGISTER_CWISE("SquaredDifference", cwise::SquaredDifferenceFn, int32_t);
FLOWVM_REGISTER_CWISE("SquaredDifference", cwise::SquaredDifferenceFn, int64_t);
FLOWVM_REGISTER_CWISE("SquaredDifference", cwise::SquaredDifferenceFn, complex64);
FLOWVM_REGISTER_CWISE("SquaredDifference", cwise::SquaredDifferenceFn, complex128);

FLOWVM_REGISTER_CWISE("TruncateMod", cwise::TruncateModFn, int32_t);
FLOWVM_REGISTER_CWISE("TruncateMod", cwise::TruncateModFn, int64_t);

#define FLOWVM_REGISTER_TRUNCATE_DIV(T) FLOWVM_REGISTER_CWISE("TruncateDiv", cwise::TruncateDivFn, T);
FLOWVM_REGISTER_TRUNCATE_DIV(uint8_t)
FLOWVM_REGISTER_TRUNCATE_DIV(int8_t)
FLOWVM_REGISTER_TRUNCATE_DIV(uint16_t)
FLOWVM_REGISTER_TRUNCATE_DIV(int16_t)
FLOWVM_REGISTER_TRUNCATE_DIV(int32_t)
FLOWVM_REGISTER_TRUNCATE_DIV(uint32_t)
FLOWVM_REGISTER_TRUNCATE_DIV(int64_t)
FLOWVM_REGISTER_TRUNCATE_DIV(uint64_t)
#undef FLOWVM_REGISTER_TRUNCATE_DIV

}  // namespace flowvm
