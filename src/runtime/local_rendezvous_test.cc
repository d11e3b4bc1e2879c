#include "runtime/local_rendezvous.h"

#include <thread>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

TEST(RendezvousKeyTest, FormatsAndParsesTensorFlowKeys) {
  const std::string prefix = Rendezvous::KeyPrefix("/job:w/replica:0/task:1/device:CPU:0", 0x7d3f,
                                                   "/job:w/replica:0/task:0/device:CPU:1", "a:0");
  EXPECT_EQ(prefix, "/job:w/replica:0/task:1/device:CPU:0;7d3f;/job:w/replica:0/task:0/device:CPU:1;a:0;");
  const std::string key = Rendezvous::Key(prefix, 2, 17);
  EXPECT_EQ(key, prefix + "2:17");
  Rendezvous::ParsedKey p;
  ASSERT_TRUE(Rendezvous::ParseKey(key, &p).ok());
  EXPECT_EQ(p.src_device, "/job:w/replica:0/task:1/device:CPU:0");
  EXPECT_EQ(p.src_incarnation, 0x7d3fu);
  EXPECT_EQ(p.dst_device, "/job:w/replica:0/task:0/device:CPU:1");
  EXPECT_EQ(p.tensor_name, "a:0");
  EXPECT_EQ(p.frame_id, 2);
  EXPECT_EQ(p.iter_id, 17);
  for (const char* bad : {"", "a;b;c;d", "a;zz;c;d;0:0", "a;1;c;d;0", "a;1;c;d;x:0", "a;1;c;d;0:0;e", ";1;c;d;0:0",
                          "a;1;c;;0:0", "a;1;c;d;-1:0"}) {
    Status s = Rendezvous::ParseKey(bad, &p);
    EXPECT_EQ(s.code(), Code::kInvalidArgument) << bad;
    EXPECT_NE(s.message().find("rendezvous key"), std::string::npos) << s;
  }
}

struct Received {
  Status status;
  Tensor value;
  bool dead = false;
  int calls = 0;
};

Rendezvous::DoneCallback Into(Received* r) {
  return [r](const Status& s, const Tensor& v, bool dead) {
    r->status = s;
    r->value = v;
    r->dead = dead;
    ++r->calls;
  };
}

TEST(LocalRendezvousTest, SendThenRecvPassesTheSameBuffer) {
  LocalRendezvous r;
  Tensor t = Tensor::FromVector<float>({1, 2});
  ASSERT_TRUE(r.Send("k", t, false).ok());
  Received got;
  r.RecvAsync("k", Into(&got));
  ASSERT_EQ(got.calls, 1);
  ASSERT_TRUE(got.status.ok());
  EXPECT_EQ(got.value.raw_data(), t.raw_data());  // moved by reference, not copied
}

TEST(LocalRendezvousTest, RecvWaitsThenSendCompletesItOnTheSendersThread) {
  LocalRendezvous r;
  Received got;
  r.RecvAsync("k", Into(&got));
  EXPECT_EQ(got.calls, 0);
  std::thread sender([&] { ASSERT_TRUE(r.Send("k", Tensor::Scalar<int32_t>(5), false).ok()); });
  sender.join();
  ASSERT_EQ(got.calls, 1);
  EXPECT_EQ(got.value.scalar<int32_t>(), 5);
}

TEST(LocalRendezvousTest, DuplicatesAreInternalErrors) {
  LocalRendezvous r;
  ASSERT_TRUE(r.Send("k", Tensor::Scalar<int32_t>(1), false).ok());
  EXPECT_EQ(r.Send("k", Tensor::Scalar<int32_t>(2), false).code(), Code::kInternal);
  Received a, b;
  r.RecvAsync("w", Into(&a));
  r.RecvAsync("w", Into(&b));
  EXPECT_EQ(b.calls, 1);
  EXPECT_EQ(b.status.code(), Code::kInternal);
}

TEST(LocalRendezvousTest, AbortFailsWaitersAndLaterCalls) {
  LocalRendezvous r;
  Received waiting;
  r.RecvAsync("k", Into(&waiting));
  r.StartAbort(errors::DeadlineExceeded("too slow"));
  ASSERT_EQ(waiting.calls, 1);
  EXPECT_EQ(waiting.status.code(), Code::kDeadlineExceeded);
  r.StartAbort(errors::Cancelled("second"));  // the first reason stays
  EXPECT_EQ(r.abort_status().code(), Code::kDeadlineExceeded);
  EXPECT_EQ(r.Send("k2", Tensor::Scalar<int32_t>(1), false).code(), Code::kDeadlineExceeded);
  Received later;
  r.RecvAsync("k3", Into(&later));
  EXPECT_EQ(later.status.code(), Code::kDeadlineExceeded);
}

}  // namespace
}  // namespace flowvm
