#include "kernels/linalg/einsum_spec.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace flowvm::linalg {
namespace {

Status ParseSubscripts(const std::string& equation, const std::string& s, std::vector<int>* out) {
  bool seen_ellipsis = false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      if (s.compare(i, 3, "...") != 0 || seen_ellipsis)
        return errors::InvalidArgument("Einsum equation '", equation, "': '.' outside a single '...' in '", s, "'");
      seen_ellipsis = true;
      out->push_back(kEllipsis);
      i += 2;
    } else if (std::isalpha(static_cast<unsigned char>(c))) {
      out->push_back(c);
    } else {
      return errors::InvalidArgument("Einsum equation '", equation, "': invalid character '", std::string(1, c),
                                     "' (subscripts are letters and '...')");
    }
  }
  return Status::OK();
}

}  // namespace

bool EinsumSpec::has_ellipsis(int i) const {
  const std::vector<int>& l = i < 0 ? output : inputs[i];
  return std::find(l.begin(), l.end(), kEllipsis) != l.end();
}

Status ParseEinsumEquation(const std::string& equation, int num_inputs, EinsumSpec* spec) {
  *spec = EinsumSpec();
  const size_t arrow = equation.find("->");
  if (arrow != std::string::npos && equation.find("->", arrow + 2) != std::string::npos)
    return errors::InvalidArgument("Einsum equation '", equation, "' has more than one '->'");
  const std::string lhs = equation.substr(0, arrow);
  std::vector<std::string> operands(1);
  for (char c : lhs) {
    if (c == ',') operands.emplace_back();
    else operands.back() += c;
  }
  if (static_cast<int>(operands.size()) != num_inputs)
    return errors::InvalidArgument("Einsum equation '", equation, "' names ", operands.size(),
                                   " operands but the op has ", num_inputs, " inputs");
  if (num_inputs < 1 || num_inputs > 2)
    return errors::InvalidArgument("Einsum equation '", equation, "': 1 or 2 operands are supported, got ",
                                   num_inputs);
  std::map<int, int> count;
  bool any_ellipsis = false;
  for (const std::string& o : operands) {
    spec->inputs.emplace_back();
    FLOWVM_RETURN_IF_ERROR(ParseSubscripts(equation, o, &spec->inputs.back()));
    for (int l : spec->inputs.back()) {
      if (l == kEllipsis) any_ellipsis = true;
      else ++count[l];
    }
  }
  if (arrow != std::string::npos) {
    FLOWVM_RETURN_IF_ERROR(ParseSubscripts(equation, equation.substr(arrow + 2), &spec->output));
    std::map<int, int> seen;
    for (int l : spec->output) {
      if (l == kEllipsis) {
        if (!any_ellipsis)
          return errors::InvalidArgument("Einsum equation '", equation, "': output has '...' but no operand does");
        continue;
      }
      if (count.count(l) == 0)
        return errors::InvalidArgument("Einsum equation '", equation, "': output label '", std::string(1, char(l)),
                                       "' is in no operand");
      if (++seen[l] > 1)
        return errors::InvalidArgument("Einsum equation '", equation, "': output label '", std::string(1, char(l)),
                                       "' appears more than once");
    }
  } else {
    if (any_ellipsis) spec->output.push_back(kEllipsis);
    for (const auto& [label, n] : count)  // std::map: alphabetical (A-Z before a-z, as NumPy)
      if (n == 1) spec->output.push_back(label);
  }
  return Status::OK();
}

std::string EinsumEquation(const EinsumSpec& spec) {
  auto str = [](const std::vector<int>& l) {
    std::string s;
    for (int c : l) s += c == kEllipsis ? std::string("...") : std::string(1, static_cast<char>(c));
    return s;
  };
  std::string out;
  for (size_t i = 0; i < spec.inputs.size(); ++i) out += (i > 0 ? "," : "") + str(spec.inputs[i]);
  return out + "->" + str(spec.output);
}

}  // namespace flowvm::linalg
