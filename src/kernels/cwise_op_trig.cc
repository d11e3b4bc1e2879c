// Sin, Cos, Tan, Erf, Expm1 and IsInf: the scalar std:: functions through
// the UnaryOp framework of cwise_ops.h (half and bfloat16 are computed in
// float by it). TensorFlow's CPU kernels for these are scalar too.
#include <cmath>
#include <complex>

#include "kernels/cwise_ops.h"

namespace flowvm {
namespace cwise {
namespace {

struct SinFn {
  template <typename T>
  static T Apply(T x) { return std::sin(x); }
};
struct CosFn {
  template <typename T>
  static T Apply(T x) { return std::cos(x); }
};
struct TanFn {
  template <typename T>
  static T Apply(T x) { return std::tan(x); }
};
struct ErfFn {
  template <typename T>
  static T Apply(T x) { return std::erf(x); }
};
// std::expm1 keeps the precision of exp(x) - 1 near 0; complex has none.
struct Expm1Fn {
  template <typename T>
  static T Apply(T x) {
    if constexpr (kIsComplex<T>) {
      return std::exp(x) - T(1);
    } else {
      return std::expm1(x);
    }
  }
};
struct IsInfFn {
  template <typename T>
  static bool Apply(T x) { return std::isinf(x); }
};

}  // namespace
}  // namespace cwise

#define FLOWVM_REGISTER_TRIG(T, C)                               \
  FLOWVM_REGISTER_UNARY("Sin", cwise::SinFn, T, 20 * C);         \
  FLOWVM_REGISTER_UNARY("Cos", cwise::CosFn, T, 20 * C);         \
  FLOWVM_REGISTER_UNARY("Tan", cwise::TanFn, T, 30 * C);         \
  FLOWVM_REGISTER_UNARY("Expm1", cwise::Expm1Fn, T, 20 * C);
FLOWVM_REGISTER_TRIG(float, 1)
FLOWVM_REGISTER_TRIG(double, 2)
FLOWVM_REGISTER_TRIG(half, 2)
FLOWVM_REGISTER_TRIG(bfloat16, 2)
FLOWVM_REGISTER_TRIG(complex64, 4)
FLOWVM_REGISTER_TRIG(complex128, 6)
#undef FLOWVM_REGISTER_TRIG

#define FLOWVM_REGISTER_REAL(T, C)                               \
  FLOWVM_REGISTER_UNARY("Erf", cwise::ErfFn, T, 20 * C);         \
  FLOWVM_REGISTER_UNARY("IsInf", cwise::IsInfFn, T, 1);
FLOWVM_REGISTER_REAL(float, 1)
FLOWVM_REGISTER_REAL(double, 2)
FLOWVM_REGISTER_REAL(half, 2)
FLOWVM_REGISTER_REAL(bfloat16, 2)
#undef FLOWVM_REGISTER_REAL

}  // namespace flowvm
