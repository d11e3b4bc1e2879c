// Status and StatusOr: codes, messages, copying, context and the macros.
#include "flowvm/status.h"

#include <memory>
#include <sstream>

#include <gtest/gtest.h>

namespace flowvm {
namespace {

TEST(StatusTest, OkByDefault) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), Code::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
  EXPECT_EQ(s, Status::OK());
  // An OK code carries no message.
  EXPECT_TRUE(Status(Code::kOk, "ignored").ok());
  EXPECT_EQ(Status(Code::kOk, "ignored").message(), "");
}

TEST(StatusTest, ErrorsCarryCodeAndMessage) {
  Status s = errors::InvalidArgument("node '", "a", "': rank ", 3, " > ", 2.5);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  EXPECT_EQ(s.message(), "node 'a': rank 3 > 2.5");
  EXPECT_EQ(s.ToString(), "InvalidArgument: node 'a': rank 3 > 2.5");
  std::ostringstream os;
  os << s;
  EXPECT_EQ(os.str(), s.ToString());
}

TEST(StatusTest, EveryBuilderAndCodeName) {
  struct Case {
    Status s;
    Code code;
    const char* name;
  };
  const Case cases[] = {
      {errors::Cancelled("x"), Code::kCancelled, "Cancelled"},
      {errors::Unknown("x"), Code::kUnknown, "Unknown"},
      {errors::InvalidArgument("x"), Code::kInvalidArgument, "InvalidArgument"},
      {errors::DeadlineExceeded("x"), Code::kDeadlineExceeded, "DeadlineExceeded"},
      {errors::NotFound("x"), Code::kNotFound, "NotFound"},
      {errors::AlreadyExists("x"), Code::kAlreadyExists, "AlreadyExists"},
      {errors::PermissionDenied("x"), Code::kPermissionDenied, "PermissionDenied"},
      {errors::ResourceExhausted("x"), Code::kResourceExhausted, "ResourceExhausted"},
      {errors::FailedPrecondition("x"), Code::kFailedPrecondition, "FailedPrecondition"},
      {errors::Aborted("x"), Code::kAborted, "Aborted"},
      {errors::OutOfRange("x"), Code::kOutOfRange, "OutOfRange"},
      {errors::Unimplemented("x"), Code::kUnimplemented, "Unimplemented"},
      {errors::Internal("x"), Code::kInternal, "Internal"},
      {errors::Unavailable("x"), Code::kUnavailable, "Unavailable"},
      {errors::DataLoss("x"), Code::kDataLoss, "DataLoss"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(c.s.code(), c.code);
    EXPECT_STREQ(CodeName(c.code), c.name);
    EXPECT_EQ(c.s.ToString(), std::string(c.name) + ": x");
  }
  EXPECT_STREQ(CodeName(Code::kOk), "OK");
  EXPECT_STREQ(CodeName(Code::kUnauthenticated), "Unauthenticated");
  // Codes keep gRPC's numbering.
  EXPECT_EQ(static_cast<int>(Code::kInvalidArgument), 3);
  EXPECT_EQ(static_cast<int>(Code::kUnavailable), 14);
}

TEST(StatusTest, CopiesAreIndependentAndMovesLeaveOk) {
  Status a = errors::NotFound("a");
  Status b = a;
  EXPECT_EQ(a, b);
  b = errors::Internal("b");
  EXPECT_EQ(a.message(), "a");
  Status& same = b;
  b = same;  // self-assignment keeps the value
  EXPECT_EQ(b.message(), "b");
  Status c = std::move(b);
  EXPECT_EQ(c.message(), "b");
  Status ok;
  c = ok;
  EXPECT_TRUE(c.ok());
  EXPECT_NE(a, errors::NotFound("other"));
  EXPECT_NE(a, errors::Internal("a"));
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_EQ(errors::NotFound("no file").WithContext("loading 'x'").ToString(), "NotFound: loading 'x': no file");
  EXPECT_TRUE(Status::OK().WithContext("ignored").ok());
}

TEST(StatusTest, UpdateKeepsTheFirstError) {
  Status s;
  s.Update(Status::OK());
  EXPECT_TRUE(s.ok());
  s.Update(errors::Aborted("first"));
  s.Update(errors::Internal("second"));
  EXPECT_EQ(s.ToString(), "Aborted: first");
}

TEST(StatusOrTest, HoldsValueOrError) {
  StatusOr<int> v(42);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, 42);
  EXPECT_EQ(v.value(), 42);
  EXPECT_TRUE(v.status().ok());
  StatusOr<int> e(errors::OutOfRange("end"));
  EXPECT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), Code::kOutOfRange);
}

TEST(StatusOrTest, OkStatusWithoutValueBecomesInternal) {
  StatusOr<int> s(Status::OK());
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), Code::kInternal);
  Status ok;
  StatusOr<int> t(std::move(ok));
  EXPECT_EQ(t.status().code(), Code::kInternal);
}

TEST(StatusOrTest, MoveOnlyValuesAndArrow) {
  StatusOr<std::unique_ptr<std::string>> p(std::make_unique<std::string>("abc"));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)->size(), 3u);
  std::unique_ptr<std::string> taken = std::move(p).value();
  EXPECT_EQ(*taken, "abc");
  StatusOr<std::string> s(std::string("xyz"));
  EXPECT_EQ(s->size(), 3u);
}

Status FailIf(bool fail) { return fail ? errors::Unavailable("down") : Status::OK(); }
StatusOr<int> Half(int x) {
  if (x % 2) return errors::InvalidArgument(x, " is odd");
  return x / 2;
}
Status Chain(bool fail, int x, int* out) {
  FLOWVM_RETURN_IF_ERROR(FailIf(fail));
  FLOWVM_ASSIGN_OR_RETURN(int h, Half(x));
  FLOWVM_ASSIGN_OR_RETURN(*out, Half(h));
  return Status::OK();
}

TEST(StatusMacrosTest, ReturnEarlyOnError) {
  int out = -1;
  EXPECT_EQ(Chain(true, 8, &out).code(), Code::kUnavailable);
  EXPECT_EQ(out, -1);
  EXPECT_EQ(Chain(false, 6, &out).ToString(), "InvalidArgument: 3 is odd");
  EXPECT_EQ(out, -1);
  EXPECT_TRUE(Chain(false, 8, &out).ok());
  EXPECT_EQ(out, 2);
}

}  // namespace
}  // namespace flowvm
