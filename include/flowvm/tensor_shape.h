// TensorShape: the fully known shape of a tensor (rank and every dimension).
// PartialTensorShape: a shape during graph construction and inference, where
// the rank may be unknown and any dimension may be unknown (-1).
//
// Value types; thread-compatible.
#ifndef FLOWVM_TENSOR_SHAPE_H_
#define FLOWVM_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "flowvm/status.h"
#include "flowvm/tensor_shape.pb.h"

namespace flowvm {

class TensorShape {
 public:
  // The largest number of elements a tensor may have (2^62), so products of
  // dimensions never overflow int64.
  static constexpr int64_t kMaxElements = int64_t{1} << 62;
  static constexpr int kMaxRank = 254;

  TensorShape() = default;  // a scalar
  TensorShape(std::initializer_list<int64_t> dims);
  // Validates: non-negative dims, element count within kMaxElements.
  static StatusOr<TensorShape> FromDims(const std::vector<int64_t>& dims);
  // Rejects unknown rank or unknown dimensions.
  static StatusOr<TensorShape> FromProto(const TensorShapeProto& proto);

  int dims() const { return static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  int64_t num_elements() const { return num_elements_; }

  // REQUIRES: size >= 0 and the result stays within kMaxElements.
  void AddDim(int64_t size);
  void set_dim(int i, int64_t size);
  void RemoveDim(int i);
  void InsertDim(int i, int64_t size);

  bool IsSameSize(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator==(const TensorShape& other) const { return dims_ == other.dims_; }
  bool operator!=(const TensorShape& other) const { return dims_ != other.dims_; }

  void AsProto(TensorShapeProto* proto) const;
  std::string DebugString() const;  // "[2,3]", "[]" for a scalar

 private:
  void Recompute();
  std::vector<int64_t> dims_;
  int64_t num_elements_ = 1;
};

class PartialTensorShape {
 public:
  PartialTensorShape() = default;  // unknown rank
  PartialTensorShape(std::initializer_list<int64_t> dims);  // -1: unknown dim
  PartialTensorShape(const TensorShape& shape);              // NOLINT: implicit
  static StatusOr<PartialTensorShape> FromDims(const std::vector<int64_t>& dims);
  static StatusOr<PartialTensorShape> FromProto(const TensorShapeProto& proto);
  static PartialTensorShape Unknown() { return PartialTensorShape(); }
  static PartialTensorShape UnknownOfRank(int rank);

  bool unknown_rank() const { return unknown_rank_; }
  int dims() const { return unknown_rank_ ? -1 : static_cast<int>(dims_.size()); }
  int64_t dim_size(int i) const { return dims_[i]; }  // -1 if unknown
  const std::vector<int64_t>& dim_sizes() const { return dims_; }
  bool IsFullyDefined() const;
  // -1 if unknown.
  int64_t num_elements() const;

  // True if `shape` is one of the shapes this partial shape allows.
  bool IsCompatibleWith(const TensorShape& shape) const;
  bool IsCompatibleWith(const PartialTensorShape& shape) const;
  // Most specific shape compatible with both, or InvalidArgument.
  StatusOr<PartialTensorShape> MergeWith(const PartialTensorShape& other) const;
  // REQUIRES: IsFullyDefined().
  TensorShape AsTensorShape() const;

  bool operator==(const PartialTensorShape& o) const {
    return unknown_rank_ == o.unknown_rank_ && dims_ == o.dims_;
  }
  void AsProto(TensorShapeProto* proto) const;
  std::string DebugString() const;  // "<unknown>", "[?,3]"

 private:
  bool unknown_rank_ = true;
  std::vector<int64_t> dims_;
};

}  // namespace flowvm

#endif  // FLOWVM_TENSOR_SHAPE_H_
