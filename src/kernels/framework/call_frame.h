// CallFrame: how a step's feeds reach `_Arg` nodes and how `_Retval` nodes
// hand fetched tensors back. Owned by the caller of the step; _Retval
// kernels of concurrent nodes write distinct slots, so no locking is needed.
#ifndef FLOWVM_KERNELS_FRAMEWORK_CALL_FRAME_H_
#define FLOWVM_KERNELS_FRAMEWORK_CALL_FRAME_H_

#include <vector>

#include "flowvm/status.h"
#include "flowvm/tensor.h"

namespace flowvm {

class CallFrame {
 public:
  CallFrame(const Tensor* args, int num_args, Tensor* rets, int num_rets)
      : args_(args), num_args_(num_args), rets_(rets), num_rets_(num_rets) {}

  Status GetArg(int index, const Tensor** out) const {
    if (index < 0 || index >= num_args_) return errors::Internal("feed index ", index, " out of range");
    *out = &args_[index];
    return Status::OK();
  }
  Status SetRetval(int index, const Tensor& value) {
    if (index < 0 || index >= num_rets_) return errors::Internal("fetch index ", index, " out of range");
    rets_[index] = value;
    return Status::OK();
  }

 private:
  const Tensor* args_;
  int num_args_;
  Tensor* rets_;
  int num_rets_;
};

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_FRAMEWORK_CALL_FRAME_H_
