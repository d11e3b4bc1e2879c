// Datasets and iterators on a local cluster (in-process servers): the TF
// 1.x pattern of a whole input pipeline under one device scope on
// /job:worker/task:1 feeding a model there, and the clear error when a
// dataset would have to cross processes.
#include <gtest/gtest.h>

#include "distributed/distributed_test_util.h"
#include "kernels/data/dataset_test_util.h"

namespace flowvm::data::testing {
namespace {

using distributed_testing::LocalCluster;

const std::vector<PartialTensorShape> kScalar = {ScalarShape()};
constexpr char kWorker0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kWorker1[] = "/job:worker/replica:0/task:1/device:CPU:0";
constexpr char kPs[] = "/job:ps/replica:0/task:0/device:CPU:0";

SessionOptions At(const std::string& target) {
  SessionOptions o;
  o.target = target;
  o.connect_timeout_ms = 10000;
  return o;
}

// range(0, 10).batch(4) on `dataset_device`; the iterator, its
// initializer and get_next on `iterator_device`; a Sum of each batch on
// `model_device`.
Pipeline SumOfBatches(const std::string& dataset_device, const std::string& iterator_device,
                      const std::string& model_device) {
  Pipeline p;
  p.Range("range", 0, 10, 1, dataset_device);
  p.Const("batch_size", Tensor::Scalar<int64_t>(4), dataset_device);
  p.Const("drop", Tensor::Scalar<bool>(false), dataset_device);
  p.Dataset("batch", "BatchDatasetV2", {"range", "batch_size", "drop"}, {DT_INT64}, {PartialTensorShape({-1})}, {},
            dataset_device);
  p.Iterate("batch", {DT_INT64}, {PartialTensorShape({-1})}, iterator_device);
  p.Const("axis", Tensor::Scalar<int32_t>(0), model_device);
  p.Add("sum", "Sum", {"next:0", "axis"}, {{"T", MakeAttrValue(DT_INT64)}, {"Tidx", MakeAttrValue(DT_INT32)}},
        model_device);
  return p;
}

TEST(DatasetClusterTest, APipelineOnWorker1FeedsAModelThere) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  Pipeline p = SumOfBatches(kWorker1, kWorker1, kWorker1);
  // A variable on the ps accumulates the sums, so the step spans tasks.
  p.Add("total", "VariableV2", {}, {{"dtype", MakeAttrValue(DT_INT64)}, {"shape", MakeAttrValue(ScalarShape())}}, kPs);
  p.Const("zero", Tensor::Scalar<int64_t>(0), kPs);
  p.Add("reset", "Assign", {"total", "zero"}, {{"T", MakeAttrValue(DT_INT64)}}, kPs);
  p.Add("accumulate", "AssignAdd", {"total", "sum"}, {{"T", MakeAttrValue(DT_INT64)}}, kPs);
  auto created = Session::Create(At(cluster.Target("worker", 0)), p.graph());
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<Session> s = std::move(*created);
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init", "reset"}, nullptr));
  std::vector<int64_t> sums;
  while (true) {
    std::vector<Tensor> out;
    Status st = s->Run({}, {"accumulate"}, {}, &out);
    if (st.code() == Code::kOutOfRange) break;
    ASSERT_TRUE(st.ok()) << st;
    sums.push_back(out[0].scalar<int64_t>());
  }
  EXPECT_EQ(sums, (std::vector<int64_t>{6, 6 + 22, 6 + 22 + 17}));
  // The iterator lives on worker 1: initializing again restarts it.
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  std::vector<Tensor> out;
  FLOWVM_ASSERT_OK(s->Run({}, {"sum"}, {}, &out));
  EXPECT_EQ(out[0].scalar<int64_t>(), 6);
}

TEST(DatasetClusterTest, APipelineWithoutDeviceRequestsStaysInOneProcess) {
  LocalCluster cluster({{"ps", 1}, {"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  Pipeline p = SumOfBatches("", "", "");
  auto created = Session::Create(At(cluster.Target("worker", 0)), p.graph());
  ASSERT_TRUE(created.ok()) << created.status();
  std::unique_ptr<Session> s = std::move(*created);
  FLOWVM_ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  std::vector<int64_t> sums;
  while (true) {
    std::vector<Tensor> out;
    Status st = s->Run({}, {"sum"}, {}, &out);
    if (st.code() == Code::kOutOfRange) break;
    ASSERT_TRUE(st.ok()) << st;
    sums.push_back(out[0].scalar<int64_t>());
  }
  EXPECT_EQ(sums, (std::vector<int64_t>{6, 22, 17}));
}

TEST(DatasetClusterTest, ADatasetCrossingProcessesIsAClearError) {
  LocalCluster cluster({{"worker", 2}});
  ASSERT_TRUE(cluster.StartAll());
  // The dataset on worker 1, its iterator on worker 0.
  Pipeline p = SumOfBatches(kWorker1, kWorker0, kWorker0);
  auto created = Session::Create(At(cluster.Target("worker", 0)), p.graph());
  ASSERT_TRUE(created.ok()) << created.status();
  Status st = (*created)->Run({}, {}, {"init"}, nullptr);
  EXPECT_EQ(st.code(), Code::kInvalidArgument) << st;
  EXPECT_NE(st.message().find("batch:0"), std::string::npos) << st;
  EXPECT_NE(st.message().find("/job:worker/replica:0/task:1"), std::string::npos) << st;
  EXPECT_NE(st.message().find("/job:worker/replica:0/task:0"), std::string::npos) << st;
  EXPECT_NE(st.message().find("variant"), std::string::npos) << st;
}

}  // namespace
}  // namespace flowvm::data::testing
