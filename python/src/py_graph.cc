#include "py_graph.h"

namespace flowvm::python {
namespace {

std::string ToBytesString(const py::handle& v) {
  if (PyBytes_Check(v.ptr())) return v.cast<std::string>();
  return py::str(v).cast<std::string>();
}

py::object ListToPython(const AttrValue::ListValue& l);

}  // namespace


DataType ToDataType(const py::handle& v) {
  if (py::hasattr(v, "as_datatype_enum")) return static_cast<DataType>(v.attr("as_datatype_enum").cast<int>());
  return static_cast<DataType>(v.cast<int>());
}

PartialTensorShape ToShape(const py::handle& v) {
  if (v.is_none()) return PartialTensorShape();
  std::vector<int64_t> dims;
  for (const py::handle& d : v) dims.push_back(d.is_none() ? -1 : d.cast<int64_t>());
  auto s = PartialTensorShape::FromDims(dims);
  ThrowIfError(s.status());
  return *s;
}

py::object FromShape(const PartialTensorShape& s) {
  if (s.unknown_rank()) return py::none();
  py::list dims;
  for (int64_t d : s.dim_sizes()) dims.append(d < 0 ? py::object(py::none()) : py::object(py::int_(d)));
  return dims;
}


// One attr value, as the op declares its type ("int", "list(type)", ...);
// for an attr the op does not declare ("_class"), from the Python type.
static void SetAttrValueFromPython(const std::string& name, const std::string& type, const py::handle& v,
                                   AttrValue* out, const std::string& where);

void SetAttrFromPython(const std::string& name, const std::string& type, const py::handle& v, AttrValue* out,
                       const std::string& where) {
  try {
    SetAttrValueFromPython(name, type, v, out, where);
  } catch (const py::cast_error&) {
    RaiseStatus(errors::InvalidArgument(where, ": attr '", name, "' of type ", type, " cannot be set from ",
                                        std::string(py::repr(v)), " (a ", std::string(py::str(py::type::of(v))), ")"));
  }
}

static void SetAttrValueFromPython(const std::string& name, const std::string& type, const py::handle& v,
                                   AttrValue* out, const std::string& where) {
  auto bad = [&](const char* what) {
    ThrowIfError(errors::InvalidArgument(where, ": attr '", name, "' of type ", type, " got ", what, " ",
                                         std::string(py::repr(v))));
  };
  if (type.rfind("list(", 0) == 0) {
    if (!py::isinstance<py::sequence>(v) || py::isinstance<py::str>(v) || PyBytes_Check(v.ptr())) bad("a non-list");
    const std::string elem = type.substr(5, type.size() - 6);
    auto* list = out->mutable_list();
    for (const py::handle& e : v) {
      if (elem == "string") list->add_s(ToBytesString(e));
      else if (elem == "int") list->add_i(e.cast<int64_t>());
      else if (elem == "float") list->add_f(e.cast<float>());
      else if (elem == "bool") list->add_b(e.cast<bool>());
      else if (elem == "type") list->add_type(ToDataType(e));
      else if (elem == "shape") ToShape(e).AsProto(list->add_shape());
      else if (elem == "tensor") ValueOrThrow(NumpyToTensor(e)).AsProtoTensorContent(list->add_tensor());
      else if (elem == "func") list->add_func()->set_name(py::str(e).cast<std::string>());
      else bad("an unsupported list");
    }
    return;
  }
  if (type == "string") out->set_s(ToBytesString(v));
  else if (type == "int") out->set_i(v.cast<int64_t>());
  else if (type == "float") out->set_f(v.cast<float>());
  else if (type == "bool") out->set_b(v.cast<bool>());
  else if (type == "type") out->set_type(ToDataType(v));
  else if (type == "shape") ToShape(v).AsProto(out->mutable_shape());
  else if (type == "tensor") ValueOrThrow(NumpyToTensor(v)).AsProtoTensorContent(out->mutable_tensor());
  else if (type == "func") out->mutable_func()->set_name(py::str(v).cast<std::string>());
  else bad("an unsupported value for");
}

// The Python-side type of an undeclared attr.
std::string GuessAttrType(const py::handle& v) {
  if (py::isinstance<py::bool_>(v)) return "bool";
  if (py::isinstance<py::int_>(v)) return "int";
  if (py::isinstance<py::float_>(v)) return "float";
  if (py::isinstance<py::str>(v) || PyBytes_Check(v.ptr())) return "string";
  if (py::isinstance<py::sequence>(v)) {
    for (const py::handle& e : v) return "list(" + GuessAttrType(e) + ")";
    return "list(string)";
  }
  return "string";
}

namespace {
py::object ListToPython(const AttrValue::ListValue& l) {
  py::list out;
  for (const auto& s : l.s()) out.append(py::bytes(s));
  for (int64_t i : l.i()) out.append(i);
  for (float f : l.f()) out.append(f);
  for (bool b : l.b()) out.append(b);
  for (int t : l.type()) out.append(t);
  for (const auto& s : l.shape()) out.append(FromShape(ValueOrThrow(PartialTensorShape::FromProto(s))));
  for (const auto& t : l.tensor()) out.append(ValueOrThrow(TensorToNumpy(ValueOrThrow(Tensor::FromProto(t)))));
  for (const auto& f : l.func()) out.append(f.name());
  return out;
}
}  // namespace

py::object AttrToPython(const AttrValue& a) {
  switch (a.value_case()) {
    case AttrValue::kS: return py::bytes(a.s());
    case AttrValue::kI: return py::int_(a.i());
    case AttrValue::kF: return py::float_(a.f());
    case AttrValue::kB: return py::bool_(a.b());
    case AttrValue::kType: return py::int_(static_cast<int>(a.type()));
    case AttrValue::kShape: return FromShape(ValueOrThrow(PartialTensorShape::FromProto(a.shape())));
    case AttrValue::kTensor: {
      Tensor t = ValueOrThrow(Tensor::FromProto(a.tensor()));
      py::object v = ValueOrThrow(TensorToNumpy(t));
      return py::module_::import("numpy").attr("asarray")(v);
    }
    case AttrValue::kList: return ListToPython(a.list());
    case AttrValue::kFunc: return py::str(a.func().name());
    default: return py::none();
  }
}


void RegisterGraph(py::module_& m) {
  py::class_<PyGraph>(m, "Graph")
      .def(py::init<>())
      .def("copy_op", &PyGraph::CopyOp, py::arg("src"), py::arg("src_id"), py::arg("name"), py::arg("inputs"),
           py::arg("control_inputs"))
      .def("add_op", &PyGraph::AddOp, py::arg("op"), py::arg("name"), py::arg("inputs"), py::arg("attrs"),
           py::arg("device"), py::arg("control_inputs"))
      .def("gradients", &PyGraph::Gradients, py::arg("ys"), py::arg("xs"), py::arg("grad_ys"), py::arg("prefix"),
           py::arg("device"), py::arg("control_inputs"), py::arg("zeros_for_unconnected"),
           py::arg("custom_gradient") = py::none())
      .def("add_function_library", &PyGraph::AddFunctionLibrary)
      .def("library", &PyGraph::Library)
      .def("has_function", &PyGraph::HasFunction)
      .def("function_signature", &PyGraph::FunctionSignature)
      .def("declare_function", &PyGraph::DeclareFunction)
      .def("to_function_def", &PyGraph::ToFunctionDef)
      .def("import_graph_def", &PyGraph::ImportGraphDef)
      .def("to_graph_def", &PyGraph::ToGraphDef, py::arg("first_id") = 0)
      .def("node_def", &PyGraph::NodeDefBytes)
      .def("find", &PyGraph::Find)
      .def("num_node_ids", &PyGraph::NumNodeIds)
      .def("name", &PyGraph::Name)
      .def("type", &PyGraph::Type)
      .def("device", &PyGraph::Device)
      .def("num_outputs", &PyGraph::NumOutputs)
      .def("output_types", &PyGraph::OutputTypes)
      .def("input_types", &PyGraph::InputTypes)
      .def("inputs", &PyGraph::Inputs)
      .def("control_inputs", &PyGraph::ControlInputs)
      .def("consumers", &PyGraph::Consumers)
      .def("output_shape", &PyGraph::OutputShape)
      .def("merge_output_shape", &PyGraph::MergeOutputShape)
      .def("attr", &PyGraph::Attr)
      .def("attr_names", &PyGraph::AttrNames)
      .def("set_device", &PyGraph::SetDevice)
      .def("set_private_attr", &PyGraph::SetPrivateAttr)
      .def("add_control_input", &PyGraph::AddControlInput)
      .def("update_input", &PyGraph::UpdateInput)
      .def("is_stateful", &PyGraph::IsStateful);
}

}  // namespace flowvm::python
