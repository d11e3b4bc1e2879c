// The function-calling datasets through sessions, with real FunctionDefs
// in the GraphDef's library (as TF 1.x's Python writes them): Map,
// ParallelMap, Filter, FlatMap (the file-reader pattern included),
// Interleave and OneShotIterator; on one device, across two, and on a
// cluster task; and the errors that name the function.
#include <stdlib.h>

#include <filesystem>

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "flowvm/record_io.h"
#include "kernels/data/dataset_test_util.h"

namespace flowvm::data::testing {
namespace {

const std::vector<PartialTensorShape> kScalar = {ScalarShape()};

FunctionDef Fn(const std::string& text) {
  FunctionDef f;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &f)) << text;
  return f;
}

std::string Int64Const(const std::string& name, int64_t v) {
  return "node_def { name: '" + name +
         "' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } attr { key: 'value' value { tensor { "
         "dtype: DT_INT64 tensor_shape {} int64_val: " +
         std::to_string(v) + " } } } }";
}

const char* kInt64Attr = "attr { key: 'T' value { type: DT_INT64 } }";
const char* kScalarInt64Sig =
    "attr { key: 'output_types' value { list { type: DT_INT64 } } } "
    "attr { key: 'output_shapes' value { list { shape {} } } }";

// x * 2 + 1.
FunctionDef TimesTwoPlusOne() {
  return Fn(std::string("signature { name: 'TimesTwoPlusOne' input_arg { name: 'x' type: DT_INT64 } "
                        "output_arg { name: 'y' type: DT_INT64 } } ") +
            Int64Const("two", 2) + Int64Const("one", 1) +
            "node_def { name: 'mul' op: 'Mul' input: 'x' input: 'two:output:0' " + kInt64Attr + " } " +
            "node_def { name: 'add' op: 'AddV2' input: 'mul:z:0' input: 'one:output:0' " + kInt64Attr + " } " +
            "ret { key: 'y' value: 'add:z:0' }");
}

// x + c, c captured.
FunctionDef AddCaptured() {
  return Fn(std::string("signature { name: 'AddCaptured' input_arg { name: 'x' type: DT_INT64 } "
                        "input_arg { name: 'c' type: DT_INT64 } output_arg { name: 'y' type: DT_INT64 } } ") +
            "node_def { name: 'add' op: 'AddV2' input: 'x' input: 'c' " + kInt64Attr + " } " +
            "ret { key: 'y' value: 'add:z:0' }");
}

// x % 3 == 0.
FunctionDef DivisibleBy3() {
  return Fn(std::string("signature { name: 'DivisibleBy3' input_arg { name: 'x' type: DT_INT64 } "
                        "output_arg { name: 'keep' type: DT_BOOL } } ") +
            Int64Const("three", 3) + Int64Const("zero", 0) +
            "node_def { name: 'mod' op: 'FloorMod' input: 'x' input: 'three:output:0' " + kInt64Attr + " } " +
            "node_def { name: 'eq' op: 'Equal' input: 'mod:z:0' input: 'zero:output:0' " + kInt64Attr + " } " +
            "ret { key: 'keep' value: 'eq:z:0' }");
}

// x -> range(0, x): a dataset made inside the body.
FunctionDef RangeTo() {
  return Fn(std::string("signature { name: 'RangeTo' input_arg { name: 'x' type: DT_INT64 } "
                        "output_arg { name: 'dataset' type: DT_VARIANT } } ") +
            Int64Const("zero", 0) + Int64Const("one", 1) +
            "node_def { name: 'range' op: 'RangeDataset' input: 'zero:output:0' input: 'x' input: 'one:output:0' " +
            kScalarInt64Sig + " } ret { key: 'dataset' value: 'range:handle:0' }");
}

// x -> from_tensors(x).repeat(6) (TF's interleave example).
FunctionDef SixTimes() {
  return Fn(std::string("signature { name: 'SixTimes' input_arg { name: 'x' type: DT_INT64 } "
                        "output_arg { name: 'dataset' type: DT_VARIANT } } ") +
            Int64Const("six", 6) +
            "node_def { name: 'once' op: 'TensorDataset' input: 'x' "
            "attr { key: 'Toutput_types' value { list { type: DT_INT64 } } } "
            "attr { key: 'output_shapes' value { list { shape {} } } } } "
            "node_def { name: 'repeat' op: 'RepeatDataset' input: 'once:handle:0' input: 'six:output:0' " +
            kScalarInt64Sig + " } ret { key: 'dataset' value: 'repeat:handle:0' }");
}

// () -> range(0, 3).batch(2): a one-shot iterator's factory.
FunctionDef MakeBatches() {
  return Fn(std::string("signature { name: 'MakeBatches' output_arg { name: 'dataset' type: DT_VARIANT } } ") +
            Int64Const("zero", 0) + Int64Const("three", 3) + Int64Const("one", 1) + Int64Const("two", 2) +
            "node_def { name: 'drop' op: 'Const' attr { key: 'dtype' value { type: DT_BOOL } } "
            "attr { key: 'value' value { tensor { dtype: DT_BOOL tensor_shape {} bool_val: false } } } } "
            "node_def { name: 'range' op: 'RangeDataset' input: 'zero:output:0' input: 'three:output:0' "
            "input: 'one:output:0' " +
            kScalarInt64Sig +
            " } node_def { name: 'batch' op: 'BatchDatasetV2' input: 'range:handle:0' input: 'two:output:0' "
            "input: 'drop:output:0' attr { key: 'output_types' value { list { type: DT_INT64 } } } "
            "attr { key: 'output_shapes' value { list { shape { dim { size: -1 } } } } } } "
            "ret { key: 'dataset' value: 'batch:handle:0' }");
}

// filename -> TFRecordDataset(filename): TF 1.15's TFRecordDataset is
// from_tensor_slices(filenames).flat_map(this).
FunctionDef ReadOneFile() {
  return Fn(
      "signature { name: 'ReadOneFile' input_arg { name: 'filename' type: DT_STRING } "
      "output_arg { name: 'dataset' type: DT_VARIANT } } "
      "node_def { name: 'compression' op: 'Const' attr { key: 'dtype' value { type: DT_STRING } } "
      "attr { key: 'value' value { tensor { dtype: DT_STRING tensor_shape {} string_val: '' } } } } "
      "node_def { name: 'buffer' op: 'Const' attr { key: 'dtype' value { type: DT_INT64 } } "
      "attr { key: 'value' value { tensor { dtype: DT_INT64 tensor_shape {} int64_val: 262144 } } } } "
      "node_def { name: 'records' op: 'TFRecordDataset' input: 'filename' input: 'compression:output:0' "
      "input: 'buffer:output:0' } ret { key: 'dataset' value: 'records:handle:0' }");
}

void AddLibrary(Pipeline* p, std::vector<FunctionDef> functions) {
  for (FunctionDef& f : functions) *p->graph().mutable_library()->add_function() = std::move(f);
}

std::vector<int64_t> DrainInts(Pipeline& p, int cpu_devices = 1) {
  auto s = p.NewSession(cpu_devices);
  if (s == nullptr) return {};
  auto got = Drain(s.get(), p.NextFetches());
  EXPECT_TRUE(got.ok()) << got.status();
  return got.ok() ? Scalars<int64_t>(*got) : std::vector<int64_t>{};
}

TEST(FunctionSessionTest, MapAppliesALibraryFunction) {
  Pipeline p;
  p.Range("range", 0, 5);
  p.Dataset("map", "MapDataset", {"range"}, {DT_INT64}, kScalar,
            {{"f", FuncAttr("TimesTwoPlusOne")}, {"Targuments", TypesAttr({})}});
  p.Iterate("map", {DT_INT64}, kScalar);
  AddLibrary(&p, {TimesTwoPlusOne()});
  EXPECT_EQ(DrainInts(p), (std::vector<int64_t>{1, 3, 5, 7, 9}));
}

TEST(FunctionSessionTest, MapWithCapturedArgumentsAndParallelCalls) {
  for (const char* op : {"MapDataset", "ParallelMapDataset"}) {
    Pipeline p;
    p.Range("range", 0, 40);
    p.Const("c", Tensor::Scalar<int64_t>(100));
    std::vector<std::string> inputs = {"range", "c"};
    if (std::string(op) == "ParallelMapDataset") {
      p.Const("calls", Tensor::Scalar<int32_t>(3));
      inputs.push_back("calls");
    }
    p.Dataset("map", op, inputs, {DT_INT64}, kScalar,
              {{"f", FuncAttr("AddCaptured")}, {"Targuments", TypesAttr({DT_INT64})}});
    p.Iterate("map", {DT_INT64}, kScalar);
    AddLibrary(&p, {AddCaptured()});
    EXPECT_EQ(DrainInts(p), Iota(100, 140)) << op;
  }
}

TEST(FunctionSessionTest, MapAndBatchMapsThenBatches) {
  // range(7).apply(map_and_batch(x * 2 + 1, 3)): [1,3,5], [7,9,11], [13].
  for (bool drop : {false, true}) {
    Pipeline p;
    p.Range("range", 0, 7);
    p.Const("batch_size", Tensor::Scalar<int64_t>(3));
    p.Const("calls", Tensor::Scalar<int64_t>(2));
    p.Const("drop", Tensor::Scalar<bool>(drop));
    const std::vector<PartialTensorShape> batches = {PartialTensorShape({-1})};
    p.Dataset("mb", "MapAndBatchDataset", {"range", "batch_size", "calls", "drop"}, {DT_INT64}, batches,
              {{"f", FuncAttr("TimesTwoPlusOne")}, {"Targuments", TypesAttr({})}});
    p.Iterate("mb", {DT_INT64}, batches);
    AddLibrary(&p, {TimesTwoPlusOne()});
    auto s = p.NewSession();
    auto got = Drain(s.get(), p.NextFetches());
    ASSERT_TRUE(got.ok()) << got.status();
    std::vector<std::vector<int64_t>> want = {{1, 3, 5}, {7, 9, 11}};
    if (!drop) want.push_back({13});
    EXPECT_EQ(Flats<int64_t>(*got), want);
  }
}

TEST(FunctionSessionTest, FilterKeepsWhatThePredicateAccepts) {
  Pipeline p;
  p.Range("range", 0, 10);
  p.Dataset("filter", "FilterDataset", {"range"}, {DT_INT64}, kScalar,
            {{"predicate", FuncAttr("DivisibleBy3")}, {"Targuments", TypesAttr({})}});
  p.Iterate("filter", {DT_INT64}, kScalar);
  AddLibrary(&p, {DivisibleBy3()});
  EXPECT_EQ(DrainInts(p), (std::vector<int64_t>{0, 3, 6, 9}));
}

TEST(FunctionSessionTest, FlatMapOfADatasetMadeInTheBody) {
  Pipeline p;
  p.Range("range", 0, 4);
  p.Dataset("flat", "FlatMapDataset", {"range"}, {DT_INT64}, kScalar,
            {{"f", FuncAttr("RangeTo")}, {"Targuments", TypesAttr({})}});
  p.Iterate("flat", {DT_INT64}, kScalar);
  AddLibrary(&p, {RangeTo()});
  EXPECT_EQ(DrainInts(p), (std::vector<int64_t>{0, 0, 1, 0, 1, 2}));
}

TEST(FunctionSessionTest, InterleaveFollowsTFsDocumentedOrder) {
  Pipeline p;
  p.Range("range", 1, 6);
  p.Const("cycle", Tensor::Scalar<int64_t>(2));
  p.Const("block", Tensor::Scalar<int64_t>(4));
  p.Dataset("interleave", "InterleaveDataset", {"range", "cycle", "block"}, {DT_INT64}, kScalar,
            {{"f", FuncAttr("SixTimes")}, {"Targuments", TypesAttr({})}});
  p.Iterate("interleave", {DT_INT64}, kScalar);
  AddLibrary(&p, {SixTimes()});
  EXPECT_EQ(DrainInts(p), (std::vector<int64_t>{1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
                                                 3, 3, 4, 4, 5, 5, 5, 5, 5, 5}));
}

TEST(FunctionSessionTest, OneShotIteratorMakesItsDatasetOnFirstUse) {
  Pipeline p;
  p.Add("iterator", "OneShotIterator", {},
        {{"dataset_factory", FuncAttr("MakeBatches")},
         {"output_types", TypesAttr({DT_INT64})},
         {"output_shapes", ShapesAttr({PartialTensorShape({-1})})}});
  p.Add("next", "IteratorGetNext", {"iterator"},
        {{"output_types", TypesAttr({DT_INT64})}, {"output_shapes", ShapesAttr({PartialTensorShape({-1})})}});
  AddLibrary(&p, {MakeBatches()});
  auto s = p.NewSession();
  ASSERT_NE(s, nullptr);
  auto got = Drain(s.get(), {"next:0"}, /*init=*/false);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Flats<int64_t>(*got), (std::vector<std::vector<int64_t>>{{0, 1}, {2}}));
}

TEST(FunctionSessionTest, TFRecordFilesReadThroughFlatMapAsTF115Writes) {
  std::string dir = ::testing::TempDir() + "/fn_records_XXXXXX";
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  std::vector<std::string> files;
  for (int f = 0; f < 2; ++f) {
    files.push_back(dir + "/part-" + std::to_string(f) + ".tfrecord");
    auto w = RecordWriter::Create(files.back());
    ASSERT_TRUE(w.ok()) << w.status();
    for (int r = 0; r < 3; ++r) FLOWVM_ASSERT_OK((*w)->Write("f" + std::to_string(f) + "r" + std::to_string(r)));
    FLOWVM_ASSERT_OK((*w)->Close());
  }
  Pipeline p;
  p.Const("filenames", Tensor::FromVector<std::string>(files));
  p.Add("names", "TensorSliceDataset", {"filenames"},
        {{"Toutput_types", TypesAttr({DT_STRING})}, {"output_shapes", ShapesAttr(kScalar)}});
  p.Dataset("records", "FlatMapDataset", {"names"}, {DT_STRING}, kScalar,
            {{"f", FuncAttr("ReadOneFile")}, {"Targuments", TypesAttr({})}});
  p.Iterate("records", {DT_STRING}, kScalar);
  AddLibrary(&p, {ReadOneFile()});
  auto s = p.NewSession();
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Scalars<std::string>(*got), (std::vector<std::string>{"f0r0", "f0r1", "f0r2", "f1r0", "f1r1", "f1r2"}));
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
}

TEST(FunctionSessionTest, MapOnOneDeviceIteratorOnAnother) {
  Pipeline p;
  p.Range("range", 0, 5, 1, "/device:CPU:1");
  p.Dataset("map", "MapDataset", {"range"}, {DT_INT64}, kScalar,
            {{"f", FuncAttr("TimesTwoPlusOne")}, {"Targuments", TypesAttr({})}}, "/device:CPU:1");
  p.Iterate("map", {DT_INT64}, kScalar, "/device:CPU:0");
  AddLibrary(&p, {TimesTwoPlusOne()});
  EXPECT_EQ(DrainInts(p, 2), (std::vector<int64_t>{1, 3, 5, 7, 9}));
}

TEST(FunctionSessionTest, AnUndefinedFunctionIsNamed) {
  Pipeline p;
  p.Range("range", 0, 5);
  p.Dataset("map", "MapDataset", {"range"}, {DT_INT64}, kScalar,
            {{"f", FuncAttr("NoSuchFunction")}, {"Targuments", TypesAttr({})}});
  p.Iterate("map", {DT_INT64}, kScalar);
  AddLibrary(&p, {TimesTwoPlusOne()});
  SessionOptions o;
  auto created = Session::Create(o, p.graph());
  Status st = created.ok() ? (*created)->Run({}, {}, {"init"}, nullptr) : created.status();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("NoSuchFunction"), std::string::npos) << st;
}

TEST(FunctionSessionTest, AnErrorInsideTheMapFunctionNamesTheFunctionAndNode) {
  // x / 0 on integers fails in the body.
  FunctionDef div = Fn(std::string("signature { name: 'DivByZero' input_arg { name: 'x' type: DT_INT64 } "
                                   "output_arg { name: 'y' type: DT_INT64 } } ") +
                       Int64Const("zero", 0) + "node_def { name: 'div' op: 'FloorDiv' input: 'x' input: " +
                       "'zero:output:0' " + kInt64Attr + " } ret { key: 'y' value: 'div:z:0' }");
  Pipeline p;
  p.Range("range", 0, 5);
  p.Dataset("map", "MapDataset", {"range"}, {DT_INT64}, kScalar,
            {{"f", FuncAttr("DivByZero")}, {"Targuments", TypesAttr({})}});
  p.Iterate("map", {DT_INT64}, kScalar);
  AddLibrary(&p, {div});
  auto s = p.NewSession();
  ASSERT_NE(s, nullptr);
  auto got = Drain(s.get(), p.NextFetches());
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("DivByZero"), std::string::npos) << got.status();
  EXPECT_NE(got.status().message().find("div"), std::string::npos) << got.status();
  EXPECT_NE(got.status().message().find("MapDataset 'map'"), std::string::npos) << got.status();
}

TEST(FunctionSessionTest, AMapOnAClusterTask) {
  distributed_testing::LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  const std::string w1 = "/job:worker/replica:0/task:1/device:CPU:0";
  Pipeline p;
  p.Range("range", 0, 5, 1, w1);
  p.Dataset("map", "MapDataset", {"range"}, {DT_INT64}, kScalar,
            {{"f", FuncAttr("TimesTwoPlusOne")}, {"Targuments", TypesAttr({})}}, w1);
  p.Iterate("map", {DT_INT64}, kScalar, w1);
  AddLibrary(&p, {TimesTwoPlusOne()});
  SessionOptions o;
  o.target = cluster.Target("worker", 0);
  o.connect_timeout_ms = 10000;
  auto created = Session::Create(o, p.graph());
  ASSERT_TRUE(created.ok()) << created.status();
  auto got = Drain(created->get(), p.NextFetches());
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(Scalars<int64_t>(*got), (std::vector<int64_t>{1, 3, 5, 7, 9}));
}

}  // namespace
}  // namespace flowvm::data::testing
