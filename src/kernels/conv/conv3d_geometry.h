// Window geometry of the 3-D convolution and pooling ops (Conv3D and its
// backprops, MaxPool3D, AvgPool3D and their gradients), shared by their
// shape functions and kernels. Attrs are validated as TensorFlow does:
// 5 strides (and dilations, ksize) with 1 in the batch and channel dims,
// padding SAME or VALID, data_format NDHWC or NCDHW. Output sizes follow
// conv_geometry.h per spatial dim.
#ifndef FLOWVM_KERNELS_CONV_CONV3D_GEOMETRY_H_
#define FLOWVM_KERNELS_CONV_CONV3D_GEOMETRY_H_

#include <array>
#include <cstdint>

#include "flowvm/status.h"
#include "flowvm/tensor_shape.h"
#include "graph/node_def_util.h"
#include "kernels/conv/conv_geometry.h"

namespace flowvm::conv {

struct Conv3DAttrs {
  bool ncdhw = false;
  Padding padding = Padding::kValid;
  std::array<int64_t, 3> stride{1, 1, 1}, dilation{1, 1, 1}, ksize{1, 1, 1};  // D, H, W

  int c_dim() const { return ncdhw ? 1 : 4; }
  int spatial_dim(int i) const { return (ncdhw ? 2 : 1) + i; }
};

// Conv3D family: strides, padding, data_format, dilations (if present).
Status ParseConv3DAttrs(const NodeDef& def, Conv3DAttrs* out);
// Pool3D family: ksize, strides, padding, data_format.
Status ParsePool3DAttrs(const NodeDef& def, Conv3DAttrs* out);

// Everything a kernel needs, in NDHWC terms.
struct Conv3DDims {
  int64_t batch = 0, in_channels = 0, out_channels = 0;
  std::array<int64_t, 3> in{}, filter{}, out{}, pad_before{};
  int64_t in_spatial() const { return in[0] * in[1] * in[2]; }
  int64_t out_spatial() const { return out[0] * out[1] * out[2]; }
  int64_t filter_spatial() const { return filter[0] * filter[1] * filter[2]; }
};

// Convolution: input [N, D, H, W, C] (or NCDHW) and filter
// [KD, KH, KW, C, out]. InvalidArgument (prefixed with `op`) for wrong
// ranks, mismatched channels or a window that does not fit.
Status ComputeConv3DDims(const char* op, const Conv3DAttrs& a, const TensorShape& input, const TensorShape& filter,
                         Conv3DDims* d);
// Pooling: the window is ksize; channels are kept.
Status ComputePool3DDims(const char* op, const Conv3DAttrs& a, const TensorShape& input, Conv3DDims* d);

// A 5-D shape in the attrs' format from NDHWC-ordered sizes.
TensorShape MakeShape5(const Conv3DAttrs& a, int64_t n, const std::array<int64_t, 3>& spatial, int64_t c);

}  // namespace flowvm::conv

#endif  // FLOWVM_KERNELS_CONV_CONV3D_GEOMETRY_H_
