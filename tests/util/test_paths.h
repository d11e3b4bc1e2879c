// Paths the tests need: the source tree (fixtures), the build tree, the CLI.
#ifndef FLOWVM_TESTS_UTIL_TEST_PATHS_H_
#define FLOWVM_TESTS_UTIL_TEST_PATHS_H_

#include <string>

namespace flowvm::testing {

inline std::string SourcePath(const std::string& rel) { return std::string(FLOWVM_SOURCE_DIR) + "/" + rel; }
inline std::string CliPath() { return FLOWVM_CLI_PATH; }

}  // namespace flowvm::testing

#endif  // FLOWVM_TESTS_UTIL_TEST_PATHS_H_
