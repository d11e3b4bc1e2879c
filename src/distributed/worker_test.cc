// The worker service without a transport: what it refuses (unknown graph
// handles, stale rendezvous keys, a step id run twice, nodes of another
// task) and the life of a step's state (a tensor waits for its peer after
// the step's RunGraph has finished, until CleanupGraph).
#include "distributed/worker.h"

#include <gtest/gtest.h>

#include "core/memory_info.h"
#include "runtime/runtime_test_util.h"

namespace flowvm {
namespace {

using namespace runtime_testing;  // NOLINT

constexpr char kTask[] = "/job:worker/replica:0/task:0";
constexpr char kDevice[] = "/job:worker/replica:0/task:0/device:CPU:0";

class WorkerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto devices = DeviceMgr::NewCpuDevices(1, nullptr, "worker", 0);
    ASSERT_TRUE(devices.ok());
    devices_ = std::move(*devices);
    WorkerEnv env;
    env.task = kTask;
    env.devices = devices_.get();
    env.worker_for = [](const std::string&) -> WorkerInterface* { return nullptr; };
    worker_ = std::make_unique<Worker>(env);
  }

  Status Register(const GraphDef& g, std::string* handle) {
    RegisterGraphRequest request;
    *request.mutable_graph_def() = g;
    request.set_session_handle("s");
    RegisterGraphResponse response;
    Status result;
    worker_->RegisterGraphAsync(nullptr, &request, &response, [&](const Status& s) { result = s; });
    *handle = response.graph_handle();
    return result;
  }
  // RunGraph's step status (the transport's is OK here).
  Status Run(const std::string& handle, int64_t step, RunGraphCall* call) {
    call->request.set_graph_handle(handle);
    call->request.set_step_id(step);
    Status transport = errors::Internal("no callback");
    worker_->RunGraphAsync(nullptr, call, [&](const Status& s) { transport = s; });
    if (!transport.ok()) return transport;
    return Status(static_cast<Code>(call->response.status_code()), call->response.status_message());
  }
  Status Recv(int64_t step, const std::string& key, RecvTensorCall* call) {
    call->request.set_step_id(step);
    call->request.set_rendezvous_key(key);
    Status result = errors::Internal("pending");
    worker_->RecvTensorAsync(nullptr, call, [&](const Status& s) { result = s; });
    return result;
  }

  std::unique_ptr<DeviceMgr> devices_;
  std::unique_ptr<Worker> worker_;
};

// c = a + a, sent to a (pretend) device of another task.
GraphDef SendsToAPeer(uint64_t incarnation) {
  NodeDef send = On(TestNode("_send_c_0", "_Send").Input("c").Attr("T", DT_FLOAT).Attr("tensor_name", "c:0")
                        .Attr("send_device", kDevice).Attr("send_device_incarnation", static_cast<int64_t>(incarnation))
                        .Attr("recv_device", "/job:worker/replica:0/task:1/device:CPU:0"),
                    kDevice);
  return GraphOf({On(ConstNode("a", F({1, 2}, {2})), kDevice), Binary("c", "Add", "a", "a", kDevice), send});
}

std::string KeyOf(uint64_t incarnation) {
  return Rendezvous::Key(
      Rendezvous::KeyPrefix(kDevice, incarnation, "/job:worker/replica:0/task:1/device:CPU:0", "c:0"), 0, 0);
}

TEST_F(WorkerTest, APeerFetchesAfterTheStepFinishedHereUntilCleanup) {
  const uint64_t inc = devices_->devices()[0]->incarnation();
  std::string handle;
  FLOWVM_ASSERT_OK(Register(SendsToAPeer(inc), &handle));
  RunGraphCall run;
  FLOWVM_ASSERT_OK(Run(handle, 42, &run));
  RecvTensorCall recv;
  FLOWVM_ASSERT_OK(Recv(42, KeyOf(inc), &recv));
  ExpectTensorNear(recv.tensor, F({2, 4}, {2}));
  EXPECT_EQ(worker_->live_steps(), 1u);
  CleanupGraphRequest cleanup;
  cleanup.add_step_id(42);
  CleanupGraphResponse unused;
  worker_->CleanupGraphAsync(nullptr, &cleanup, &unused, [](const Status&) {});
  EXPECT_EQ(worker_->live_steps(), 0u);
}

TEST_F(WorkerTest, ARecvBeforeTheStepRunsWaitsForIt) {
  const uint64_t inc = devices_->devices()[0]->incarnation();
  std::string handle;
  FLOWVM_ASSERT_OK(Register(SendsToAPeer(inc), &handle));
  // No step 7 here yet: the Recv waits.
  Status waiting = errors::Internal("pending");
  RecvTensorCall recv;
  recv.request.set_step_id(7);
  recv.request.set_rendezvous_key(KeyOf(inc));
  worker_->RecvTensorAsync(nullptr, &recv, [&](const Status& s) { waiting = s; });
  EXPECT_EQ(waiting.message(), "pending");
  // Step 8's Recv comes first too, then its RunGraph sends the tensor.
  Status later = errors::Internal("pending");
  RecvTensorCall recv2;
  recv2.request.set_step_id(8);
  recv2.request.set_rendezvous_key(KeyOf(inc));
  worker_->RecvTensorAsync(nullptr, &recv2, [&](const Status& s) { later = s; });
  RunGraphCall run;
  FLOWVM_ASSERT_OK(Run(handle, 8, &run));
  FLOWVM_EXPECT_OK(later);
  ExpectTensorNear(recv2.tensor, F({2, 4}, {2}));
  // Step 7 never runs here; aborting it releases its waiter with the reason.
  AbortStepRequest abort;
  abort.set_step_id(7);
  abort.set_status_code(static_cast<int>(Code::kCancelled));
  abort.set_status_message("step 7 is over");
  AbortStepResponse unused;
  worker_->AbortStepAsync(nullptr, &abort, &unused, [](const Status&) {});
  EXPECT_TRUE(HasError(waiting, Code::kCancelled, {"step 7 is over"}));
  EXPECT_TRUE(recv.peer_aborted);
  // And later Recvs of the step fail at once.
  RecvTensorCall recv3;
  EXPECT_TRUE(HasError(Recv(7, KeyOf(inc), &recv3), Code::kCancelled, {"step 7 is over"}));
}

TEST_F(WorkerTest, RefusesWhatItDoesNotKnow) {
  const uint64_t inc = devices_->devices()[0]->incarnation();
  RunGraphCall run;
  EXPECT_TRUE(HasError(Run("no-such-handle", 1, &run), Code::kAborted, {"no-such-handle", kTask}));
  // A key from an earlier incarnation of this task: refused, not waited for.
  RecvTensorCall recv;
  EXPECT_TRUE(HasError(Recv(1, KeyOf(inc ^ 1), &recv), Code::kAborted, {"restarted", kTask, "c:0"}));
  // A key naming a device this task does not have.
  const std::string other = Rendezvous::Key(
      Rendezvous::KeyPrefix("/job:ps/replica:0/task:0/device:CPU:0", 5, kDevice, "x:0"), 0, 0);
  EXPECT_TRUE(HasError(Recv(1, other, &recv), Code::kInvalidArgument, {"/job:ps/replica:0/task:0", kTask}));
  EXPECT_TRUE(HasError(Recv(1, "not a key", &recv), Code::kInvalidArgument, {"not a key"}));
  // A graph with a node of another task.
  std::string handle;
  EXPECT_TRUE(HasError(Register(GraphOf({On(ConstNode("a", F({1}, {1})), "/job:ps/replica:0/task:0/device:CPU:0")}),
                                &handle),
                       Code::kInvalidArgument, {"'a'", "/job:ps/replica:0/task:0", kTask}));
  // Expected incarnations that are not this task's: it restarted.
  RegisterGraphRequest request;
  DeviceAttributes* d = request.add_expected_device();
  d->set_name(kDevice);
  d->set_incarnation(inc ^ 1);
  RegisterGraphResponse response;
  Status s;
  worker_->RegisterGraphAsync(nullptr, &request, &response, [&](const Status& st) { s = st; });
  EXPECT_TRUE(HasError(s, Code::kAborted, {"restarted"}));
  // One step id runs once.
  FLOWVM_ASSERT_OK(Register(SendsToAPeer(inc), &handle));
  RunGraphCall first, second;
  FLOWVM_ASSERT_OK(Run(handle, 99, &first));
  EXPECT_TRUE(HasError(Run(handle, 99, &second), Code::kInvalidArgument, {"99", "already ran"}));
  // Deregistering twice.
  DeregisterGraphRequest dereg;
  dereg.set_graph_handle(handle);
  DeregisterGraphResponse unused;
  Status first_dereg, second_dereg;
  worker_->DeregisterGraphAsync(nullptr, &dereg, &unused, [&](const Status& st) { first_dereg = st; });
  worker_->DeregisterGraphAsync(nullptr, &dereg, &unused, [&](const Status& st) { second_dereg = st; });
  FLOWVM_EXPECT_OK(first_dereg);
  EXPECT_TRUE(HasError(second_dereg, Code::kNotFound, {handle}));
}

// A few bytes of request that describe a constant larger than the memory
// the machine has left (one value, repeated over a huge shape): refused
// with the node's name, and the worker goes on.
TEST_F(WorkerTest, AConstantLargerThanTheMemoryLeftIsRefused) {
  const int64_t available = AvailableMemoryBytes();
  if (available > (int64_t{1} << 42)) GTEST_SKIP() << "the machine does not say how much memory it has";
  NodeDef big;
  big.set_name("big");
  big.set_op("Const");
  big.set_device(kDevice);
  (*big.mutable_attr())["dtype"].set_type(DT_DOUBLE);
  TensorProto* value = (*big.mutable_attr())["value"].mutable_tensor();
  value->set_dtype(DT_DOUBLE);
  value->mutable_tensor_shape()->add_dim()->set_size(available / 8 + (int64_t{1} << 27));
  value->add_double_val(1.5);
  GraphDef g = GraphOf({});
  *g.add_node() = big;
  std::string handle;
  EXPECT_TRUE(HasError(Register(g, &handle), Code::kResourceExhausted, {"'big'", "bytes available"}));
  FLOWVM_EXPECT_OK(Register(SendsToAPeer(devices_->devices()[0]->incarnation()), &handle));
}

TEST_F(WorkerTest, AStoppedWorkerFailsNewStepsWithItsReason) {
  worker_->AbortAll(errors::Unavailable("task ", kTask, " is shutting down"));
  const uint64_t inc = devices_->devices()[0]->incarnation();
  RecvTensorCall recv;
  EXPECT_TRUE(HasError(Recv(3, KeyOf(inc), &recv), Code::kUnavailable, {"shutting down"}));
}

}  // namespace
}  // namespace flowvm
