"""nscd: Python bindings (ctypes, standard library only) of libnscd, the
nonsmooth contact dynamics library.

The shared library is found through $NSCD_LIBRARY, then a build tree next to
the package (the repository's build/libnscd.so), then the system's library
path (libnscd.so.<ABI>)."""
from ._library import ABI_VERSION, library, library_path
from .bouncing_ball import BouncingBall, Impact, analytic_rest_time, bouncing_ball
from .errors import NscdError, Status, check, status_string
from .event_driven import Event, EventDriven, EventType, Method, Stats, ZenoPolicy
from .system import ContactLaw, System
from .time_stepping import (Forces, Level, LocalSolver, ProxR, Report, Scheme, Start, TimeStepping,
                            TimeSteppingStats)

__all__ = [
    "ABI_VERSION", "BouncingBall", "ContactLaw", "Event", "EventDriven", "EventType", "Forces",
    "Impact", "Level", "LocalSolver", "Method", "NscdError", "ProxR", "Report", "Scheme", "Start",
    "Stats", "Status", "System", "TimeStepping", "TimeSteppingStats", "ZenoPolicy", "abi_version",
    "analytic_rest_time", "bouncing_ball", "check", "library", "library_path", "status_string",
    "version", "version_string",
]


def version():
    """nscd_version(): MAJOR*10000 + MINOR*100 + PATCH of the loaded library."""
    return library().nscd_version()


def version_string():
    """nscd_version_string(): e.g. "0.1.0"."""
    return library().nscd_version_string().decode()


def abi_version():
    """nscd_abi_version(): the ABI major (the SONAME number)."""
    return library().nscd_abi_version()
