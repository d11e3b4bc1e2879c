// Reading and validating NodeDefs against their OpDef: attr lookup with
// type checks, filling attr defaults, counting and typing inputs/outputs.
// Every error names the node ("node 'x' (MatMul): ...").
#ifndef FLOWVM_GRAPH_NODE_DEF_UTIL_H_
#define FLOWVM_GRAPH_NODE_DEF_UTIL_H_

#include <string>
#include <vector>

#include "flowvm/dtype.h"
#include "flowvm/node_def.pb.h"
#include "flowvm/op_def.pb.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "flowvm/tensor_shape.h"

namespace flowvm {

using DataTypeVector = std::vector<DataType>;

// "node 'name' (Op)", the prefix of every message about a node.
std::string NodeLabel(const NodeDef& node);
// Adds the node label to a non-OK status.
Status AttachNode(const Status& s, const NodeDef& node);

// TensorFlow's node-name rule: [A-Za-z0-9.][A-Za-z0-9_./>-]*. With
// `allow_internal`, a leading '_' is accepted too: the runtime's own nodes
// (_Send/_Recv, feeds and fetches) use such names, which user graphs cannot.
Status ValidateNodeName(const std::string& name, bool allow_internal = false);

// Sets every attr the node lacks that has a default in `op`.
void AddDefaultsToNodeDef(const OpDef& op, NodeDef* node);

// Checks attrs (present, right type, allowed values, minimums, no unknown
// attrs except those beginning with '_') and the number of data inputs, and
// that control inputs come last. REQUIRES: defaults already added.
Status ValidateNodeDef(const NodeDef& node, const OpDef& op, bool allow_internal_name = false);

// The dtypes of the node's data inputs and outputs, resolved from its attrs.
// Ref args give ref types (DT_FLOAT_REF).
Status InOutTypesForNode(const NodeDef& node, const OpDef& op, DataTypeVector* inputs, DataTypeVector* outputs);

// Index range [start, end) of the named input/output arg in the flat list.
Status NameRangeForArg(const NodeDef& node, const OpDef& op, const std::string& arg, bool is_input, int* start,
                       int* end);

const AttrValue* FindNodeAttr(const NodeDef& node, const std::string& name);

// Each returns NotFound if the attr is missing and InvalidArgument if it has
// another type; both messages name the node and the attr.
Status GetNodeAttr(const NodeDef& node, const std::string& name, int64_t* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, int32_t* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, float* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, bool* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::string* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, DataType* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, PartialTensorShape* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, TensorShape* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, Tensor* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<int64_t>* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<int32_t>* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<float>* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<DataType>* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<std::string>* out);
Status GetNodeAttr(const NodeDef& node, const std::string& name, std::vector<PartialTensorShape>* out);

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_NODE_DEF_UTIL_H_
