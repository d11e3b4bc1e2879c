// Static shape inference. Each op's shape function reads the (partial)
// shapes of its inputs, its attrs and, when an input is a constant, that
// input's value, and sets the (partial) shapes of its outputs. A shape
// function that proves the node can never run (e.g. MatMul of [2,3] by
// [4,5]) returns InvalidArgument; the refiner adds the node's name.
#ifndef FLOWVM_GRAPH_SHAPE_INFERENCE_H_
#define FLOWVM_GRAPH_SHAPE_INFERENCE_H_

#include <vector>

#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "flowvm/tensor_shape.h"
#include "graph/graph.h"
#include "graph/node_def_util.h"

namespace flowvm {

class FunctionLibraryDefinition;

class InferenceContext {
 public:
  InferenceContext(const Node* node, std::vector<PartialTensorShape> inputs, std::vector<const Tensor*> input_values);

  const NodeDef& node_def() const { return node_->def(); }
  // The node itself, for shape functions that look at what produced an
  // input (a TensorArray handle's element shape is its maker's attr).
  const Node* node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const PartialTensorShape& input(int i) const { return inputs_[i]; }
  DataType input_type(int i) const { return node_->input_type(i); }
  DataType output_type(int i) const { return node_->output_type(i); }
  // The value of input i if it is a constant known at graph time, else null.
  const Tensor* input_tensor(int i) const { return input_values_[i]; }
  // The functions of the node's graph, for ops with `func` attrs; may be
  // null.
  const FunctionLibraryDefinition* function_library() const { return library_; }
  void set_function_library(const FunctionLibraryDefinition* library) { library_ = library; }

  void set_output(int i, PartialTensorShape shape) { outputs_[i] = std::move(shape); }
  const PartialTensorShape& output(int i) const { return outputs_[i]; }

  template <typename T>
  Status GetAttr(const std::string& name, T* out) const {
    return GetNodeAttr(node_->def(), name, out);
  }

  // Input i merged with "rank `rank`", or InvalidArgument saying which input
  // has which shape.
  Status WithRank(int i, int rank, PartialTensorShape* out) const;
  // a and b must agree where both are known; out gets the known one.
  Status MergeDim(int64_t a, int64_t b, int64_t* out, const char* what) const;

 private:
  const Node* node_;
  std::vector<PartialTensorShape> inputs_;
  std::vector<const Tensor*> input_values_;
  std::vector<PartialTensorShape> outputs_;
  const FunctionLibraryDefinition* library_ = nullptr;
};

// Common shape functions.
Status UnchangedShape(InferenceContext* c);  // output 0 = input 0
Status ScalarShape(InferenceContext* c);     // every output is a scalar
Status UnknownShape(InferenceContext* c);    // every output unknown
// NumPy broadcasting of inputs 0 and 1 into output 0.
Status BroadcastBinaryOpShape(InferenceContext* c);
// Broadcasts two shapes; InvalidArgument if they cannot be broadcast.
StatusOr<PartialTensorShape> BroadcastShapes(const PartialTensorShape& a, const PartialTensorShape& b);

// ---- Helpers for shape functions that read constant inputs (array ops). ----

// The elements of an int32 or int64 tensor (any rank) as int64;
// InvalidArgument for another dtype.
StatusOr<std::vector<int64_t>> TensorToInt64s(const Tensor& t);
// The value of scalar input i if it is a constant int32/int64 (else
// *known = false). InvalidArgument if the constant is not a scalar.
Status GetScalarInput(InferenceContext* c, int i, int64_t* value, bool* known);
// Input i holds a shape (a 1-D int32/int64 tensor, as Reshape's `shape` or
// Fill's `dims`): its value with -1 for unknown dims if constant; else a
// shape of the input's length with unknown dims; else unknown rank.
// InvalidArgument for a non-vector or a value below -1.
Status MakeShapeFromShapeInput(InferenceContext* c, int i, PartialTensorShape* out);
// A shape of `rank` unknown dims or unknown rank (rank < 0).
PartialTensorShape UnknownShapeOfRank(int rank);
// axis in [-rank, rank) made non-negative, or InvalidArgument naming `what`.
Status CanonicalizeAxis(int64_t axis, int rank, const char* what, int* out);

// TensorFlow's StridedSlice semantics, shared by its shape function and its
// kernel. The masks and the (sparse) begin/end/strides vectors expand into
// one dense (begin, end, stride) per input dim; `processing_shape` is the
// sliced shape before shrinking/adding axes, `final_shape` the output shape.
// begin/end may be absent (null: not known at graph time), as may
// input dims (-1). Dims it cannot determine are -1.
struct StridedSliceSpec {
  std::vector<int64_t> begin, end, strides;  // dense, canonical when known
  std::vector<int64_t> processing_dims, final_dims;
  bool is_identity = true;           // every dim taken whole with stride 1
  bool slice_dim0 = true;            // only dim 0 is sliced, with stride 1
};
Status ValidateStridedSlice(const PartialTensorShape& input, const std::vector<int64_t>* begin,
                            const std::vector<int64_t>* end, const std::vector<int64_t>& strides,
                            int64_t begin_mask, int64_t end_mask, int64_t ellipsis_mask, int64_t new_axis_mask,
                            int64_t shrink_axis_mask, StridedSliceSpec* spec);

// The inferred output shapes of every node, indexed by node id.
class ShapeRefiner {
 public:
  // Runs every node's shape function in topological order (and uses the
  // graph's function library from then on).
  Status InferAll(const Graph& graph);
  // The library shape functions of ops with `func` attrs see.
  void set_function_library(const FunctionLibraryDefinition* library) { library_ = library; }
  // Infers one node from the shapes already known for its inputs (inputs
  // not inferred yet count as unknown): for clients that build a graph
  // node by node and want each node's shapes as it is added (the Python
  // front-end). Errors name the node.
  Status InferNode(const Node* node);
  // Merges `shape` into output `index` of node `id` (TensorFlow's
  // Tensor.set_shape); InvalidArgument if they are incompatible.
  Status MergeOutputShape(const Node* node, int index, const PartialTensorShape& shape);
  // Output shapes of node `id` (empty vector if not inferred).
  const std::vector<PartialTensorShape>& OutputShapes(int id) const;
  // For a function body: the shapes (and constant values, null if not
  // constant; not owned, must outlive the refiner) of its arguments; an
  // `_Arg` node's output takes those of its index.
  void SetArgShapes(std::vector<PartialTensorShape> shapes, std::vector<const Tensor*> values);

 private:
  const FunctionLibraryDefinition* library_ = nullptr;
  std::vector<PartialTensorShape> arg_shapes_;
  std::vector<const Tensor*> arg_values_;
  std::vector<std::vector<PartialTensorShape>> shapes_;
  std::vector<Tensor> const_values_;  // by node id; uninitialized if not Const
};

}  // namespace flowvm

#endif  // FLOWVM_GRAPH_SHAPE_INFERENCE_H_
