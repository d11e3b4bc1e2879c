// How long a worker keeps a step: until CleanupGraph when peers may fetch
// its tensors (its graph sends to another task), else only until its
// RunGraph ends, so the master sends no CleanupGraph for it.
#include <future>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "core/thread_pool.h"
#include "distributed/client_terminated.h"
#include "distributed/worker.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT

constexpr char kTask0[] = "/job:worker/replica:0/task:0";
constexpr char kW0Cpu0[] = "/job:worker/replica:0/task:0/device:CPU:0";
constexpr char kW0Cpu1[] = "/job:worker/replica:0/task:0/device:CPU:1";
constexpr char kW1Cpu0[] = "/job:worker/replica:0/task:1/device:CPU:0";

NodeDef SendNode(const std::string& op, const std::string& input, const std::string& to) {
  return On(TestNode("send_" + input, op)
                .Input(input)
                .Attr("T", DT_FLOAT)
                .Attr("tensor_name", input + ":0")
                .Attr("send_device", kW0Cpu0)
                .Attr("send_device_incarnation", int64_t{0})
                .Attr("recv_device", to)
                .Attr("client_terminated", false),
            kW0Cpu0);
}

TEST(SendsToOtherTasksTest, OnlySendsToAnotherTaskCount) {
  const NodeDef c = On(ConstNode("c", F({1}, {1})), kW0Cpu0);
  EXPECT_FALSE(SendsToOtherTasks(GraphOf({c}), kTask0));
  EXPECT_FALSE(SendsToOtherTasks(GraphOf({c, SendNode("_Send", "c", kW0Cpu1)}), kTask0));
  EXPECT_TRUE(SendsToOtherTasks(GraphOf({c, SendNode("_Send", "c", kW1Cpu0)}), kTask0));
  EXPECT_TRUE(SendsToOtherTasks(GraphOf({c, SendNode("_HostSend", "c", kW1Cpu0)}), kTask0));
  // A Send that does not say where it goes keeps the step.
  NodeDef unknown = SendNode("_Send", "c", kW1Cpu0);
  unknown.mutable_attr()->erase("recv_device");
  EXPECT_TRUE(SendsToOtherTasks(GraphOf({c, unknown}), kTask0));
}

class WorkerStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto devices = DeviceMgr::NewCpuDevices(1, &pool_, "worker", 0);
    ASSERT_TRUE(devices.ok()) << devices.status();
    devices_ = std::move(*devices);
    WorkerEnv env;
    env.task = kTask0;
    env.devices = devices_.get();
    env.pool = &pool_;
    worker_ = std::make_unique<Worker>(std::move(env));
  }

  std::string Register(const GraphDef& g) {
    RegisterGraphRequest request;
    *request.mutable_graph_def() = g;
    RegisterGraphResponse response;
    CallOptions opts(std::chrono::seconds(10));
    std::promise<Status> done;
    worker_->RegisterGraphAsync(&opts, &request, &response, [&](const Status& s) { done.set_value(s); });
    Status s = done.get_future().get();
    EXPECT_TRUE(s.ok()) << s;
    return response.graph_handle();
  }

  Status Run(const std::string& handle, int64_t step_id) {
    RunGraphCall call;
    call.request.set_graph_handle(handle);
    call.request.set_step_id(step_id);
    CallOptions opts(std::chrono::seconds(10));
    std::promise<Status> done;
    worker_->RunGraphAsync(&opts, &call, [&](const Status& s) { done.set_value(s); });
    FLOWVM_RETURN_IF_ERROR(done.get_future().get());
    return Status(static_cast<Code>(call.response.status_code()), call.response.status_message());
  }

  void Cleanup(int64_t step_id) {
    CleanupGraphRequest request;
    request.add_step_id(step_id);
    CleanupGraphResponse response;
    CallOptions opts(std::chrono::seconds(10));
    std::promise<Status> done;
    worker_->CleanupGraphAsync(&opts, &request, &response, [&](const Status& s) { done.set_value(s); });
    FLOWVM_EXPECT_OK(done.get_future().get());
  }

  ThreadPool pool_{"worker-step-test", 1};
  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<Worker> worker_;
};

TEST_F(WorkerStepTest, AStepNoPeerCanFetchFromEndsWithItsRunGraph) {
  const std::string handle = Register(GraphOf({On(ConstNode("c", F({1}, {1})), kW0Cpu0)}));
  FLOWVM_ASSERT_OK(Run(handle, 7));
  EXPECT_EQ(worker_->live_steps(), 0u);
  // And so does every later step.
  FLOWVM_ASSERT_OK(Run(handle, 8));
  EXPECT_EQ(worker_->live_steps(), 0u);
}

TEST_F(WorkerStepTest, AStepPeersMayFetchFromLivesUntilCleanup) {
  const std::string handle =
      Register(GraphOf({On(ConstNode("c", F({1}, {1})), kW0Cpu0), SendNode("_Send", "c", kW1Cpu0)}));
  FLOWVM_ASSERT_OK(Run(handle, 7));
  EXPECT_EQ(worker_->live_steps(), 1u);
  Cleanup(7);
  EXPECT_EQ(worker_->live_steps(), 0u);
}

}  // namespace
}  // namespace flowvm
