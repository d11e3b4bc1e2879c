// Status and StatusOr: how every fallible flowvm function reports failure.
//
// A Status is either OK or carries a Code and a message that names the node,
// tensor, device or task involved. Status values are cheap to copy when OK
// (a null pointer) and are never thrown. Thread-compatible: distinct objects
// may be used from distinct threads without synchronisation.
#ifndef FLOWVM_STATUS_H_
#define FLOWVM_STATUS_H_

#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace flowvm {

// The canonical codes, numbered as gRPC and TensorFlow number them so that
// they survive a trip through an RPC unchanged.
enum class Code : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// "InvalidArgument", "NotFound", ...: the spelling the CLI prints.
const char* CodeName(Code code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // OK
  Status(Code code, std::string message);
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;

  static Status OK() { return Status(); }

  bool ok() const { return state_ == nullptr; }
  Code code() const { return ok() ? Code::kOk : state_->code; }
  const std::string& message() const;

  // "InvalidArgument: <message>", or "OK".
  std::string ToString() const;

  // Returns a copy whose message is `prefix` + ": " + message (OK stays OK).
  Status WithContext(std::string_view prefix) const;

  // Keeps the first error: if this is OK, becomes `other`.
  void Update(const Status& other) {
    if (ok() && !other.ok()) *this = other;
  }

  bool operator==(const Status& other) const {
    return code() == other.code() && message() == other.message();
  }

  // Explicitly discards a Status the caller has decided not to act on.
  void IgnoreError() const {}

 private:
  struct State {
    Code code;
    std::string message;
  };
  std::unique_ptr<State> state_;
};

std::ostream& operator<<(std::ostream& os, const Status& s);

// StatusOr<T> holds either a T or a non-OK Status.
template <typename T>
class [[nodiscard]] StatusOr {
 public:
  StatusOr(const Status& status) : status_(status) {  // NOLINT: implicit by design
    if (status_.ok()) status_ = Status(Code::kInternal, "StatusOr constructed from an OK Status without a value");
  }
  StatusOr(Status&& status) : status_(std::move(status)) {  // NOLINT
    if (status_.ok()) status_ = Status(Code::kInternal, "StatusOr constructed from an OK Status without a value");
  }
  StatusOr(const T& value) : value_(value) {}  // NOLINT
  StatusOr(T&& value) : value_(std::move(value)) {}  // NOLINT

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

  // REQUIRES: ok().
  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

namespace internal {
template <typename... Args>
std::string StrCat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}
}  // namespace internal

// Builders: errors::InvalidArgument("node '", name, "': ", detail).
namespace errors {
#define FLOWVM_DECLARE_ERROR(Name)                                  \
  template <typename... Args>                                       \
  Status Name(const Args&... args) {                                \
    return Status(Code::k##Name, ::flowvm::internal::StrCat(args...)); \
  }
FLOWVM_DECLARE_ERROR(Cancelled)
FLOWVM_DECLARE_ERROR(Unknown)
FLOWVM_DECLARE_ERROR(InvalidArgument)
FLOWVM_DECLARE_ERROR(DeadlineExceeded)
FLOWVM_DECLARE_ERROR(NotFound)
FLOWVM_DECLARE_ERROR(AlreadyExists)
FLOWVM_DECLARE_ERROR(PermissionDenied)
FLOWVM_DECLARE_ERROR(ResourceExhausted)
FLOWVM_DECLARE_ERROR(FailedPrecondition)
FLOWVM_DECLARE_ERROR(Aborted)
FLOWVM_DECLARE_ERROR(OutOfRange)
FLOWVM_DECLARE_ERROR(Unimplemented)
FLOWVM_DECLARE_ERROR(Internal)
FLOWVM_DECLARE_ERROR(Unavailable)
FLOWVM_DECLARE_ERROR(DataLoss)
#undef FLOWVM_DECLARE_ERROR
}  // namespace errors

}  // namespace flowvm

#define FLOWVM_STATUS_CONCAT_INNER_(a, b) a##b
#define FLOWVM_STATUS_CONCAT_(a, b) FLOWVM_STATUS_CONCAT_INNER_(a, b)

// Returns from the enclosing function if `expr` is not OK.
#define FLOWVM_RETURN_IF_ERROR(expr)                    \
  do {                                                  \
    ::flowvm::Status _flowvm_status = (expr);           \
    if (!_flowvm_status.ok()) return _flowvm_status;    \
  } while (0)

// FLOWVM_ASSIGN_OR_RETURN(auto x, FunctionReturningStatusOr());
#define FLOWVM_ASSIGN_OR_RETURN(lhs, expr) \
  FLOWVM_ASSIGN_OR_RETURN_IMPL_(FLOWVM_STATUS_CONCAT_(_flowvm_statusor_, __LINE__), lhs, expr)
#define FLOWVM_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  if (!tmp.ok()) return tmp.status();                 \
  lhs = std::move(tmp).value()

#endif  // FLOWVM_STATUS_H_
