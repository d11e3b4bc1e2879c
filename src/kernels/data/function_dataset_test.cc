// The datasets that call functions (Map, ParallelMap, Filter, FlatMap,
// Interleave) and OneShotIterator, with a fake function library whose
// functions are std::functions: kernels are built and run directly.
#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "kernels/data/dataset_test_util.h"
#include "kernels/framework/resource_mgr.h"

namespace flowvm::data::testing {
namespace {

const std::vector<PartialTensorShape> kScalar = {ScalarShape()};

class FunctionDatasetTest : public ::testing::Test {
 protected:
  FunctionDatasetTest() : runner_(&library_) {}

  DatasetPtr Range(int64_t start, int64_t stop, int64_t step = 1) {
    auto d = runner_.Dataset(MakeNode("range", "RangeDataset", 3,
                                      {{"output_types", TypesAttr({DT_INT64})}, {"output_shapes", ShapesAttr(kScalar)}}),
                             {Tensor::Scalar<int64_t>(start), Tensor::Scalar<int64_t>(stop), Tensor::Scalar<int64_t>(step)});
    EXPECT_TRUE(d.ok()) << d.status();
    return d.ok() ? *d : nullptr;
  }
  // A dataset op `op` over `input` plus `extra` inputs.
  StatusOr<DatasetPtr> Over(const std::string& op, const DatasetPtr& input, std::vector<Tensor> extra,
                            std::map<std::string, AttrValue> attrs) {
    std::vector<Tensor> inputs = {DatasetToTensor(input)};
    inputs.insert(inputs.end(), extra.begin(), extra.end());
    const OpRegistrationData* reg = OpRegistry::Global()->LookUpOrNull(op);
    bool takes_arguments = false;
    for (const auto& a : reg->op_def.attr()) takes_arguments = takes_arguments || a.name() == "Targuments";
    if (takes_arguments && !attrs.count("Targuments")) attrs["Targuments"] = TypesAttr({});
    return runner_.Dataset(MakeNode(op, op, static_cast<int>(inputs.size()), attrs), inputs);
  }
  static std::map<std::string, AttrValue> Sig(const DataTypeVector& types, const std::vector<PartialTensorShape>& shapes,
                                              std::map<std::string, AttrValue> more = {}) {
    more["output_types"] = TypesAttr(types);
    more["output_shapes"] = ShapesAttr(shapes);
    return more;
  }
  std::vector<int64_t> Ints(const StatusOr<DatasetPtr>& d) {
    EXPECT_TRUE(d.ok()) << d.status();
    if (!d.ok()) return {};
    auto got = Collect(*d);
    EXPECT_TRUE(got.ok()) << got.status();
    return got.ok() ? Scalars<int64_t>(*got) : std::vector<int64_t>{};
  }

  FakeFunctionLibrary library_;
  KernelRunner runner_;
};

Status Unary(const std::vector<Tensor>& args, std::vector<Tensor>* rets, int64_t (*fn)(int64_t)) {
  rets->assign(1, Tensor::Scalar<int64_t>(fn(args[0].scalar<int64_t>())));
  return Status::OK();
}

TEST_F(FunctionDatasetTest, MapAppliesTheFunctionWithItsCapturedArguments) {
  library_.Define("add", {DT_INT64, DT_INT64}, {DT_INT64}, [](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    r->assign(1, Tensor::Scalar<int64_t>(a[0].scalar<int64_t>() + a[1].scalar<int64_t>()));
    return Status::OK();
  });
  auto d = Over("MapDataset", Range(0, 5), {Tensor::Scalar<int64_t>(100)},
                Sig({DT_INT64}, kScalar, {{"f", FuncAttr("add")}, {"Targuments", TypesAttr({DT_INT64})}}));
  EXPECT_EQ(Ints(d), (std::vector<int64_t>{100, 101, 102, 103, 104}));
}

TEST_F(FunctionDatasetTest, MapOutOfRangeEndsTheSequenceUnlessCardinalityIsPreserved) {
  library_.Define("stop_at_3", {DT_INT64}, {DT_INT64}, [](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    if (a[0].scalar<int64_t>() == 3) return errors::OutOfRange("no more");
    r->assign(1, a[0]);
    return Status::OK();
  });
  EXPECT_EQ(Ints(Over("MapDataset", Range(0, 10), {}, Sig({DT_INT64}, kScalar, {{"f", FuncAttr("stop_at_3")}}))),
            (std::vector<int64_t>{0, 1, 2}));
  auto strict = Over("MapDataset", Range(0, 10), {},
                     Sig({DT_INT64}, kScalar, {{"f", FuncAttr("stop_at_3")}, {"preserve_cardinality", MakeAttrValue(true)}}));
  ASSERT_TRUE(strict.ok()) << strict.status();
  auto got = Collect(*strict);
  EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << got.status();
  EXPECT_NE(got.status().message().find("stop_at_3"), std::string::npos) << got.status();
}

TEST_F(FunctionDatasetTest, MapReturningTheWrongTypeNamesTheFunctionAndDataset) {
  library_.Define("to_float", {DT_INT64}, {DT_FLOAT}, [](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    r->assign(1, Tensor::Scalar<float>(1.0f));
    return Status::OK();
  });
  auto d = Over("MapDataset", Range(0, 3), {}, Sig({DT_INT64}, kScalar, {{"f", FuncAttr("to_float")}}));
  ASSERT_TRUE(d.ok());
  auto got = Collect(*d);
  EXPECT_EQ(got.status().code(), Code::kInvalidArgument) << got.status();
  EXPECT_NE(got.status().message().find("function 'to_float' of MapDataset 'MapDataset'"), std::string::npos)
      << got.status();
}

TEST_F(FunctionDatasetTest, AnUndefinedFunctionIsNotFoundNamingIt) {
  auto d = Over("MapDataset", Range(0, 3), {}, Sig({DT_INT64}, kScalar, {{"f", FuncAttr("nowhere")}}));
  EXPECT_EQ(d.status().code(), Code::kNotFound) << d.status();
  EXPECT_NE(d.status().message().find("nowhere"), std::string::npos) << d.status();
}

TEST_F(FunctionDatasetTest, ParallelMapKeepsTheOrderAndRunsCallsAtOnce) {
  std::atomic<int> running{0}, most{0};
  library_.Define("slow_square", {DT_INT64}, {DT_INT64}, [&](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    const int now = running.fetch_add(1) + 1;
    int seen = most.load();
    while (now > seen && !most.compare_exchange_weak(seen, now)) {
    }
    const int64_t x = a[0].scalar<int64_t>();
    // Later elements often finish first.
    std::this_thread::sleep_for(std::chrono::microseconds(200 * ((x * 7) % 5)));
    r->assign(1, Tensor::Scalar<int64_t>(x * x));
    running.fetch_sub(1);
    return Status::OK();
  });
  std::vector<int64_t> want;
  for (int64_t x = 0; x < 60; ++x) want.push_back(x * x);
  for (int32_t calls : {1, 4, -1}) {
    auto d = Over("ParallelMapDataset", Range(0, 60), {Tensor::Scalar<int32_t>(calls)},
                  Sig({DT_INT64}, kScalar, {{"f", FuncAttr("slow_square")}}));
    EXPECT_EQ(Ints(d), want) << "num_parallel_calls " << calls;
  }
  EXPECT_GE(most.load(), 2);
}

TEST_F(FunctionDatasetTest, FilterKeepsWhatThePredicateAccepts) {
  library_.Define("even", {DT_INT64}, {DT_BOOL}, [](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    r->assign(1, Tensor::Scalar<bool>(a[0].scalar<int64_t>() % 2 == 0));
    return Status::OK();
  });
  EXPECT_EQ(Ints(Over("FilterDataset", Range(0, 10), {}, Sig({DT_INT64}, kScalar, {{"predicate", FuncAttr("even")}}))),
            (std::vector<int64_t>{0, 2, 4, 6, 8}));
  library_.Define("not_bool", {DT_INT64}, {DT_INT64}, [](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    r->assign(1, a[0]);
    return Status::OK();
  });
  auto d = Over("FilterDataset", Range(0, 3), {}, Sig({DT_INT64}, kScalar, {{"predicate", FuncAttr("not_bool")}}));
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(Collect(*d).status().code(), Code::kInvalidArgument);
}

// x -> range(x).
TEST_F(FunctionDatasetTest, FlatMapReadsEachReturnedDatasetInTurn) {
  library_.Define("range_of", {DT_INT64}, {DT_VARIANT}, [this](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    r->assign(1, DatasetToTensor(Range(0, a[0].scalar<int64_t>())));
    return Status::OK();
  });
  EXPECT_EQ(Ints(Over("FlatMapDataset", Range(0, 4), {}, Sig({DT_INT64}, kScalar, {{"f", FuncAttr("range_of")}}))),
            (std::vector<int64_t>{0, 0, 1, 0, 1, 2}));
}

// TF's documented example: Dataset.range(1, 6).interleave(lambda x:
// Dataset.from_tensors(x).repeat(6), cycle_length, block_length).
TEST_F(FunctionDatasetTest, InterleaveFollowsTFsDocumentedOrder) {
  library_.Define("six_times", {DT_INT64}, {DT_VARIANT}, [this](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    auto once = runner_.Dataset(MakeNode("t", "TensorDataset", 1,
                                         {{"Toutput_types", TypesAttr({DT_INT64})}, {"output_shapes", ShapesAttr(kScalar)}}),
                                {a[0]});
    FLOWVM_RETURN_IF_ERROR(once.status());
    FLOWVM_ASSIGN_OR_RETURN(DatasetPtr six, Over("RepeatDataset", *once, {Tensor::Scalar<int64_t>(6)}, Sig({DT_INT64}, kScalar)));
    r->assign(1, DatasetToTensor(six));
    return Status::OK();
  });
  auto interleave = [&](int64_t cycle, int64_t block) {
    return Ints(Over("InterleaveDataset", Range(1, 6), {Tensor::Scalar<int64_t>(cycle), Tensor::Scalar<int64_t>(block)},
                     Sig({DT_INT64}, kScalar, {{"f", FuncAttr("six_times")}})));
  };
  // From TF's docs (cycle_length=2, block_length=4):
  EXPECT_EQ(interleave(2, 4), (std::vector<int64_t>{1, 1, 1, 1, 2, 2, 2, 2, 1, 1, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
                                                     3, 3, 4, 4, 5, 5, 5, 5, 5, 5}));
  // cycle_length=2, block_length=1: 1 and 2 alternate six times, then 3 and
  // 4, then 5 alone.
  EXPECT_EQ(interleave(2, 1), (std::vector<int64_t>{1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 3, 4, 3, 4, 3, 4, 3, 4,
                                                     3, 4, 3, 4, 5, 5, 5, 5, 5, 5}));
  // cycle_length=1 is flat_map.
  EXPECT_EQ(interleave(1, 3), (std::vector<int64_t>{1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3,
                                                     4, 4, 4, 4, 4, 4, 5, 5, 5, 5, 5, 5}));
}

TEST_F(FunctionDatasetTest, InterleaveWithUnevenDatasetsKeepsCycling) {
  // x -> range(x) for x in 1..4, cycle 3, block 2: places 0,1,2 hold
  // range(1), range(2), range(3); range(4) takes the first place freed.
  library_.Define("range_of", {DT_INT64}, {DT_VARIANT}, [this](const std::vector<Tensor>& a, std::vector<Tensor>* r) {
    r->assign(1, DatasetToTensor(Range(0, a[0].scalar<int64_t>())));
    return Status::OK();
  });
  // Cycle: [r1] 0 | end r1 -> place 1: [r2] 0 1 | place 2: [r3] 0 1 |
  // place 0: [r4] 0 1 | place 1: r2 ended | place 2: r3: 2 | end r3 |
  // place 0: r4: 2 3 | end r4.
  EXPECT_EQ(Ints(Over("InterleaveDataset", Range(1, 5), {Tensor::Scalar<int64_t>(3), Tensor::Scalar<int64_t>(2)},
                      Sig({DT_INT64}, kScalar, {{"f", FuncAttr("range_of")}}))),
            (std::vector<int64_t>{0, 0, 1, 0, 1, 0, 1, 2, 2, 3}));
}

// OneShotIterator: the factory runs once, on first use, even when the op's
// kernel is made again (another prepared step of the same graph).
TEST_F(FunctionDatasetTest, OneShotIteratorRunsItsFactoryOnce) {
  auto factory = library_.Define("make", {}, {DT_VARIANT}, [this](const std::vector<Tensor>&, std::vector<Tensor>* r) {
    r->assign(1, DatasetToTensor(Range(0, 3)));
    return Status::OK();
  });
  const auto one_shot = MakeNode("one_shot", "OneShotIterator", 0,
                                 Sig({DT_INT64}, kScalar, {{"dataset_factory", FuncAttr("make")}}));
  const auto get_next = MakeNode("next", "IteratorGetNext", 1, Sig({DT_INT64}, kScalar));
  std::vector<int64_t> got;
  for (int step = 0; step < 4; ++step) {
    auto handle = runner_.Run(one_shot, {});
    ASSERT_TRUE(handle.ok()) << handle.status();
    auto next = runner_.Run(get_next, {(*handle)[0]});
    if (step == 3) {
      EXPECT_EQ(next.status().code(), Code::kOutOfRange) << next.status();
      break;
    }
    ASSERT_TRUE(next.ok()) << next.status();
    got.push_back((*next)[0].scalar<int64_t>());
  }
  EXPECT_EQ(got, (std::vector<int64_t>{0, 1, 2}));
  EXPECT_EQ(factory->calls(), 1);
  runner_.device()->resource_manager()->CleanupAll();
}

TEST_F(FunctionDatasetTest, AFailingOneShotFactoryFailsEveryUse) {
  library_.Define("broken", {}, {DT_VARIANT}, [](const std::vector<Tensor>&, std::vector<Tensor>*) {
    return errors::InvalidArgument("the factory is broken");
  });
  const auto one_shot = MakeNode("one_shot", "OneShotIterator", 0,
                                 Sig({DT_INT64}, kScalar, {{"dataset_factory", FuncAttr("broken")}}));
  for (int i = 0; i < 2; ++i) {
    auto handle = runner_.Run(one_shot, {});
    EXPECT_EQ(handle.status().code(), Code::kInvalidArgument) << handle.status();
    EXPECT_NE(handle.status().message().find("the factory is broken"), std::string::npos) << handle.status();
  }
  runner_.device()->resource_manager()->CleanupAll();
}

TEST_F(FunctionDatasetTest, WithoutAFunctionLibraryMapIsFailedPrecondition) {
  KernelRunner bare(nullptr);
  auto range = Range(0, 3);
  auto d = bare.Dataset(MakeNode("m", "MapDataset", 1, Sig({DT_INT64}, kScalar, {{"f", FuncAttr("f")}, {"Targuments", TypesAttr({})}})),
                        {DatasetToTensor(range)});
  EXPECT_EQ(d.status().code(), Code::kFailedPrecondition) << d.status();
}

}  // namespace
}  // namespace flowvm::data::testing
