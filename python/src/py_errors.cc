#include "py_errors.h"

namespace py = pybind11;

namespace flowvm::python {
namespace {

// Owned reference to the factory; never released (it lives as long as the
// module, and releasing at exit could run after the interpreter is gone).
PyObject* g_factory = nullptr;

}  // namespace

void RaiseStatus(const Status& status) {
  const int code = static_cast<int>(status.code());
  if (g_factory != nullptr) {
    py::object exc = py::reinterpret_borrow<py::object>(g_factory)(code, status.message());
    PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc.ptr())), exc.ptr());
  } else {
    PyErr_SetString(PyExc_RuntimeError, status.ToString().c_str());
  }
  throw py::error_already_set();
}

void RegisterErrors(py::module_& m) {
  m.def(
      "_set_error_factory",
      [](py::object factory) {
        Py_XDECREF(g_factory);
        g_factory = factory.release().ptr();
      },
      "Sets f(code, message) -> exception, used for every runtime error.");
}

}  // namespace flowvm::python
