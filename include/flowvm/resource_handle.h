// ResourceHandle: the element type of DT_RESOURCE tensors (TensorFlow's
// ResourceHandleProto): names a resource (a queue, a stack, a mutex) in a
// container of one device's resource manager. Ops that take a handle run on
// that device (the placer colocates them), so handles never cross
// processes. A plain value type; thread-compatible.
#ifndef FLOWVM_RESOURCE_HANDLE_H_
#define FLOWVM_RESOURCE_HANDLE_H_

#include <cstdint>
#include <string>

#include "flowvm/dtype.h"

namespace flowvm {

struct ResourceHandle {
  std::string device;     // the full name of the device that holds it
  std::string container;  // "" is the default container
  std::string name;
  std::string type_name;  // what the resource is: "FIFOQueue", "Stack", "Mutex", ...
  uint64_t hash_code = 0;

  // "FIFOQueue 'q' (container '') on /job:ps/replica:0/task:0/device:CPU:0".
  std::string DebugString() const;
  bool operator==(const ResourceHandle& o) const {
    return device == o.device && container == o.container && name == o.name && type_name == o.type_name;
  }
};

template <> struct DataTypeToEnum<ResourceHandle> {
  static constexpr DataType value = DT_RESOURCE;
};

}  // namespace flowvm

#endif  // FLOWVM_RESOURCE_HANDLE_H_
