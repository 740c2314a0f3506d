"""Status codes (include/nscd/status.h) and the NscdError exception."""
import enum

from ._library import library


class Status(enum.IntEnum):
    """The nscd_status codes; values are part of the ABI and never change."""
    OK = 0
    ERR_NULL_POINTER = -1
    ERR_INVALID_ARGUMENT = -2
    ERR_NOT_FINITE = -3
    ERR_OUT_OF_RANGE = -4
    ERR_OUT_OF_MEMORY = -5
    ERR_STRUCT_SIZE = -6
    ERR_INDEX = -7
    ERR_STALE_HANDLE = -8
    ERR_NOT_SPD = -9
    ERR_SINGULAR = -10
    ERR_CALLBACK = -11
    ERR_NOT_CONVERGED = -12
    ERR_ZENO = -13
    ERR_STEP_TOO_SMALL = -14
    ERR_MAX_STEPS = -15
    ERR_NOT_COLLIDING = -16
    ERR_STATE = -17
    ERR_UNSUPPORTED = -18
    ERR_BUFFER_TOO_SMALL = -19
    ERR_IO = -20


def status_string(status):
    """nscd_status_string(): the library's name and meaning of a status code."""
    return library().nscd_status_string(int(status)).decode()


class NscdError(Exception):
    """A failing nscd call.

    Attributes: ``status`` (the code, a Status when known), ``status_name``
    (nscd_status_string of it), ``last_error`` (the handle's last error
    message, "" when there is no handle) and ``function`` (the C function)."""

    def __init__(self, status, function="", last_error=""):
        try:
            status = Status(status)
        except ValueError:
            pass
        self.status = status
        self.status_name = status_string(status)
        self.function = function
        self.last_error = last_error
        text = f"{function}: " if function else ""
        text += f"{self.status_name} ({int(status)})"
        if last_error:
            text += f": {last_error}"
        super().__init__(text)


def check(status, function, handle_error=None):
    """Raises NscdError when status is not OK. handle_error() gives the
    handle's last error message (called only on failure)."""
    if status == Status.OK:
        return
    message = ""
    if handle_error is not None:
        raw = handle_error()
        message = raw.decode(errors="replace") if isinstance(raw, bytes) else (raw or "")
    raise NscdError(status, function, message)
