"""The time stepper (include/nscd/time_stepping.h): fixed steps that capture
impacts, stick-slip and persistent contacts without locating events."""
import collections
import ctypes
import enum
import sys

from . import _library as _c
from ._handle import StepperHandle
from .errors import check


class Scheme(enum.IntEnum):
    """nscd_ts_scheme."""
    MOREAU_JEAN = 0
    MOREAU_MIDPOINT = 1
    HALF_EXPLICIT = 2
    GENERALIZED_ALPHA = 3
    BATHE = 4
    ED_ALPHA = 5
    SEMI_IMPLICIT = 6


class LocalSolver(enum.IntEnum):
    """nscd_ts_local_solver."""
    AUTO = 0
    LCP = 1
    FC3D_COULOMB = 2
    FC3D_MAX_DISSIPATION = 3
    PROX = 4
    BLOCK_GS = 5


class StepRule(enum.IntEnum):
    """nscd_ts_step_rule: what chose the size of a step (variable steps)."""
    FIXED = 0
    MAX = 1
    CONTACT = 2
    END = 3


class Forces(enum.IntEnum):
    """nscd_ts_forces."""
    AUTO = 0
    EXPLICIT = 1
    IMPLICIT = 2


class Level(enum.IntEnum):
    """nscd_ts_level."""
    VELOCITY = 0
    ACCELERATION = 1


class Start(enum.IntEnum):
    """nscd_ts_start."""
    CONSISTENT = 0
    PAPER = 1


class ProxR(enum.IntEnum):
    """nscd_ts_prox_r."""
    SCALED = 0
    PAPER = 1


# What one step did (nscd_time_stepping_report).
Report = collections.namedtuple("Report", [
    "converged", "step", "t", "dt", "active_contacts", "new_contacts", "iterations", "rows",
    "residual", "max_penetration", "impact", "newton_iterations", "equality_violation",
    "momentum_residual", "step_rule", "predicted_contacts"])

# Counters of one advance() call (nscd_time_stepping_stats).
TimeSteppingStats = collections.namedtuple("TimeSteppingStats", [
    "stopped", "steps", "solver_iterations", "t", "max_penetration", "workspace_peak_bytes",
    "dt_smallest", "dt_largest", "contact_steps", "max_equality_violation",
    "max_momentum_residual"])


def _is_world(obj):
    """An nscd.World, without importing the world module (it needs numpy): if
    it is not loaded, no World exists."""
    world = sys.modules.get(__package__ + ".world")
    return world is not None and isinstance(obj, world.World)


def _report(r):
    return Report(bool(r.converged), r.step, r.t, r.dt, r.active_contacts, r.new_contacts,
                  r.iterations, r.rows, r.residual, r.max_penetration, bool(r.impact),
                  r.newton_iterations, r.equality_violation, r.momentum_residual,
                  StepRule(r.step_rule), r.predicted_contacts)


class TimeStepping(StepperHandle):
    """Time-stepping integration of a System, or of a World
    (nscd_time_stepping_create_world: the world's dynamic bodies and contacts,
    detected again at every step; Moreau–Jean and the midpoint rule only; each
    accepted step is written back to the world, see docs/world.md).

    Keyword arguments set fields of nscd_time_stepping_options (``scheme``,
    ``dt``, ``theta``, ``rho_infinity``, ``local_solver``, ``level``,
    ``start``, ``dt_min``, ``dt_max``, ``impulse_velocities``, ...; enums
    accept the IntEnums of this module or their names, e.g. ``scheme="bathe"``). ``dt_max > 0`` turns on
    variable steps in [dt_min, dt_max] (docs/variable_step.md). ``on_step(report)`` is called after every step
    when given; it returns None/False to go on, True to stop (advance() then
    returns early), or a negative int to fail (NSCD_ERR_CALLBACK). Closing the
    stepper, its system or world inside on_step (or a system callback) stops
    the advance, which raises NscdError(ERR_STALE_HANDLE); calling advance()
    or World.step() from there raises NscdError(ERR_STATE)
    (docs/hostile_input.md)."""

    _LAST_ERROR = "nscd_time_stepping_last_error"

    _ENUMS = {"scheme": Scheme, "local_solver": LocalSolver, "forces": Forces, "level": Level,
              "start": Start, "prox_r_mode": ProxR}

    def __init__(self, system, on_step=None, **options):
        lib = _c.library()
        self._lib = lib
        self._handle = None
        self.system = system  # the system must outlive the stepper
        self._on_step = _c.callback(on_step, "on_step")
        self._exception = None

        opts = _c.TimeSteppingOptions()
        check(lib.nscd_time_stepping_options_init(ctypes.byref(opts), ctypes.sizeof(opts)),
              "nscd_time_stepping_options_init")
        names = {name for name, _ in _c.TimeSteppingOptions._fields_}
        for key, value in options.items():
            if key not in names or key in ("struct_size", "on_step", "on_step_user", "reserved"):
                raise TypeError(f"unknown option {key!r}")
            if key in self._ENUMS:
                value = _c.enum_value(self._ENUMS[key], value, key)
            elif key == "fc3d_method":
                from .kernels import Fc3dMethod  # numpy: not at `import nscd`
                value = _c.enum_value(Fc3dMethod, value, key)
            _c.set_field(opts, key, value)
        self._observer = _c.TIME_STEP_FN(self._observe)
        if on_step is not None:
            opts.on_step = self._observer
        self.options = opts

        handle = ctypes.c_void_p()
        if _is_world(system):
            system._require_open()
            self._check(lib.nscd_time_stepping_create_world(system._handle, ctypes.byref(opts),
                                                            ctypes.byref(handle)),
                        "nscd_time_stepping_create_world", with_handle=False)
        else:
            self._check(lib.nscd_time_stepping_create(system.handle, ctypes.byref(opts),
                                                      ctypes.byref(handle)),
                        "nscd_time_stepping_create", with_handle=False)
        self._handle = handle

    def _observe(self, _user, report_ptr):
        try:
            report = ctypes.cast(report_ptr, ctypes.POINTER(_c.TimeSteppingReport)).contents
            return _c.observer_answer(self._on_step(_report(report)), "on_step")
        except BaseException as exc:  # noqa: BLE001  (must not cross into C)
            self._remember(exc)
            return -1

    def advance(self, t_end):
        """Steps to t_end (or until on_step asked to stop). Returns TimeSteppingStats."""
        self._require_open()
        t_end = _c.real(t_end, "t_end")
        stats = _c.TimeSteppingStats()
        stats.struct_size = ctypes.sizeof(stats)
        self._check(self._lib.nscd_time_stepping_advance(self._handle, float(t_end),
                                                         ctypes.byref(stats)),
                    "nscd_time_stepping_advance")
        return TimeSteppingStats(bool(stats.stopped), stats.steps, stats.solver_iterations,
                                 stats.t, stats.max_penetration, stats.workspace_peak_bytes,
                                 stats.dt_smallest, stats.dt_largest, stats.contact_steps,
                                 stats.max_equality_violation, stats.max_momentum_residual)

    @property
    def report(self):
        """The Report of the last accepted step."""
        self._require_open()
        r = _c.TimeSteppingReport()
        r.struct_size = ctypes.sizeof(r)
        self._check(self._lib.nscd_time_stepping_get_report(self._handle, ctypes.byref(r)),
                    "nscd_time_stepping_get_report")
        return _report(r)

    def _entry(self, function, index):
        self._require_open()
        normal = ctypes.c_double()
        tangent = (ctypes.c_double * 2)()
        self._check(getattr(self._lib, function)(self._handle, _c.int32(index, "index"), ctypes.byref(normal),
                                                 tangent), function)
        n_tangent = 2 if _is_world(self.system) else self.system.n_tangent(index)
        return normal.value, list(tangent[:n_tangent])

    def contact_impulse(self, index):
        """(normal, [tangential, ...]) impulse of entry `index` in the last step."""
        return self._entry("nscd_time_stepping_get_contact_impulse", index)

    def contact_force(self, index):
        """(normal, [tangential, ...]) non-impulsive force of entry `index` at the
        end of the last step (impulse / dt for the Moreau schemes)."""
        return self._entry("nscd_time_stepping_get_contact_force", index)

    def _destroy(self, handle):
        self._lib.nscd_time_stepping_destroy(handle)
