#include "core/histogram.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "flowvm/tensor.h"

namespace flowvm {

namespace {

std::vector<double> MakeDefaultLimits() {
  // Positive limits grow by 10% from 1e-12 while below 1e20; the negative
  // side mirrors them, with 0 between and ±DBL_MAX at the ends.
  std::vector<double> positive;
  for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) positive.push_back(v);
  std::vector<double> limits;
  limits.reserve(2 * positive.size() + 3);
  limits.push_back(-DBL_MAX);
  for (auto it = positive.rbegin(); it != positive.rend(); ++it) limits.push_back(-*it);
  limits.push_back(0.0);
  limits.insert(limits.end(), positive.begin(), positive.end());
  limits.push_back(DBL_MAX);
  return limits;
}

template <typename T>
double ToDouble(T v) {
  return static_cast<double>(v);
}
template <>
double ToDouble(half v) {
  return static_cast<double>(static_cast<float>(v));
}
template <>
double ToDouble(bfloat16 v) {
  return static_cast<double>(static_cast<float>(v));
}

template <typename T>
Status AddAll(const Tensor& values, const std::string& tag, Histogram* h) {
  for (T v : values.flat<T>()) {
    const double d = ToDouble(v);
    if (std::isnan(d)) return errors::InvalidArgument("Nan in summary histogram for: ", tag);
    if (std::isinf(d)) return errors::InvalidArgument("Infinity in summary histogram for: ", tag);
    h->Add(d);
  }
  return Status::OK();
}

}  // namespace

const std::vector<double>& Histogram::DefaultBucketLimits() {
  static const std::vector<double>* limits = new std::vector<double>(MakeDefaultLimits());
  return *limits;
}

Histogram::Histogram() { Clear(); }

void Histogram::Clear() {
  min_ = DBL_MAX;
  max_ = -DBL_MAX;
  num_ = 0;
  sum_ = 0;
  sum_squares_ = 0;
  buckets_.assign(DefaultBucketLimits().size(), 0.0);
}

namespace {

// upper_bound(limits, value): the first limit above `value`. The limits
// grow geometrically (1e-12 * 1.1^k), so log2 of the magnitude lands within
// a bucket of the answer, and a step fixes the rounding. log2 comes from
// the double's exponent and mantissa bits (log2(1 + f) ~ f, off by at most
// 0.086, under a bucket's 0.1375): a binary search over the ~1,550 limits,
// or std::log, costs several times more, and histograms of every weight of
// a model add up.
size_t FirstLimitAbove(const std::vector<double>& limits, double value) {
  constexpr double kLog2Smallest = -39.86313713864835;  // log2(1e-12)
  constexpr double kBucketsPerOctave = 7.272540897341713;  // 1 / log2(1.1)
  const ptrdiff_t n = static_cast<ptrdiff_t>(limits.size());
  const ptrdiff_t positives = (n - 3) / 2;  // -DBL_MAX, negatives, 0, positives, DBL_MAX
  const double magnitude = std::fabs(value);
  ptrdiff_t k = -1;  // magnitude is in [1e-12 * 1.1^k, 1e-12 * 1.1^(k+1)), about
  if (magnitude >= 1.0e-12) {
    uint64_t bits;
    std::memcpy(&bits, &magnitude, sizeof(bits));
    const double log2 = static_cast<double>(static_cast<int>(bits >> 52) - 1023) +
                        static_cast<double>(bits & ((uint64_t{1} << 52) - 1)) * 0x1p-52;
    const double e = (log2 - kLog2Smallest) * kBucketsPerOctave;
    k = e < static_cast<double>(positives) ? static_cast<ptrdiff_t>(e) : positives;
  }
  ptrdiff_t g = value >= 0 ? positives + 3 + k : positives - k;
  g = std::clamp<ptrdiff_t>(g, 0, n);
  while (g > 0 && limits[g - 1] > value) --g;
  while (g < n && limits[g] <= value) ++g;
  return static_cast<size_t>(g);
}

}  // namespace

void Histogram::Add(double value) {
  const std::vector<double>& limits = DefaultBucketLimits();
  // DBL_MAX itself (and a caller's infinity) has no limit above it: it
  // counts in the last bucket rather than past the end.
  size_t b = FirstLimitAbove(limits, value);
  if (b >= buckets_.size()) b = buckets_.size() - 1;
  buckets_[b] += 1.0;
  min_ = std::min(min_, value);
  max_ = std::max(max_, value);
  num_ += 1;
  sum_ += value;
  sum_squares_ += value * value;
}

Status Histogram::AddTensor(const Tensor& values, const std::string& tag) {
  switch (values.dtype()) {
    case DT_FLOAT: return AddAll<float>(values, tag, this);
    case DT_DOUBLE: return AddAll<double>(values, tag, this);
    case DT_HALF: return AddAll<half>(values, tag, this);
    case DT_BFLOAT16: return AddAll<bfloat16>(values, tag, this);
    case DT_INT8: return AddAll<int8_t>(values, tag, this);
    case DT_INT16: return AddAll<int16_t>(values, tag, this);
    case DT_INT32: return AddAll<int32_t>(values, tag, this);
    case DT_INT64: return AddAll<int64_t>(values, tag, this);
    case DT_UINT8: return AddAll<uint8_t>(values, tag, this);
    case DT_UINT16: return AddAll<uint16_t>(values, tag, this);
    case DT_UINT32: return AddAll<uint32_t>(values, tag, this);
    case DT_UINT64: return AddAll<uint64_t>(values, tag, this);
    default:
      return errors::InvalidArgument("histogram '", tag, "': values of type ", DataTypeName(values.dtype()),
                                     " are not real numbers");
  }
}

void Histogram::EncodeToProto(HistogramProto* proto, bool preserve_zero_buckets) const {
  const std::vector<double>& limits = DefaultBucketLimits();
  proto->Clear();
  proto->set_min(min_);
  proto->set_max(max_);
  proto->set_num(num_);
  proto->set_sum(sum_);
  proto->set_sum_squares(sum_squares_);
  size_t i = 0;
  while (i < buckets_.size()) {
    double limit = limits[i];
    const double count = buckets_[i];
    ++i;
    // TensorFlow collapses each run of empty buckets into one entry that
    // ends at the run's last limit: the chart still knows where data is not.
    if (!preserve_zero_buckets && count <= 0.0) {
      while (i < buckets_.size() && buckets_[i] <= 0.0) limit = limits[i++];
    }
    proto->add_bucket_limit(limit);
    proto->add_bucket(count);
  }
}

}  // namespace flowvm
