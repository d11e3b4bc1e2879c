// Mul.
#include "kernels/cwise_ops.h"

namespace flowvm {

FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, float);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, double);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, half);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, bfloat16);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, uint8_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, int8_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, uint16_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, int16_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, int32_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, int64_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, uint32_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, uint64_t);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, complex64);
FLOWVM_REGISTER_CWISE("Mul", cwise::MulFn, complex128);

}  // namespace flowvm
