// CostModel: what a node costs where (paper 3.2), for the placer's
// simulation and the partitioner's Recv scheduling (paper 5.2).
//
// Static estimates come from shapes: the multiply-adds of MatMul and the
// convolutions at a per-device-type rate, the bytes every other op reads and
// writes at a memory rate, plus a per-node overhead; unknown dimensions
// count as 1. A transfer costs a fixed latency plus bytes at a link rate;
// between devices of one process only the latency (no bytes move).
//
// Measured compute times of earlier traced steps (RecordMeasurement, an
// exponential moving average per node name and device type) replace the
// static estimate of that node: the paper's "future work", refining the
// placement from what really happened. Thread-safe.
#ifndef FLOWVM_RUNTIME_COST_MODEL_H_
#define FLOWVM_RUNTIME_COST_MODEL_H_

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "flowvm/tensor_shape.h"
#include "graph/device_name.h"
#include "graph/graph.h"

namespace flowvm {

struct CostModelParams {
  double cpu_flops_per_ns = 8;      // per CPU device: ~8 GFLOP/s (one core, vectorized)
  double gpu_flops_per_ns = 1000;   // reserved for GPU devices
  double bytes_per_ns = 4;          // memory-bound ops: ~4 GB/s
  double node_overhead_ns = 100;    // scheduling one node
  double local_transfer_ns = 2000;  // a Send/Recv pair inside one process
  double remote_transfer_ns = 50000;  // a Send/Recv pair between processes
  double remote_bytes_per_ns = 1;     // ~1 GB/s between processes
};

class CostModel {
 public:
  explicit CostModel(CostModelParams params = CostModelParams());

  // Estimated compute time of `node` on a device of `device_type`; a
  // measurement of this node on that type wins over the static estimate.
  // `inputs` / `outputs` are the node's inferred shapes (may be unknown).
  double ComputeNanos(const Node& node, const std::vector<PartialTensorShape>& inputs,
                      const std::vector<PartialTensorShape>& outputs, const std::string& device_type) const;
  // Time to move `bytes` from device `src` to device `dst` (0 when equal).
  double TransferNanos(int64_t bytes, const DeviceNameParts& src, const DeviceNameParts& dst) const;
  // Bytes of a tensor of `shape` and `dtype` (unknown dims count as 1).
  static int64_t EstimatedBytes(const PartialTensorShape& shape, DataType dtype);

  void RecordMeasurement(const std::string& node, const std::string& device_type, double nanos);
  // The measured time, or a negative number when there is none.
  double Measured(const std::string& node, const std::string& device_type) const;
  int num_measurements() const;

  const CostModelParams& params() const { return params_; }

 private:
  double StaticNanos(const Node& node, const std::vector<PartialTensorShape>& inputs,
                     const std::vector<PartialTensorShape>& outputs, const std::string& device_type) const;

  const CostModelParams params_;
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, double> measured_;  // (node, device type) -> ns
};

// "12.3 us", for the reasons the placer and Recv scheduling give.
std::string FormatMicros(double nanos);

}  // namespace flowvm

#endif  // FLOWVM_RUNTIME_COST_MODEL_H_
