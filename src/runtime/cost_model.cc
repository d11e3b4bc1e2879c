#include "runtime/cost_model.h"

#include <algorithm>
#include <cstdio>

namespace flowvm {

namespace {

int64_t KnownElements(const PartialTensorShape& s) {
  if (s.unknown_rank()) return 1;
  int64_t n = 1;
  for (int64_t d : s.dim_sizes()) n *= d < 0 ? 1 : d;
  return n;
}

int64_t Dim(const PartialTensorShape& s, int i) {
  if (s.unknown_rank() || i < 0 || i >= s.dims()) return 1;
  return std::max<int64_t>(1, s.dim_size(i));
}

// Multiply-adds of the ops whose cost is arithmetic, or 0.
double MultiplyAdds(const Node& node, const std::vector<PartialTensorShape>& in,
                    const std::vector<PartialTensorShape>& out) {
  const std::string& op = node.op();
  if (op == "MatMul" && in.size() >= 2) {
    bool ta = false;
    GetNodeAttr(node.def(), "transpose_a", &ta).IgnoreError();
    const int64_t k = ta ? Dim(in[0], 0) : Dim(in[0], 1);
    return static_cast<double>(out.empty() ? 1 : KnownElements(out[0])) * static_cast<double>(k);
  }
  if ((op == "BatchMatMul" || op == "BatchMatMulV2") && in.size() >= 2 && !out.empty()) {
    bool adj_x = false;
    GetNodeAttr(node.def(), "adj_x", &adj_x).IgnoreError();
    const int r = in[0].dims();
    const int64_t k = r < 2 ? 1 : (adj_x ? Dim(in[0], r - 2) : Dim(in[0], r - 1));
    return static_cast<double>(KnownElements(out[0])) * static_cast<double>(k);
  }
  if ((op == "Conv2D" || op == "DepthwiseConv2dNative") && in.size() >= 2 && !out.empty()) {
    // filter [h, w, in, out_or_multiplier]: each output element reads h*w*in.
    const int64_t per_output = Dim(in[1], 0) * Dim(in[1], 1) * (op == "Conv2D" ? Dim(in[1], 2) : 1);
    return static_cast<double>(KnownElements(out[0])) * static_cast<double>(per_output);
  }
  if ((op == "Conv2DBackpropInput" || op == "Conv2DBackpropFilter") && in.size() >= 3) {
    // As much arithmetic as the forward convolution: out_backprop x filter.
    const PartialTensorShape& filter = op == "Conv2DBackpropInput" ? in[1] : (out.empty() ? in[1] : out[0]);
    return static_cast<double>(KnownElements(in[2])) * static_cast<double>(Dim(filter, 0) * Dim(filter, 1) *
                                                                            Dim(filter, 2));
  }
  return 0;
}

}  // namespace

std::string FormatMicros(double nanos) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f us", nanos / 1000);
  return buf;
}

CostModel::CostModel(CostModelParams params) : params_(params) {}

int64_t CostModel::EstimatedBytes(const PartialTensorShape& shape, DataType dtype) {
  const DataType base = BaseType(dtype);
  const int64_t elem = base == DT_STRING ? 16 : std::max<int64_t>(1, static_cast<int64_t>(DataTypeSize(base)));
  return KnownElements(shape) * elem;
}

double CostModel::StaticNanos(const Node& node, const std::vector<PartialTensorShape>& inputs,
                              const std::vector<PartialTensorShape>& outputs, const std::string& device_type) const {
  const double flops_per_ns = device_type == "GPU" ? params_.gpu_flops_per_ns : params_.cpu_flops_per_ns;
  const double madds = MultiplyAdds(node, inputs, outputs);
  if (madds > 0) return params_.node_overhead_ns + 2 * madds / flops_per_ns;
  // Memory-bound: read the inputs, write the outputs. Ops that only pass a
  // buffer on (Identity, Reshape, variables) are close to free.
  const std::string& op = node.op();
  if (op == "Const" || op == "Identity" || op == "Reshape" || op == "NoOp" || op == "VariableV2" ||
      op == "Variable" || op == "_Arg" || op == "_Retval" || op == "Placeholder" || op == "Shape" ||
      op == "Squeeze" || op == "ExpandDims")
    return params_.node_overhead_ns;
  int64_t bytes = 0;
  for (int i = 0; i < node.num_inputs() && i < static_cast<int>(inputs.size()); ++i)
    bytes += EstimatedBytes(inputs[i], node.input_type(i));
  for (int i = 0; i < node.num_outputs() && i < static_cast<int>(outputs.size()); ++i)
    bytes += EstimatedBytes(outputs[i], node.output_type(i));
  return params_.node_overhead_ns + static_cast<double>(bytes) / params_.bytes_per_ns;
}

double CostModel::ComputeNanos(const Node& node, const std::vector<PartialTensorShape>& inputs,
                               const std::vector<PartialTensorShape>& outputs, const std::string& device_type) const {
  const double measured = Measured(node.name(), device_type);
  if (measured >= 0) return measured;
  return StaticNanos(node, inputs, outputs, device_type);
}

double CostModel::TransferNanos(int64_t bytes, const DeviceNameParts& src, const DeviceNameParts& dst) const {
  if (src == dst) return 0;
  const bool same_task = src.job == dst.job && src.replica == dst.replica && src.task == dst.task;
  if (same_task) return params_.local_transfer_ns;
  return params_.remote_transfer_ns + static_cast<double>(bytes) / params_.remote_bytes_per_ns;
}

void CostModel::RecordMeasurement(const std::string& node, const std::string& device_type, double nanos) {
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = measured_.try_emplace({node, device_type}, nanos);
  // A moving average: recent steps count most, one outlier does not flip a placement.
  if (!inserted) it->second = 0.7 * it->second + 0.3 * nanos;
}

double CostModel::Measured(const std::string& node, const std::string& device_type) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = measured_.find({node, device_type});
  return it == measured_.end() ? -1 : it->second;
}

int CostModel::num_measurements() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(measured_.size());
}

}  // namespace flowvm
