"""Ownership of one library handle, shared by the wrapper classes."""


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
