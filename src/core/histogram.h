// Histogram: counts values into TensorFlow's default exponential buckets,
// for HistogramSummary and SummaryWriter::AddHistogram, and encodes itself
// into a HistogramProto exactly as TensorFlow's summary ops do, so that
// TensorBoard (and our board) draw our histograms as they draw theirs.
//
// The bucket limits are 0, ±1e-12 growing by a factor of 1.1 up to the
// last value below 1e20, and ±DBL_MAX at the ends (1551 limits in all).
// A value v goes into the first bucket whose limit is greater than v
// (std::upper_bound), so bucket i holds [limit[i-1], limit[i]).
//
// Not thread-safe; a value type.
#ifndef FLOWVM_CORE_HISTOGRAM_H_
#define FLOWVM_CORE_HISTOGRAM_H_

#include <string>
#include <vector>

#include "flowvm/status.h"
#include "flowvm/summary.pb.h"

namespace flowvm {

class Tensor;

class Histogram {
 public:
  Histogram();

  // The shared default limits, ascending, from -DBL_MAX to DBL_MAX.
  static const std::vector<double>& DefaultBucketLimits();

  // REQUIRES: value is finite (AddTensor checks; callers of Add check too).
  void Add(double value);
  void Clear();

  // Adds every element of `values`, a tensor of a real number type (TF's
  // realnumbertypes: floats, signed and unsigned integers). InvalidArgument
  // "Nan in summary histogram for: <tag>" (or "Infinity ...") at the first
  // non-finite value, as TensorFlow's HistogramSummary; InvalidArgument
  // naming the dtype for a type that is not a real number.
  Status AddTensor(const Tensor& values, const std::string& tag);

  double num() const { return num_; }
  double min() const { return min_; }
  double max() const { return max_; }
  double sum() const { return sum_; }
  double sum_squares() const { return sum_squares_; }
  // Counts, one per default bucket limit.
  const std::vector<double>& buckets() const { return buckets_; }

  // min, max, num, sum, sum_squares, and the buckets; a run of empty
  // buckets becomes one empty bucket with the run's last limit, unless
  // `preserve_zero_buckets`. The summary ops encode without preserving.
  // An empty histogram has min DBL_MAX and max -DBL_MAX, as in TensorFlow.
  void EncodeToProto(HistogramProto* proto, bool preserve_zero_buckets = false) const;

 private:
  double min_;
  double max_;
  double num_;
  double sum_;
  double sum_squares_;
  std::vector<double> buckets_;
};

}  // namespace flowvm

#endif  // FLOWVM_CORE_HISTOGRAM_H_
