#include "flowvm/cc/function.h"

#include "cc/op_builder.h"
#include "cc/scope_impl.h"
#include "graph/graph_to_function.h"

namespace flowvm {

FunctionBuilder::FunctionBuilder(std::string name) : name_(std::move(name)), scope_(Scope::NewRootScope()) {}

Output FunctionBuilder::Argument(const std::string& name, DataType dtype) {
  AttrMap attrs = {{"dtype", MakeAttrValue(dtype)}, {"shape", MakeAttrValue(PartialTensorShape())}};
  NodeOut n = GetGraphScope(scope_).WithOpName(name).Op("Placeholder", {}, attrs);
  Output out = ToOutput(n);
  if (out.valid()) {
    args_.push_back(out);
    arg_names_.push_back(name);
  }
  return out;
}

void FunctionBuilder::Return(const std::string& name, const Output& value) {
  rets_.push_back(value);
  ret_names_.push_back(name);
}

void FunctionBuilder::ControlReturn(const std::string& name, const Operation& op) {
  controls_.push_back(op);
  control_names_.push_back(name);
}

StatusOr<FunctionDef> FunctionBuilder::Build() const {
  FLOWVM_RETURN_IF_ERROR(scope_.status().WithContext("function '" + name_ + "'"));
  FunctionSignatureSpec spec;
  spec.name = name_;
  for (const Output& a : args_) spec.inputs.push_back(ToNodeOut(a));
  spec.input_names = arg_names_;
  for (const Output& r : rets_) spec.outputs.push_back(ToNodeOut(r));
  spec.output_names = ret_names_;
  for (const Operation& c : controls_) spec.control_outputs.push_back(c.node());
  spec.control_output_names = control_names_;
  FunctionDef fdef;
  FLOWVM_RETURN_IF_ERROR(GraphToFunctionDef(*scope_.impl()->graph, spec, &fdef));
  return fdef;
}

Status FunctionBuilder::AddTo(const Scope& scope) const {
  auto fdef = Build();
  if (!fdef.ok()) {
    scope.UpdateStatus(fdef.status());
    return fdef.status();
  }
  FunctionDefLibrary lib;
  scope_.impl()->graph->library().ToProto(&lib);  // the functions the body calls
  *lib.add_function() = *fdef;
  if (!gradient_.empty()) {
    GradientDef* g = lib.add_gradient();
    g->set_function_name(name_);
    g->set_gradient_func(gradient_);
  }
  return AddFunctionLibrary(scope, lib);
}

Status AddFunctionLibrary(const Scope& scope, const FunctionDefLibrary& library) {
  Status s = scope.impl()->graph->mutable_library()->AddLibrary(library);
  scope.UpdateStatus(s);
  return s;
}

OutputList CallFunction(const Scope& scope, const std::string& function, const InputList& inputs,
                        const std::vector<std::pair<std::string, AttrValue>>& attrs) {
  const FunctionDef* fdef = scope.impl()->graph->library().Find(function);
  if (fdef == nullptr) {
    scope.UpdateStatus(errors::NotFound("function '", function, "' is not in the graph's library; add it first"));
    return {};
  }
  // Split the inputs over the signature's arguments: a list argument takes
  // as many as its length attr says, or, if it is the only list, the rest.
  std::map<std::string, AttrValue> attr_map(attrs.begin(), attrs.end());
  const auto& args = fdef->signature().input_arg();
  int singles = 0, lists = 0;
  for (const auto& a : args) (a.number_attr().empty() && a.type_list_attr().empty()) ? ++singles : ++lists;
  const int total = static_cast<int>(inputs.inputs().size());
  cc_internal::OpBuilder builder(scope, function.c_str());
  size_t next = 0;
  for (const auto& a : args) {
    if (a.number_attr().empty() && a.type_list_attr().empty()) {
      if (next >= inputs.inputs().size()) break;
      builder.AddInput(inputs.inputs()[next++]);
      continue;
    }
    int n = -1;
    auto it = attr_map.find(!a.number_attr().empty() ? a.number_attr() : a.type_list_attr());
    if (it != attr_map.end()) n = !a.number_attr().empty() ? static_cast<int>(it->second.i()) : it->second.list().type_size();
    if (n < 0 && lists == 1) n = total - singles;
    if (n < 0) {
      scope.UpdateStatus(errors::InvalidArgument("calling function '", function, "': give the length of list argument '",
                                                 a.name(), "' as an attr"));
      return {};
    }
    std::vector<Input> part;
    for (int i = 0; i < n && next < inputs.inputs().size(); ++i) part.push_back(inputs.inputs()[next++]);
    builder.AddInputList(InputList(part));
  }
  if (next != inputs.inputs().size()) {
    scope.UpdateStatus(errors::InvalidArgument("function '", function, "' takes ", next, " inputs, not ", total));
    return {};
  }
  builder.SetAttrs(attr_map);
  Node* node = builder.Finalize();
  OutputList outs;
  if (node == nullptr) return outs;
  for (int i = 0; i < node->num_outputs(); ++i) outs.emplace_back(node, i);
  return outs;
}

}  // namespace flowvm
