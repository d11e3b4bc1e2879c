// The _flowvm extension module: the C++ runtime under the flowvm Python
// package. Python code never calls it directly; flowvm.compat.v1 does.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "flowvm/event.pb.h"
#include "flowvm/op_def.pb.h"
#include "flowvm/summary_writer.h"
#include "graph/op_registry.h"
#include "py_errors.h"
#include "py_graph.h"
#include "py_tensor.h"

namespace py = pybind11;

namespace flowvm::python {

void RegisterSession(py::module_& m);
void RegisterPyFunc(py::module_& m);

namespace {

// Every registered op, as a serialized OpList (what the Python op
// generator reads at build time).
py::bytes OpListBytes() {
  OpList list;
  const OpRegistry* registry = OpRegistry::Global();
  for (const std::string& name : registry->ListOps()) {
    const OpRegistrationData* reg = registry->LookUpOrNull(name);
    if (reg != nullptr) *list.add_op() = reg->op_def;
  }
  return py::bytes(list.SerializeAsString());
}

class PySummaryWriter {
 public:
  PySummaryWriter(const std::string& logdir, int max_queue, double flush_secs, const std::string& filename_suffix) {
    SummaryWriterOptions o;
    o.max_queue = max_queue;
    o.flush_interval_ms = static_cast<int64_t>(flush_secs * 1000);
    o.filename_suffix = filename_suffix;
    writer_ = ValueOrThrow(SummaryWriter::Create(logdir, o));
  }
  void AddEvent(const py::bytes& bytes) {
    Event e;
    if (!e.ParseFromString(std::string(bytes))) RaiseStatus(errors::InvalidArgument("add_event: not an Event"));
    ThrowIfError(writer_->AddEvent(std::move(e)));
  }
  void AddSummary(const py::bytes& bytes, int64_t step) {
    ThrowIfError(writer_->AddSerializedSummary(std::string(bytes), step));
  }
  void Flush() {
    Status st;
    {
      py::gil_scoped_release nogil;
      st = writer_->Flush();
    }
    ThrowIfError(st);
  }
  void Close() {
    Status st;
    {
      py::gil_scoped_release nogil;
      st = writer_->Close();
    }
    ThrowIfError(st);
  }
  std::string path() const { return writer_->path(); }

 private:
  std::unique_ptr<SummaryWriter> writer_;
};

}  // namespace
}  // namespace flowvm::python

PYBIND11_MODULE(_flowvm, m) {
  using namespace flowvm::python;
  m.doc() = "flowvm's C++ runtime, under the flowvm Python package";
  RegisterErrors(m);
  RegisterGraph(m);
  RegisterSession(m);
  RegisterPyFunc(m);
  m.def("op_list", &OpListBytes, "Every registered op, as a serialized OpList.");
  m.def("tensor_roundtrip", [](const py::handle& a) {
    // For tests: an array through a Tensor and back.
    return ValueOrThrow(TensorToNumpy(ValueOrThrow(NumpyToTensor(a))));
  });
  py::class_<PySummaryWriter>(m, "SummaryWriter")
      .def(py::init<const std::string&, int, double, const std::string&>(), py::arg("logdir"),
           py::arg("max_queue") = 10, py::arg("flush_secs") = 120.0, py::arg("filename_suffix") = "")
      .def("add_event", &PySummaryWriter::AddEvent)
      .def("add_summary", &PySummaryWriter::AddSummary)
      .def("flush", &PySummaryWriter::Flush)
      .def("close", &PySummaryWriter::Close)
      .def_property_readonly("path", &PySummaryWriter::path);
}
