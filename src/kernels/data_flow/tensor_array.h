// TensorArray (TensorFlow's TensorArrayV3 family): a per-step array of
// tensors that a graph writes and reads element by element. It lives in its
// step's container (kernels/data_flow/step_container.h) and goes when the
// step ends; the ops that use it pass a float "flow" scalar along, so the
// graph's data edges order its writes before its reads.
//
// Rules (TensorFlow's):
// - An index is written at most once, unless the array aggregates writes (a
//   gradient array: the writes are summed; it then refuses to make a
//   gradient array of its own), and never after it was read.
// - With clear_after_read, an element can be read once.
// - A fixed-size array refuses indices outside [0, size); a dynamic one
//   grows on write (until a gradient array is made from it).
// - An element must be compatible with the element shape; with
//   identical_element_shapes the first element written fixes it.
// - Reading an element never written gives zeros when its shape is known
//   (TensorFlow 1.15: a gradient array's entries, and any array whose
//   element shape is fully defined); otherwise it is an error.
// - After Close, every operation but Close fails.
// Every error is InvalidArgument (Unimplemented for element types that
// cannot be added or zeroed) and starts with "TensorArray <name>".
//
// Thread-safe: one mutex per array, so the iterations of a while loop with
// parallel_iterations > 1 may read and write it at the same time.
#ifndef FLOWVM_KERNELS_DATA_FLOW_TENSOR_ARRAY_H_
#define FLOWVM_KERNELS_DATA_FLOW_TENSOR_ARRAY_H_

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "flowvm/allocator.h"
#include "flowvm/status.h"
#include "flowvm/tensor.h"
#include "flowvm/tensor_shape.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm {

class TensorArray : public ResourceBase {
 public:
  struct Options {
    DataType dtype = DT_FLOAT;
    int32_t size = 0;
    PartialTensorShape element_shape;  // unknown rank: anything goes
    bool identical_element_shapes = false;
    bool dynamic_size = false;
    bool clear_after_read = true;
    // A gradient array (TensorArrayGradV3): writes to one index are summed,
    // and reads past the end give zeros of the element shape.
    bool is_grad = false;
    // The size after the last Split (-1: none); a gradient array keeps its
    // forward array's, which is what its Concat reads.
    int32_t marked_size = -1;
  };

  // `name` is what errors call the array (TensorFlow's handle name, e.g.
  // "ta_3", or "ta_3@gradients" for a gradient array).
  TensorArray(std::string name, const Options& options);

  const std::string& name() const { return name_; }
  DataType dtype() const { return dtype_; }
  bool is_grad() const { return is_grad_; }
  std::string DebugString() const override { return "TensorArray " + name_; }

  // Writes `value` at `index` (aggregating on a gradient array); values are
  // kept by reference, not copied. `allocator` makes aggregated sums.
  Status Write(int32_t index, const Tensor& value, Allocator* allocator);
  // Writes values[i] at indices[i], in order, under one lock; stops at the
  // first error (the earlier writes stay).
  Status WriteMany(const std::vector<int32_t>& indices, const std::vector<Tensor>& values, Allocator* allocator);
  // The element at `index` (shared, not copied); zeros (from `allocator`)
  // for an element known only by its shape.
  Status Read(int32_t index, Allocator* allocator, Tensor* value);
  Status ReadMany(const std::vector<int32_t>& indices, Allocator* allocator, std::vector<Tensor>* values);

  StatusOr<int32_t> Size() const;
  // What Concat reads: the size, or a gradient array's marked size.
  StatusOr<int32_t> PackOrConcatSize() const;
  // Records the size after a Split (not on a gradient array).
  Status SetMarkedSize(int32_t size);
  StatusOr<int32_t> MarkedSize() const;

  PartialTensorShape element_shape() const;
  // Merges `shape` into the element shape; InvalidArgument if they differ.
  Status MergeElementShape(const PartialTensorShape& shape);
  bool identical_element_shapes() const { return identical_element_shapes_; }

  // Once a gradient array is made from this one, it no longer grows.
  void DisableDynamicSize();
  bool HasDynamicSize() const;
  // False once writes were aggregated: no gradient array can be made then.
  bool GradientsAllowed() const;

  // For a new gradient array of the same size as `forward`: marks every
  // index `forward` has written as written with zeros of its shape, with
  // `prepend` (may be null) put before it. REQUIRES: this != forward.
  Status CopyShapesFrom(TensorArray* forward, const TensorShape* prepend);

  // Drops every element and marks the array closed.
  void Close();

 private:
  struct Element {
    Tensor tensor;       // empty when only the shape is known (zeros)
    TensorShape shape;
    bool written = false;
    bool read = false;
    bool cleared = false;     // read with clear_after_read
    bool local_copy = false;  // tensor is a sum this array owns
  };

  Status CheckOpenLocked() const;
  Status WriteLocked(int32_t index, const Tensor& value, Allocator* allocator);
  Status ReadLocked(int32_t index, Allocator* allocator, Tensor* value);
  std::string Prefix() const { return "TensorArray " + name_ + ": "; }

  const std::string name_;
  const DataType dtype_;
  const bool clear_after_read_;
  const bool is_grad_;
  const bool identical_element_shapes_;
  const bool multiple_writes_aggregate_;

  mutable std::mutex mu_;
  bool closed_ = false;                 // guarded by mu_
  bool dynamic_size_;                   // guarded by mu_
  bool gradients_disallowed_ = false;   // guarded by mu_
  int32_t marked_size_;                 // guarded by mu_
  PartialTensorShape element_shape_;    // guarded by mu_
  std::vector<Element> elements_;       // guarded by mu_
};

// Zeros of `dtype` and `shape` (numeric types only; Unimplemented naming
// `what` otherwise).
StatusOr<Tensor> TensorArrayZeros(DataType dtype, const TensorShape& shape, Allocator* allocator,
                                  const std::string& what);

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_DATA_FLOW_TENSOR_ARRAY_H_
