#include "graph/op_registry.h"

#include <cstdio>
#include <cstdlib>

#include "graph/attr_value_util.h"

namespace flowvm {

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// Named groups of types usable in "T: numbertype" style specs.
bool TypeGroup(std::string_view name, std::vector<DataType>* out) {
  if (name == "numbertype") {
    *out = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_COMPLEX64, DT_INT64, DT_QINT8,
            DT_QUINT8, DT_QINT32, DT_BFLOAT16, DT_QINT16, DT_QUINT16, DT_UINT16, DT_COMPLEX128, DT_HALF,
            DT_UINT32, DT_UINT64};
  } else if (name == "realnumbertype") {
    *out = {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_UINT8, DT_INT16, DT_INT8, DT_INT64, DT_BFLOAT16,
            DT_UINT16, DT_HALF, DT_UINT32, DT_UINT64};
  } else if (name == "quantizedtype") {
    *out = {DT_QINT8, DT_QUINT8, DT_QINT32, DT_QINT16, DT_QUINT16};
  } else if (name == "floatingpointtype") {
    *out = {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
  } else {
    return false;
  }
  return true;
}

struct ParsedAttr {
  std::string name;
  std::string type;
  std::string_view default_text;
};

Status ParseAttrSpec(std::string_view spec, OpDef::AttrDef* attr) {
  size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return errors::InvalidArgument("attr spec '", spec, "' has no ':'");
  attr->set_name(std::string(Trim(spec.substr(0, colon))));
  std::string_view rest = Trim(spec.substr(colon + 1));
  std::string_view default_text;
  // '=' outside quotes and braces starts the default.
  {
    char quote = 0;
    int depth = 0;
    for (size_t i = 0; i < rest.size(); ++i) {
      char c = rest[i];
      if (quote) { if (c == quote) quote = 0; continue; }
      if (c == '\'' || c == '"') quote = c;
      else if (c == '{' || c == '(' || c == '[') ++depth;
      else if (c == '}' || c == ')' || c == ']') --depth;
      else if (c == '=' && depth == 0 && (i == 0 || rest[i - 1] != '>')) {
        default_text = Trim(rest.substr(i + 1));
        rest = Trim(rest.substr(0, i));
        break;
      }
    }
  }
  // Minimum: "int >= 2", "list(type) >= 1".
  size_t ge = rest.find(">=");
  if (ge != std::string_view::npos) {
    std::string num(Trim(rest.substr(ge + 2)));
    char* end = nullptr;
    long long m = std::strtoll(num.c_str(), &end, 10);
    if (num.empty() || *end != '\0') return errors::InvalidArgument("bad minimum in attr spec '", spec, "'");
    attr->set_has_minimum(true);
    attr->set_minimum(m);
    rest = Trim(rest.substr(0, ge));
  }
  bool is_list = rest.substr(0, 5) == "list(" && rest.back() == ')';
  std::string_view inner = is_list ? Trim(rest.substr(5, rest.size() - 6)) : rest;
  std::string base;
  std::vector<DataType> group;
  if (!inner.empty() && inner.front() == '{') {
    if (inner.back() != '}') return errors::InvalidArgument("unbalanced '{' in attr spec '", spec, "'");
    std::string_view body = inner.substr(1, inner.size() - 2);
    bool strings = body.find('\'') != std::string_view::npos || body.find('"') != std::string_view::npos;
    base = strings ? "string" : "type";
    auto* allowed = attr->mutable_allowed_values()->mutable_list();
    size_t start = 0;
    while (start <= body.size()) {
      size_t comma = body.find(',', start);
      std::string_view item = Trim(body.substr(start, comma == std::string_view::npos ? body.npos : comma - start));
      if (!item.empty()) {
        if (strings) {
          if (item.size() < 2) return errors::InvalidArgument("bad string in attr spec '", spec, "'");
          allowed->add_s(std::string(item.substr(1, item.size() - 2)));
        } else if (TypeGroup(item, &group)) {
          for (DataType t : group) allowed->add_type(t);
        } else {
          auto t = DataTypeFromName(item);
          if (!t.ok()) return errors::InvalidArgument("unknown type '", item, "' in attr spec '", spec, "'");
          allowed->add_type(*t);
        }
      }
      if (comma == std::string_view::npos) break;
      start = comma + 1;
    }
  } else if (TypeGroup(inner, &group)) {
    base = "type";
    for (DataType t : group) attr->mutable_allowed_values()->mutable_list()->add_type(t);
  } else {
    base = std::string(inner);
  }
  std::string type = is_list ? "list(" + base + ")" : base;
  if (!IsValidAttrType(type)) return errors::InvalidArgument("unknown attr type in spec '", spec, "'");
  attr->set_type(type);
  if (!default_text.empty()) {
    Status s = ParseAttrValue(type, default_text, attr->mutable_default_value());
    if (!s.ok()) return s.WithContext("default of attr spec '" + std::string(spec) + "'");
  }
  return Status::OK();
}

const OpDef::AttrDef* FindAttr(const OpDef& def, std::string_view name) {
  for (const auto& a : def.attr())
    if (a.name() == name) return &a;
  return nullptr;
}

Status ParseArgSpec(std::string_view spec, const OpDef& def, OpDef::ArgDef* arg) {
  size_t colon = spec.find(':');
  if (colon == std::string_view::npos) return errors::InvalidArgument("arg spec '", spec, "' has no ':'");
  arg->set_name(std::string(Trim(spec.substr(0, colon))));
  std::string_view rest = Trim(spec.substr(colon + 1));
  if (rest.substr(0, 4) == "Ref(" && rest.back() == ')') {
    arg->set_is_ref(true);
    rest = Trim(rest.substr(4, rest.size() - 5));
  }
  size_t star = rest.find('*');
  if (star != std::string_view::npos) {
    std::string number(Trim(rest.substr(0, star)));
    const auto* a = FindAttr(def, number);
    if (a == nullptr || a->type() != "int")
      return errors::InvalidArgument("arg spec '", spec, "' needs an int attr named '", number, "'");
    arg->set_number_attr(number);
    rest = Trim(rest.substr(star + 1));
  }
  std::string type_name(rest);
  auto concrete = DataTypeFromName(type_name);
  if (concrete.ok() && !IsRefType(*concrete)) {
    arg->set_type(*concrete);
    return Status::OK();
  }
  const auto* a = FindAttr(def, type_name);
  if (a == nullptr) return errors::InvalidArgument("arg spec '", spec, "' names no type or attr '", type_name, "'");
  if (a->type() == "type") {
    arg->set_type_attr(type_name);
  } else if (a->type() == "list(type)" && arg->number_attr().empty()) {
    arg->set_type_list_attr(type_name);
  } else {
    return errors::InvalidArgument("arg spec '", spec, "': attr '", type_name, "' is not a type or list(type)");
  }
  return Status::OK();
}

}  // namespace

OpDefBuilder::OpDefBuilder(std::string name) : name_(std::move(name)) {}
OpDefBuilder& OpDefBuilder::Input(std::string spec) { inputs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Output(std::string spec) { outputs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::Attr(std::string spec) { attrs_.push_back(std::move(spec)); return *this; }
OpDefBuilder& OpDefBuilder::SetIsStateful() { stateful_ = true; return *this; }
OpDefBuilder& OpDefBuilder::SetIsCommutative() { commutative_ = true; return *this; }
OpDefBuilder& OpDefBuilder::SetIsAggregate() { aggregate_ = true; return *this; }
OpDefBuilder& OpDefBuilder::SetAllowsUninitializedInput() { allows_uninit_ = true; return *this; }
OpDefBuilder& OpDefBuilder::SetShapeFn(ShapeFn fn) { shape_fn_ = std::move(fn); return *this; }
OpDefBuilder& OpDefBuilder::Doc(std::string summary) { summary_ = std::move(summary); return *this; }

Status OpDefBuilder::Finalize(OpRegistrationData* out) const {
  OpDef& def = out->op_def;
  def.Clear();
  def.set_name(name_);
  for (const auto& spec : attrs_) {
    Status s = ParseAttrSpec(spec, def.add_attr());
    if (!s.ok()) return s.WithContext("op " + name_);
  }
  for (const auto& spec : inputs_) {
    Status s = ParseArgSpec(spec, def, def.add_input_arg());
    if (!s.ok()) return s.WithContext("op " + name_);
  }
  for (const auto& spec : outputs_) {
    Status s = ParseArgSpec(spec, def, def.add_output_arg());
    if (!s.ok()) return s.WithContext("op " + name_);
  }
  def.set_is_stateful(stateful_);
  def.set_is_commutative(commutative_);
  def.set_is_aggregate(aggregate_);
  def.set_allows_uninitialized_input(allows_uninit_);
  def.set_summary(summary_);
  out->shape_fn = shape_fn_;
  return Status::OK();
}

OpRegistry* OpRegistry::Global() {
  static OpRegistry* registry = new OpRegistry();
  return registry;
}

const OpRegistrationData* OpRegistry::LookUpOrNull(const std::string& op) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = ops_.find(op);
  return it == ops_.end() ? nullptr : it->second.get();
}

StatusOr<const OpRegistrationData*> OpRegistry::LookUp(const std::string& op) const {
  const OpRegistrationData* data = LookUpOrNull(op);
  if (data != nullptr) return data;
  return errors::NotFound("op type '", op, "' is not registered in this build of flowvm");
}

std::vector<std::string> OpRegistry::ListOps() const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> names;
  for (const auto& [name, _] : ops_) names.push_back(name);
  return names;
}

void OpRegistry::Register(std::unique_ptr<OpRegistrationData> data) {
  std::lock_guard<std::mutex> lock(mu_);
  const std::string& name = data->op_def.name();
  if (ops_.count(name)) {
    std::fprintf(stderr, "flowvm: op '%s' registered twice\n", name.c_str());
    std::abort();
  }
  ops_[name] = std::move(data);
}

internal::OpRegistrar::OpRegistrar(const OpDefBuilder& builder) {
  auto data = std::make_unique<OpRegistrationData>();
  Status s = builder.Finalize(data.get());
  if (!s.ok()) {
    std::fprintf(stderr, "flowvm: bad op registration: %s\n", s.ToString().c_str());
    std::abort();
  }
  OpRegistry::Global()->Register(std::move(data));
}

}  // namespace flowvm
