// Hand-built JSON for the board's hot responses (thousands of numbers per
// request), where building an nlohmann::json tree would cost more than the
// request itself. Strings are escaped; bytes that are not UTF-8 become
// U+FFFD so that the output is always valid JSON. Pure functions.
#ifndef FLOWVM_TOOLS_BOARD_JSON_TEXT_H_
#define FLOWVM_TOOLS_BOARD_JSON_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace flowvm::board {

// Appends `s` as a quoted JSON string.
void AppendJsonString(std::string* out, std::string_view s);
// Appends the shortest text that reads back as `v`; NaN and infinities
// (which JSON cannot say) as null.
void AppendJsonNumber(std::string* out, double v);
void AppendJsonNumber(std::string* out, int64_t v);

// {"error": {"code": "NOT_FOUND", "message": "..."}} for a Status code name
// in the API's spelling (kNotFound -> "NOT_FOUND").
std::string JsonError(std::string_view code_name, std::string_view message);

}  // namespace flowvm::board

#endif  // FLOWVM_TOOLS_BOARD_JSON_TEXT_H_
