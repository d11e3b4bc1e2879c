// Signatures (checked against TensorFlow 1.15's dataset_ops.cc) and shape
// functions of the dataset and iterator ops.
#include <gtest/gtest.h>

#include "graph/op_registry.h"
#include "graph/shape_inference.h"
#include "util/op_test_util.h"

namespace flowvm {
namespace {

using testing::InferShapes;
using testing::PlaceholderNode;
using testing::TestNode;

const OpDef& Def(const std::string& op) {
  const OpRegistrationData* reg = OpRegistry::Global()->LookUpOrNull(op);
  EXPECT_NE(reg, nullptr) << op;
  static const OpDef empty;
  return reg == nullptr ? empty : reg->op_def;
}

std::string Inputs(const OpDef& d) {
  std::string s;
  for (const auto& a : d.input_arg()) s += (s.empty() ? "" : ",") + a.name();
  return s;
}

std::string Attrs(const OpDef& d) {
  std::string s;
  for (const auto& a : d.attr()) s += (s.empty() ? "" : ",") + a.name();
  return s;
}

TEST(DatasetOpsDefTest, SignaturesAreTensorFlows) {
  // Input and attr names in TF's order: a GraphDef TF wrote sets exactly these.
  EXPECT_EQ(Inputs(Def("RangeDataset")), "start,stop,step");
  EXPECT_EQ(Inputs(Def("TFRecordDataset")), "filenames,compression_type,buffer_size");
  EXPECT_EQ(Inputs(Def("FixedLengthRecordDatasetV2")),
            "filenames,header_bytes,record_bytes,footer_bytes,buffer_size,compression_type");
  EXPECT_EQ(Inputs(Def("BatchDatasetV2")), "input_dataset,batch_size,drop_remainder");
  EXPECT_EQ(Attrs(Def("BatchDatasetV2")), "parallel_copy,output_types,output_shapes");
  EXPECT_EQ(Inputs(Def("PaddedBatchDatasetV2")),
            "input_dataset,batch_size,padded_shapes,padding_values,drop_remainder");
  EXPECT_EQ(Attrs(Def("MapDataset")), "f,Targuments,output_types,output_shapes,use_inter_op_parallelism,"
                                      "preserve_cardinality");
  EXPECT_EQ(Inputs(Def("ParallelMapDataset")), "input_dataset,other_arguments,num_parallel_calls");
  EXPECT_EQ(Attrs(Def("ParallelMapDataset")),
            "f,Targuments,output_types,output_shapes,use_inter_op_parallelism,sloppy,preserve_cardinality");
  EXPECT_EQ(Def("ParallelMapDataset").input_arg(2).type(), DT_INT32);
  EXPECT_EQ(Attrs(Def("FilterDataset")), "predicate,Targuments,output_types,output_shapes");
  EXPECT_EQ(Inputs(Def("InterleaveDataset")), "input_dataset,other_arguments,cycle_length,block_length");
  EXPECT_EQ(Inputs(Def("ShuffleDataset")), "input_dataset,buffer_size,seed,seed2");
  EXPECT_EQ(Attrs(Def("ShuffleDataset")), "reshuffle_each_iteration,output_types,output_shapes");
  EXPECT_EQ(Attrs(Def("PrefetchDataset")), "output_types,output_shapes,slack_period,legacy_autotune");
  EXPECT_EQ(Attrs(Def("ModelDataset")), "algorithm,cpu_budget,output_types,output_shapes");
  EXPECT_EQ(Attrs(Def("OptimizeDataset")), "output_types,output_shapes,optimization_configs");
  EXPECT_EQ(Inputs(Def("ShardDataset")), "input_dataset,num_shards,index");
  EXPECT_EQ(Attrs(Def("ShardDataset")), "require_non_empty,output_types,output_shapes");
  for (const char* op : {"MapAndBatchDataset", "ExperimentalMapAndBatchDataset"}) {
    EXPECT_EQ(Inputs(Def(op)), "input_dataset,other_arguments,batch_size,num_parallel_calls,drop_remainder") << op;
    EXPECT_EQ(Attrs(Def(op)), "f,Targuments,output_types,output_shapes,preserve_cardinality") << op;
  }
  EXPECT_EQ(Inputs(Def("ShuffleAndRepeatDataset")), "input_dataset,buffer_size,seed,seed2,count");
  EXPECT_EQ(Attrs(Def("IteratorV2")), "shared_name,container,output_types,output_shapes");
  EXPECT_EQ(Attrs(Def("OneShotIterator")), "dataset_factory,output_types,output_shapes,container,shared_name");
  EXPECT_EQ(Inputs(Def("MakeIterator")), "dataset,iterator");
  EXPECT_EQ(Attrs(Def("IteratorFromStringHandleV2")), "output_types,output_shapes");
  // Iterator ops are stateful: two get_next nodes are never merged.
  for (const char* op : {"IteratorV2", "MakeIterator", "IteratorGetNext", "OneShotIterator", "RangeDataset",
                         "TensorSliceDataset", "TFRecordDataset"})
    EXPECT_TRUE(Def(op).is_stateful()) << op;
  EXPECT_FALSE(Def("MapDataset").is_stateful());
}

TEST(DatasetOpsShapeTest, GetNextHasTheDeclaredShapes) {
  auto types = MakeAttrValue(DataTypeVector{DT_FLOAT, DT_INT64});
  auto shapes = MakeAttrValue(std::vector<PartialTensorShape>{PartialTensorShape({-1, 784}), PartialTensorShape({-1})});
  NodeDef it = TestNode("it", "IteratorV2").Attr("shared_name", "").Attr("container", "");
  (*it.mutable_attr())["output_types"] = types;
  (*it.mutable_attr())["output_shapes"] = shapes;
  NodeDef next = TestNode("next", "IteratorGetNext").Input("it");
  (*next.mutable_attr())["output_types"] = types;
  (*next.mutable_attr())["output_shapes"] = shapes;
  auto s = InferShapes({it, next}, "next");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape({-1, 784}));
  EXPECT_EQ((*s)[1], PartialTensorShape({-1}));
  s = InferShapes({it}, "it");
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)[0], PartialTensorShape(TensorShape()));
}

TEST(DatasetOpsShapeTest, ScalarInputsMustBeScalars) {
  auto range = [](PartialTensorShape stop_shape) {
    NodeDef r = TestNode("r", "RangeDataset").Input("start").Input("stop").Input("step");
    (*r.mutable_attr())["output_types"] = MakeAttrValue(DataTypeVector{DT_INT64});
    (*r.mutable_attr())["output_shapes"] = MakeAttrValue(std::vector<PartialTensorShape>{PartialTensorShape({})});
    return InferShapes({PlaceholderNode("start", DT_INT64, TensorShape()), PlaceholderNode("stop", DT_INT64, stop_shape),
                        PlaceholderNode("step", DT_INT64, TensorShape()), r},
                       "r");
  };
  EXPECT_TRUE(range(TensorShape()).ok());
  auto bad = range(PartialTensorShape({2}));
  EXPECT_EQ(bad.status().code(), Code::kInvalidArgument) << bad.status();
  // filenames: a scalar or a vector, not a matrix.
  auto records = [](PartialTensorShape names) {
    return InferShapes({PlaceholderNode("names", DT_STRING, names), PlaceholderNode("c", DT_STRING, TensorShape()),
                        PlaceholderNode("b", DT_INT64, TensorShape()),
                        TestNode("r", "TFRecordDataset").Input("names").Input("c").Input("b")},
                       "r");
  };
  EXPECT_TRUE(records(PartialTensorShape({-1})).ok());
  EXPECT_TRUE(records(TensorShape()).ok());
  EXPECT_EQ(records(PartialTensorShape({2, 2})).status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace flowvm
