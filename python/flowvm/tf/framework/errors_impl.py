"""tf.errors: the exception classes of runtime errors, by status code.

Every error from the runtime arrives as one of these, with its message
naming the node involved; `.op` is that node's Operation when the graph in
use has it, and `.node_def` its NodeDef.
"""
import re

from flowvm import _flowvm

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16

_NODE_RE = re.compile(r"node '([^']+)'")


class OpError(Exception):
    """A failed step or graph operation, with its code and the node involved."""

    def __init__(self, node_def, op, message, error_code):
        super(OpError, self).__init__()
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    def __reduce__(self):
        return (self.__class__, (self._node_def, self._op, self._message, self._error_code))

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def error_code(self):
        return self._error_code

    @property
    def node_def(self):
        if self._node_def is None and self._op is not None:
            return self._op.node_def
        return self._node_def

    @property
    def node_name(self):
        """The name of the node the message names first, or None."""
        if self._op is not None:
            return self._op.name
        m = _NODE_RE.search(self._message or "")
        return m.group(1) if m else None

    def __str__(self):
        return self._message


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    def __reduce__(self):
        return (self.__class__, (self._node_def, self._op, self._message))

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc, "__reduce__": __reduce__})


CancelledError = _make("CancelledError", CANCELLED, "An operation or step was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "Unknown error.")
InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, "An operation received an invalid argument.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired before the operation could complete.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity (a file, a node, a device) was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity that we attempted to create already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "The caller does not have permission to run an operation.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "Some resource (memory, disk) has been exhausted.")
FailedPreconditionError = _make("FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state to run an operation (e.g. an uninitialized variable).")
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted (e.g. a concurrent action).")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "An operation iterated past the valid input range (e.g. a closed, empty queue).")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "The operation has not been implemented.")
InternalError = _make("InternalError", INTERNAL, "The system experienced an internal error.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is currently unavailable (e.g. a task is down).")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption (e.g. a corrupt checkpoint).")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "The request does not have valid credentials.")

_CODE_TO_CLASS = {
    CANCELLED: CancelledError, UNKNOWN: UnknownError, INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError, NOT_FOUND: NotFoundError, ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError, RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError, ABORTED: AbortedError, OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError, INTERNAL: InternalError, UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError, UNAUTHENTICATED: UnauthenticatedError,
}

def exception_type_from_error_code(error_code):
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls):
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    raise KeyError(cls)


def _from_status(code, message):
    """The exception for a runtime error; the session that ran the step
    fills in `.op` from the node the message names."""
    return _CODE_TO_CLASS.get(code, UnknownError)(None, None, message)


_flowvm._set_error_factory(_from_status)


class raise_exception_on_not_ok_status(object):
    """TensorFlow 1.x's context manager; flowvm raises directly, so a no-op."""

    def __enter__(self):
        return None

    def __exit__(self, *args):
        return False
