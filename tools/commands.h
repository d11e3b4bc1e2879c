// The subcommands of `flowvm`. Each prints its results to stdout and returns
// the first error, which main() prints as one line.
#ifndef FLOWVM_TOOLS_COMMANDS_H_
#define FLOWVM_TOOLS_COMMANDS_H_

#include <string>
#include <vector>

#include "flowvm/status.h"

namespace flowvm::cli {

Status RunCommand(const std::vector<std::string>& args);
Status InspectCommand(const std::vector<std::string>& args);
Status OpsCommand(const std::vector<std::string>& args);
Status CheckpointCommand(const std::vector<std::string>& args);
Status ServerCommand(const std::vector<std::string>& args);
Status ClusterCommand(const std::vector<std::string>& args);
Status RecordsCommand(const std::vector<std::string>& args);
Status BoardCommand(const std::vector<std::string>& args);

}  // namespace flowvm::cli

#endif  // FLOWVM_TOOLS_COMMANDS_H_
