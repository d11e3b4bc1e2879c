// Runtime errors as Python exceptions of TensorFlow's classes.
//
// The Python side registers a factory, _flowvm._set_error_factory(f), where
// f(code, message) returns the exception to raise (tf.errors.NotFoundError,
// ...). RaiseStatus throws pybind11::error_already_set carrying it, so a
// bound function never returns a half-done result. Requires the GIL.
#ifndef FLOWVM_PYTHON_PY_ERRORS_H_
#define FLOWVM_PYTHON_PY_ERRORS_H_

#include <pybind11/pybind11.h>

#include "flowvm/status.h"

namespace flowvm::python {

[[noreturn]] void RaiseStatus(const Status& status);

inline void ThrowIfError(const Status& status) {
  if (!status.ok()) RaiseStatus(status);
}

template <typename T>
T ValueOrThrow(StatusOr<T> v) {
  if (!v.ok()) RaiseStatus(v.status());
  return std::move(*v);
}

void RegisterErrors(pybind11::module_& m);

}  // namespace flowvm::python

#endif  // FLOWVM_PYTHON_PY_ERRORS_H_
