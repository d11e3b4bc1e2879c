// Writes the typed op builders of the C++ client API (flowvm/cc/ops.h and
// its .cc) from the op registry, at build time, so every registered op has
// a builder whose parameters follow its OpDef:
//   - one `Input` per input argument (`InputList` for lists);
//   - then each attr that has no default and is not inferred from an input
//     (Cast's DstT, Placeholder's dtype, Conv2D's strides and padding);
//   - then `const Attrs&` for the attrs with defaults, set by chained
//     setters named in CamelCase: MatMul::TransposeA(true).
// Each builder is a class whose members are the op's outputs, named as in
// the OpDef; a single-output op converts to Output, a no-output op to
// Operation.
//
// Usage: flowvm_op_gen OUT_HEADER OUT_SOURCE
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>

#include "graph/op_registry.h"

namespace flowvm {
namespace {

const std::set<std::string>& CppKeywords() {
  static const std::set<std::string> k = {
      "alignas",  "alignof",   "and",      "asm",       "auto",     "bool",    "break",    "case",
      "catch",    "char",      "class",    "const",     "continue", "default", "delete",   "do",
      "double",   "else",      "enum",     "explicit",  "export",   "extern",  "false",    "float",
      "for",      "friend",    "goto",     "if",        "inline",   "int",     "long",     "mutable",
      "namespace", "new",      "not",      "operator",  "or",       "private", "protected", "public",
      "register", "return",    "short",    "signed",    "sizeof",   "static",  "struct",   "switch",
      "template", "this",      "throw",    "true",      "try",      "typedef", "union",    "unsigned",
      "using",    "virtual",   "void",     "volatile",  "while",    "scope",   "attrs",    "operation",
      "node"};
  return k;
}

std::string Identifier(const std::string& name) { return CppKeywords().count(name) ? name + "_" : name; }

std::string CamelCase(const std::string& name) {
  std::string out;
  bool up = true;
  for (char c : name) {
    if (c == '_') {
      up = true;
      continue;
    }
    out += up ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    up = false;
  }
  return out;
}

// The C++ parameter type of an attr type, or "" if it has none.
std::string AttrCppType(const std::string& type) {
  if (type == "int") return "int64_t";
  if (type == "float") return "float";
  if (type == "bool") return "bool";
  if (type == "string") return "const std::string&";
  if (type == "type") return "DataType";
  if (type == "shape") return "const PartialTensorShape&";
  if (type == "tensor") return "const Tensor&";
  if (type == "list(int)") return "const std::vector<int64_t>&";
  if (type == "list(type)") return "const std::vector<DataType>&";
  if (type == "list(string)") return "const std::vector<std::string>&";
  if (type == "list(shape)") return "const std::vector<PartialTensorShape>&";
  if (type == "func") return "const NameAttrList&";
  if (type == "list(func)") return "const std::vector<NameAttrList>&";
  return "";
}

struct OpInfo {
  const OpDef* def;
  std::vector<const OpDef::AttrDef*> required, optional;
};

OpInfo Analyze(const OpDef& def) {
  std::set<std::string> inferred;
  for (const auto& arg : def.input_arg()) {
    if (!arg.type_attr().empty()) inferred.insert(arg.type_attr());
    if (!arg.number_attr().empty()) inferred.insert(arg.number_attr());
    if (!arg.type_list_attr().empty()) inferred.insert(arg.type_list_attr());
  }
  OpInfo info{&def, {}, {}};
  for (const auto& attr : def.attr()) {
    if (inferred.count(attr.name())) continue;
    if (attr.has_default_value())
      info.optional.push_back(&attr);
    else
      info.required.push_back(&attr);
  }
  return info;
}

bool IsListArg(const OpDef::ArgDef& arg) { return !arg.number_attr().empty() || !arg.type_list_attr().empty(); }

std::string Params(const OpInfo& info) {
  std::ostringstream p;
  p << "const ::flowvm::Scope& scope";
  for (const auto& arg : info.def->input_arg())
    p << ", " << (IsListArg(arg) ? "::flowvm::InputList " : "::flowvm::Input ") << Identifier(arg.name());
  for (const auto* attr : info.required) p << ", " << AttrCppType(attr->type()) << " " << Identifier(attr->name());
  return p.str();
}

void WriteOp(const OpDef& def, std::ostream& h, std::ostream& cc) {
  OpInfo info = Analyze(def);
  const std::string& name = def.name();
  for (const auto& attr : def.attr()) {
    if (AttrCppType(attr.type()).empty()) {
      bool inferred = false;
      for (const auto& arg : def.input_arg())
        inferred = inferred || arg.type_attr() == attr.name() || arg.number_attr() == attr.name() ||
                   arg.type_list_attr() == attr.name();
      if (!inferred) {
        std::fprintf(stderr, "flowvm_op_gen: op %s attr %s has unsupported type %s\n", name.c_str(),
                     attr.name().c_str(), attr.type().c_str());
        std::exit(1);
      }
    }
  }
  // ---- header ----
  h << "\n// " << (def.summary().empty() ? name : def.summary()) << "\n";
  h << "class " << name << " {\n public:\n";
  if (!info.optional.empty()) {
    h << "  struct Attrs {\n";
    for (const auto* attr : info.optional)
      h << "    Attrs " << CamelCase(attr->name()) << "(" << AttrCppType(attr->type()) << " x) const;\n";
    h << "    std::map<std::string, AttrValue> values;\n  };\n";
  }
  h << "  " << name << "(" << Params(info) << (info.optional.empty() ? "" : ", const Attrs& attrs = Attrs()")
    << ");\n";
  for (const auto* attr : info.optional) {
    std::string setter = CamelCase(attr->name());
    if (setter == name) continue;
    h << "  static Attrs " << setter << "(" << AttrCppType(attr->type()) << " x) { return Attrs()." << setter
      << "(x); }\n";
  }
  const auto& outs = def.output_arg();
  if (outs.size() == 1 && !IsListArg(outs[0])) {
    h << "  operator ::flowvm::Output() const { return " << Identifier(outs[0].name()) << "; }\n";
    h << "  operator ::flowvm::Input() const { return " << Identifier(outs[0].name()) << "; }\n";
  } else if (outs.empty()) {
    h << "  operator ::flowvm::Operation() const { return operation; }\n";
  }
  h << "  ::flowvm::Operation operation;\n";
  for (const auto& out : outs)
    h << "  " << (IsListArg(out) ? "::flowvm::OutputList " : "::flowvm::Output ") << Identifier(out.name()) << ";\n";
  h << "};\n";

  // ---- source ----
  for (const auto* attr : info.optional) {
    cc << name << "::Attrs " << name << "::Attrs::" << CamelCase(attr->name()) << "(" << AttrCppType(attr->type())
       << " x) const {\n  Attrs r = *this;\n  r.values[\"" << attr->name() << "\"] = MakeAttrValue(x);\n  return r;\n}\n";
  }
  cc << name << "::" << name << "(" << Params(info) << (info.optional.empty() ? "" : ", const Attrs& attrs")
     << ") {\n";
  cc << "  cc_internal::OpBuilder fvm_builder(scope, \"" << name << "\");\n";
  for (const auto& arg : def.input_arg())
    cc << "  fvm_builder." << (IsListArg(arg) ? "AddInputList(" : "AddInput(") << Identifier(arg.name()) << ");\n";
  for (const auto* attr : info.required)
    cc << "  fvm_builder.SetAttr(\"" << attr->name() << "\", " << Identifier(attr->name()) << ");\n";
  if (!info.optional.empty()) cc << "  fvm_builder.SetAttrs(attrs.values);\n";
  cc << "  Node* fvm_node = fvm_builder.Finalize();\n";
  cc << "  operation = Operation(fvm_node);\n";
  bool any_list = false;
  for (const auto& out : outs) any_list = any_list || IsListArg(out);
  for (int i = 0; i < outs.size(); ++i) {
    const auto& out = outs[i];
    if (IsListArg(out))
      cc << "  " << Identifier(out.name()) << " = cc_internal::OutputRange(scope, fvm_node, \"" << out.name()
         << "\");\n";
    else if (!any_list)
      cc << "  " << Identifier(out.name()) << " = cc_internal::OutputAt(fvm_node, " << i << ");\n";
    else
      cc << "  { OutputList r = cc_internal::OutputRange(scope, fvm_node, \"" << out.name() << "\"); if (!r.empty()) "
         << Identifier(out.name()) << " = r[0]; }\n";
  }
  cc << "}\n\n";
}

int Main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: flowvm_op_gen OUT_HEADER OUT_SOURCE\n");
    return 2;
  }
  std::ostringstream h, cc;
  h << "// Generated by flowvm_op_gen from the op registry: do not edit.\n"
       "// Typed builders for every op; see flowvm/cc/scope.h and the generator\n"
       "// (src/cc/gen/op_gen_main.cc) for the conventions.\n"
       "#ifndef FLOWVM_CC_OPS_H_\n#define FLOWVM_CC_OPS_H_\n\n"
       "#include <cstdint>\n#include <map>\n#include <string>\n#include <vector>\n\n"
       "#include \"flowvm/attr_value.pb.h\"\n#include \"flowvm/cc/scope.h\"\n"
       "#include \"flowvm/tensor_shape.h\"\n\n"
       "namespace flowvm {\nnamespace ops {\n";
  cc << "// Generated by flowvm_op_gen from the op registry: do not edit.\n"
        "#include \"flowvm/cc/ops.h\"\n\n#include \"cc/op_builder.h\"\n\n"
        "namespace flowvm {\nnamespace ops {\n\n";
  for (const std::string& op : OpRegistry::Global()->ListOps()) {
    if (op == "Const") continue;  // hand-written: ops::Const(scope, value) in scope.h
    auto reg = OpRegistry::Global()->LookUp(op);
    WriteOp((*reg)->op_def, h, cc);
  }
  h << "\n}  // namespace ops\n}  // namespace flowvm\n\n#endif  // FLOWVM_CC_OPS_H_\n";
  cc << "}  // namespace ops\n}  // namespace flowvm\n";
  // Rewrite only on change, so an unchanged registry does not rebuild users.
  auto write = [](const char* path, const std::string& text) {
    std::ifstream in(path, std::ios::binary);
    std::string old((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (old == text) return true;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    return static_cast<bool>(out);
  };
  if (!write(argv[1], h.str()) || !write(argv[2], cc.str())) {
    std::fprintf(stderr, "flowvm_op_gen: cannot write %s / %s\n", argv[1], argv[2]);
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace flowvm

int main(int argc, char** argv) { return flowvm::Main(argc, argv); }
