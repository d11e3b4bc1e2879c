#include "kernels/conv/conv3d_geometry.h"

#include <string>
#include <vector>

namespace flowvm::conv {
namespace {

Status ParseFormatAndPadding(const NodeDef& def, Conv3DAttrs* a) {
  std::string format = "NDHWC";
  if (def.attr().count("data_format") > 0) FLOWVM_RETURN_IF_ERROR(GetNodeAttr(def, "data_format", &format));
  if (format == "NDHWC") {
    a->ncdhw = false;
  } else if (format == "NCDHW") {
    a->ncdhw = true;
  } else {
    return errors::InvalidArgument("Invalid data format: ", format, " (NDHWC and NCDHW are supported)");
  }
  std::string padding;
  FLOWVM_RETURN_IF_ERROR(GetNodeAttr(def, "padding", &padding));
  if (padding == "VALID") {
    a->padding = Padding::kValid;
  } else if (padding == "SAME") {
    a->padding = Padding::kSame;
  } else {
    return errors::InvalidArgument("Invalid padding: ", padding, " (SAME and VALID are supported)");
  }
  return Status::OK();
}

// A 5-element list attr with 1 in the batch and channel dims; its spatial
// values (each >= 1) go to *out in D, H, W order.
Status ParseList5(const NodeDef& def, const Conv3DAttrs& a, const char* name, std::array<int64_t, 3>* out) {
  std::vector<int64_t> v;
  FLOWVM_RETURN_IF_ERROR(GetNodeAttr(def, name, &v));
  if (v.size() != 5) return errors::InvalidArgument(name, " must have 5 elements, got ", v.size());
  if (v[0] != 1 || v[a.c_dim()] != 1)
    return errors::InvalidArgument(name, " in the batch and channel dimensions must be 1, got [", v[0], ",", v[1], ",",
                                   v[2], ",", v[3], ",", v[4], "]");
  for (int i = 0; i < 3; ++i) {
    (*out)[i] = v[a.spatial_dim(i)];
    if ((*out)[i] < 1) return errors::InvalidArgument(name, " must be >= 1, got ", (*out)[i]);
  }
  return Status::OK();
}

Status CheckRank5(const char* op, const char* name, const TensorShape& s) {
  if (s.dims() != 5)
    return errors::InvalidArgument(op, ": ", name, " must be 5-dimensional, got shape ", s.DebugString());
  return Status::OK();
}

}  // namespace

Status ParseConv3DAttrs(const NodeDef& def, Conv3DAttrs* a) {
  FLOWVM_RETURN_IF_ERROR(ParseFormatAndPadding(def, a));
  FLOWVM_RETURN_IF_ERROR(ParseList5(def, *a, "strides", &a->stride));
  if (def.attr().count("dilations") > 0) FLOWVM_RETURN_IF_ERROR(ParseList5(def, *a, "dilations", &a->dilation));
  return Status::OK();
}

Status ParsePool3DAttrs(const NodeDef& def, Conv3DAttrs* a) {
  FLOWVM_RETURN_IF_ERROR(ParseFormatAndPadding(def, a));
  FLOWVM_RETURN_IF_ERROR(ParseList5(def, *a, "ksize", &a->ksize));
  return ParseList5(def, *a, "strides", &a->stride);
}

Status ComputeConv3DDims(const char* op, const Conv3DAttrs& a, const TensorShape& input, const TensorShape& filter,
                         Conv3DDims* d) {
  FLOWVM_RETURN_IF_ERROR(CheckRank5(op, "input", input));
  FLOWVM_RETURN_IF_ERROR(CheckRank5(op, "filter", filter));
  d->batch = input.dim_size(0);
  d->in_channels = input.dim_size(a.c_dim());
  if (filter.dim_size(3) != d->in_channels)
    return errors::InvalidArgument(op, ": input depth (", d->in_channels, ") must equal the filter's in_channels (",
                                   filter.dim_size(3), ")");
  d->out_channels = filter.dim_size(4);
  for (int i = 0; i < 3; ++i) {
    d->in[i] = input.dim_size(a.spatial_dim(i));
    d->filter[i] = filter.dim_size(i);
    WindowDim w;
    Status s = WindowedOutputSize(d->in[i], d->filter[i], a.dilation[i], a.stride[i], a.padding, 0, 0, &w);
    if (!s.ok()) return errors::InvalidArgument(op, ": ", s.message());
    d->out[i] = w.out;
    d->pad_before[i] = w.pad_before;
  }
  return Status::OK();
}

Status ComputePool3DDims(const char* op, const Conv3DAttrs& a, const TensorShape& input, Conv3DDims* d) {
  FLOWVM_RETURN_IF_ERROR(CheckRank5(op, "input", input));
  d->batch = input.dim_size(0);
  d->in_channels = d->out_channels = input.dim_size(a.c_dim());
  for (int i = 0; i < 3; ++i) {
    d->in[i] = input.dim_size(a.spatial_dim(i));
    d->filter[i] = a.ksize[i];
    WindowDim w;
    Status s = WindowedOutputSize(d->in[i], a.ksize[i], 1, a.stride[i], a.padding, 0, 0, &w);
    if (!s.ok()) return errors::InvalidArgument(op, ": ", s.message());
    d->out[i] = w.out;
    d->pad_before[i] = w.pad_before;
  }
  return Status::OK();
}

TensorShape MakeShape5(const Conv3DAttrs& a, int64_t n, const std::array<int64_t, 3>& s, int64_t c) {
  if (a.ncdhw) return TensorShape({n, c, s[0], s[1], s[2]});
  return TensorShape({n, s[0], s[1], s[2], c});
}

}  // namespace flowvm::conv
