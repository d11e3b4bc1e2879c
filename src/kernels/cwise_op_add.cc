// Add (which also concatenates strings) and AddV2.
#include "kernels/cwise_ops.h"

namespace flowvm {

#define FLOWVM_REGISTER_ADD(T)                         \
  FLOWVM_REGISTER_CWISE("Add", cwise::AddFn, T);       \
  FLOWVM_REGISTER_CWISE("AddV2", cwise::AddFn, T);
FLOWVM_REGISTER_ADD(float)
FLOWVM_REGISTER_ADD(double)
FLOWVM_REGISTER_ADD(half)
FLOWVM_REGISTER_ADD(bfloat16)
FLOWVM_REGISTER_ADD(uint8_t)
FLOWVM_REGISTER_ADD(int8_t)
FLOWVM_REGISTER_ADD(int16_t)
FLOWVM_REGISTER_ADD(int32_t)
FLOWVM_REGISTER_ADD(int64_t)
FLOWVM_REGISTER_ADD(complex64)
FLOWVM_REGISTER_ADD(complex128)
#undef FLOWVM_REGISTER_ADD

FLOWVM_REGISTER_CWISE("Add", cwise::AddFn, std::string);
FLOWVM_REGISTER_CWISE("AddV2", cwise::AddFn, uint16_t);
FLOWVM_REGISTER_CWISE("AddV2", cwise::AddFn, uint32_t);
FLOWVM_REGISTER_CWISE("AddV2", cwise::AddFn, uint64_t);

}  // namespace flowvm
