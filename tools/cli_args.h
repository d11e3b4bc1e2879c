// Command-line parsing for the `flowvm` tool: flags with values
// ("--fetch y", "--fetch=y"), repeatable flags, and positional arguments.
#ifndef FLOWVM_TOOLS_CLI_ARGS_H_
#define FLOWVM_TOOLS_CLI_ARGS_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "flowvm/status.h"

namespace flowvm::cli {

struct ParsedArgs {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> values;  // flag -> values in order
  std::set<std::string> switches;                          // flags without values present

  const std::vector<std::string>& all(const std::string& flag) const;
  // The last value of a flag, or `fallback`.
  std::string last(const std::string& flag, const std::string& fallback) const;
  bool has(const std::string& flag) const { return switches.count(flag) > 0; }
};

// `value_flags` take a value, `switch_flags` do not (e.g. "-v"). Unknown
// flags are InvalidArgument.
StatusOr<ParsedArgs> ParseArgs(const std::vector<std::string>& args, const std::set<std::string>& value_flags,
                               const std::set<std::string>& switch_flags);

// Non-negative integer flag value, with the flag's name in the error.
StatusOr<int64_t> ParseCount(const std::string& flag, const std::string& value);

}  // namespace flowvm::cli

#endif  // FLOWVM_TOOLS_CLI_ARGS_H_
