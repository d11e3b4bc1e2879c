// How transport errors become Status values: who could not be reached, and
// a call the peer ended (its server stopping) told apart from one this side
// cancelled.
#include "distributed/grpc_util.h"

#include <gtest/gtest.h>

namespace flowvm {
namespace {

constexpr char kPeer[] = "task /job:ps/replica:0/task:0 (127.0.0.1:2222)";

TEST(FromGrpcStatusTest, TransportErrorsNameThePeer) {
  Status s = FromGrpcStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "Socket closed"), kPeer);
  EXPECT_EQ(s.code(), Code::kUnavailable);
  EXPECT_NE(s.message().find(kPeer), std::string::npos) << s;
  s = FromGrpcStatus(grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "Deadline Exceeded"), kPeer);
  EXPECT_EQ(s.code(), Code::kDeadlineExceeded);
  EXPECT_NE(s.message().find(kPeer), std::string::npos) << s;
}

// A server that stops cancels the calls it is serving: the caller did not
// cancel, so the peer is gone (Unavailable), which a client recovers from.
TEST(FromGrpcStatusTest, ACallThePeerCancelledIsUnavailable) {
  const grpc::Status cancelled(grpc::StatusCode::CANCELLED, "Cancelled");
  Status s = FromGrpcStatus(cancelled, kPeer);
  EXPECT_EQ(s.code(), Code::kUnavailable) << s;
  EXPECT_NE(s.message().find(kPeer), std::string::npos) << s;
  s = FromGrpcStatus(cancelled, kPeer, nullptr, /*cancelled_here=*/true);
  EXPECT_EQ(s.code(), Code::kCancelled) << s;
  EXPECT_NE(s.message().find(kPeer), std::string::npos) << s;
}

// Errors flowvm sent on purpose keep their code and message.
TEST(FromGrpcStatusTest, FlowvmErrorsPassThrough) {
  Status s = FromGrpcStatus(ToGrpcStatus(errors::Cancelled("the session was closed")), kPeer);
  EXPECT_EQ(s.code(), Code::kCancelled);
  EXPECT_EQ(s.message(), "the session was closed");
  bool peer_abort = false;
  s = FromGrpcStatus(ToGrpcStatus(errors::Aborted("step 3 aborted"), /*peer_abort=*/true), kPeer, &peer_abort);
  EXPECT_EQ(s.code(), Code::kAborted);
  EXPECT_TRUE(peer_abort);
}

}  // namespace
}  // namespace flowvm
