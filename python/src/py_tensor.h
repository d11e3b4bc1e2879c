// NumPy arrays <-> flowvm Tensors.
//
// A C-contiguous, native-order NumPy array whose data is aligned for its
// element type becomes a Tensor without a copy: the Tensor's buffer holds a
// reference to the array, dropped (with the GIL) when the last Tensor goes.
// Other arrays are copied. A fetched Tensor becomes an array that shares its
// buffer when no one else refers to it (nothing in the runtime can write it
// afterwards) and a copy otherwise (a variable's value, which the next step
// may update in place). Strings are object arrays of bytes. All functions
// require the GIL. A fed array outlives the step when a tensor over it does
// (a queued element); its reference is then dropped later, on a Python
// thread.
#ifndef FLOWVM_PYTHON_PY_TENSOR_H_
#define FLOWVM_PYTHON_PY_TENSOR_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "flowvm/status.h"
#include "flowvm/tensor.h"

namespace flowvm::python {

// The NumPy dtype of a DataType; Unimplemented for types NumPy lacks.
StatusOr<pybind11::dtype> NumpyDtype(DataType dtype);
// The DataType of a NumPy dtype; InvalidArgument for one flowvm lacks.
StatusOr<DataType> DataTypeOfNumpy(const pybind11::dtype& dtype);

// Releases the fed arrays whose tensors died on runtime threads (which never
// take the GIL); requires the GIL. Session calls do it on entry.
void ReleaseDeferredArrays();

// `value` must be a numpy.ndarray.
StatusOr<Tensor> NumpyToTensor(const pybind11::handle& value);
// A 0-d tensor becomes a NumPy scalar (np.float32, bytes, ...), as
// TensorFlow's Session.run returns them.
StatusOr<pybind11::object> TensorToNumpy(const Tensor& tensor);

}  // namespace flowvm::python

#endif  // FLOWVM_PYTHON_PY_TENSOR_H_
