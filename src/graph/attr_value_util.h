// Helpers for AttrValue: building values, checking them against an attr
// type ("int", "list(type)", ...), parsing defaults written in op specs, and
// rendering them for messages and `flowvm inspect`.
#ifndef FLOWVM_GRAPH_ATTR_VALUE_UTIL_H_
#define FLOWVM_GRAPH_ATTR_VALUE_UTIL_H_

#include <string>
#include <string_view>
#include <vector>

#include "flowvm/attr_value.pb.h"
#include "flowvm/dtype.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "flowvm/tensor_shape.h"

namespace flowvm {

// The attr types an op spec may name.
bool IsValidAttrType(std::string_view type);

// OK if `value` holds a value of attr type `type` ("int", "list(float)", ...).
// An empty list matches any list type.
Status AttrValueHasType(const AttrValue& value, std::string_view type);

// Parses a default written in an op spec (after '=') for an attr of `type`:
// 1, 0.5, true, 'SAME', float / DT_FLOAT, [1, 2], [], shapes as [2, -1] or
// <unknown>, tensors as a text-format TensorProto in braces.
Status ParseAttrValue(std::string_view type, std::string_view text, AttrValue* out);

// A short rendering: 3, 1.5, true, "SAME", float, [2,3], [1, 2].
std::string SummarizeAttrValue(const AttrValue& value);

void SetAttrValue(int64_t v, AttrValue* out);
void SetAttrValue(int v, AttrValue* out);
void SetAttrValue(float v, AttrValue* out);
void SetAttrValue(bool v, AttrValue* out);
void SetAttrValue(const char* v, AttrValue* out);
void SetAttrValue(const std::string& v, AttrValue* out);
void SetAttrValue(DataType v, AttrValue* out);
void SetAttrValue(const TensorShape& v, AttrValue* out);
void SetAttrValue(const PartialTensorShape& v, AttrValue* out);
void SetAttrValue(const Tensor& v, AttrValue* out);
void SetAttrValue(const std::vector<int64_t>& v, AttrValue* out);
void SetAttrValue(const std::vector<DataType>& v, AttrValue* out);
void SetAttrValue(const std::vector<std::string>& v, AttrValue* out);
void SetAttrValue(const std::vector<PartialTensorShape>& v, AttrValue* out);
void SetAttrValue(const NameAttrList& v, AttrValue* out);
void SetAttrValue(const std::vector<NameAttrList>& v, AttrValue* out);

template <typename T>
AttrValue MakeAttrValue(const T& v) {
  AttrValue a;
  SetAttrValue(v, &a);
  return a;
}

bool AttrValuesEqual(const AttrValue& a, const AttrValue& b);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_ATTR_VALUE_UTIL_H_
