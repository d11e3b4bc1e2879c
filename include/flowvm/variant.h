// Variant: the element type of DT_VARIANT tensors, a type-erased value that
// only the ops that made it understand (a mutex lock, ...). Copies share the
// value. Thread-compatible; the value's own thread safety is its type's.
#ifndef FLOWVM_VARIANT_H_
#define FLOWVM_VARIANT_H_

#include <memory>
#include <string>
#include <typeinfo>
#include <utility>

#include "flowvm/dtype.h"

namespace flowvm {

class Variant {
 public:
  Variant() = default;
  template <typename T>
  static Variant Of(std::shared_ptr<T> value, std::string type_name) {
    Variant v;
    v.value_ = std::move(value);
    v.type_ = &typeid(T);
    v.type_name_ = std::move(type_name);
    return v;
  }
  bool empty() const { return value_ == nullptr; }
  const std::string& TypeName() const { return type_name_; }
  // The value if it is a T, else null.
  template <typename T>
  T* get() const {
    return type_ != nullptr && *type_ == typeid(T) ? static_cast<T*>(value_.get()) : nullptr;
  }

 private:
  std::shared_ptr<void> value_;
  const std::type_info* type_ = nullptr;
  std::string type_name_;
};

template <> struct DataTypeToEnum<Variant> {
  static constexpr DataType value = DT_VARIANT;
};

}  // namespace flowvm

#endif  // FLOWVM_VARIANT_H_
