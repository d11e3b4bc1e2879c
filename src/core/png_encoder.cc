#include "core/png_encoder.h"

#include <png.h>

#include <cstring>

namespace flowvm {

namespace {
// libpng refuses wider or taller images unless the user limits are raised
// (PNG_USER_WIDTH_MAX / PNG_USER_HEIGHT_MAX); say so before it does.
constexpr int kMaxSide = 1000000;
}  // namespace

Status EncodePng(const uint8_t* pixels, int height, int width, int channels, std::string* png) {
  if (channels < 1 || channels > 4)
    return errors::InvalidArgument("PNG image must have 1 to 4 channels, got ", channels);
  if (height <= 0 || width <= 0)
    return errors::InvalidArgument("PNG image must not be empty, got height ", height, " and width ", width);
  if (height > kMaxSide || width > kMaxSide)
    return errors::InvalidArgument("PNG image of ", height, "x", width, " pixels is too large (at most ", kMaxSide,
                                   " per side)");
  if (int64_t{width} * channels > INT32_MAX)
    return errors::InvalidArgument("PNG image rows of ", width, "x", channels, " bytes are too long");

  static constexpr png_uint_32 kFormats[] = {PNG_FORMAT_GRAY, PNG_FORMAT_GA, PNG_FORMAT_RGB, PNG_FORMAT_RGBA};
  png_image image;
  auto reset = [&] {
    std::memset(&image, 0, sizeof(image));
    image.version = PNG_IMAGE_VERSION;
    image.width = static_cast<png_uint_32>(width);
    image.height = static_cast<png_uint_32>(height);
    image.format = kFormats[channels - 1];
  };
  reset();
  const png_int_32 row_stride = width * channels;

  // Compress straight into a buffer big enough for any outcome, then trim.
  // Should zlib ever exceed that bound, libpng reports the size it needs
  // (a larger *written on failure) and one more try uses it.
  png_alloc_size_t size = PNG_IMAGE_PNG_SIZE_MAX(image);
  for (int attempt = 0; attempt < 2; ++attempt) {
    png->resize(size);
    png_alloc_size_t written = size;
    if (png_image_write_to_memory(&image, png->data(), &written, /*convert_to_8_bit=*/0, pixels, row_stride,
                                  /*colormap=*/nullptr)) {
      png->resize(written);
      return Status::OK();
    }
    const std::string message = image.message;
    png_image_free(&image);
    if (written <= size) {
      png->clear();
      return errors::Internal("PNG encoding of a ", height, "x", width, "x", channels, " image failed: ", message);
    }
    size = written;
    reset();
  }
  png->clear();
  return errors::Internal("PNG encoding of a ", height, "x", width, "x", channels, " image failed: output too large");
}

}  // namespace flowvm
