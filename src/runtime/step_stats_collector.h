// StepStatsCollector: gathers the NodeExecStats of a traced step, one
// DeviceStepStats per device (paper 9.2; TensorFlow's step_stats.proto), so
// RunMetadata can return them and `flowvm run --trace` can draw them.
//
// Times are wall-clock (all_start_micros since the Unix epoch, as
// TensorFlow), with the *_nanos fields for sub-microsecond precision. Each
// node's record holds its outputs (dtype, shape, bytes, allocator), the
// device allocator's bytes in use and peak when it ended, the thread it ran
// on and a timeline label (runtime/timeline_label.h). Thread-safe.
#ifndef FLOWVM_RUNTIME_STEP_STATS_COLLECTOR_H_
#define FLOWVM_RUNTIME_STEP_STATS_COLLECTOR_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "flowvm/step_stats.pb.h"
#include "runtime/node_stats.h"

namespace flowvm {

class StepStatsCollector {
 public:
  StepStatsCollector();
  ~StepStatsCollector();

  // The recorder for one partition; stays valid as long as the collector.
  NodeStatsRecorder* ForDevice(const DeviceBase* device);

  // Moves what was recorded into `out` (one DeviceStepStats per device, in
  // the order ForDevice was first called, nodes in start order).
  void Finalize(StepStats* out);

  // Compute time (op end - op start, ns) per node name, per device type,
  // for the cost model.
  struct Measurement {
    std::string node;
    std::string device_type;
    int64_t nanos = 0;
  };
  std::vector<Measurement> Measurements() const;

 private:
  class DeviceRecorder;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<DeviceRecorder>> devices_;
  const int64_t steady_origin_ns_;
  const int64_t wall_origin_ns_;
};

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_STEP_STATS_COLLECTOR_H_
