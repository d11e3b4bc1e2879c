"""tf.errors."""
from flowvm.tf.errors import *  # noqa: F401,F403
from flowvm.tf.errors import (OpError, CancelledError, UnknownError, InvalidArgumentError,  # noqa: F401
                              DeadlineExceededError, NotFoundError, AlreadyExistsError, PermissionDeniedError,
                              ResourceExhaustedError, FailedPreconditionError, AbortedError, OutOfRangeError,
                              UnimplementedError, InternalError, UnavailableError, DataLossError,
                              UnauthenticatedError, exception_type_from_error_code,
                              error_code_from_exception_type, raise_exception_on_not_ok_status)
