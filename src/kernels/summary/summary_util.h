// What the summary kernels share (kernels/summary/): reading one element of
// a real-number tensor, building ImageSummary's PNG values, and outputting
// a Summary as a scalar string. Stateless; thread-safe.
#ifndef FLOWVM_KERNELS_SUMMARY_SUMMARY_UTIL_H_
#define FLOWVM_KERNELS_SUMMARY_SUMMARY_UTIL_H_

#include <string>

#include "flowvm/status.h"
#include "flowvm/summary.pb.h"
#include "flowvm/tensor.h"

namespace flowvm {

class OpKernelContext;

// Element i of `t` as a double. InvalidArgument naming the dtype if `t` is
// not of a real number type (TensorFlow's realnumbertype).
StatusOr<double> RealElement(const Tensor& t, int64_t i);

// Adds up to `max_images` images of `images`, a [batch, height, width,
// channels] tensor (channels 1, 3 or 4) of uint8, half, float or double,
// as TensorFlow's ImageSummary does: tags "<tag>/image/<i>", or
// "<tag>/image" when max_images is 1; uint8 pixels as they are, floating
// ones scaled per image into [0, 255] (by 255/max when no value is
// negative, else by 127/max|v| around 128), and pixels with a non-finite
// channel painted `bad_color` (a uint8 vector with at least `channels`
// elements). InvalidArgument, naming the tag, for a bad shape or colour.
Status AddImageSummaries(const std::string& tag, const Tensor& images, int max_images, const Tensor& bad_color,
                         Summary* summary);

// Sets output 0 to a scalar string holding `summary` serialized.
void OutputSummary(OpKernelContext* ctx, const Summary& summary);

}  // namespace flowvm

#endif  // FLOWVM_KERNELS_SUMMARY_SUMMARY_UTIL_H_
