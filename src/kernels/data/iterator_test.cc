// Iterators through sessions: the end of the sequence, an uninitialized
// iterator, reinitialization, state across runs, two devices, feedable
// string handles, and a get_next cancelled by a deadline or Session::Close.
#include <filesystem>
#include <thread>

#include <gtest/gtest.h>

#include "flowvm/config.pb.h"
#include "kernels/data/dataset_test_util.h"

namespace flowvm::data::testing {
namespace {

const std::vector<PartialTensorShape> kScalar = {ScalarShape()};

int64_t NextInt(Session* s, const std::string& fetch = "next:0") {
  std::vector<Tensor> out;
  Status st = s->Run({}, {fetch}, {}, &out);
  EXPECT_TRUE(st.ok()) << st;
  return st.ok() ? out[0].scalar<int64_t>() : -1;
}

TEST(IteratorTest, GetNextAtTheEndIsOutOfRangeAndStaysSo) {
  Pipeline p;
  p.Range("range", 0, 2);
  p.Iterate("range", {DT_INT64}, kScalar);
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  EXPECT_EQ(NextInt(s.get()), 0);
  EXPECT_EQ(NextInt(s.get()), 1);
  for (int i = 0; i < 2; ++i) {
    std::vector<Tensor> out;
    Status st = s->Run({}, {"next:0"}, {}, &out);
    EXPECT_EQ(st.code(), Code::kOutOfRange) << st;
    EXPECT_NE(st.message().find("End of sequence"), std::string::npos) << st;
  }
}

TEST(IteratorTest, GetNextBeforeInitializationIsFailedPreconditionWithTFsMessage) {
  Pipeline p;
  p.Range("range", 0, 2);
  p.Iterate("range", {DT_INT64}, kScalar);
  auto s = p.NewSession();
  std::vector<Tensor> out;
  Status st = s->Run({}, {"next:0"}, {}, &out);
  EXPECT_EQ(st.code(), Code::kFailedPrecondition) << st;
  EXPECT_NE(st.message().find("GetNext() failed because the iterator has not been initialized. Ensure that you have "
                              "run the initializer operation for this iterator before getting the next element."),
            std::string::npos)
      << st;
}

TEST(IteratorTest, StateIsKeptAcrossRunsAndMakeIteratorStartsAgain) {
  Pipeline p;
  p.Range("range", 10, 20);
  p.Iterate("range", {DT_INT64}, kScalar);
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  EXPECT_EQ(NextInt(s.get()), 10);
  EXPECT_EQ(NextInt(s.get()), 11);
  EXPECT_EQ(NextInt(s.get()), 12);
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  EXPECT_EQ(NextInt(s.get()), 10);
  // Fetching the next element together with something else (another
  // prepared step) reads the same iterator.
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({}, {"next:0", "range/stop"}, {}, &out));
  EXPECT_EQ(out[0].scalar<int64_t>(), 11);
}

TEST(IteratorTest, InitializablePipelineFedByAPlaceholder) {
  // The TF 1.x pattern: a placeholder fed when the iterator is initialized.
  Pipeline p;
  p.Add("limit", "Placeholder", {}, {{"dtype", MakeAttrValue(DT_INT64)}, {"shape", MakeAttrValue(ScalarShape())}});
  p.Const("start", Tensor::Scalar<int64_t>(0));
  p.Const("step", Tensor::Scalar<int64_t>(1));
  p.Dataset("range", "RangeDataset", {"start", "limit", "step"}, {DT_INT64}, kScalar);
  p.Iterate("range", {DT_INT64}, kScalar);
  auto s = p.NewSession();
  for (int64_t limit : {3, 5}) {
    FLOWVM_ASSERT_OK(s->Run({{"limit", Tensor::Scalar<int64_t>(limit)}}, {}, {"init"}, nullptr));
    auto got = Drain(s.get(), p.NextFetches(), /*init=*/false);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(Scalars<int64_t>(*got), Iota(0, limit));
  }
}

TEST(IteratorTest, ADatasetOfOtherTypesThanTheIteratorIsRefusedAtMakeIterator) {
  Pipeline p;
  p.Const("f", Tensor::FromVector<float>({1, 2}));
  p.Add("floats", "TensorSliceDataset", {"f"}, {{"Toutput_types", TypesAttr({DT_FLOAT})}, {"output_shapes", ShapesAttr(kScalar)}});
  p.Iterate("floats", {DT_INT64}, kScalar);
  auto s = p.NewSession();
  Status st = s->Run({}, {}, {"init"}, nullptr);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("TensorSliceDataset 'floats'"), std::string::npos) << st;
}

TEST(IteratorTest, DatasetOnOneDeviceIteratorOnAnother) {
  // Datasets on CPU:1; the iterator, its initializer and get_next on CPU:0.
  Pipeline p;
  const std::string cpu1 = "/device:CPU:1", cpu0 = "/device:CPU:0";
  p.Range("range", 0, 10, 1, cpu1);
  p.Const("batch_size", Tensor::Scalar<int64_t>(4), cpu1);
  p.Const("drop", Tensor::Scalar<bool>(false), cpu1);
  p.Dataset("batch", "BatchDatasetV2", {"range", "batch_size", "drop"}, {DT_INT64}, {PartialTensorShape({-1})}, {},
            cpu1);
  p.Iterate("batch", {DT_INT64}, {PartialTensorShape({-1})}, cpu0);
  p.Add("sum", "Sum", {"next:0", "axis"}, {{"T", MakeAttrValue(DT_INT64)}, {"Tidx", MakeAttrValue(DT_INT32)}}, cpu1);
  p.Const("axis", Tensor::Scalar<int32_t>(0), cpu1);
  auto s = p.NewSession(/*cpu_devices=*/2);
  ASSERT_NE(s, nullptr);
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  std::vector<int64_t> sums;
  while (true) {
    std::vector<Tensor> out;
    Status st = s->Run({}, {"sum"}, {}, &out);
    if (st.code() == Code::kOutOfRange) break;
    ASSERT_TRUE(st.ok()) << st;
    sums.push_back(out[0].scalar<int64_t>());
  }
  EXPECT_EQ(sums, (std::vector<int64_t>{0 + 1 + 2 + 3, 4 + 5 + 6 + 7, 8 + 9}));
}

TEST(IteratorTest, FeedableIteratorsSwitchByStringHandle) {
  Pipeline p;
  p.Range("a", 0, 3);
  p.Range("b", 100, 103);
  for (const char* n : {"a", "b"}) {
    const std::string it = std::string("it_") + n;
    p.Add(it, "IteratorV2", {},
          {{"shared_name", MakeAttrValue("")}, {"container", MakeAttrValue("")}, {"output_types", TypesAttr({DT_INT64})},
           {"output_shapes", ShapesAttr(kScalar)}});
    p.Add(std::string("init_") + n, "MakeIterator", {n, it});
    p.Add(std::string("handle_") + n, "IteratorToStringHandle", {it});
  }
  p.Add("handle", "Placeholder", {}, {{"dtype", MakeAttrValue(DT_STRING)}, {"shape", MakeAttrValue(ScalarShape())}});
  p.Add("feedable", "IteratorFromStringHandleV2", {"handle"},
        {{"output_types", TypesAttr({DT_INT64})}, {"output_shapes", ShapesAttr(kScalar)}});
  p.Add("next", "IteratorGetNext", {"feedable"}, {{"output_types", TypesAttr({DT_INT64})}, {"output_shapes", ShapesAttr(kScalar)}});
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init_a", "init_b"}, nullptr));
  std::vector<Tensor> handles;
  FLOWVM_ASSERT_OK(s->Run({}, {"handle_a", "handle_b"}, {}, &handles));
  auto next = [&](const Tensor& h) {
    std::vector<Tensor> out;
    Status st = s->Run({{"handle", h}}, {"next:0"}, {}, &out);
    EXPECT_TRUE(st.ok()) << st;
    return st.ok() ? out[0].scalar<int64_t>() : -1;
  };
  EXPECT_EQ(next(handles[0]), 0);
  EXPECT_EQ(next(handles[0]), 1);
  EXPECT_EQ(next(handles[1]), 100);
  EXPECT_EQ(next(handles[0]), 2);
  EXPECT_EQ(next(handles[1]), 101);
  std::vector<Tensor> out;
  Status bad = s->Run({{"handle", Tensor::Scalar<std::string>("not a handle")}}, {"next:0"}, {}, &out);
  EXPECT_EQ(bad.code(), Code::kInvalidArgument) << bad;
}

// A get_next that never finds an element: skip(-1) of range(1) repeated
// for ever spins (checking its cancellation) until the iterator goes.
Pipeline EndlessPipeline() {
  Pipeline p;
  p.Range("range", 0, 1);
  p.Const("forever", Tensor::Scalar<int64_t>(-1));
  p.Dataset("repeat", "RepeatDataset", {"range", "forever"}, {DT_INT64}, kScalar);
  p.Dataset("skip", "SkipDataset", {"repeat", "forever"}, {DT_INT64}, kScalar);
  p.Iterate("skip", {DT_INT64}, kScalar);
  return p;
}

TEST(IteratorTest, ADeadlineCancelsAWaitingGetNext) {
  Pipeline p = EndlessPipeline();
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  RunOptions options;
  options.set_timeout_in_ms(100);
  std::vector<Tensor> out;
  Status st = s->Run(options, {}, {"next:0"}, {}, &out, nullptr);
  EXPECT_EQ(st.code(), Code::kDeadlineExceeded) << st;
  // The session still works, and closing it stops the spinning thread.
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  FLOWVM_EXPECT_OK(s->Close());
}

TEST(IteratorTest, SessionCloseCancelsAWaitingGetNext) {
  Pipeline p = EndlessPipeline();
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  Status st;
  std::thread getter([&] {
    std::vector<Tensor> out;
    st = s->Run({}, {"next:0"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  FLOWVM_EXPECT_OK(s->Close());
  getter.join();
  EXPECT_EQ(st.code(), Code::kCancelled) << st;
}

TEST(IteratorTest, ResettingTheContainerStopsTheIterator) {
  Pipeline p = EndlessPipeline();
  auto s = p.NewSession();
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  Status st;
  std::thread getter([&] {
    std::vector<Tensor> out;
    st = s->Run({}, {"next:0"}, {}, &out);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  FLOWVM_EXPECT_OK(s->ResetContainers({""}));
  getter.join();
  EXPECT_EQ(st.code(), Code::kCancelled) << st;
  // A new iterator (the old one is gone): uninitialized again.
  std::vector<Tensor> out;
  Status again = s->Run({}, {"next:0"}, {}, &out);
  EXPECT_EQ(again.code(), Code::kFailedPrecondition) << again;
}

int ThreadsOfThisProcess() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/task")) n += e.is_directory() ? 1 : 0;
  return n;
}

TEST(IteratorTest, ClosingTheSessionJoinsEveryThreadOfThePipeline) {
  // prefetch(shuffle(range)) keeps a prefetch thread and the iterator's
  // GetNext thread; closing the session must stop and join both.
  Pipeline p;
  p.Range("range", 0, 1000);
  p.Const("buffer", Tensor::Scalar<int64_t>(8));
  p.Const("seed", Tensor::Scalar<int64_t>(1));
  p.Dataset("shuffle", "ShuffleDataset", {"range", "buffer", "seed", "seed"}, {DT_INT64}, kScalar);
  p.Dataset("prefetch", "PrefetchDataset", {"shuffle", "buffer"}, {DT_INT64}, kScalar);
  p.Iterate("prefetch", {DT_INT64}, kScalar);
  SessionOptions options;
  options.num_threads = 1;  // no pool threads to count
  const int before = ThreadsOfThisProcess();
  {
    auto created = Session::Create(options, p.graph());
    ASSERT_TRUE(created.ok()) << created.status();
    std::unique_ptr<Session> s = std::move(*created);
    FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
    for (int i = 0; i < 20; ++i) NextInt(s.get());
    EXPECT_GT(ThreadsOfThisProcess(), before);
    FLOWVM_EXPECT_OK(s->Close());
  }
  EXPECT_EQ(ThreadsOfThisProcess(), before);
}

}  // namespace
}  // namespace flowvm::data::testing
