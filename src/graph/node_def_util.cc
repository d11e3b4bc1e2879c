#include "graph/node_def_util.h"

#include <set>

#include "graph/attr_value_util.h"
#include "graph/tensor_id.h"

namespace flowvm {

std::string NodeLabel(const NodeDef& node) {
  std::string label = "node '" + node.name() + "' (" + node.op() + ")";
  // A node of a function body (graph/function_body.h): which function, and
  // which functions called that one.
  const auto& funcs = node.experimental_debug_info().original_func_names();
  for (int i = 0; i < funcs.size(); ++i) label += (i == 0 ? " in function '" : ", called from '") + funcs[i] + "'";
  return label;
}

Status AttachNode(const Status& s, const NodeDef& node) {
  if (s.ok() || s.message().find("node '" + node.name() + "'") != std::string::npos) return s;
  return s.WithContext(NodeLabel(node));
}

Status ValidateNodeName(const std::string& name, bool allow_internal) {
  auto first_ok = [allow_internal](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || (allow_internal && c == '_');
  };
  auto rest_ok = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '/' || c == '>' || c == '-';
  };
  if (name.empty()) return errors::InvalidArgument("a node has an empty name");
  bool ok = first_ok(name[0]);
  for (size_t i = 1; ok && i < name.size(); ++i) ok = rest_ok(name[i]);
  if (!ok) {
    if (!allow_internal && name[0] == '_')
      return errors::InvalidArgument("node name '", name,
                                     "' is not valid: names beginning with '_' are reserved for the runtime's own nodes");
    return errors::InvalidArgument("node name '", name,
                                   "' is not valid (it must match [A-Za-z0-9.][A-Za-z0-9_./>-]*)");
  }
  return Status::OK();
}

void AddDefaultsToNodeDef(const OpDef& op, NodeDef* node) {
  for (const auto& attr : op.attr()) {
    if (attr.has_default_value() && node->attr().find(attr.name()) == node->attr().end())
      (*node->mutable_attr())[attr.name()] = attr.default_value();
  }
}

const AttrValue* FindNodeAttr(const NodeDef& node, const std::string& name) {
  auto it = node.attr().find(name);
  return it == node.attr().end() ? nullptr : &it->second;
}

namespace {

Status CheckAllowed(const NodeDef& node, const OpDef::AttrDef& def, const AttrValue& v) {
  if (!def.has_allowed_values()) return Status::OK();
  const auto& allowed = def.allowed_values().list();
  auto type_ok = [&](int t) {
    for (int a : allowed.type())
      if (a == t) return true;
    return false;
  };
  auto string_ok = [&](const std::string& s) {
    for (const auto& a : allowed.s())
      if (a == s) return true;
    return false;
  };
  auto list_of = [&]() {
    std::string out;
    for (int t : allowed.type()) out += (out.empty() ? "" : ", ") + DataTypeName(static_cast<DataType>(t));
    for (const auto& s : allowed.s()) out += (out.empty() ? "\"" : ", \"") + s + "\"";
    return out;
  };
  if (def.type() == "type" && !type_ok(v.type()))
    return errors::InvalidArgument(NodeLabel(node), ": attr '", def.name(), "' is ", DataTypeName(v.type()),
                                   ", which is not one of the allowed types {", list_of(), "}");
  if (def.type() == "list(type)")
    for (int t : v.list().type())
      if (!type_ok(t))
        return errors::InvalidArgument(NodeLabel(node), ": attr '", def.name(), "' contains ",
                                       DataTypeName(static_cast<DataType>(t)), ", which is not one of {", list_of(),
                                       "}");
  if (def.type() == "string" && !string_ok(v.s()))
    return errors::InvalidArgument(NodeLabel(node), ": attr '", def.name(), "' is \"", v.s(),
                                   "\", which is not one of {", list_of(), "}");
  return Status::OK();
}

Status CheckMinimum(const NodeDef& node, const OpDef::AttrDef& def, const AttrValue& v) {
  if (!def.has_minimum()) return Status::OK();
  int64_t got;
  if (def.type() == "int") got = v.i();
  else if (def.type().substr(0, 5) == "list(") {
    const auto& l = v.list();
    got = l.s_size() + l.i_size() + l.f_size() + l.b_size() + l.type_size() + l.shape_size() + l.tensor_size() +
          l.func_size();
  } else {
    return Status::OK();
  }
  if (got < def.minimum())
    return errors::InvalidArgument(NodeLabel(node), ": attr '", def.name(), "' is ", got, " (", def.type() == "int" ? "value" : "length",
                                   "), less than the minimum ", def.minimum());
  return Status::OK();
}

// Appends the types of one arg to `types`.
Status AddArgTypes(const NodeDef& node, const OpDef::ArgDef& arg, DataTypeVector* types) {
  int64_t repeats = 1;
  if (!arg.number_attr().empty()) {
    FLOWVM_RETURN_IF_ERROR(GetNodeAttr(node, arg.number_attr(), &repeats));
    if (repeats < 0)
      return errors::InvalidArgument(NodeLabel(node), ": attr '", arg.number_attr(), "' is negative (", repeats, ")");
    if (repeats > 1000000)
      return errors::InvalidArgument(NodeLabel(node), ": attr '", arg.number_attr(), "' is too large (", repeats, ")");
  }
  if (!arg.type_list_attr().empty()) {
    std::vector<DataType> list;
    FLOWVM_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_list_attr(), &list));
    for (DataType t : list) types->push_back(arg.is_ref() ? MakeRefType(t) : t);
    return Status::OK();
  }
  DataType t = arg.type();
  if (!arg.type_attr().empty()) FLOWVM_RETURN_IF_ERROR(GetNodeAttr(node, arg.type_attr(), &t));
  if (t == DT_INVALID || IsRefType(t))
    return errors::InvalidArgument(NodeLabel(node), ": arg '", arg.name(), "' has invalid type ", DataTypeName(t));
  for (int64_t i = 0; i < repeats; ++i) types->push_back(arg.is_ref() ? MakeRefType(t) : t);
  return Status::OK();
}

}  // namespace

Status InOutTypesForNode(const NodeDef& node, const OpDef& op, DataTypeVector* inputs, DataTypeVector* outputs) {
  inputs->clear();
  outputs->clear();
  for (const auto& arg : op.input_arg()) FLOWVM_RETURN_IF_ERROR(AddArgTypes(node, arg, inputs));
  for (const auto& arg : op.output_arg()) FLOWVM_RETURN_IF_ERROR(AddArgTypes(node, arg, outputs));
  return Status::OK();
}

Status NameRangeForArg(const NodeDef& node, const OpDef& op, const std::string& name, bool is_input, int* start,
                       int* end) {
  const auto& args = is_input ? op.input_arg() : op.output_arg();
  int index = 0;
  for (const auto& arg : args) {
    DataTypeVector types;
    FLOWVM_RETURN_IF_ERROR(AddArgTypes(node, arg, &types));
    if (arg.name() == name) {
      *start = index;
      *end = index + static_cast<int>(types.size());
      return Status::OK();
    }
    index += static_cast<int>(types.size());
  }
  return errors::NotFound(NodeLabel(node), ": op has no ", is_input ? "input" : "output", " named '", name, "'");
}

Status ValidateNodeDef(const NodeDef& node, const OpDef& op, bool allow_internal_name) {
  FLOWVM_RETURN_IF_ERROR(AttachNode(ValidateNodeName(node.name(), allow_internal_name), node));
  std::set<std::string> known;
  for (const auto& def : op.attr()) {
    known.insert(def.name());
    const AttrValue* v = FindNodeAttr(node, def.name());
    if (v == nullptr)
      return errors::InvalidArgument(NodeLabel(node), ": missing attr '", def.name(), "' of type ", def.type());
    Status s = AttrValueHasType(*v, def.type());
    if (!s.ok()) return errors::InvalidArgument(NodeLabel(node), ": attr '", def.name(), "': ", s.message());
    FLOWVM_RETURN_IF_ERROR(CheckAllowed(node, def, *v));
    FLOWVM_RETURN_IF_ERROR(CheckMinimum(node, def, *v));
  }
  for (const auto& [name, value] : node.attr()) {
    if (!known.count(name) && (name.empty() || name[0] != '_'))
      return errors::InvalidArgument(NodeLabel(node), ": unknown attr '", name, "' (op ", op.name(),
                                     " has no such attr)");
  }
  DataTypeVector inputs, outputs;
  FLOWVM_RETURN_IF_ERROR(InOutTypesForNode(node, op, &inputs, &outputs));
  int data_inputs = 0;
  bool seen_control = false;
  for (const auto& in : node.input()) {
    if (!in.empty() && in[0] == '^') {
      seen_control = true;
      continue;
    }
    if (seen_control)
      return errors::InvalidArgument(NodeLabel(node), ": data input '", in, "' comes after a control input");
    ++data_inputs;
  }
  if (data_inputs != static_cast<int>(inputs.size()))
    return errors::InvalidArgument(NodeLabel(node), ": expects ", inputs.size(), " data input",
                                   inputs.size() == 1 ? "" : "s", " but has ", data_inputs);
  return Status::OK();
}

namespace {

Status GetAttrOfType(const NodeDef& node, const std::string& name, std::string_view type, const AttrValue** out) {
  *out = FindNodeAttr(node, name);
  if (*out == nullptr) return errors::NotFound(NodeLabel(node), ": no attr named '", name, "'");
  Status s = AttrValueHasType(**out, type);
  if (!s.ok()) return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "': ", s.message());
  return Status::OK();
}

}  // namespace

#define FLOWVM_GET_ATTR(TYPE, ATTR_TYPE, EXPR)                                          \
  Status GetNodeAttr(const NodeDef& node, const std::string& name, TYPE* out) {         \
    const AttrValue* v;                                                                 \
    FLOWVM_RETURN_IF_ERROR(GetAttrOfType(node, name, ATTR_TYPE, &v));                   \
    EXPR;                                                                               \
    return Status::OK();                                                                \
  }

FLOWVM_GET_ATTR(int64_t, "int", *out = v->i())
FLOWVM_GET_ATTR(float, "float", *out = v->f())
FLOWVM_GET_ATTR(bool, "bool", *out = v->b())
FLOWVM_GET_ATTR(std::string, "string", *out = v->s())
FLOWVM_GET_ATTR(DataType, "type", *out = v->type())
FLOWVM_GET_ATTR(std::vector<int64_t>, "list(int)", out->assign(v->list().i().begin(), v->list().i().end()))
FLOWVM_GET_ATTR(std::vector<float>, "list(float)", out->assign(v->list().f().begin(), v->list().f().end()))
FLOWVM_GET_ATTR(std::vector<std::string>, "list(string)", out->assign(v->list().s().begin(), v->list().s().end()))
FLOWVM_GET_ATTR(std::vector<DataType>, "list(type)",
                out->clear();
                for (int t : v->list().type()) out->push_back(static_cast<DataType>(t)))
#undef FLOWVM_GET_ATTR

Status GetNodeAttr(const NodeDef& node, const std::string& name, int32_t* out) {
  int64_t v;
  FLOWVM_RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  if (v < INT32_MIN || v > INT32_MAX)
    return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "' value ", v, " does not fit in int32");
  *out = static_cast<int32_t>(v);
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<int32_t>* out) {
  std::vector<int64_t> v;
  FLOWVM_RETURN_IF_ERROR(GetNodeAttr(node, name, &v));
  out->clear();
  for (int64_t x : v) {
    if (x < INT32_MIN || x > INT32_MAX)
      return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "' value ", x, " does not fit in int32");
    out->push_back(static_cast<int32_t>(x));
  }
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, PartialTensorShape* out) {
  const AttrValue* v;
  FLOWVM_RETURN_IF_ERROR(GetAttrOfType(node, name, "shape", &v));
  auto s = PartialTensorShape::FromProto(v->shape());
  if (!s.ok()) return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "': ", s.status().message());
  *out = *s;
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, TensorShape* out) {
  const AttrValue* v;
  FLOWVM_RETURN_IF_ERROR(GetAttrOfType(node, name, "shape", &v));
  auto s = TensorShape::FromProto(v->shape());
  if (!s.ok()) return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "': ", s.status().message());
  *out = *s;
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<PartialTensorShape>* out) {
  const AttrValue* v;
  FLOWVM_RETURN_IF_ERROR(GetAttrOfType(node, name, "list(shape)", &v));
  out->clear();
  for (const auto& p : v->list().shape()) {
    auto s = PartialTensorShape::FromProto(p);
    if (!s.ok()) return errors::InvalidArgument(NodeLabel(node), ": attr '", name, "': ", s.status().message());
    out->push_back(*s);
  }
  return Status::OK();
}

Status GetNodeAttr(const NodeDef& node, const std::string& name, Tensor* out) {
  const AttrValue* v;
  FLOWVM_RETURN_IF_ERROR(GetAttrOfType(node, name, "tensor", &v));
  auto t = Tensor::FromProto(v->tensor());
  // Keeps the code: a value too large for the memory left is
  // ResourceExhausted, not a malformed attr.
  if (!t.ok()) return Status(t.status().code(), NodeLabel(node) + ": attr '" + name + "': " + t.status().message());
  *out = *t;
  return Status::OK();
}

}  // namespace flowvm
