"""Ownership of one library handle, shared by the wrapper classes."""
from .errors import NscdError, Status


class OwnedHandle:
    """Owns one nscd handle, destroyed by close(), at the end of a `with`
    block, or when the object is collected. Subclasses define _destroy."""

    _handle = None

    def _destroy(self, handle):
        raise NotImplementedError

    def close(self):
        """Destroys the handle (also done when the object is collected)."""
        handle, self._handle = self._handle, None
        if handle is not None and getattr(handle, "value", handle):
            self._destroy(handle)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001  (interpreter shutdown)
            pass


class StepperHandle(OwnedHandle):
    """A stepper over a System (EventDriven, TimeStepping). A failed call raises
    NscdError with the stepper's last error (the system's when the stepper has
    none), chained to the exception a Python callback raised during the call.
    Subclasses set _lib, system, _exception = None and _LAST_ERROR, the name of
    their nscd_*_last_error function."""

    _LAST_ERROR = None
    _exception = None

    def _remember(self, exc):
        """Keeps the first exception a callback raised (it must not cross into C)."""
        if self._exception is None:
            self._exception = exc

    def _check(self, status, function, with_handle=True):
        cause, self._exception = self._exception, None
        callbacks = getattr(self.system, "_callbacks", None)  # a World has no callbacks
        system_cause = callbacks.take() if callbacks is not None else None  # none left for later
        cause = cause or system_cause
        if status == Status.OK:
            return
        message = ""
        if with_handle and self._handle is not None:
            message = self.last_error
        if not message and getattr(self.system, "_handle", None) is not None:
            message = self.system.last_error
        if not message and status == Status.ERR_STALE_HANDLE:
            # close() inside a callback of this call: the library freed the
            # handle when the call returned (docs/hostile_input.md)
            message = "the stepper or its system was closed inside a callback of this call"
        raise NscdError(status, function, message) from cause

    def _require_open(self):
        if self._handle is None:
            raise ValueError("the stepper is closed")

    @property
    def last_error(self):
        return getattr(self._lib, self._LAST_ERROR)(self._handle).decode()
