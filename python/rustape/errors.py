"""`rt.errors`: TensorFlow's exception classes (`tf.errors`), so `except
tf.errors.InvalidArgumentError:` ports. rustape's checks that TensorFlow reports with one of
these (`rt.debugging`'s assertions) raise it; each class also derives from the Python
exception rustape raises for the same fault elsewhere (`InvalidArgumentError` is a
`ValueError`, `ResourceExhaustedError` a `MemoryError`, ...), so either `except` catches it.

>>> import rustape as rt
>>> try:
...     rt.debugging.assert_equal(rt.constant(1), rt.constant(2))
... except rt.errors.InvalidArgumentError as e:
...     print(e.error_code == rt.errors.INVALID_ARGUMENT)
True
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "ABORTED",
    "ALREADY_EXISTS",
    "CANCELLED",
    "DATA_LOSS",
    "DEADLINE_EXCEEDED",
    "FAILED_PRECONDITION",
    "INTERNAL",
    "INVALID_ARGUMENT",
    "NOT_FOUND",
    "OK",
    "OUT_OF_RANGE",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "UNAUTHENTICATED",
    "UNAVAILABLE",
    "UNIMPLEMENTED",
    "UNKNOWN",
    "AbortedError",
    "AlreadyExistsError",
    "CancelledError",
    "DataLossError",
    "DeadlineExceededError",
    "FailedPreconditionError",
    "InternalError",
    "InvalidArgumentError",
    "NotFoundError",
    "OpError",
    "OutOfRangeError",
    "PermissionDeniedError",
    "ResourceExhaustedError",
    "UnauthenticatedError",
    "UnavailableError",
    "UnimplementedError",
    "UnknownError",
]

# TensorFlow's error codes (absl status codes).
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


class OpError(Exception):
    """The base of TensorFlow's op errors: `message`, `op` (None: eager ops have no graph
    node), `node_def` and `error_code`.

    >>> e = rt.errors.OpError(None, None, "it failed", rt.errors.UNKNOWN)
    >>> e.message, e.error_code
    ('it failed', 2)
    """

    def __init__(
        self, node_def: Any, op: Any, message: str, error_code: int = UNKNOWN, *args: Any
    ) -> None:
        super().__init__(message)
        self.node_def = node_def
        self.op = op
        self.message = message
        self.error_code = error_code

    def __str__(self) -> str:
        return self.message


def _error(name: str, code: int, python_base: type, doc: str) -> type:
    def __init__(
        self: Any, node_def: Any = None, op: Any = None, message: str = "", *args: Any
    ) -> None:
        OpError.__init__(self, node_def, op, message, code)

    doc += f"\n\n    >>> issubclass(rt.errors.{name}, rt.errors.OpError)\n    True\n    "
    cls = type(name, (OpError, python_base), {"__init__": __init__, "__doc__": doc})
    cls.__module__ = __name__
    return cls


CancelledError = _error("CancelledError", CANCELLED, Exception, "An operation was cancelled.")
UnknownError = _error("UnknownError", UNKNOWN, Exception, "An unknown error.")
InvalidArgumentError = _error(
    "InvalidArgumentError",
    INVALID_ARGUMENT,
    ValueError,
    "An op received an invalid argument (also a `ValueError`).",
)
DeadlineExceededError = _error(
    "DeadlineExceededError", DEADLINE_EXCEEDED, TimeoutError, "A deadline passed."
)
NotFoundError = _error("NotFoundError", NOT_FOUND, FileNotFoundError, "Something was not found.")
AlreadyExistsError = _error(
    "AlreadyExistsError", ALREADY_EXISTS, FileExistsError, "Something already exists."
)
PermissionDeniedError = _error(
    "PermissionDeniedError", PERMISSION_DENIED, PermissionError, "Permission was denied."
)
ResourceExhaustedError = _error(
    "ResourceExhaustedError",
    RESOURCE_EXHAUSTED,
    MemoryError,
    "A resource (memory) ran out (also a `MemoryError`).",
)
FailedPreconditionError = _error(
    "FailedPreconditionError",
    FAILED_PRECONDITION,
    RuntimeError,
    "The system is not in a state the operation needs.",
)
AbortedError = _error("AbortedError", ABORTED, RuntimeError, "An operation was aborted.")
OutOfRangeError = _error(
    "OutOfRangeError", OUT_OF_RANGE, IndexError, "An operation ran past the valid range."
)
UnimplementedError = _error(
    "UnimplementedError",
    UNIMPLEMENTED,
    NotImplementedError,
    "An operation is not implemented (also a `NotImplementedError`).",
)
InternalError = _error("InternalError", INTERNAL, RuntimeError, "An internal error.")
UnavailableError = _error("UnavailableError", UNAVAILABLE, ConnectionError, "Unavailable.")
DataLossError = _error("DataLossError", DATA_LOSS, OSError, "Data was lost or corrupted.")
UnauthenticatedError = _error(
    "UnauthenticatedError", UNAUTHENTICATED, PermissionError, "No valid credentials."
)
