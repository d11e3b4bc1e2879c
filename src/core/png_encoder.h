// PNG encoding of 8-bit images (ImageSummary, SummaryWriter::AddImage),
// with Debian's libpng through its simplified write API: libpng handles
// its own errors there (no longjmp through our frames), and the result is
// a plain, non-interlaced 8-bit PNG that any browser shows.
//
// Thread-safe (no shared state).
#ifndef FLOWVM_CORE_PNG_ENCODER_H_
#define FLOWVM_CORE_PNG_ENCODER_H_

#include <cstdint>
#include <string>

#include "flowvm/status.h"

namespace flowvm {

// Encodes `pixels`, row-major [height, width, channels] bytes, into `*png`.
// channels: 1 gray, 2 gray + alpha, 3 RGB, 4 RGBA (Summary.Image's
// colorspace numbers). InvalidArgument for a zero or negative size, a
// channel count outside 1..4, or a side longer than libpng writes
// (1,000,000 pixels); Internal with libpng's message if encoding fails.
Status EncodePng(const uint8_t* pixels, int height, int width, int channels, std::string* png);

}  // namespace flowvm

#endif  // FLOWVM_CORE_PNG_ENCODER_H_
