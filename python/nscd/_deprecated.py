"""Deprecated spellings of the package's API, kept working (docs: the
"Deprecated names" section of python/README.md). Each use warns once per call
site with a DeprecationWarning that names the replacement."""
import functools
import warnings


def warn(old: str, new: str, stacklevel: int = 3) -> None:
    """A DeprecationWarning: `old` is deprecated, use `new`."""
    warnings.warn(f"{old} is deprecated, use {new}", DeprecationWarning, stacklevel=stacklevel)


class CallableFloat(float):
    """A float that a property returns where a method of the same name used to
    be: `obj.time` is the value, and the old call `obj.time()` still returns
    it, with a DeprecationWarning."""

    __slots__ = ()
    _old = _new = ""

    def __call__(self):
        warn(self._old, self._new)
        return float(self)


class CallableTuple(tuple):
    """A tuple that a property returns where a method of the same name used to
    be (see CallableFloat)."""

    __slots__ = ()
    _old = _new = ""

    def __call__(self):
        warn(self._old, self._new)
        return tuple(self)


@functools.lru_cache(maxsize=None)
def _kind(base, old, new):
    return type(f"Deprecated{base.__name__}", (base,),
                {"__slots__": (), "_old": old, "_new": new})


def callable_value(value, old: str, new: str):
    """value (a float or a tuple) that also answers the deprecated call old()."""
    base = CallableFloat if isinstance(value, float) else CallableTuple
    return _kind(base, old, new)(value)
