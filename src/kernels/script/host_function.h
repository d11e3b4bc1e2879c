// The host program's functions that PyFunc nodes call (tf.py_func): one
// process-wide dispatcher, installed by the host (the Python package, when
// it is imported), which runs the function registered under a token.
//
// Thread safety: SetHostFunctionDispatcher and CallHostFunction may be
// called from any thread. CallHostFunction blocks its caller while the
// function runs (the dispatcher takes whatever lock the host needs, e.g.
// Python's GIL).
#ifndef FLOWVM_KERNELS_SCRIPT_HOST_FUNCTION_H_
#define FLOWVM_KERNELS_SCRIPT_HOST_FUNCTION_H_

#include <functional>
#include <string>
#include <vector>

#include "flowvm/status.h"
#include "flowvm/tensor.h"

namespace flowvm {

// Runs the function registered under `token` on `inputs`; fills `outputs`.
// A function that ends a sequence returns OutOfRange (Python's
// StopIteration); any other failure a Status naming it.
using HostFunctionDispatcher =
    std::function<Status(const std::string& token, const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs)>;

// Installs the dispatcher (an empty one uninstalls it).
void SetHostFunctionDispatcher(HostFunctionDispatcher dispatcher);

// FailedPrecondition when no host installed a dispatcher in this process.
Status CallHostFunction(const std::string& token, const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs);

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_SCRIPT_HOST_FUNCTION_H_
