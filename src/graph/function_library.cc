#include "graph/function_library.h"

#include <algorithm>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/message_differencer.h>

#include "graph/function_shape.h"
#include "graph/node_def_util.h"

namespace flowvm {

namespace {

std::string FunctionLabel(const FunctionDef& fdef) { return "function '" + fdef.signature().name() + "'"; }

// Every function name an attr value names (func, list(func), and the attrs
// of those, which may name functions in turn).
void CollectFunctions(const AttrValue& v, std::vector<std::string>* out) {
  if (v.has_func()) {
    out->push_back(v.func().name());
    for (const auto& [k, a] : v.func().attr()) CollectFunctions(a, out);
  }
  if (v.has_list())
    for (const NameAttrList& f : v.list().func()) {
      out->push_back(f.name());
      for (const auto& [k, a] : f.attr()) CollectFunctions(a, out);
    }
}

}  // namespace

FunctionLibraryDefinition::FunctionLibraryDefinition(const OpRegistry* ops) : ops_(ops) {}

Status FunctionLibraryDefinition::ValidateSignature(const FunctionDef& fdef) const {
  const OpDef& sig = fdef.signature();
  const std::string where = FunctionLabel(fdef);
  if (sig.name().empty()) return errors::InvalidArgument("a function in the library has no name");
  FLOWVM_RETURN_IF_ERROR(ValidateNodeName(sig.name(), /*allow_internal=*/true).WithContext(where));
  if (ops_->LookUpOrNull(sig.name()) != nullptr)
    return errors::InvalidArgument(where, ": the name is a registered op; a function cannot replace an op");
  std::map<std::string, std::string> attr_types;
  for (const OpDef::AttrDef& a : sig.attr()) {
    if (!attr_types.emplace(a.name(), a.type()).second)
      return errors::InvalidArgument(where, ": attr '", a.name(), "' is declared twice");
  }
  std::set<std::string> names;
  auto check_args = [&](const google::protobuf::RepeatedPtrField<OpDef::ArgDef>& args, const char* kind) -> Status {
    for (const OpDef::ArgDef& arg : args) {
      if (arg.name().empty()) return errors::InvalidArgument(where, ": an ", kind, " arg has no name");
      if (!names.insert(std::string(kind) + ":" + arg.name()).second)
        return errors::InvalidArgument(where, ": ", kind, " arg '", arg.name(), "' is declared twice");
      const int kinds = (arg.type() != DT_INVALID) + !arg.type_attr().empty() + !arg.type_list_attr().empty();
      if (kinds != 1)
        return errors::InvalidArgument(where, ": ", kind, " arg '", arg.name(),
                                       "' must have exactly one of type, type_attr and type_list_attr");
      auto need = [&](const std::string& attr, const std::string& type) -> Status {
        auto it = attr_types.find(attr);
        if (it == attr_types.end())
          return errors::InvalidArgument(where, ": ", kind, " arg '", arg.name(), "' refers to attr '", attr,
                                         "', which the signature does not declare");
        if (it->second != type)
          return errors::InvalidArgument(where, ": attr '", attr, "' of ", kind, " arg '", arg.name(),
                                         "' must be of type ", type, ", not ", it->second);
        return Status::OK();
      };
      if (!arg.type_attr().empty()) FLOWVM_RETURN_IF_ERROR(need(arg.type_attr(), "type"));
      if (!arg.type_list_attr().empty()) FLOWVM_RETURN_IF_ERROR(need(arg.type_list_attr(), "list(type)"));
      if (!arg.number_attr().empty()) {
        if (!arg.type_list_attr().empty())
          return errors::InvalidArgument(where, ": ", kind, " arg '", arg.name(),
                                         "' cannot have both number_attr and type_list_attr");
        FLOWVM_RETURN_IF_ERROR(need(arg.number_attr(), "int"));
      }
      if (arg.is_ref()) return errors::InvalidArgument(where, ": ", kind, " arg '", arg.name(), "' is a reference; function args cannot be");
    }
    return Status::OK();
  };
  FLOWVM_RETURN_IF_ERROR(check_args(sig.input_arg(), "input"));
  FLOWVM_RETURN_IF_ERROR(check_args(sig.output_arg(), "output"));
  for (const OpDef::ArgDef& arg : sig.output_arg())
    if (!fdef.ret().count(arg.name()))
      return errors::InvalidArgument(where, ": output '", arg.name(), "' has no entry in ret");
  for (const auto& [name, value] : fdef.ret()) {
    bool declared = false;
    for (const OpDef::ArgDef& arg : sig.output_arg()) declared |= arg.name() == name;
    if (!declared) return errors::InvalidArgument(where, ": ret '", name, "' is not an output of the signature");
  }
  std::set<std::string> node_names;
  for (const NodeDef& n : fdef.node_def()) {
    if (n.name().empty()) return errors::InvalidArgument(where, ": a node of its body has no name");
    if (!node_names.insert(n.name()).second)
      return errors::InvalidArgument(where, ": two nodes of its body are named '", n.name(), "'");
  }
  for (const std::string& c : sig.control_output())
    if (!fdef.control_ret().count(c))
      return errors::InvalidArgument(where, ": control output '", c, "' has no entry in control_ret");
  return Status::OK();
}

namespace {

// Same argument and result types (names may differ).
bool SameTypes(const OpDef& a, const OpDef& b) {
  auto same = [](const auto& x, const auto& y) {
    if (x.size() != y.size()) return false;
    for (int i = 0; i < x.size(); ++i)
      if (x[i].type() != y[i].type() || x[i].type_attr() != y[i].type_attr() ||
          x[i].number_attr() != y[i].number_attr() || x[i].type_list_attr() != y[i].type_list_attr())
        return false;
    return true;
  };
  return same(a.input_arg(), b.input_arg()) && same(a.output_arg(), b.output_arg());
}

}  // namespace

Status FunctionLibraryDefinition::AddDeclaration(const OpDef& signature) {
  FunctionDef fdef;
  *fdef.mutable_signature() = signature;
  const std::string where = "function '" + signature.name() + "'";
  auto it = functions_.find(signature.name());
  if (it != functions_.end()) {
    if (!SameTypes(it->second->fdef.signature(), signature))
      return errors::InvalidArgument(where, " is declared with other argument or result types than it has");
    return Status::OK();
  }
  // A declaration has no body: its outputs need no ret entries.
  FunctionDef check = fdef;
  for (const OpDef::ArgDef& out : signature.output_arg()) (*check.mutable_ret())[out.name()] = "_";
  FLOWVM_RETURN_IF_ERROR(ValidateSignature(check));
  auto entry = std::make_unique<Entry>();
  entry->fdef = fdef;
  entry->declared_only = true;
  entry->op = std::make_unique<OpRegistrationData>();
  entry->op->op_def = signature;
  entry->op->op_def.set_is_stateful(true);  // unknown until defined: never merged or folded
  const std::string name = signature.name();
  entry->op->shape_fn = [this, name](InferenceContext* c) { return InferFunctionCallShapes(*this, name, c); };
  functions_[name] = std::move(entry);
  return Status::OK();
}

Status FunctionLibraryDefinition::AddFunction(const FunctionDef& fdef) {
  const std::string& name = fdef.signature().name();
  auto it = functions_.find(name);
  if (it != functions_.end() && it->second->declared_only) {
    if (!SameTypes(it->second->fdef.signature(), fdef.signature()))
      return errors::InvalidArgument("function '", name,
                                     "' is defined with other argument or result types than it was declared with");
    // Calls made while it was only declared name its results by the
    // declaration's names.
    const auto& declared = it->second->fdef.signature().output_arg();
    const auto& defined = fdef.signature().output_arg();
    for (int i = 0; i < declared.size(); ++i)
      if (declared[i].name() != defined[i].name())
        return errors::InvalidArgument("function '", name, "' names result ", i, " '", defined[i].name(),
                                       "', but it was declared as '", declared[i].name(),
                                       "'; define it with the declared result names");
    FLOWVM_RETURN_IF_ERROR(ValidateSignature(fdef));
    // Nodes already point at the declaration's registration: keep it.
    it->second->fdef = fdef;
    it->second->declared_only = false;
    it->second->op->op_def = fdef.signature();
    UpdateStatefulness();
    return Status::OK();
  }
  if (it != functions_.end()) {
    if (google::protobuf::util::MessageDifferencer::Equals(it->second->fdef, fdef)) return Status::OK();
    return errors::InvalidArgument(FunctionLabel(fdef),
                                   " is already in the library with a different definition; a function name "
                                   "means one function");
  }
  FLOWVM_RETURN_IF_ERROR(ValidateSignature(fdef));
  auto entry = std::make_unique<Entry>();
  entry->fdef = fdef;
  entry->op = std::make_unique<OpRegistrationData>();
  entry->op->op_def = fdef.signature();
  entry->op->shape_fn = [this, name](InferenceContext* c) { return InferFunctionCallShapes(*this, name, c); };
  functions_[name] = std::move(entry);
  UpdateStatefulness();
  return Status::OK();
}

// A function is stateful if its signature says so or its body, directly or
// through the functions it calls, has a stateful op: its calls must then
// not be merged, folded or pruned as pure computations.
void FunctionLibraryDefinition::UpdateStatefulness() {
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& [fname, e] : functions_) {
      if (e->op->op_def.is_stateful()) continue;
      for (const NodeDef& n : e->fdef.node_def()) {
        const OpRegistrationData* reg = ops_->LookUpOrNull(n.op());
        if (reg == nullptr) reg = LookUpFunctionOp(n.op());
        if (reg != nullptr && reg->op_def.is_stateful()) {
          e->op->op_def.set_is_stateful(true);
          changed = true;
          break;
        }
      }
    }
  }
}

Status FunctionLibraryDefinition::AddGradient(const GradientDef& gdef) {
  if (gdef.function_name().empty() || gdef.gradient_func().empty())
    return errors::InvalidArgument("a GradientDef needs both function_name and gradient_func (got '",
                                   gdef.function_name(), "' and '", gdef.gradient_func(), "')");
  auto it = gradients_.find(gdef.function_name());
  if (it != gradients_.end() && it->second != gdef.gradient_func())
    return errors::InvalidArgument("function '", gdef.function_name(), "' already has gradient function '",
                                   it->second, "'; cannot also use '", gdef.gradient_func(), "'");
  gradients_[gdef.function_name()] = gdef.gradient_func();
  return Status::OK();
}

Status FunctionLibraryDefinition::AddLibrary(const FunctionDefLibrary& lib) {
  // Check everything first, so a failure adds nothing.
  std::map<std::string, const FunctionDef*> incoming;
  for (const FunctionDef& f : lib.function()) {
    const std::string& name = f.signature().name();
    auto it = functions_.find(name);
    if (it != functions_.end() && it->second->declared_only) {
      if (!SameTypes(it->second->fdef.signature(), f.signature()))
        return errors::InvalidArgument(FunctionLabel(f),
                                       " is defined with other argument or result types than it was declared with");
    } else if (it != functions_.end() && !google::protobuf::util::MessageDifferencer::Equals(it->second->fdef, f)) {
      return errors::InvalidArgument(FunctionLabel(f), " is already in the library with a different definition");
    }
    auto [in, fresh] = incoming.emplace(name, &f);
    if (!fresh && !google::protobuf::util::MessageDifferencer::Equals(*in->second, f))
      return errors::InvalidArgument(FunctionLabel(f), " is defined twice, differently, in one library");
    if (it == functions_.end() || it->second->declared_only) FLOWVM_RETURN_IF_ERROR(ValidateSignature(f));
  }
  for (const GradientDef& g : lib.gradient()) {
    auto it = gradients_.find(g.function_name());
    if (it != gradients_.end() && it->second != g.gradient_func())
      return errors::InvalidArgument("function '", g.function_name(), "' already has gradient function '",
                                     it->second, "'; cannot also use '", g.gradient_func(), "'");
  }
  for (const FunctionDef& f : lib.function()) FLOWVM_RETURN_IF_ERROR(AddFunction(f));
  for (const GradientDef& g : lib.gradient()) FLOWVM_RETURN_IF_ERROR(AddGradient(g));
  return Status::OK();
}

const FunctionDef* FunctionLibraryDefinition::Find(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() || it->second->declared_only ? nullptr : &it->second->fdef;
}

const OpRegistrationData* FunctionLibraryDefinition::LookUpFunctionOp(const std::string& name) const {
  auto it = functions_.find(name);
  return it == functions_.end() ? nullptr : it->second->op.get();
}

StatusOr<const OpRegistrationData*> FunctionLibraryDefinition::LookUpOp(const std::string& op) const {
  if (const OpRegistrationData* reg = ops_->LookUpOrNull(op)) return reg;
  if (const OpRegistrationData* fn = LookUpFunctionOp(op)) return fn;
  if (functions_.empty()) return errors::NotFound("op type '", op, "' is not registered in this build of flowvm");
  return errors::NotFound("op type '", op,
                          "' is neither registered in this build of flowvm nor a function of the graph's library");
}

std::string FunctionLibraryDefinition::GradientFunction(const std::string& name) const {
  auto it = gradients_.find(name);
  return it == gradients_.end() ? "" : it->second;
}

std::vector<std::string> FunctionLibraryDefinition::ListFunctionNames() const {
  std::vector<std::string> out;
  for (const auto& [name, e] : functions_)
    if (!e->declared_only) out.push_back(name);
  return out;
}

void FunctionLibraryDefinition::ToProto(FunctionDefLibrary* out) const {
  out->Clear();
  for (const auto& [name, e] : functions_)
    if (!e->declared_only) *out->add_function() = e->fdef;
  for (const auto& [f, g] : gradients_) {
    GradientDef* gd = out->add_gradient();
    gd->set_function_name(f);
    gd->set_gradient_func(g);
  }
}

std::vector<std::string> FunctionLibraryDefinition::CalledFunctions(const NodeDef& node) const {
  std::vector<std::string> out;
  if (Contains(node.op())) out.push_back(node.op());
  for (const auto& [k, v] : node.attr()) CollectFunctions(v, &out);
  return out;
}

void FunctionLibraryDefinition::ReachableProto(const std::set<std::string>& roots, FunctionDefLibrary* out) const {
  out->Clear();
  std::set<std::string> seen;
  std::vector<std::string> stack(roots.begin(), roots.end());
  while (!stack.empty()) {
    std::string name = stack.back();
    stack.pop_back();
    const FunctionDef* f = Find(name);
    if (f == nullptr || !seen.insert(name).second) continue;
    for (const NodeDef& n : f->node_def())
      for (std::string& c : CalledFunctions(n)) stack.push_back(std::move(c));
    for (const auto& [k, v] : f->attr()) {
      std::vector<std::string> more;
      CollectFunctions(v, &more);
      stack.insert(stack.end(), more.begin(), more.end());
    }
    std::string grad = GradientFunction(name);
    if (!grad.empty()) stack.push_back(grad);
  }
  for (const std::string& name : seen) *out->add_function() = *Find(name);
  for (const auto& [f, g] : gradients_) {
    if (!seen.count(f)) continue;
    GradientDef* gd = out->add_gradient();
    gd->set_function_name(f);
    gd->set_gradient_func(g);
  }
}

Status ExtendGraphDef(const GraphDef& extension, GraphDef* graph) {
  if (extension.has_library() && (extension.library().function_size() > 0 || extension.library().gradient_size() > 0)) {
    FunctionLibraryDefinition merged;
    FLOWVM_RETURN_IF_ERROR(merged.AddLibrary(graph->library()));
    FLOWVM_RETURN_IF_ERROR(merged.AddLibrary(extension.library()));
    merged.ToProto(graph->mutable_library());
  }
  for (const NodeDef& n : extension.node()) *graph->add_node() = n;
  if (extension.has_versions() && !graph->has_versions()) *graph->mutable_versions() = extension.versions();
  return Status::OK();
}

Status GetFunctionAttr(const NodeDef& node, const std::string& name, NameAttrList* out) {
  const AttrValue* v = FindNodeAttr(node, name);
  if (v == nullptr) return errors::NotFound(NodeLabel(node), ": has no attr '", name, "'");
  if (!v->has_func())
    return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "' is not a function (func)");
  *out = v->func();
  return Status::OK();
}

Status GetFunctionListAttr(const NodeDef& node, const std::string& name, std::vector<NameAttrList>* out) {
  const AttrValue* v = FindNodeAttr(node, name);
  if (v == nullptr) return errors::NotFound(NodeLabel(node), ": has no attr '", name, "'");
  if (v->value_case() != AttrValue::kList && v->value_case() != AttrValue::VALUE_NOT_SET)
    return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "' is not a list of functions (list(func))");
  out->assign(v->list().func().begin(), v->list().func().end());
  return Status::OK();
}

std::string CanonicalFunctionKey(const NameAttrList& func) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : func.attr()) {
    if (!k.empty() && k[0] == '_') continue;
    // Deterministic bytes: attrs that are functions carry maps of their own.
    std::string s;
    {
      google::protobuf::io::StringOutputStream stream(&s);
      google::protobuf::io::CodedOutputStream coded(&stream);
      coded.SetSerializationDeterministic(true);
      v.SerializeToCodedStream(&coded);
    }
    parts.push_back(k + "=" + s);
  }
  std::sort(parts.begin(), parts.end());
  std::string key = func.name() + "[";
  for (size_t i = 0; i < parts.size(); ++i) key += (i ? "," : "") + parts[i];
  return key + "]";
}

}  // namespace flowvm
