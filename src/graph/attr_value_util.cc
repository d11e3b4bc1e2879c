#include "graph/attr_value_util.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

namespace flowvm {

namespace {

// Keeps the text parser's first complaint for the error (instead of logging).
class FirstTextError : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (first.empty()) first = message;
  }
  std::string first;
};

const char* const kScalarTypes[] = {"string", "int", "float", "bool", "type", "shape", "tensor", "func"};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Splits "a, b, [c, d]" at top-level commas.
std::vector<std::string_view> SplitTopLevel(std::string_view s) {
  std::vector<std::string_view> parts;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '[' || c == '{' || c == '(') {
      ++depth;
    } else if (c == ']' || c == '}' || c == ')') {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(Trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  std::string_view last = Trim(s.substr(start));
  if (!last.empty() || !parts.empty()) parts.push_back(last);
  return parts;
}

Status ParseInt(std::string_view text, int64_t* out) {
  text = Trim(text);
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return errors::InvalidArgument("'", text, "' is not an integer");
  return Status::OK();
}

Status ParseFloat(std::string_view text, float* out) {
  std::string t(Trim(text));
  if (t == "inf") { *out = INFINITY; return Status::OK(); }
  if (t == "-inf") { *out = -INFINITY; return Status::OK(); }
  char* end = nullptr;
  *out = std::strtof(t.c_str(), &end);
  if (t.empty() || end != t.c_str() + t.size()) return errors::InvalidArgument("'", t, "' is not a number");
  return Status::OK();
}

Status ParseBool(std::string_view text, bool* out) {
  text = Trim(text);
  if (text == "true") { *out = true; return Status::OK(); }
  if (text == "false") { *out = false; return Status::OK(); }
  return errors::InvalidArgument("'", text, "' is not true or false");
}

Status ParseString(std::string_view text, std::string* out) {
  text = Trim(text);
  if (text.size() < 2 || (text.front() != '\'' && text.front() != '"') || text.back() != text.front())
    return errors::InvalidArgument("'", text, "' is not a quoted string");
  *out = std::string(text.substr(1, text.size() - 2));
  return Status::OK();
}

Status ParseShape(std::string_view text, TensorShapeProto* out) {
  text = Trim(text);
  out->Clear();
  if (text == "<unknown>") {
    out->set_unknown_rank(true);
    return Status::OK();
  }
  if (text.size() < 2 || text.front() != '[' || text.back() != ']')
    return errors::InvalidArgument("'", text, "' is not a shape like [2, -1] or <unknown>");
  for (std::string_view part : SplitTopLevel(text.substr(1, text.size() - 2))) {
    int64_t d;
    FLOWVM_RETURN_IF_ERROR(ParseInt(part, &d));
    out->add_dim()->set_size(d);
  }
  return Status::OK();
}

Status ParseScalar(std::string_view type, std::string_view text, AttrValue* out) {
  if (type == "int") {
    int64_t v = 0;
    FLOWVM_RETURN_IF_ERROR(ParseInt(text, &v));
    out->set_i(v);
  } else if (type == "float") {
    float v = 0;
    FLOWVM_RETURN_IF_ERROR(ParseFloat(text, &v));
    out->set_f(v);
  } else if (type == "bool") {
    bool v = false;
    FLOWVM_RETURN_IF_ERROR(ParseBool(text, &v));
    out->set_b(v);
  } else if (type == "string") {
    FLOWVM_RETURN_IF_ERROR(ParseString(text, out->mutable_s()));
  } else if (type == "type") {
    FLOWVM_ASSIGN_OR_RETURN(DataType t, DataTypeFromName(Trim(text)));
    out->set_type(t);
  } else if (type == "shape") {
    FLOWVM_RETURN_IF_ERROR(ParseShape(text, out->mutable_shape()));
  } else if (type == "tensor") {
    // A TensorProto in text format inside braces, as TensorFlow writes
    // ImageSummary's bad_color: { dtype: DT_UINT8 int_val: 255 ... }.
    text = Trim(text);
    if (text.size() < 2 || text.front() != '{' || text.back() != '}')
      return errors::InvalidArgument("tensor default '", text, "' is not a TensorProto in braces");
    const std::string body(text.substr(1, text.size() - 2));
    google::protobuf::TextFormat::Parser parser;
    FirstTextError error;
    parser.RecordErrorsTo(&error);
    if (!parser.ParseFromString(body, out->mutable_tensor()))
      return errors::InvalidArgument("tensor default '", text, "' is not a TensorProto in text format: ",
                                     error.first);
  } else {
    return errors::InvalidArgument("attrs of type ", type, " cannot have a default in an op spec");
  }
  return Status::OK();
}

}  // namespace

bool IsValidAttrType(std::string_view type) {
  std::string_view base = type;
  if (base.substr(0, 5) == "list(" && base.back() == ')') base = base.substr(5, base.size() - 6);
  for (const char* t : kScalarTypes)
    if (base == t) return true;
  return false;
}

Status AttrValueHasType(const AttrValue& v, std::string_view type) {
  bool is_list = type.substr(0, 5) == "list(";
  std::string_view base = is_list ? type.substr(5, type.size() - 6) : type;
  if (is_list) {
    if (v.value_case() != AttrValue::kList)
      return errors::InvalidArgument("expected a list(", base, "), got ", SummarizeAttrValue(v));
    const auto& l = v.list();
    int n_kinds = (l.s_size() > 0) + (l.i_size() > 0) + (l.f_size() > 0) + (l.b_size() > 0) + (l.type_size() > 0) +
                  (l.shape_size() > 0) + (l.tensor_size() > 0) + (l.func_size() > 0);
    if (n_kinds == 0) return Status::OK();
    bool ok = n_kinds == 1 && ((base == "string" && l.s_size()) || (base == "int" && l.i_size()) ||
                               (base == "float" && l.f_size()) || (base == "bool" && l.b_size()) ||
                               (base == "type" && l.type_size()) || (base == "shape" && l.shape_size()) ||
                               (base == "tensor" && l.tensor_size()) || (base == "func" && l.func_size()));
    if (!ok) return errors::InvalidArgument("expected a list(", base, "), got ", SummarizeAttrValue(v));
    return Status::OK();
  }
  AttrValue::ValueCase want;
  if (base == "string") want = AttrValue::kS;
  else if (base == "int") want = AttrValue::kI;
  else if (base == "float") want = AttrValue::kF;
  else if (base == "bool") want = AttrValue::kB;
  else if (base == "type") want = AttrValue::kType;
  else if (base == "shape") want = AttrValue::kShape;
  else if (base == "tensor") want = AttrValue::kTensor;
  else if (base == "func") want = AttrValue::kFunc;
  else return errors::InvalidArgument("unknown attr type '", type, "'");
  if (v.value_case() != want) {
    // An int attr written as a float-less value, or a bool written as int,
    // is still a type error: TensorFlow is strict here and so are we.
    return errors::InvalidArgument("expected a ", type, ", got ",
                                   v.value_case() == AttrValue::VALUE_NOT_SET ? "no value" : SummarizeAttrValue(v));
  }
  return Status::OK();
}

Status ParseAttrValue(std::string_view type, std::string_view text, AttrValue* out) {
  out->Clear();
  text = Trim(text);
  if (type.substr(0, 5) == "list(") {
    std::string_view base = type.substr(5, type.size() - 6);
    if (text.size() < 2 || text.front() != '[' || text.back() != ']')
      return errors::InvalidArgument("'", text, "' is not a list like [a, b]");
    auto* list = out->mutable_list();
    for (std::string_view part : SplitTopLevel(text.substr(1, text.size() - 2))) {
      AttrValue item;
      FLOWVM_RETURN_IF_ERROR(ParseScalar(base, part, &item));
      if (base == "int") list->add_i(item.i());
      else if (base == "float") list->add_f(item.f());
      else if (base == "bool") list->add_b(item.b());
      else if (base == "string") list->add_s(item.s());
      else if (base == "type") list->add_type(item.type());
      else if (base == "shape") *list->add_shape() = item.shape();
    }
    return Status::OK();
  }
  return ParseScalar(type, text, out);
}

std::string SummarizeAttrValue(const AttrValue& v) {
  auto shape = [](const TensorShapeProto& s) {
    auto p = PartialTensorShape::FromProto(s);
    return p.ok() ? p->DebugString() : std::string("<invalid shape>");
  };
  switch (v.value_case()) {
    case AttrValue::kS: return "\"" + v.s() + "\"";
    case AttrValue::kI: return std::to_string(v.i());
    case AttrValue::kF: return internal::StrCat(v.f());
    case AttrValue::kB: return v.b() ? "true" : "false";
    case AttrValue::kType: return DataTypeName(v.type());
    case AttrValue::kShape: return shape(v.shape());
    case AttrValue::kTensor: {
      // At most 10 values are shown: do not materialize a tensor whose proto
      // describes far more (a huge shape, repeated strings) than it carries.
      auto dims = TensorShape::FromProto(v.tensor().tensor_shape());
      if (dims.ok()) {
        int64_t n = dims->num_elements();
        size_t longest = 0;
        for (const auto& s : v.tensor().string_val()) longest = std::max(longest, s.size());
        if (n > (int64_t{1} << 16) || (longest > 0 && static_cast<uint64_t>(n) * longest > (uint64_t{1} << 24)))
          return DataTypeName(v.tensor().dtype()) + " " + dims->DebugString() + " <" + std::to_string(n) +
                 " values>";
      }
      auto t = Tensor::FromProto(v.tensor());
      return t.ok() ? t->DebugString(10) : "<invalid tensor: " + t.status().message() + ">";
    }
    case AttrValue::kPlaceholder: return "$" + v.placeholder();
    case AttrValue::kFunc: return "func " + v.func().name();
    case AttrValue::kList: {
      const auto& l = v.list();
      std::vector<std::string> items;
      for (const auto& s : l.s()) items.push_back("\"" + s + "\"");
      for (auto i : l.i()) items.push_back(std::to_string(i));
      for (auto f : l.f()) items.push_back(internal::StrCat(f));
      for (auto b : l.b()) items.push_back(b ? "true" : "false");
      for (auto t : l.type()) items.push_back(DataTypeName(static_cast<DataType>(t)));
      for (const auto& s : l.shape()) items.push_back(shape(s));
      for (const auto& t : l.tensor()) items.push_back("<tensor " + DataTypeName(t.dtype()) + ">");
      for (const auto& f : l.func()) items.push_back("func " + f.name());
      std::string out = "[";
      for (size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
      return out + "]";
    }
    case AttrValue::VALUE_NOT_SET: return "<no value>";
  }
  return "<unknown>";
}

void SetAttrValue(int64_t v, AttrValue* out) { out->set_i(v); }
void SetAttrValue(int v, AttrValue* out) { out->set_i(v); }
void SetAttrValue(float v, AttrValue* out) { out->set_f(v); }
void SetAttrValue(bool v, AttrValue* out) { out->set_b(v); }
void SetAttrValue(const char* v, AttrValue* out) { out->set_s(v); }
void SetAttrValue(const std::string& v, AttrValue* out) { out->set_s(v); }
void SetAttrValue(DataType v, AttrValue* out) { out->set_type(v); }
void SetAttrValue(const TensorShape& v, AttrValue* out) { v.AsProto(out->mutable_shape()); }
void SetAttrValue(const PartialTensorShape& v, AttrValue* out) { v.AsProto(out->mutable_shape()); }
void SetAttrValue(const Tensor& v, AttrValue* out) { v.AsProtoTensorContent(out->mutable_tensor()); }
void SetAttrValue(const std::vector<int64_t>& v, AttrValue* out) {
  auto* l = out->mutable_list();
  for (auto x : v) l->add_i(x);
}
void SetAttrValue(const std::vector<DataType>& v, AttrValue* out) {
  auto* l = out->mutable_list();
  for (auto x : v) l->add_type(x);
}
void SetAttrValue(const std::vector<std::string>& v, AttrValue* out) {
  auto* l = out->mutable_list();
  for (const auto& x : v) l->add_s(x);
}

void SetAttrValue(const std::vector<PartialTensorShape>& v, AttrValue* out) {
  auto* l = out->mutable_list();
  for (const auto& x : v) x.AsProto(l->add_shape());
}

void SetAttrValue(const NameAttrList& v, AttrValue* out) { *out->mutable_func() = v; }

void SetAttrValue(const std::vector<NameAttrList>& v, AttrValue* out) {
  auto* list = out->mutable_list();
  list->Clear();
  for (const NameAttrList& f : v) *list->add_func() = f;
}

bool AttrValuesEqual(const AttrValue& a, const AttrValue& b) {
  return google::protobuf::util::MessageDifferencer::Equals(a, b);
}

}  // namespace flowvm
