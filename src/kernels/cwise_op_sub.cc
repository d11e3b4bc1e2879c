// Sub.
#include "kernels/cwise_ops.h"

namespace flowvm {

FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, float);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, double);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, half);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, bfloat16);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, uint8_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, int8_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, uint16_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, int16_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, int32_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, int64_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, uint32_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, uint64_t);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, complex64);
FLOWVM_REGISTER_CWISE("Sub", cwise::SubFn, complex128);

}  // namespace flowvm
