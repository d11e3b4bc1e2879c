#include "flowvm/resource_handle.h"

namespace flowvm {

std::string ResourceHandle::DebugString() const {
  return (type_name.empty() ? std::string("resource") : type_name) + " '" + name + "' (container '" + container +
         "') on " + (device.empty() ? std::string("(no device)") : device);
}

}  // namespace flowvm
