#include "graph/tensor_id.h"

#include <charconv>

namespace flowvm {

std::string TensorId::ToString() const {
  if (is_control()) return "^" + node;
  return node + ":" + std::to_string(port);
}

StatusOr<TensorId> ParseTensorName(std::string_view name) {
  TensorId id;
  if (!name.empty() && name[0] == '^') {
    if (name.size() == 1) return errors::InvalidArgument("control input '^' names no node");
    id.node = std::string(name.substr(1));
    id.port = TensorId::kControlPort;
    return id;
  }
  size_t colon = name.rfind(':');
  if (colon != std::string_view::npos && colon + 1 < name.size()) {
    std::string_view digits = name.substr(colon + 1);
    int port = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec == std::errc() && ptr == digits.data() + digits.size() && digits[0] != '-' && digits[0] != '+') {
      id.node = std::string(name.substr(0, colon));
      id.port = port;
      if (id.node.empty()) return errors::InvalidArgument("tensor name '", name, "' names no node");
      return id;
    }
    if (ec == std::errc::result_out_of_range)
      return errors::InvalidArgument("tensor name '", name, "' has an out-of-range port");
  }
  if (name.empty()) return errors::InvalidArgument("empty tensor name");
  if (colon == name.size() - 1) return errors::InvalidArgument("tensor name '", name, "' ends with ':'");
  id.node = std::string(name);
  return id;
}

}  // namespace flowvm
