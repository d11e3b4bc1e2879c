#include "cli_args.h"

#include <charconv>

namespace flowvm::cli {

const std::vector<std::string>& ParsedArgs::all(const std::string& flag) const {
  static const std::vector<std::string>* const kEmpty = new std::vector<std::string>();
  auto it = values.find(flag);
  return it == values.end() ? *kEmpty : it->second;
}

std::string ParsedArgs::last(const std::string& flag, const std::string& fallback) const {
  const auto& v = all(flag);
  return v.empty() ? fallback : v.back();
}

StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args, const std::set<std::string>& value_flags,
                               const std::set<std::string>& switch_flags) {
  ParsedArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') {
      out.positional.push_back(a);
      continue;
    }
    std::string flag = a, value;
    bool inline_value = false;
    size_t eq = a.find('=');
    if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
      flag = a.substr(0, eq);
      value = a.substr(eq + 1);
      inline_value = true;
    }
    if (switch_flags.count(flag)) {
      if (inline_value) return errors::InvalidArgument("flag ", flag, " takes no value");
      out.switches.insert(flag);
    } else if (value_flags.count(flag)) {
      if (!inline_value) {
        if (i + 1 >= args.size()) return errors::InvalidArgument("flag ", flag, " needs a value");
        value = args[++i];
      }
      out.values[flag].push_back(value);
    } else {
      return errors::InvalidArgument("unknown flag '", flag, "'");
    }
  }
  return out;
}

StatusOr<int64_t> ParseCount(const std::string& flag, const std::string& value) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (ec != std::errc() || ptr != value.data() + value.size() || v < 0)
    return errors::InvalidArgument("flag ", flag, " needs a non-negative integer, got '", value, "'");
  return v;
}

}  // namespace flowvm::cli
