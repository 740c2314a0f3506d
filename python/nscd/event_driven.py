"""The event-driven stepper (include/nscd/event_driven.h)."""
import collections
import ctypes
import enum

from . import _library as _c
from ._handle import StepperHandle
from .errors import check


class Method(enum.IntEnum):
    """nscd_ed_method."""
    DOPRI5 = 0
    RK4_LINEAR = 1


class ZenoPolicy(enum.IntEnum):
    """nscd_zeno_policy."""
    PERSISTENT_CONTACT = 0
    STOP = 1


class EventType(enum.IntEnum):
    """nscd_event_type."""
    IMPACT = 1
    USER = 2
    CONTACT_CLOSED = 3
    CONTACT_OPENED = 4
    ZENO_STOP = 5
    COMPLIANT_ONSET = 6
    COMPLIANT_SEPARATION = 7
    CONTACT_STICK = 8
    CONTACT_SLIP = 9


# One event, copied out of nscd_event_info (whose arrays live only during the callback).
Event = collections.namedtuple("Event", [
    "type", "t", "index", "contacts", "gap_velocity_before", "gap_velocity_after", "impulse",
    "q", "v_before", "v_after"])

# Counters of one advance() call (nscd_event_driven_stats). Fields are only
# appended, like the C struct's (workspace_peak_bytes since 0.2).
Stats = collections.namedtuple("Stats", [
    "steps_accepted", "steps_rejected", "rhs_evaluations", "impacts", "events", "t", "stopped",
    "workspace_peak_bytes"])


def _array(ptr, n):
    return list(ptr[:n]) if ptr and n > 0 else []


def _event_type(value):
    try:
        return EventType(value)
    except ValueError:  # a type added by a newer library
        return value


def _event_from_info(info):
    nc = info.n_contacts
    return Event(
        type=_event_type(info.type),
        t=info.t,
        index=info.index,
        contacts=_array(info.contacts, nc),
        gap_velocity_before=_array(info.gap_velocity_before, nc),
        gap_velocity_after=_array(info.gap_velocity_after, nc),
        impulse=_array(info.impulse, nc),
        q=_array(info.q, info.n_dof),
        v_before=_array(info.v_before, info.n_dof),
        v_after=_array(info.v_after, info.n_dof),
    )


class EventDriven(StepperHandle):
    """Event-driven integration of a System.

    Every event is appended to ``events`` (a list of Event). ``on_event(event)``
    is called too when given; it returns None/False to go on, True to stop
    (advance() then returns early), or a negative int to fail
    (NSCD_ERR_CALLBACK); closing the stepper or its system there stops the
    advance (NscdError ERR_STALE_HANDLE, docs/hostile_input.md). Other keyword
    arguments set fields of
    nscd_event_driven_options (``relative_tolerance``, ``zeno_policy``, ...)."""

    _LAST_ERROR = "nscd_event_driven_last_error"

    def __init__(self, system, on_event=None, **options):
        lib = _c.library()
        self._lib = lib
        self._handle = None
        self.system = system  # the system must outlive the stepper
        self.events = []
        self._on_event = _c.callback(on_event, "on_event")
        self._exception = None

        opts = _c.EventDrivenOptions()
        check(lib.nscd_event_driven_options_init(ctypes.byref(opts), ctypes.sizeof(opts)),
              "nscd_event_driven_options_init")
        names = {name for name, _ in _c.EventDrivenOptions._fields_}
        for key, value in options.items():
            if key not in names or key in ("struct_size", "on_event", "on_event_user",
                                           "user_events", "user_events_user", "n_user_events"):
                raise TypeError(f"unknown option {key!r}")
            _c.set_field(opts, key, value)
        self._handler = _c.EVENT_HANDLER_FN(self._handle_event)
        opts.on_event = self._handler
        self.options = opts

        handle = ctypes.c_void_p()
        self._check(lib.nscd_event_driven_create(system.handle, ctypes.byref(opts),
                                                 ctypes.byref(handle)),
                    "nscd_event_driven_create", with_handle=False)
        self._handle = handle

    def _handle_event(self, _user, info_ptr):
        try:
            event = _event_from_info(info_ptr.contents)
            self.events.append(event)
            if self._on_event is None:
                return 0
            return _c.observer_answer(self._on_event(event), "on_event")
        except BaseException as exc:  # noqa: BLE001  (must not cross into C)
            self._remember(exc)
            return -1

    @property
    def impacts(self):
        """The impact events recorded so far."""
        return [e for e in self.events if e.type == EventType.IMPACT]

    def advance(self, t_end):
        """Integrates to t_end (or to an event where on_event asked to stop).
        Returns Stats."""
        self._require_open()
        stats = _c.EventDrivenStats()
        stats.struct_size = ctypes.sizeof(stats)
        self._check(self._lib.nscd_event_driven_advance(self._handle, float(t_end),
                                                        ctypes.byref(stats)),
                    "nscd_event_driven_advance")
        return Stats(stats.steps_accepted, stats.steps_rejected, stats.rhs_evaluations,
                     stats.impacts, stats.events, stats.t, bool(stats.stopped),
                     stats.workspace_peak_bytes)

    def contact_force(self, index):
        """(normal, [tangential, ...]) force of contact `index` at the system's
        current state (nscd_event_driven_get_contact_force)."""
        self._require_open()
        normal = ctypes.c_double()
        tangent = (ctypes.c_double * 2)()
        self._check(self._lib.nscd_event_driven_get_contact_force(
            self._handle, _c.int32(index, "index"), ctypes.byref(normal), tangent),
            "nscd_event_driven_get_contact_force")
        return normal.value, list(tangent[:self.system.n_tangent(index)])

    def equality_force(self, index):
        """Multiplier lambda of equality constraint `index` (either sign) at the
        system's current state (nscd_event_driven_get_equality_force)."""
        self._require_open()
        value = ctypes.c_double()
        self._check(self._lib.nscd_event_driven_get_equality_force(
            self._handle, _c.int32(index, "index"), ctypes.byref(value)),
            "nscd_event_driven_get_equality_force")
        return value.value

    def _destroy(self, handle):
        self._lib.nscd_event_driven_destroy(handle)
