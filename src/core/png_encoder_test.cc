// EncodePng round trips: every channel count decoded back with libpng's
// own reader gives the same pixels; bad arguments are errors, not crashes.
#include "core/png_encoder.h"

#include <png.h>

#include <cstring>
#include <vector>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

struct Decoded {
  int height = 0, width = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

// Decodes with libpng into the image's own format (no conversion).
bool Decode(const std::string& png, Decoded* out) {
  png_image image;
  std::memset(&image, 0, sizeof(image));
  image.version = PNG_IMAGE_VERSION;
  if (!png_image_begin_read_from_memory(&image, png.data(), png.size())) return false;
  out->height = static_cast<int>(image.height);
  out->width = static_cast<int>(image.width);
  out->channels = static_cast<int>(PNG_IMAGE_SAMPLE_CHANNELS(image.format));
  out->pixels.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out->pixels.data(), 0, nullptr)) return false;
  return true;
}

class PngEncoderTest : public ::testing::TestWithParam<int> {};

TEST_P(PngEncoderTest, DecodesBackToTheSamePixels) {
  const int channels = GetParam();
  const int height = 7, width = 13;
  std::vector<uint8_t> pixels(height * width * channels);
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<uint8_t>((i * 37 + 11) & 0xff);
  std::string png;
  ASSERT_TRUE(EncodePng(pixels.data(), height, width, channels, &png).ok());
  ASSERT_GE(png.size(), 8u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  Decoded d;
  ASSERT_TRUE(Decode(png, &d));
  EXPECT_EQ(d.height, height);
  EXPECT_EQ(d.width, width);
  EXPECT_EQ(d.channels, channels);
  EXPECT_EQ(d.pixels, pixels);
}

INSTANTIATE_TEST_SUITE_P(Channels, PngEncoderTest, ::testing::Values(1, 2, 3, 4));

TEST(PngEncoderErrorsTest, BadArgumentsAreInvalidArgument) {
  uint8_t px[16] = {};
  std::string png = "old";
  EXPECT_EQ(EncodePng(px, 2, 2, 0, &png).code(), Code::kInvalidArgument);
  EXPECT_EQ(EncodePng(px, 2, 2, 5, &png).code(), Code::kInvalidArgument);
  EXPECT_EQ(EncodePng(px, 0, 2, 1, &png).code(), Code::kInvalidArgument);
  EXPECT_EQ(EncodePng(px, 2, -1, 1, &png).code(), Code::kInvalidArgument);
  EXPECT_EQ(EncodePng(px, 2000000, 1, 1, &png).code(), Code::kInvalidArgument);
}

TEST(PngEncoderErrorsTest, LargeImageCompresses) {
  std::vector<uint8_t> pixels(512 * 512 * 3, 200);
  std::string png;
  ASSERT_TRUE(EncodePng(pixels.data(), 512, 512, 3, &png).ok());
  EXPECT_LT(png.size(), pixels.size() / 10);  // a flat image compresses well
  Decoded d;
  ASSERT_TRUE(Decode(png, &d));
  EXPECT_EQ(d.pixels, pixels);
}

}  // namespace
}  // namespace flowvm
