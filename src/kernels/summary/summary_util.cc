#include "kernels/summary/summary_util.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "core/png_encoder.h"
#include "kernels/framework/op_kernel.h"

namespace flowvm {

namespace {

template <typename T>
float AsFloat(T v) {
  return static_cast<float>(v);
}
template <>
float AsFloat(half v) {
  return static_cast<float>(v);
}

// Scales one [hw, depth] image of floating values into `out` (TensorFlow's
// NormalizeFloatImage). The affine map is picked from the finite pixels;
// arithmetic is in float for every input type (TensorFlow computes half
// images in half, which can differ by one level in rare pixels).
template <typename T>
void NormalizeImage(const T* values, int64_t hw, int depth, const uint8_t* bad_color, uint8_t* out) {
  auto finite_pixel = [&](int64_t i) {
    for (int j = 0; j < depth; ++j)
      if (!std::isfinite(AsFloat(values[i * depth + j]))) return false;
    return true;
  };
  float lo = std::numeric_limits<float>::infinity();
  float hi = -lo;
  for (int64_t i = 0; i < hw; ++i) {
    if (!finite_pixel(i)) continue;
    for (int j = 0; j < depth; ++j) {
      const float v = AsFloat(values[i * depth + j]);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  }
  constexpr float kZeroThreshold = 1e-6f;
  float scale, offset;
  if (lo < 0) {
    const float max_abs = std::max(std::abs(lo), std::abs(hi));
    scale = max_abs < kZeroThreshold ? 0.0f : 127.0f / max_abs;
    offset = 128.0f;
  } else {
    scale = hi < kZeroThreshold ? 0.0f : 255.0f / hi;
    offset = 0.0f;
  }
  for (int64_t i = 0; i < hw; ++i) {
    uint8_t* px = out + i * depth;
    if (!finite_pixel(i)) {
      std::copy(bad_color, bad_color + depth, px);
      continue;
    }
    for (int j = 0; j < depth; ++j) {
      // Truncates as TensorFlow's cast does; the clamp only guards against
      // rounding just past 255 (a float to uint8 cast out of range is UB).
      const float v = AsFloat(values[i * depth + j]) * scale + offset;
      px[j] = static_cast<uint8_t>(std::clamp(v, 0.0f, 255.0f));
    }
  }
}

}  // namespace

StatusOr<double> RealElement(const Tensor& t, int64_t i) {
  switch (t.dtype()) {
    case DT_FLOAT: return static_cast<double>(t.data<float>()[i]);
    case DT_DOUBLE: return t.data<double>()[i];
    case DT_HALF: return static_cast<double>(static_cast<float>(t.data<half>()[i]));
    case DT_BFLOAT16: return static_cast<double>(static_cast<float>(t.data<bfloat16>()[i]));
    case DT_INT8: return static_cast<double>(t.data<int8_t>()[i]);
    case DT_INT16: return static_cast<double>(t.data<int16_t>()[i]);
    case DT_INT32: return static_cast<double>(t.data<int32_t>()[i]);
    case DT_INT64: return static_cast<double>(t.data<int64_t>()[i]);
    case DT_UINT8: return static_cast<double>(t.data<uint8_t>()[i]);
    case DT_UINT16: return static_cast<double>(t.data<uint16_t>()[i]);
    case DT_UINT32: return static_cast<double>(t.data<uint32_t>()[i]);
    case DT_UINT64: return static_cast<double>(t.data<uint64_t>()[i]);
    default:
      return errors::InvalidArgument("values of type ", DataTypeName(t.dtype()), " are not real numbers");
  }
}

Status AddImageSummaries(const std::string& tag, const Tensor& images, int max_images, const Tensor& bad_color,
                         Summary* summary) {
  if (images.dims() != 4 || (images.dim_size(3) != 1 && images.dim_size(3) != 3 && images.dim_size(3) != 4))
    return errors::InvalidArgument("image summary '", tag, "': Tensor must be 4-D with last dim 1, 3, or 4, not ",
                                   images.shape().DebugString());
  if (images.dim_size(0) >= (int64_t{1} << 31) || images.dim_size(1) >= (int64_t{1} << 31) ||
      images.dim_size(2) >= (int64_t{1} << 31) || images.dim_size(1) * images.dim_size(2) >= (int64_t{1} << 29))
    return errors::InvalidArgument("image summary '", tag, "': Tensor too large for summary ",
                                   images.shape().DebugString());
  const int batch = static_cast<int>(images.dim_size(0));
  const int height = static_cast<int>(images.dim_size(1));
  const int width = static_cast<int>(images.dim_size(2));
  const int depth = static_cast<int>(images.dim_size(3));
  const int64_t hw = int64_t{height} * width;
  const int n = std::min(max_images, batch);
  if (n > 0 && hw == 0)
    return errors::InvalidArgument("image summary '", tag, "': images must have a height and width, got shape ",
                                   images.shape().DebugString());
  const bool is_uint8 = images.dtype() == DT_UINT8;
  if (!is_uint8 && images.dtype() != DT_FLOAT && images.dtype() != DT_HALF && images.dtype() != DT_DOUBLE)
    return errors::InvalidArgument("image summary '", tag, "': images of type ", DataTypeName(images.dtype()),
                                   " (expected uint8, half, float or double)");
  if (!is_uint8) {
    if (bad_color.dtype() != DT_UINT8 || bad_color.dims() != 1)
      return errors::InvalidArgument("image summary '", tag, "': bad_color must be a uint8 vector, got ",
                                     DataTypeName(bad_color.dtype()), " ", bad_color.shape().DebugString());
    if (bad_color.dim_size(0) < depth)
      return errors::InvalidArgument("image summary '", tag, "': expected depth <= bad_color.size, got depth = ",
                                     depth, ", bad_color.size = ", bad_color.dim_size(0));
  }
  std::vector<uint8_t> scaled(is_uint8 ? 0 : static_cast<size_t>(hw * depth));
  for (int i = 0; i < n; ++i) {
    Summary::Value* v = summary->add_value();
    // The tag follows the number asked for, not the number made (TF).
    v->set_tag(max_images > 1 ? tag + "/image/" + std::to_string(i) : tag + "/image");
    const int64_t offset = i * hw * depth;
    const uint8_t* pixels = nullptr;
    switch (images.dtype()) {
      case DT_UINT8: pixels = images.data<uint8_t>() + offset; break;
      case DT_FLOAT:
        NormalizeImage(images.data<float>() + offset, hw, depth, bad_color.data<uint8_t>(), scaled.data());
        break;
      case DT_HALF:
        NormalizeImage(images.data<half>() + offset, hw, depth, bad_color.data<uint8_t>(), scaled.data());
        break;
      default:
        NormalizeImage(images.data<double>() + offset, hw, depth, bad_color.data<uint8_t>(), scaled.data());
        break;
    }
    if (pixels == nullptr) pixels = scaled.data();
    Summary::Image* image = v->mutable_image();
    image->set_height(height);
    image->set_width(width);
    image->set_colorspace(depth);
    Status s = EncodePng(pixels, height, width, depth, image->mutable_encoded_image_string());
    if (!s.ok()) return s.WithContext("image summary '" + tag + "'");
  }
  return Status::OK();
}

void OutputSummary(OpKernelContext* ctx, const Summary& summary) {
  Tensor* out = nullptr;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape({}), &out));
  OP_REQUIRES(ctx, summary.SerializeToString(&out->scalar<std::string>()),
              errors::InvalidArgument("summary does not serialize (over 2 GiB?)"));
}

}  // namespace flowvm
