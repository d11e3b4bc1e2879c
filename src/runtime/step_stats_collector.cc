#include "runtime/step_stats_collector.h"

#include <algorithm>
#include <chrono>

#include "runtime/timeline_label.h"

namespace flowvm {

namespace {

int64_t WallNowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string LabelOf(const Node& node) {
  std::vector<std::string> inputs;
  for (int i = 0; i < node.num_inputs(); ++i)
    if (const Edge* e = node.input_edge(i)) inputs.push_back(InputName(e));
  for (const Edge* e : node.in_edges())
    if (e->IsControlEdge()) inputs.push_back(InputName(e));
  if (IsSendOp(node.op()) || IsRecvOp(node.op())) {
    std::string tensor, from, to;
    GetNodeAttr(node.def(), "tensor_name", &tensor).IgnoreError();
    GetNodeAttr(node.def(), "send_device", &from).IgnoreError();
    GetNodeAttr(node.def(), "recv_device", &to).IgnoreError();
    return FormatTransferLabel(node.name(), node.op(), inputs, tensor, from, to);
  }
  return FormatTimelineLabel(node.name(), node.op(), inputs);
}

}  // namespace

class StepStatsCollector::DeviceRecorder : public NodeStatsRecorder {
 public:
  DeviceRecorder(const DeviceBase* device, int64_t steady_origin, int64_t wall_origin)
      : device_(device), steady_origin_(steady_origin), wall_origin_(wall_origin) {}

  void Record(const Node& node, const NodeTiming& t, const OutputSlot* outputs) override {
    NodeExecStats ns;
    ns.set_node_name(node.name());
    const int64_t start = t.start_ns - steady_origin_ + wall_origin_;
    const int64_t dur = std::max<int64_t>(0, t.end_ns - t.start_ns);
    ns.set_all_start_micros(start / 1000);
    ns.set_all_start_nanos(start);
    ns.set_op_start_rel_micros(0);
    ns.set_op_end_rel_micros(dur / 1000);
    ns.set_all_end_rel_micros(dur / 1000);
    ns.set_op_end_rel_nanos(dur);
    ns.set_all_end_rel_nanos(dur);
    if (t.scheduled_ns != 0) {
      const int64_t scheduled = t.scheduled_ns - steady_origin_ + wall_origin_;
      ns.set_scheduled_micros(scheduled / 1000);
      ns.set_scheduled_nanos(scheduled);
    }
    ns.set_thread_id(t.thread_id);
    ns.set_timeline_label(LabelOf(node));
    const std::string& allocator = device_->allocator()->Name();
    int64_t output_bytes = 0;
    for (int i = 0; i < node.num_outputs(); ++i) {
      const OutputSlot& o = outputs[i];
      if (!o.has_value) continue;
      const Tensor& value = o.ref != nullptr ? *o.ref : o.value;
      NodeOutput* out = ns.add_output();
      out->set_slot(i);
      TensorDescription* d = out->mutable_tensor_description();
      d->set_dtype(value.dtype());
      value.shape().AsProto(d->mutable_shape());
      if (o.ref == nullptr) {
        d->mutable_allocation_description()->set_requested_bytes(static_cast<int64_t>(value.TotalBytes()));
        d->mutable_allocation_description()->set_allocator_name(allocator);
        d->mutable_allocation_description()->set_ptr(reinterpret_cast<uint64_t>(value.raw_data()));
        output_bytes += static_cast<int64_t>(value.TotalBytes());
      }
    }
    const AllocatorStats stats = device_->allocator()->GetStats();
    AllocatorMemoryUsed* mem = ns.add_memory();
    mem->set_allocator_name(allocator);
    mem->set_total_bytes(output_bytes);
    mem->set_peak_bytes(stats.peak_bytes_in_use);
    mem->set_allocator_bytes_in_use(stats.bytes_in_use);
    std::lock_guard<std::mutex> lock(mu_);
    nodes_.push_back(std::move(ns));
    measurements_.push_back({node.name(), dur});
  }

  void Finalize(DeviceStepStats* out) {
    std::lock_guard<std::mutex> lock(mu_);
    std::stable_sort(nodes_.begin(), nodes_.end(), [](const NodeExecStats& a, const NodeExecStats& b) {
      return a.all_start_nanos() < b.all_start_nanos();
    });
    out->set_device(device_->name());
    for (NodeExecStats& n : nodes_) {
      (*out->mutable_thread_names())[n.thread_id()] = "thread " + std::to_string(n.thread_id());
      *out->add_node_stats() = std::move(n);
    }
    nodes_.clear();
  }

  const DeviceBase* device() const { return device_; }
  void AddMeasurements(std::vector<Measurement>* out) const {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [node, nanos] : measurements_) out->push_back({node, device_->device_type(), nanos});
  }

 private:
  const DeviceBase* device_;
  const int64_t steady_origin_;
  const int64_t wall_origin_;
  mutable std::mutex mu_;
  std::vector<NodeExecStats> nodes_;
  std::vector<std::pair<std::string, int64_t>> measurements_;
};

StepStatsCollector::StepStatsCollector() : steady_origin_ns_(NowNanos()), wall_origin_ns_(WallNowNanos()) {}

StepStatsCollector::~StepStatsCollector() = default;

NodeStatsRecorder* StepStatsCollector::ForDevice(const DeviceBase* device) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& d : devices_)
    if (d->device() == device) return d.get();
  devices_.push_back(std::make_unique<DeviceRecorder>(device, steady_origin_ns_, wall_origin_ns_));
  return devices_.back().get();
}

void StepStatsCollector::Finalize(StepStats* out) {
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& d : devices_) d->Finalize(out->add_dev_stats());
}

std::vector<StepStatsCollector::Measurement> StepStatsCollector::Measurements() const {
  std::vector<Measurement> out;
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& d : devices_) d->AddMeasurements(&out);
  return out;
}

}  // namespace flowvm
