"""tf.errors' names (TensorFlow's framework/errors.py): the exception classes
and status codes that framework/errors_impl.py defines."""
from flowvm.tf.framework.errors_impl import (  # noqa: F401
    OK, CANCELLED, UNKNOWN, INVALID_ARGUMENT, DEADLINE_EXCEEDED, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED,
    RESOURCE_EXHAUSTED, FAILED_PRECONDITION, ABORTED, OUT_OF_RANGE, UNIMPLEMENTED, INTERNAL, UNAVAILABLE,
    DATA_LOSS, UNAUTHENTICATED,
    OpError, CancelledError, UnknownError, InvalidArgumentError, DeadlineExceededError, NotFoundError,
    AlreadyExistsError, PermissionDeniedError, ResourceExhaustedError, FailedPreconditionError, AbortedError,
    OutOfRangeError, UnimplementedError, InternalError, UnavailableError, DataLossError, UnauthenticatedError,
    exception_type_from_error_code, error_code_from_exception_type, raise_exception_on_not_ok_status)
