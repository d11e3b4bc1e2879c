// The dispatcher through which PyFunc kernels (tf.py_func) call Python
// functions: it takes the GIL on the kernel's thread, converts the inputs
// to NumPy arrays, calls flowvm.tf.ops.script_ops._call(token, arrays),
// and converts the returned arrays back. Python's StopIteration becomes
// OutOfRange (the end of a tf.data generator), a tf.errors exception its
// own code, ValueError and TypeError InvalidArgument, anything else Unknown
// (as in TensorFlow), each with the exception's type, message and traceback. Installed when the module is imported; uninstalled at exit,
// and inert while the interpreter finalizes.
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

#include "kernels/script/host_function.h"
#include "py_tensor.h"

namespace py = pybind11;

namespace flowvm::python {
namespace {

Status StatusOfPythonError(py::error_already_set& e, const std::string& token) {
  if (e.matches(PyExc_StopIteration))
    return errors::OutOfRange("the Python function '", token, "' raised StopIteration");
  py::object value = e.value();
  if (py::hasattr(value, "error_code") && py::hasattr(value, "message")) {
    const int code = py::cast<int>(value.attr("error_code"));
    return Status(static_cast<Code>(code), py::str(value.attr("message")).cast<std::string>());
  }
  std::string text = e.what();
  try {
    py::object lines = py::module_::import("traceback").attr("format_exception")(e.type(), e.value(), e.trace());
    text = py::str("").attr("join")(lines).cast<std::string>();
  } catch (py::error_already_set&) {
    // The exception's own text is enough.
  }
  // TensorFlow's mapping of Python's exceptions to codes.
  Code code = Code::kUnknown;
  if (e.matches(PyExc_ValueError) || e.matches(PyExc_TypeError)) code = Code::kInvalidArgument;
  else if (e.matches(PyExc_MemoryError)) code = Code::kResourceExhausted;
  else if (e.matches(PyExc_NotImplementedError)) code = Code::kUnimplemented;
  return Status(code, "the Python function '" + token + "' failed: " + text);
}

Status CallPython(const std::string& token, const std::vector<Tensor>& inputs, std::vector<Tensor>* outputs) {
  if (!Py_IsInitialized() || _Py_IsFinalizing())
    return errors::Cancelled("the Python interpreter is exiting; function '", token, "' not called");
  py::gil_scoped_acquire gil;
  try {
    py::list args;
    for (const Tensor& t : inputs) {
      StatusOr<py::object> a = TensorToNumpy(t);
      if (!a.ok()) return a.status();
      args.append(*a);
    }
    py::object results = py::module_::import("flowvm.tf.ops.script_ops").attr("_call")(token, args);
    for (const py::handle& r : results) {
      StatusOr<Tensor> t = NumpyToTensor(r);
      if (!t.ok()) return t.status();
      outputs->push_back(std::move(*t));
    }
    return Status::OK();
  } catch (py::error_already_set& e) {
    return StatusOfPythonError(e, token);
  }
}

}  // namespace

void RegisterPyFunc(py::module_& m) {
  SetHostFunctionDispatcher(CallPython);
  m.def("_uninstall_py_func_dispatcher", [] { SetHostFunctionDispatcher(nullptr); },
        "Called at exit: PyFunc nodes then fail instead of calling into a finalizing interpreter.");
}

}  // namespace flowvm::python
