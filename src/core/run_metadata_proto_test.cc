// RunOptions, RunMetadata, StepStats and the messages they hold carry
// TensorFlow's field numbers (checked against TensorFlow's config.proto,
// step_stats.proto, tensor_description.proto, allocation_description.proto),
// so bytes written by either side parse on the other. One row per field.
#include <google/protobuf/descriptor.h>
#include <gtest/gtest.h>

#include "flowvm/config.pb.h"
#include "flowvm/step_stats.pb.h"

namespace flowvm {
namespace {

using google::protobuf::Descriptor;

struct Field {
  const Descriptor* message;
  const char* name;
  int number;
};

TEST(RunMetadataProtoTest, FieldNumbersAreTensorFlows) {
  const Descriptor* opts = RunOptions::descriptor();
  const Descriptor* meta = RunMetadata::descriptor();
  const Descriptor* ns = NodeExecStats::descriptor();
  const Descriptor* mem = AllocatorMemoryUsed::descriptor();
  const Descriptor* ms = MemoryStats::descriptor();
  const Descriptor* ad = AllocationDescription::descriptor();
  const Field fields[] = {
      {opts, "trace_level", 1}, {opts, "timeout_in_ms", 2}, {opts, "inter_op_thread_pool", 3},
      {opts, "output_partition_graphs", 5}, {opts, "report_tensor_allocations_upon_oom", 7},
      {meta, "step_stats", 1}, {meta, "partition_graphs", 3},
      {StepStats::descriptor(), "dev_stats", 1},
      {DeviceStepStats::descriptor(), "device", 1}, {DeviceStepStats::descriptor(), "node_stats", 2},
      {DeviceStepStats::descriptor(), "thread_names", 3},
      {ns, "node_name", 1}, {ns, "all_start_micros", 2}, {ns, "op_start_rel_micros", 3},
      {ns, "op_end_rel_micros", 4}, {ns, "all_end_rel_micros", 5}, {ns, "memory", 6}, {ns, "output", 7},
      {ns, "timeline_label", 8}, {ns, "scheduled_micros", 9}, {ns, "thread_id", 10},
      {ns, "referenced_tensor", 11}, {ns, "memory_stats", 12}, {ns, "all_start_nanos", 13},
      {ns, "op_start_rel_nanos", 14}, {ns, "op_end_rel_nanos", 15}, {ns, "all_end_rel_nanos", 16},
      {ns, "scheduled_nanos", 17},
      {mem, "allocator_name", 1}, {mem, "total_bytes", 2}, {mem, "peak_bytes", 3}, {mem, "live_bytes", 4},
      {mem, "allocator_bytes_in_use", 5}, {mem, "allocation_records", 6},
      {AllocationRecord::descriptor(), "alloc_micros", 1}, {AllocationRecord::descriptor(), "alloc_bytes", 2},
      {NodeOutput::descriptor(), "slot", 1}, {NodeOutput::descriptor(), "tensor_description", 3},
      {ms, "temp_memory_size", 1}, {ms, "device_temp_memory_size", 2}, {ms, "persistent_memory_size", 3},
      {ms, "device_persistent_memory_size", 4}, {ms, "persistent_tensor_alloc_ids", 5},
      {ms, "device_persistent_tensor_alloc_ids", 6},
      {TensorDescription::descriptor(), "dtype", 1}, {TensorDescription::descriptor(), "shape", 2},
      {TensorDescription::descriptor(), "allocation_description", 4},
      {ad, "requested_bytes", 1}, {ad, "allocated_bytes", 2}, {ad, "allocator_name", 3},
      {ad, "allocation_id", 4}, {ad, "has_single_reference", 5}, {ad, "ptr", 6},
  };
  for (const Field& f : fields) {
    const auto* field = f.message->FindFieldByName(f.name);
    ASSERT_NE(field, nullptr) << f.message->name() << "." << f.name;
    EXPECT_EQ(field->number(), f.number) << f.message->name() << "." << f.name;
  }
  EXPECT_EQ(ns->FindFieldByName("thread_id")->type(), google::protobuf::FieldDescriptor::TYPE_UINT32);
  EXPECT_EQ(ad->FindFieldByName("ptr")->type(), google::protobuf::FieldDescriptor::TYPE_UINT64);
  EXPECT_EQ(RunOptions::FULL_TRACE, 3);
  EXPECT_EQ(RunOptions::HARDWARE_TRACE, 2);
  EXPECT_EQ(RunOptions::SOFTWARE_TRACE, 1);
}

// TensorFlow's fields that flowvm leaves out (debug_options, experimental,
// cost_graph) survive a parse and re-serialization as unknown fields.
TEST(RunMetadataProtoTest, FieldsFlowvmLacksArePreserved) {
  // RunOptions{trace_level: FULL_TRACE, experimental (8): {collective_graph_key (1): 5}}
  const std::string bytes("\x08\x03\x42\x02\x08\x05", 6);
  RunOptions opts;
  ASSERT_TRUE(opts.ParseFromString(bytes));
  EXPECT_EQ(opts.trace_level(), RunOptions::FULL_TRACE);
  EXPECT_EQ(opts.SerializeAsString(), bytes);
}

}  // namespace
}  // namespace flowvm
