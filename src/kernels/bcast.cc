#include "kernels/bcast.h"

#include <algorithm>

namespace flowvm {

BCast::BCast(const TensorShape& x, const TensorShape& y) {
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> out(rank);
  // Per output dimension: is x (y) repeated along it?
  std::vector<char> x_rep(rank), y_rep(rank);
  for (int i = 0; i < rank; ++i) {
    int ix = x.dims() - rank + i, iy = y.dims() - rank + i;
    int64_t dx = ix >= 0 ? x.dim_size(ix) : 1;
    int64_t dy = iy >= 0 ? y.dim_size(iy) : 1;
    if (dx == dy) {
      out[i] = dx;
    } else if (dx == 1) {
      out[i] = dy;
      x_rep[i] = 1;
    } else if (dy == 1) {
      out[i] = dx;
      y_rep[i] = 1;
    } else {
      valid_ = false;
      return;
    }
  }
  auto shape = TensorShape::FromDims(out);
  if (!shape.ok()) {
    valid_ = false;
    return;
  }
  output_shape_ = *shape;

  // Merge runs of dimensions with the same repetition pattern; skip size-1
  // output dimensions (they contribute nothing to the iteration).
  std::vector<char> xr, yr;
  for (int i = 0; i < rank; ++i) {
    if (out[i] == 1) continue;
    if (!dims_.empty() && xr.back() == x_rep[i] && yr.back() == y_rep[i]) {
      dims_.back() *= out[i];
    } else {
      dims_.push_back(out[i]);
      xr.push_back(x_rep[i]);
      yr.push_back(y_rep[i]);
    }
  }
  x_strides_.assign(dims_.size(), 0);
  y_strides_.assign(dims_.size(), 0);
  int64_t sx = 1, sy = 1;
  for (int i = static_cast<int>(dims_.size()) - 1; i >= 0; --i) {
    if (!xr[i]) {
      x_strides_[i] = sx;
      sx *= dims_[i];
    }
    if (!yr[i]) {
      y_strides_[i] = sy;
      sy *= dims_[i];
    }
  }
}

}  // namespace flowvm
