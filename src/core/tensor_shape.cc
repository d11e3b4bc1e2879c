#include "flowvm/tensor_shape.h"

namespace flowvm {

namespace {
// a * b, or -1 if it would exceed kMaxElements.
int64_t MulChecked(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  if (a > TensorShape::kMaxElements / b) return -1;
  return a * b;
}
}  // namespace

TensorShape::TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) { Recompute(); }

StatusOr<TensorShape> TensorShape::FromDims(const std::vector<int64_t>& dims) {
  if (dims.size() > kMaxRank) return errors::InvalidArgument("shape has rank ", dims.size(), ", more than ", kMaxRank);
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) return errors::InvalidArgument("dimension ", i, " of a shape is negative (", dims[i], ")");
    n = MulChecked(n, dims[i]);
    if (n < 0) return errors::InvalidArgument("shape has more than 2^62 elements");
  }
  TensorShape s;
  s.dims_ = dims;
  s.num_elements_ = n;
  return s;
}

StatusOr<TensorShape> TensorShape::FromProto(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) return errors::InvalidArgument("shape has unknown rank where a full shape is required");
  std::vector<int64_t> dims;
  dims.reserve(proto.dim_size());
  for (const auto& d : proto.dim()) {
    if (d.size() < 0) return errors::InvalidArgument("shape has an unknown dimension where a full shape is required");
    dims.push_back(d.size());
  }
  return FromDims(dims);
}

void TensorShape::Recompute() {
  num_elements_ = 1;
  for (int64_t d : dims_) num_elements_ = MulChecked(num_elements_, d);
}

void TensorShape::AddDim(int64_t size) {
  dims_.push_back(size);
  num_elements_ = MulChecked(num_elements_, size);
}

void TensorShape::set_dim(int i, int64_t size) {
  dims_[i] = size;
  Recompute();
}

void TensorShape::RemoveDim(int i) {
  dims_.erase(dims_.begin() + i);
  Recompute();
}

void TensorShape::InsertDim(int i, int64_t size) {
  dims_.insert(dims_.begin() + i, size);
  Recompute();
}

void TensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string TensorShape::DebugString() const {
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(dims_[i]);
  }
  return s + "]";
}

PartialTensorShape::PartialTensorShape(std::initializer_list<int64_t> dims)
    : unknown_rank_(false), dims_(dims) {}

PartialTensorShape::PartialTensorShape(const TensorShape& shape)
    : unknown_rank_(false), dims_(shape.dim_sizes()) {}

StatusOr<PartialTensorShape> PartialTensorShape::FromDims(const std::vector<int64_t>& dims) {
  if (dims.size() > TensorShape::kMaxRank)
    return errors::InvalidArgument("shape has rank ", dims.size(), ", more than ", TensorShape::kMaxRank);
  PartialTensorShape s;
  s.unknown_rank_ = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < -1) return errors::InvalidArgument("dimension ", i, " of a shape is ", dims[i], " (must be >= -1)");
    s.dims_.push_back(dims[i]);
  }
  return s;
}

StatusOr<PartialTensorShape> PartialTensorShape::FromProto(const TensorShapeProto& proto) {
  if (proto.unknown_rank()) {
    if (proto.dim_size() > 0) return errors::InvalidArgument("shape has unknown_rank set and dimensions");
    return PartialTensorShape();
  }
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return FromDims(dims);
}

PartialTensorShape PartialTensorShape::UnknownOfRank(int rank) {
  PartialTensorShape s;
  s.unknown_rank_ = false;
  s.dims_.assign(rank, -1);
  return s;
}

bool PartialTensorShape::IsFullyDefined() const {
  if (unknown_rank_) return false;
  for (int64_t d : dims_)
    if (d < 0) return false;
  return true;
}

int64_t PartialTensorShape::num_elements() const {
  if (!IsFullyDefined()) return -1;
  int64_t n = 1;
  for (int64_t d : dims_) {
    n = MulChecked(n, d);
    if (n < 0) return -1;
  }
  return n;
}

bool PartialTensorShape::IsCompatibleWith(const TensorShape& shape) const {
  return IsCompatibleWith(PartialTensorShape(shape));
}

bool PartialTensorShape::IsCompatibleWith(const PartialTensorShape& other) const {
  if (unknown_rank_ || other.unknown_rank_) return true;
  if (dims_.size() != other.dims_.size()) return false;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (dims_[i] >= 0 && other.dims_[i] >= 0 && dims_[i] != other.dims_[i]) return false;
  return true;
}

StatusOr<PartialTensorShape> PartialTensorShape::MergeWith(const PartialTensorShape& other) const {
  if (unknown_rank_) return other;
  if (other.unknown_rank_) return *this;
  if (!IsCompatibleWith(other))
    return errors::InvalidArgument("shapes ", DebugString(), " and ", other.DebugString(), " are incompatible");
  PartialTensorShape r = *this;
  for (size_t i = 0; i < dims_.size(); ++i)
    if (r.dims_[i] < 0) r.dims_[i] = other.dims_[i];
  return r;
}

TensorShape PartialTensorShape::AsTensorShape() const {
  TensorShape s;
  for (int64_t d : dims_) s.AddDim(d);
  return s;
}

void PartialTensorShape::AsProto(TensorShapeProto* proto) const {
  proto->Clear();
  if (unknown_rank_) {
    proto->set_unknown_rank(true);
    return;
  }
  for (int64_t d : dims_) proto->add_dim()->set_size(d);
}

std::string PartialTensorShape::DebugString() const {
  if (unknown_rank_) return "<unknown>";
  std::string s = "[";
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (i) s += ",";
    s += dims_[i] < 0 ? "?" : std::to_string(dims_[i]);
  }
  return s + "]";
}

}  // namespace flowvm
