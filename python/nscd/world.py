"""The 3D rigid-body world of seed 002 (include/nscd/world.h): bodies with
shapes, collision detection and impulse-velocity time stepping with a
matrix-free nonlinear block Gauss–Seidel over the contacts.

Bodies are addressed by their generational ids (Python ints): an id of a
removed body is stale and every call with it raises NscdError with status
ERR_STALE_HANDLE. The state of every body and every contact of the last step
is copied out in bulk, as numpy arrays, by one C call (``World.bodies()``,
``World.contacts()``): scripts and plots never loop over bodies in Python.

Units are SI, quaternions are (w, x, y, z) and rotate body-frame vectors to
the world frame; contact impulses are (normal, tangent 1, tangent 2)."""
import ctypes
import enum
import math
import os
import struct
import sys
from typing import Callable, Iterable, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _bindings as _b
from . import _library as _c
from ._handle import OwnedHandle
from .errors import NscdError, Status, check
from .kernels import FrictionLaw

__all__ = ["Bodies", "BodyType", "ClearanceGaps", "ClearanceImpact", "ClearanceType", "Contacts", "FrictionCombine", "FrictionLaw", "JointType", "Shape", "ShapeType", "VtkFlags", "VtkSeries", "World", "WorldFormat", "WorldStepReport"]


class BodyType(enum.IntEnum):
    """nscd_body_type."""
    STATIC = 0
    KINEMATIC = 1
    DYNAMIC = 2


class ShapeType(enum.IntEnum):
    """nscd_shape_type."""
    SPHERE = 0
    HALF_SPACE = 1
    BOX = 2
    CAPSULE = 3
    CYLINDER = 4
    CONVEX = 5


class FrictionCombine(enum.IntEnum):
    """nscd_friction_combine: the friction coefficient of two materials."""
    GEOMETRIC_MEAN = 0
    MIN = 1
    MAX = 2
    AVERAGE = 3


class WorldFormat(enum.IntEnum):
    """nscd_world_format: the file formats of World.write()."""
    VTK = 0
    CSV = 1


class VtkFlags(enum.IntFlag):
    """nscd_world_vtk_flags: the part and options of the binary VTK XML writer
    (World.write_vtk_xml, VtkSeries; docs/paraview.md)."""
    SHAPES = 1
    CONTACTS = 2
    HULLS = 4
    FLOAT64 = 16
    COMPACT = 32
    TENSOR = 64


def _vtk_flags(contacts: bool, float64: bool, compact: bool, tensor: bool) -> int:
    return (int(float64) * VtkFlags.FLOAT64 | int(compact) * VtkFlags.COMPACT
            | int(tensor) * VtkFlags.TENSOR | (VtkFlags.CONTACTS if contacts else VtkFlags.SHAPES))


class JointType(enum.IntEnum):
    """nscd_joint_type: the ideal joints of World.add_joint()."""
    SPHERICAL = 0
    REVOLUTE = 1
    CYLINDRICAL = 2
    PRISMATIC = 3
    FIXED = 4


class ClearanceType(enum.IntEnum):
    """nscd_clearance_type: the clearance joints of World.add_clearance_joint()."""
    CYLINDRICAL = 0
    REVOLUTE = 1
    PRISMATIC = 2


class ClearanceImpact(enum.IntEnum):
    """nscd_clearance_impact."""
    PLASTIC = 0


class ClearanceGaps(NamedTuple):
    """The gaps of a clearance joint (nscd_world_clearance_gaps): n values,
    (n, 3) normals from the outer to the inner body, (n, 3) contact points,
    n normal impulses of the last step."""
    gaps: np.ndarray
    normals: np.ndarray
    points: np.ndarray
    impulses: np.ndarray


_IDENTITY = (1.0, 0.0, 0.0, 0.0)
_ORIGIN = (0.0, 0.0, 0.0)


def _enum(enum_class, value, what):
    """An IntEnum member from a member, an int or a case-insensitive name."""
    if isinstance(value, str):
        return enum_class(_c.enum_value(enum_class, value, what))
    return _c.int32(value, what)


def _vec(values, n, what) -> Tuple[float, ...]:
    """n floats from a sequence, checking its length (no numpy needed)."""
    a = np.asarray(values)
    if a.dtype.kind not in "biuf":  # complex would lose its imaginary part, text its meaning
        raise (TypeError if a.dtype.kind == "c" else ValueError)(
            f"{what}: expected real numbers, got {a.dtype}")
    out = tuple(float(x) for x in a.astype(np.float64).reshape(-1))
    if len(out) != n:
        raise ValueError(f"{what}: expected {n} values, got {len(out)}")
    return out


def _set_array(field, values):
    for i, x in enumerate(values):
        field[i] = x


class Shape:
    """One shape of a body (nscd_shape_desc), built by the class methods
    sphere(), half_space(), box(), capsule(), cylinder() and convex(). Common keyword
    arguments: ``position`` and ``orientation`` (w, x, y, z) of the shape in
    the body frame, ``material`` (an index from World.add_material, 0 = the
    world's default), ``category`` and ``mask`` (collision filter bits: shapes
    a and b collide when a.category & b.mask and b.category & a.mask are both
    non-zero)."""

    _COMMON = ("position", "orientation", "material", "category", "mask")

    def __init__(self, type: Union[ShapeType, int, str], **fields):
        self.type = ShapeType(_enum(ShapeType, type, "type"))
        unknown = set(fields) - set(self._COMMON) - {"radius", "half_height", "half_extents",
                                                     "points"}
        if unknown:
            raise TypeError(f"unknown shape field(s): {', '.join(sorted(unknown))}")
        self.fields = fields

    @classmethod
    def sphere(cls, radius: float, **kw) -> "Shape":
        """A sphere of `radius` (m) about the shape origin."""
        return cls(ShapeType.SPHERE, radius=radius, **kw)

    @classmethod
    def half_space(cls, **kw) -> "Shape":
        """The solid half-space {z <= 0} of the shape frame (its plane's outward
        normal is the frame's +z); static or kinematic bodies only."""
        return cls(ShapeType.HALF_SPACE, **kw)

    @classmethod
    def box(cls, half_extents: Sequence[float], **kw) -> "Shape":
        """A box of `half_extents` (3 values, m) about the shape origin."""
        return cls(ShapeType.BOX, half_extents=half_extents, **kw)

    @classmethod
    def capsule(cls, radius: float, half_height: float, **kw) -> "Shape":
        """The segment from -half_height to +half_height on z swept by a sphere of `radius`."""
        return cls(ShapeType.CAPSULE, radius=radius, half_height=half_height, **kw)

    @classmethod
    def cylinder(cls, radius: float, half_height: float, **kw) -> "Shape":
        """A solid cylinder of `radius`, axis z, from -half_height to +half_height."""
        return cls(ShapeType.CYLINDER, radius=radius, half_height=half_height, **kw)

    @classmethod
    def convex(cls, points, **kw) -> "Shape":
        """The convex hull of `points` (an (n, 3) array, m, shape frame; 4 to
        4096 points, not all in one plane): a convex polyhedron (since 0.2).
        The shape origin stays where the points put it."""
        a = np.asarray(points)
        if a.dtype.kind not in "biuf":
            raise (TypeError if a.dtype.kind == "c" else ValueError)(
                f"points: expected real numbers, got {a.dtype}")
        a = np.ascontiguousarray(a, dtype=np.float64)
        if a.ndim != 2 or a.shape[1] != 3:
            raise ValueError(f"points: expected an (n, 3) array, got shape {a.shape}")
        return cls(ShapeType.CONVEX, points=a, **kw)

    def desc(self) -> "_c.ShapeDesc":
        """The nscd_shape_desc of this shape (library defaults for the fields not given)."""
        d = _c.ShapeDesc()
        check(_c.library().nscd_shape_desc_init(ctypes.byref(d), ctypes.sizeof(d)),
              "nscd_shape_desc_init")
        d.type = int(self.type)
        f = self.fields
        if "radius" in f:
            d.radius = float(f["radius"])
        if "half_height" in f:
            d.half_height = float(f["half_height"])
        if "half_extents" in f:
            _set_array(d.half_extents, _vec(f["half_extents"], 3, "half_extents"))
        if "points" in f:
            pts = f["points"]
            # a ctypes array assigned to the pointer field stays referenced by
            # the desc (and by the array of descs it is copied into)
            d.points = (ctypes.c_double * pts.size)(*pts.reshape(-1).tolist())
            d.point_count = _c.int32(pts.shape[0], "point_count")
        if "position" in f:
            _set_array(d.position, _vec(f["position"], 3, "position"))
        if "orientation" in f:
            _set_array(d.orientation, _vec(f["orientation"], 4, "orientation"))
        if "material" in f:
            d.material = _c.int32(f["material"], "material")
        for bits in ("category", "mask"):
            if bits in f:
                value = int(f[bits])
                if not 0 <= value < 2**32:
                    raise OverflowError(f"{bits}: {value} does not fit a uint32_t")
                setattr(d, bits, value)
        return d

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return f"Shape({self.type.name.lower()}{', ' if args else ''}{args})"


class WorldStepReport(NamedTuple):
    """nscd_world_step_report: what the last step did."""
    contacts: int          # contact points of the step
    sweeps: int            # sweeps of the block solver
    converged: bool        # merit below the tolerance (never with tolerance 0)
    merit: float           # largest change of a relative contact velocity in the last sweep, m/s
    max_penetration: float  # largest -gap over the step's contacts before the step, m
    bodies_removed: int    # bodies removed at the domain boundary in this step
    broad_pairs: int       # shape pairs the broad phase passed to the narrow phase
    relax_sweeps: int = 0  # sweeps of the relax pass (0: no contact penetrated)
    deep_sweeps: int = 0   # sweeps the deep-penetration guard added (in sweeps too)
    deep_contacts: int = 0  # contacts left closing deeper than deep_penetration
    sleeping_bodies: int = 0  # dynamic bodies asleep at the end of the step


class Bodies(NamedTuple):
    """Every live body in the world's storage order (structure of arrays)."""
    ids: np.ndarray                 # (N,) uint64 body ids
    user_ids: np.ndarray            # (N,) uint64 user ids (add_body's user_id)
    positions: np.ndarray           # (N, 3) m
    orientations: np.ndarray        # (N, 4) unit quaternions (w, x, y, z)
    velocities: np.ndarray          # (N, 3) m/s
    angular_velocities: np.ndarray  # (N, 3) rad/s, world frame


class Contacts(NamedTuple):
    """The last step's contacts in the solver's order (structure of arrays)."""
    body_a: np.ndarray    # (M,) uint64
    body_b: np.ndarray    # (M,) uint64; the normal points from a to b
    points: np.ndarray    # (M, 3) midway between the surfaces, m
    normals: np.ndarray   # (M, 3) unit normals from a to b
    gaps: np.ndarray      # (M,) gap at detection, m (negative: penetration)
    impulses: np.ndarray  # (M, 3) normal, tangent 1, tangent 2, N s


_U64_P = ctypes.POINTER(ctypes.c_uint64)


def _dptr(a):
    return a.ctypes.data_as(_c.c_double_p)


def _uptr(a):
    return a.ctypes.data_as(_U64_P)


class World(OwnedHandle):
    """A rigid-body world (opaque nscd_world), a context manager.

    Keyword arguments set the fields of nscd_world_desc; those not given keep
    the library's defaults (nscd_world_desc_init):

    - ``gravity`` (3 values, m/s², default (0, 0, -9.81)), ``dt`` (s, 1e-3);
    - ``friction_law``: FrictionLaw or "coulomb" / "max_dissipation";
    - ``max_sweeps`` (10), ``tolerance`` (m/s, 1e-4; 0 = always max_sweeps
      sweeps and never ``converged``), ``on_unconverged``: "keep" (default:
      the step is kept, ``report.converged`` is False), "fail" (kept, and
      ``step`` raises ERR_NOT_CONVERGED) or "reject" (undone, and raises),
      ``relaxation`` and ``jacobi_groups`` (the weighted Jacobi blend across
      groups of seed 002, Sect. 3), ``warm_start`` (True);
    - ``error_reduction`` ε in [0, 1) (0.2), ``contact_margin`` (m, 1e-3);
    - ``max_correction_speed`` (m/s, 0.1): the bound of the penetration
      correction ε ξ/dt, which moves positions only (a body created
      overlapping leaves at most at this speed and keeps no velocity), and
      ``relax_sweeps`` (3; 0 = the correction stays in the velocities);
    - ``deep_penetration`` (m, 1e-4) and ``deep_sweeps`` (100; 0 = off): a
      step whose sweeps leave a contact deeper than that closing sweeps on
      (docs/world.md, "Deep penetrations");
    - ``sleep`` (False), ``sleep_speed`` (m/s, 0.01), ``sleep_time`` (s,
      0.5): islands of bodies whose speeds |v| and |ω| r stayed below
      sleep_speed for sleep_time fall asleep (zero velocities, not
      integrated nor solved) until touched or changed (docs/world.md,
      "Sleeping"); the time steppers refuse a world with sleep;
    - ``default_friction`` (μ of material 0, 0.5), ``friction_combine``
      (FrictionCombine or its name);
    - ``threads`` (0): the threads of a step (docs/world.md, "Threads"):
      0 = the serial step; N >= 1 = N workers of the world's own pool, with
      results bitwise the same for every N >= 1 (the task callbacks of
      nscd_world_desc are C-only);
    - ``domain=(lower_corner, upper_corner)``: bodies whose centre leaves the
      box are removed at the end of a step (an open outlet);
    - ``log(level, message)``: a Python function receiving the library's log.

    Raises NscdError (status and the library's message) on invalid settings.
    Ids are Python ints; `id in world` tells whether a body is alive and
    ``len(world)`` counts the live bodies."""

    _REALS = ("dt", "tolerance", "relaxation", "error_reduction", "contact_margin",
              "default_friction", "max_correction_speed", "deep_penetration", "sleep_speed",
              "sleep_time")
    _INTS = ("max_sweeps", "jacobi_groups", "relax_sweeps", "threads", "deep_sweeps")
    _UNCONVERGED = {"keep": 0, "fail": 1, "reject": 2}

    def __init__(self, gravity: Optional[Sequence[float]] = None,
                 friction_law: Union[FrictionLaw, int, str, None] = None,
                 friction_combine: Union[FrictionCombine, int, str, None] = None,
                 warm_start: Optional[bool] = None,
                 domain: Optional[Tuple[Sequence[float], Sequence[float]]] = None,
                 log: Optional[Callable[[int, str], None]] = None,
                 on_unconverged: Union[int, str, None] = None, **settings):
        lib = _c.library()
        self._lib = lib
        self._handle = None
        self._last_contacts = 0
        desc = _c.WorldDesc()
        check(lib.nscd_world_desc_init(ctypes.byref(desc), ctypes.sizeof(desc)),
              "nscd_world_desc_init")
        for key, value in settings.items():
            if key == "sleep":
                desc.sleep = int(bool(value))
            elif key in self._REALS:
                setattr(desc, key, _c.real(value, key))
            elif key in self._INTS:
                setattr(desc, key, _c.int32(value, key))
            else:
                known = ", ".join(self._REALS + self._INTS + (
                    "gravity", "friction_law", "friction_combine", "warm_start", "domain", "log",
                    "on_unconverged", "sleep"))
                raise TypeError(f"unknown world setting {key!r} (known: {known})")
        if gravity is not None:
            _set_array(desc.gravity, _vec(gravity, 3, "gravity"))
        if friction_law is not None:
            desc.friction_law = _enum(FrictionLaw, friction_law, "friction_law")
        if friction_combine is not None:
            desc.friction_combine = _enum(FrictionCombine, friction_combine, "friction_combine")
        if warm_start is not None:
            desc.warm_start = int(bool(warm_start))
        if on_unconverged is not None:
            if isinstance(on_unconverged, str):
                if on_unconverged not in self._UNCONVERGED:
                    raise ValueError(f"on_unconverged: expected one of "
                                     f"{', '.join(self._UNCONVERGED)}, got {on_unconverged!r}")
                on_unconverged = self._UNCONVERGED[on_unconverged]
            desc.on_unconverged = _c.int32(on_unconverged, "on_unconverged")
        if domain is not None:
            lower, upper = domain
            desc.use_domain = 1
            _set_array(desc.domain_min, _vec(lower, 3, "domain lower corner"))
            _set_array(desc.domain_max, _vec(upper, 3, "domain upper corner"))
        _c.callback(log, "log")
        self._log = None
        self._logging = 0   # inside the log callback (re-entrancy: close())
        self._stepping = 0  # inside step()
        if log is not None:
            def log_body(_user, level, message):
                self._logging += 1
                try:
                    log(int(level), message.decode(errors="replace"))
                except BaseException:  # noqa: BLE001  (must not cross into C)
                    pass
                finally:
                    self._logging -= 1
            self._log = _c.LOG_FN(log_body)  # must outlive the handle
            desc.log = self._log
        out = ctypes.c_void_p()
        check(lib.nscd_world_create(ctypes.byref(desc), ctypes.byref(out)), "nscd_world_create")
        self._handle = out
        self.dt = desc.dt

    # ------------------------------------------------------------ handle
    def _destroy(self, handle):
        self._lib.nscd_world_destroy(handle)

    def close(self):
        """Destroys the world. Inside the log callback of step() (or inside a
        time stepper's on_step) the library frees it when that call returns;
        inside the log callback of any other call it refuses (the call still
        uses the world): this close() then raises RuntimeError and the world
        stays open (docs/hostile_input.md)."""
        if getattr(self, "_logging", 0) and not getattr(self, "_stepping", 0):
            raise RuntimeError("World.close() inside the log callback of a call other than "
                               "step(): close the world after the call returns")
        super().close()

    def _require_open(self):
        if self._handle is None:
            raise ValueError("the world is closed")

    @property
    def last_error(self) -> str:
        """The message of the last failure on this world ("" when none)."""
        self._require_open()
        return self._lib.nscd_world_last_error(self._handle).decode(errors="replace")

    def _check(self, status, function):
        if status != Status.OK:
            raise NscdError(status, function, self.last_error)

    # ------------------------------------------------------------ materials
    def add_material(self, friction: float) -> int:
        """Adds a material with friction coefficient μ >= 0; returns its index
        (material 0, the world's default, exists from the start)."""
        self._require_open()
        index = ctypes.c_int32()
        self._check(self._lib.nscd_world_add_material(self._handle, float(friction),
                                                      ctypes.byref(index)),
                    "nscd_world_add_material")
        return index.value

    def set_pair_friction(self, material_a: int, material_b: int, friction: float) -> None:
        """Overrides the combination rule: every contact between materials a
        and b has μ = friction."""
        self._require_open()
        self._check(self._lib.nscd_world_set_pair_friction(
            self._handle, _c.int32(material_a, "material_a"), _c.int32(material_b, "material_b"),
            float(friction)), "nscd_world_set_pair_friction")

    def set_material_resistance(self, material: int, rolling: float = 0.0,
                                spinning: float = 0.0) -> None:
        """Sets a material's rolling and spinning resistance lengths (m, >= 0;
        default 0: none). At a contact with normal impulse x_n an angular
        impulse resists the relative rotation: its rolling part up to
        rolling * x_n, its spin about the normal up to spinning * x_n (a ball
        rolling on a floor then decelerates at 5/7 rolling g / r). A contact's
        lengths are the average of its two materials'. docs/world.md, "Rolling
        and spinning resistance"."""
        self._require_open()
        self._check(self._lib.nscd_world_set_material_resistance(
            self._handle, _c.int32(material, "material"), float(rolling), float(spinning)),
            "nscd_world_set_material_resistance")

    def material_resistance(self, material: int) -> Tuple[float, float]:
        """(rolling, spinning) resistance lengths of a material, m."""
        self._require_open()
        rolling, spinning = ctypes.c_double(), ctypes.c_double()
        self._check(self._lib.nscd_world_get_material_resistance(
            self._handle, _c.int32(material, "material"), ctypes.byref(rolling),
            ctypes.byref(spinning)), "nscd_world_get_material_resistance")
        return rolling.value, spinning.value

    # ------------------------------------------------------------ bodies
    def add_body(self, shapes: Union[Shape, Iterable[Shape]] = (),
                 type: Union[BodyType, int, str] = BodyType.DYNAMIC,
                 position: Sequence[float] = (0.0, 0.0, 0.0),
                 orientation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                 velocity: Sequence[float] = (0.0, 0.0, 0.0),
                 angular_velocity: Sequence[float] = (0.0, 0.0, 0.0),
                 density: Optional[float] = None, mass: float = 0.0,
                 inertia: Optional[Sequence[float]] = None, user_id: int = 0) -> int:
        """Adds a body with its shapes (a compound when more than one) and
        returns its id.

        ``type``: BodyType or "static" / "kinematic" / "dynamic" (a kinematic
        body moves with its velocity and has infinite mass). A dynamic body's
        mass, centre of mass and inertia follow from ``density`` (kg/m³,
        library default 1000) and its shapes, unless ``mass`` > 0 is given with
        the principal ``inertia`` (3 values) about the body origin. ``user_id``
        is returned by bodies() (e.g. a particle number)."""
        self._require_open()
        if isinstance(shapes, Shape):
            shapes = [shapes]
        shapes = list(shapes)
        for shape in shapes:
            if not isinstance(shape, Shape):
                raise TypeError(f"expected nscd.Shape objects, got {shape!r}")
        body = self._body_desc(type, position, orientation, velocity, angular_velocity, density,
                               mass, inertia, user_id)
        made = [s.desc() for s in shapes]  # kept alive over the call (convex points)
        descs = (_c.ShapeDesc * max(len(shapes), 1))(*made)
        out = ctypes.c_uint64()
        self._check(self._lib.nscd_world_add_body(self._handle, ctypes.byref(body), descs,
                                                  len(shapes), ctypes.byref(out)),
                    "nscd_world_add_body")
        return out.value

    def _body_desc(self, type=BodyType.DYNAMIC, position=(0.0, 0.0, 0.0),
                   orientation=(1.0, 0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0),
                   angular_velocity=(0.0, 0.0, 0.0), density=None, mass=0.0, inertia=None,
                   user_id=0) -> "_c.BodyDesc":
        """An nscd_body_desc from add_body's keyword arguments."""
        body = _c.BodyDesc()
        check(self._lib.nscd_body_desc_init(ctypes.byref(body), ctypes.sizeof(body)),
              "nscd_body_desc_init")
        body.type = _enum(BodyType, type, "type")
        _set_array(body.position, _vec(position, 3, "position"))
        _set_array(body.orientation, _vec(orientation, 4, "orientation"))
        _set_array(body.velocity, _vec(velocity, 3, "velocity"))
        _set_array(body.angular_velocity, _vec(angular_velocity, 3, "angular_velocity"))
        if density is not None:
            body.density = _c.real(density, "density")
        body.mass = _c.real(mass, "mass")
        if inertia is not None:
            _set_array(body.inertia, _vec(inertia, 3, "inertia"))
        body.user_id = _c.uint64(user_id, "user_id")
        return body

    def add_sphere(self, radius: float, position: Sequence[float], material: int = 0,
                   **body) -> int:
        """A dynamic sphere of `radius` centred at `position` (the fast path);
        further keyword arguments are those of add_body (velocity, density,
        type, user_id, ...). Returns its id."""
        return self.add_body(Shape.sphere(radius, material=material), position=position, **body)

    def add_half_space(self, point: Sequence[float] = (0.0, 0.0, 0.0),
                       normal: Sequence[float] = (0.0, 0.0, 1.0), material: int = 0,
                       type: Union[BodyType, int, str] = BodyType.STATIC, **body) -> int:
        """A static (or kinematic) half-space whose boundary plane passes through
        `point` with outward `normal` (any non-zero length; the solid lies
        behind it): the ground by default. The body's frame turns +z onto the
        unit normal (nscd_world_add_half_space). Further keyword arguments are
        those of add_body but position and orientation (velocity, user_id).
        Returns its id."""
        self._require_open()
        for name in ("position", "orientation"):
            if name in body:
                raise TypeError(f"add_half_space: {name} follows from point and normal")
        desc = self._body_desc(type=type, **body)
        shape = Shape.half_space(material=material).desc()
        out = ctypes.c_uint64()
        point_c = (ctypes.c_double * 3)(*_vec(point, 3, "point"))
        n = _vec(normal, 3, "normal")
        if not all(math.isfinite(x) for x in n) or not any(n):  # ValueError, as before 0.2
            raise ValueError(f"normal: expected a finite non-zero vector, got {n}")
        normal_c = (ctypes.c_double * 3)(*n)
        self._check(self._lib.nscd_world_add_half_space(self._handle, point_c, normal_c,
                                                        ctypes.byref(desc), ctypes.byref(shape),
                                                        ctypes.byref(out)),
                    "nscd_world_add_half_space")
        return out.value

    def remove_body(self, body_id: int) -> None:
        """Removes a body and its contacts; a dead id raises ERR_STALE_HANDLE."""
        self._require_open()
        self._check(self._lib.nscd_world_remove_body(self._handle, self._id(body_id)),
                    "nscd_world_remove_body")

    def body_valid(self, body_id: int) -> bool:
        """True when `body_id` names a live body of this world."""
        self._require_open()
        try:
            body_id = self._id(body_id)
        except OverflowError:
            return False
        return bool(self._lib.nscd_world_body_valid(self._handle, body_id))

    __contains__ = body_valid

    @property
    def body_count(self) -> int:
        """Number of live bodies."""
        self._require_open()
        return self._lib.nscd_world_body_count(self._handle)

    def __len__(self):
        return self.body_count

    @staticmethod
    def _id(body_id):
        return _c.uint64(body_id, "body id")

    def get_body(self, body_id: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(position, orientation, velocity, angular_velocity) of one body."""
        self._require_open()
        p, q, v, w = np.zeros(3), np.zeros(4), np.zeros(3), np.zeros(3)
        self._check(self._lib.nscd_world_get_body(self._handle, self._id(body_id), _dptr(p),
                                                  _dptr(q), _dptr(v), _dptr(w)),
                    "nscd_world_get_body")
        return p, q, v, w

    def set_body(self, body_id: int, position: Optional[Sequence[float]] = None,
                 orientation: Optional[Sequence[float]] = None,
                 velocity: Optional[Sequence[float]] = None,
                 angular_velocity: Optional[Sequence[float]] = None) -> None:
        """Sets parts of a body's state; None leaves that part unchanged.
        Static bodies accept positions only."""
        self._require_open()
        arrays = []
        for values, n, what in ((position, 3, "position"), (orientation, 4, "orientation"),
                                (velocity, 3, "velocity"),
                                (angular_velocity, 3, "angular_velocity")):
            arrays.append(None if values is None else np.array(_vec(values, n, what)))
        ptrs = [None if a is None else _dptr(a) for a in arrays]
        self._check(self._lib.nscd_world_set_body(self._handle, self._id(body_id), *ptrs),
                    "nscd_world_set_body")

    def body_mass(self, body_id: int) -> Tuple[float, np.ndarray]:
        """(mass in kg, body-frame principal inertia (3,)); mass 0 for static
        and kinematic bodies."""
        self._require_open()
        mass, inertia = ctypes.c_double(), np.zeros(3)
        self._check(self._lib.nscd_world_get_body_mass(self._handle, self._id(body_id),
                                                       ctypes.byref(mass), _dptr(inertia)),
                    "nscd_world_get_body_mass")
        return mass.value, inertia

    def set_applied_force(self, body_id: int, force: Optional[Sequence[float]] = None,
                          torque: Optional[Sequence[float]] = None) -> None:
        """Sets the load applied to a dynamic body at every step until set
        again: a force through its centre of mass (N) and a torque (N m), world
        frame; None is zero (``set_applied_force(b)`` removes the load)."""
        self._require_open()
        f = None if force is None else np.array(_vec(force, 3, "force"))
        t = None if torque is None else np.array(_vec(torque, 3, "torque"))
        self._check(self._lib.nscd_world_set_applied_force(
            self._handle, self._id(body_id), None if f is None else _dptr(f),
            None if t is None else _dptr(t)), "nscd_world_set_applied_force")

    def applied_force(self, body_id: int) -> Tuple[np.ndarray, np.ndarray]:
        """(force (3,), torque (3,)) set by set_applied_force; zeros unless set."""
        self._require_open()
        f, t = np.zeros(3), np.zeros(3)
        self._check(self._lib.nscd_world_get_applied_force(self._handle, self._id(body_id),
                                                           _dptr(f), _dptr(t)),
                    "nscd_world_get_applied_force")
        return f, t

    def is_sleeping(self, body_id: int) -> bool:
        """Whether a body sleeps (sleep=True worlds; docs/world.md, "Sleeping"):
        its velocities are zero and it neither moves nor has its contacts
        solved until woken."""
        self._require_open()
        sleeping = ctypes.c_int32()
        self._check(self._lib.nscd_world_body_sleeping(self._handle, self._id(body_id),
                                                       ctypes.byref(sleeping)),
                    "nscd_world_body_sleeping")
        return bool(sleeping.value)

    def wake(self, body_id: int) -> None:
        """Wakes a body and its sleeping island (timers restarted); of a static
        or kinematic body, every island it touches."""
        self._require_open()
        self._check(self._lib.nscd_world_wake_body(self._handle, self._id(body_id)),
                    "nscd_world_wake_body")

    # ------------------------------------------------------------ stepping
    def step(self, n: int = 1, allow_not_converged: bool = False) -> WorldStepReport:
        """Advances the world by n steps of dt and returns the report of the last.

        A step whose sweeps did not reach the tolerance is kept and reported
        (``report.converged`` False) under on_unconverged="keep" (the
        default); under "fail" it is kept and raises NscdError with status
        ERR_NOT_CONVERGED, whose ``report`` attribute is that step's report,
        unless ``allow_not_converged`` is True; under "reject" it is undone
        and raises likewise."""
        self._require_open()
        n = _c.int32(n, "n")
        if n < 1:
            raise ValueError(f"n: expected at least one step, got {n}")
        report = _c.WorldStepReport(struct_size=ctypes.sizeof(_c.WorldStepReport))
        step = self._lib.nscd_world_step
        for _ in range(n):
            self._stepping += 1
            try:
                status = step(self._handle, ctypes.byref(report))
            finally:
                self._stepping -= 1
            if status == Status.ERR_NOT_CONVERGED and allow_not_converged and \
                    self._handle is not None:
                continue
            if status != Status.OK:
                self._last_contacts = max(report.contacts, 0)
                if self._handle is None:  # closed by the log callback: freed by the library
                    raise NscdError(status, "nscd_world_step",
                                    "the world was closed inside its log callback")
                exc = NscdError(status, "nscd_world_step", self.last_error)
                exc.report = self._report(report)
                raise exc
        self._last_contacts = max(report.contacts, 0)
        return self._report(report)

    @staticmethod
    def _report(r):
        return WorldStepReport(r.contacts, r.sweeps, bool(r.converged), r.merit,
                               r.max_penetration, r.bodies_removed, r.broad_pairs,
                               r.relax_sweeps, r.deep_sweeps, r.deep_contacts,
                               r.sleeping_bodies)

    @property
    def time(self) -> float:
        """Simulated time, s (steps taken times dt)."""
        self._require_open()
        return self._lib.nscd_world_time(self._handle)

    def kinetic_energy(self) -> float:
        """Kinetic energy of the dynamic bodies (translation and rotation), J."""
        self._require_open()
        energy = ctypes.c_double()
        self._check(self._lib.nscd_world_kinetic_energy(self._handle, ctypes.byref(energy)),
                    "nscd_world_kinetic_energy")
        return energy.value

    def potential_energy(self) -> float:
        """Gravitational potential energy of the dynamic bodies, −Σ m g·x, J
        (zero at the origin)."""
        self._require_open()
        energy = ctypes.c_double()
        self._check(self._lib.nscd_world_potential_energy(self._handle, ctypes.byref(energy)),
                    "nscd_world_potential_energy")
        return energy.value

    def total_energy(self) -> float:
        """Kinetic plus potential energy of the dynamic bodies, J (in free
        flight the world's own step takes ½ m |g|² dt² per body and step;
        Moreau's midpoint rule keeps it)."""
        self._require_open()
        energy = ctypes.c_double()
        self._check(self._lib.nscd_world_total_energy(self._handle, ctypes.byref(energy)),
                    "nscd_world_total_energy")
        return energy.value

    def body_contact_impulse(self, body_id: int, about: Optional[Sequence[float]] = None
                             ) -> Tuple[np.ndarray, np.ndarray]:
        """The net contact impulse of the last step on a body (world frame, N s;
        divided by dt: the mean contact force) and its moment about `about`
        (N m s; default the origin; the contact points are those of the start
        of the step, so pass x - dt v for the moment about the centre of mass
        the step used)."""
        self._require_open()
        impulse, moment = np.zeros(3), np.zeros(3)
        about_c = None if about is None else (ctypes.c_double * 3)(*_vec(about, 3, "about"))
        self._check(self._lib.nscd_world_get_body_contact_impulse(
            self._handle, self._id(body_id), about_c, _dptr(impulse), _dptr(moment)),
            "nscd_world_get_body_contact_impulse")
        return impulse, moment

    # ------------------------------------------------------------ bulk copy-out
    def bodies(self) -> Bodies:
        """Every live body as numpy arrays (structure of arrays), copied by one
        call of nscd_world_get_bodies in the world's (deterministic) order."""
        self._require_open()
        count = ctypes.c_int32()
        n = self.body_count
        while True:
            ids, user_ids = np.zeros(n, np.uint64), np.zeros(n, np.uint64)
            p, q = np.zeros((n, 3)), np.zeros((n, 4))
            v, w = np.zeros((n, 3)), np.zeros((n, 3))
            status = self._lib.nscd_world_get_bodies(self._handle, n, ctypes.byref(count),
                                                     _uptr(ids), _uptr(user_ids), _dptr(p),
                                                     _dptr(q), _dptr(v), _dptr(w))
            if status == Status.ERR_BUFFER_TOO_SMALL and count.value > n:
                n = count.value  # not expected: body_count said otherwise
                continue
            self._check(status, "nscd_world_get_bodies")
            m = count.value
            return Bodies(ids[:m], user_ids[:m], p[:m], q[:m], v[:m], w[:m])

    def contacts(self) -> Contacts:
        """The last step's contacts as numpy arrays (structure of arrays),
        copied by one call of nscd_world_get_contacts in the solver's order."""
        self._require_open()
        count = ctypes.c_int32()
        n = self._last_contacts
        while True:
            a, b = np.zeros(n, np.uint64), np.zeros(n, np.uint64)
            points, normals = np.zeros((n, 3)), np.zeros((n, 3))
            gaps, impulses = np.zeros(n), np.zeros((n, 3))
            status = self._lib.nscd_world_get_contacts(self._handle, n, ctypes.byref(count),
                                                       _uptr(a), _uptr(b), _dptr(points),
                                                       _dptr(normals), _dptr(gaps),
                                                       _dptr(impulses))
            if status == Status.ERR_BUFFER_TOO_SMALL and count.value > n:
                n = count.value  # the last step was taken through another handle's API
                continue
            self._check(status, "nscd_world_get_contacts")
            m = count.value
            return Contacts(a[:m], b[:m], points[:m], normals[:m], gaps[:m], impulses[:m])

    # ------------------------------------------------------------ checkpoint
    # ------------------------------------------------------------ joints (joint.h, docs/joints.md)
    def add_joint(self, type: Union[JointType, int, str] = JointType.REVOLUTE,
                  body_a: int = 0, body_b: int = 0,
                  position_a: Sequence[float] = _ORIGIN,
                  orientation_a: Sequence[float] = _IDENTITY,
                  position_b: Sequence[float] = _ORIGIN,
                  orientation_b: Sequence[float] = _IDENTITY,
                  energy_form: bool = True) -> int:
        """Adds an ideal joint (spherical, revolute, cylindrical, prismatic,
        fixed; held as equality constraints) between body_a and body_b (0: the
        ground) with a local frame on each (position and quaternion in the body
        frame, or the world frame for the ground; the joint axis is the local
        z axis); returns its id. ``energy_form`` holds the rows on the mean of
        the step's velocities (docs/joints.md). World.step() holds ideal
        joints in the same sweeps as the contacts (docs/joints.md, "Joints in
        nscd_world_step"); nscd.TimeStepping over the world drives them too.
        Removing a body removes its joints."""
        self._require_open()
        d = _c.JointDesc()
        self._check(self._lib.nscd_joint_desc_init(ctypes.byref(d), ctypes.sizeof(d)),
                    "nscd_joint_desc_init")
        d.type = _enum(JointType, type, "type")
        d.body_a, d.body_b = _c.uint64(body_a, "body_a"), _c.uint64(body_b, "body_b")
        _set_array(d.position_a, _vec(position_a, 3, "position_a"))
        _set_array(d.orientation_a, _vec(orientation_a, 4, "orientation_a"))
        _set_array(d.position_b, _vec(position_b, 3, "position_b"))
        _set_array(d.orientation_b, _vec(orientation_b, 4, "orientation_b"))
        d.energy_form = int(bool(energy_form))
        out = ctypes.c_uint64()
        self._check(self._lib.nscd_world_add_joint(self._handle, ctypes.byref(d),
                                                   ctypes.byref(out)), "nscd_world_add_joint")
        return out.value

    def add_clearance_joint(self, type: Union[ClearanceType, int, str] = ClearanceType.REVOLUTE,
                            inner_body: int = 0, outer_body: int = 0,
                            inner_position: Sequence[float] = _ORIGIN,
                            inner_orientation: Sequence[float] = _IDENTITY,
                            outer_position: Sequence[float] = _ORIGIN,
                            outer_orientation: Sequence[float] = _IDENTITY,
                            hole_radius: Optional[float] = None,
                            pin_radius: Optional[float] = None,
                            inner_length: Optional[float] = None,
                            outer_length: Optional[float] = None,
                            vertices: Optional[Sequence[Sequence[float]]] = None,
                            clearance: Optional[float] = None, friction: float = 0.0,
                            impact_law: Union[ClearanceImpact, int, str] = ClearanceImpact.PLASTIC,
                            energy_form: bool = True) -> int:
        """Adds a clearance joint (a set of unilateral gaps): the hole (or
        slider) on inner_body, the pin (or guide) on outer_body (0: the
        ground); returns its id. Values not given keep the library's defaults
        (nscd_clearance_joint_desc_init). ``vertices``: the guide cavity's
        (x, y) vertices, counter-clockwise (prismatic). ``energy_form`` holds a
        persistent (closed) gap on the mean velocity under the midpoint rule,
        an impact staying plastic (docs/joints.md). A world with clearance
        joints is driven by nscd.TimeStepping: World.step() refuses it
        (NSCD_ERR_UNSUPPORTED: its gaps are not sweep blocks yet)."""
        self._require_open()
        d = _c.ClearanceJointDesc()
        self._check(self._lib.nscd_clearance_joint_desc_init(ctypes.byref(d), ctypes.sizeof(d)),
                    "nscd_clearance_joint_desc_init")
        d.type = _enum(ClearanceType, type, "type")
        d.inner_body = _c.uint64(inner_body, "inner_body")
        d.outer_body = _c.uint64(outer_body, "outer_body")
        _set_array(d.inner_position, _vec(inner_position, 3, "inner_position"))
        _set_array(d.inner_orientation, _vec(inner_orientation, 4, "inner_orientation"))
        _set_array(d.outer_position, _vec(outer_position, 3, "outer_position"))
        _set_array(d.outer_orientation, _vec(outer_orientation, 4, "outer_orientation"))
        for name, value in (("hole_radius", hole_radius), ("pin_radius", pin_radius),
                            ("inner_length", inner_length), ("outer_length", outer_length),
                            ("clearance", clearance)):
            if value is not None:
                setattr(d, name, float(value))
        d.friction = float(friction)
        d.impact_law = _enum(ClearanceImpact, impact_law, "impact_law")
        d.energy_form = int(bool(energy_form))
        if vertices is not None:
            v = np.asarray(vertices, dtype=np.float64).reshape(-1, 2)
            if len(v) > _b.NSCD_CLEARANCE_MAX_VERTICES:
                raise ValueError(f"vertices: at most {_b.NSCD_CLEARANCE_MAX_VERTICES}, "
                                 f"got {len(v)}")
            d.n_vertices = len(v)
            _set_array(d.vertices, v.reshape(-1))
        out = ctypes.c_uint64()
        self._check(self._lib.nscd_world_add_clearance_joint(self._handle, ctypes.byref(d),
                                                             ctypes.byref(out)),
                    "nscd_world_add_clearance_joint")
        return out.value

    def remove_joint(self, joint: int) -> None:
        """Removes a joint (its id becomes stale)."""
        self._require_open()
        self._check(self._lib.nscd_world_remove_joint(self._handle, _c.uint64(joint, "joint")),
                    "nscd_world_remove_joint")

    def joint_valid(self, joint: int) -> bool:
        """Whether an id names a live joint of the world."""
        self._require_open()
        return bool(self._lib.nscd_world_joint_valid(self._handle, _c.uint64(joint, "joint")))

    @property
    def joint_count(self) -> int:
        """Number of live joints."""
        self._require_open()
        return int(self._lib.nscd_world_joint_count(self._handle))

    def set_joint_projection(self, iterations: int = 10, tolerance: float = 1e-12) -> None:
        """The projection of the joints after each time step (0 iterations: off)."""
        self._require_open()
        self._check(self._lib.nscd_world_set_joint_projection(
            self._handle, _c.int32(iterations, "iterations"), float(tolerance)),
            "nscd_world_set_joint_projection")

    def _joint_rows(self, function, joint: int) -> int:
        n = ctypes.c_int32()
        status = getattr(self._lib, function)(
            self._handle, _c.uint64(joint, "joint"), 0, ctypes.byref(n),
            *([None] * (1 if function == "nscd_world_joint_residual" else 4)))
        if status not in (Status.OK, Status.ERR_BUFFER_TOO_SMALL):  # the count is set
            self._check(status, function)
        return n.value

    def joint_residual(self, joint: int) -> np.ndarray:
        """Φ(q) of an ideal joint, or the gaps of a clearance joint."""
        self._require_open()
        n = self._joint_rows("nscd_world_joint_residual", joint)
        out = np.zeros(max(n, 1))
        count = ctypes.c_int32()
        self._check(self._lib.nscd_world_joint_residual(
            self._handle, _c.uint64(joint, "joint"), n, ctypes.byref(count), _dptr(out)),
            "nscd_world_joint_residual")
        return out[:count.value]

    def joint_reaction(self, joint: int) -> Tuple[np.ndarray, np.ndarray]:
        """Mean force and torque (about the frame origin) of the joint on body
        b (the inner body of a clearance joint) over the last step."""
        self._require_open()
        force, torque = np.zeros(3), np.zeros(3)
        self._check(self._lib.nscd_world_joint_reaction(
            self._handle, _c.uint64(joint, "joint"), _dptr(force), _dptr(torque)),
            "nscd_world_joint_reaction")
        return force, torque

    def clearance_gaps(self, joint: int) -> ClearanceGaps:
        """The current gaps, normals, contact points and last impulses of a
        clearance joint."""
        self._require_open()
        n = self._joint_rows("nscd_world_clearance_gaps", joint)
        m = max(n, 1)
        gaps, impulses = np.zeros(m), np.zeros(m)
        normals, points = np.zeros((m, 3)), np.zeros((m, 3))
        count = ctypes.c_int32()
        self._check(self._lib.nscd_world_clearance_gaps(
            self._handle, _c.uint64(joint, "joint"), n, ctypes.byref(count), _dptr(gaps),
            _dptr(normals), _dptr(points), _dptr(impulses)), "nscd_world_clearance_gaps")
        k = count.value
        return ClearanceGaps(gaps[:k], normals[:k], points[:k], impulses[:k])

    def save(self, path: Union[str, os.PathLike], user_data: bytes = b"") -> None:
        """Writes a checkpoint of the world (nscd_world_save, docs/checkpoint.md):
        everything its next step depends on, with ``user_data`` (bytes) of the
        caller's own. World.load() continues from it bit for bit (same library
        build and platform). The file is replaced only when complete."""
        self._require_open()
        data = bytes(user_data)
        self._check(self._lib.nscd_world_save(self._handle, os.fsencode(os.fspath(path)), data,
                                              len(data)), "nscd_world_save")

    def to_bytes(self, user_data: bytes = b"") -> bytes:
        """The checkpoint World.save() writes, as bytes (nscd_world_save_to_buffer)."""
        self._require_open()
        data = bytes(user_data)
        size = ctypes.c_size_t(0)
        status = self._lib.nscd_world_save_to_buffer(self._handle, data, len(data), None, 0,
                                                     ctypes.byref(size))
        if status != Status.ERR_BUFFER_TOO_SMALL:
            self._check(status, "nscd_world_save_to_buffer")
        buffer = ctypes.create_string_buffer(size.value)
        self._check(self._lib.nscd_world_save_to_buffer(self._handle, data, len(data), buffer,
                                                        size.value, ctypes.byref(size)),
                    "nscd_world_save_to_buffer")
        return buffer.raw[:size.value]

    @classmethod
    def load(cls, path: Union[str, os.PathLike],
             log: Optional[Callable[[int, str], None]] = None) -> "World":
        """A world from a checkpoint file (nscd_world_load): its settings,
        bodies, joints, contacts and step count are the saved world's; ``log``
        as for World(). The checkpoint's user data is in ``world.user_data``.
        Raises NscdError (ERR_IO, with what failed) for a file that is not a
        valid checkpoint of this library build."""
        with open(path, "rb") as f:
            data = f.read()
        return cls._load(data, log, os.fsencode(os.fspath(path)))

    @classmethod
    def from_bytes(cls, data: bytes,
                   log: Optional[Callable[[int, str], None]] = None) -> "World":
        """A world from checkpoint bytes (nscd_world_load_from_buffer; see load())."""
        return cls._load(bytes(data), log, None)

    @classmethod
    def _load(cls, data, log, path):
        world = cls(log=log)
        size = ctypes.c_size_t(0)
        room = len(data)  # the user data is part of the checkpoint: never larger
        user = ctypes.create_string_buffer(max(room, 1))
        if path is not None:
            status = world._lib.nscd_world_load(world._handle, path, user, room,
                                                ctypes.byref(size))
            name = "nscd_world_load"
        else:
            status = world._lib.nscd_world_load_from_buffer(world._handle, data, len(data), user,
                                                            room, ctypes.byref(size))
            name = "nscd_world_load_from_buffer"
        try:
            world._check(status, name)
        except BaseException:
            world.close()
            raise
        world.user_data = user.raw[:size.value]
        # dt: the second field of the settings section (docs/checkpoint.md)
        offset = int.from_bytes(data[48:56], sys.byteorder)
        world.dt = struct.unpack("=d", data[offset + 24:offset + 32])[0]
        return world

    # ------------------------------------------------------------ output
    def write(self, path: Union[str, os.PathLike], format: Union[WorldFormat, int, str, None] = None
              ) -> None:
        """Writes every body to a file: legacy VTK polydata (one point per body
        with radius, velocity, angular velocity, id; ParaView) or CSV (one row
        per body). ``format``: WorldFormat, "vtk" or "csv"; by default from the
        file's extension (.csv, else VTK)."""
        self._require_open()
        path = os.fspath(path)
        if format is None:
            format = WorldFormat.CSV if path.lower().endswith(".csv") else WorldFormat.VTK
        self._check(self._lib.nscd_world_write(self._handle, os.fsencode(path),
                                               _enum(WorldFormat, format, "format")),
                    "nscd_world_write")

    def write_vtk_xml(self, path: Union[str, os.PathLike], contacts: bool = False,
                      float64: bool = False, compact: bool = False, tensor: bool = False,
                      hulls: bool = False) -> None:
        """Writes the shapes (one point per shape with shape_type, dimensions,
        orientation, ids, velocities, mass) or, with ``contacts``, the last
        step's contacts as binary VTK XML PolyData (.vtp) for ParaView
        (nscd_world_write_vtk_xml; docs/paraview.md). ``float64``: exact
        Float64 arrays instead of Float32; ``compact``: only what draws the
        shapes (points, shape_type, dimensions, orientation); ``tensor``: also the 9-component glyph_tensor.
        ``hulls``: instead, the faces of the convex shapes as polygons
        (since 0.2)."""
        self._require_open()
        flags = _vtk_flags(contacts, float64, compact, tensor)
        if hulls:
            flags = (flags & ~(VtkFlags.SHAPES | VtkFlags.CONTACTS)) | VtkFlags.HULLS
        self._check(self._lib.nscd_world_write_vtk_xml(
            self._handle, os.fsencode(os.fspath(path)), int(flags)), "nscd_world_write_vtk_xml")


class VtkSeries(OwnedHandle):
    """A time series of binary .vtp frames and its ParaView collection
    (nscd_world_vtk_series_*): ``write(world)`` writes prefix_NNNNNN.vtp
    (and prefix_contacts_NNNNNN.vtp with ``contacts``, prefix_hulls_NNNNNN.vtp
    with ``hulls``: the convex shapes' faces) and rewrites prefix.pvd
    (prefix_contacts.pvd, prefix_hulls.pvd), valid after every frame. Options as
    World.write_vtk_xml; use it as a context manager or close() it."""

    def __init__(self, prefix: Union[str, os.PathLike], shapes: bool = True,
                 contacts: bool = False, float64: bool = False, compact: bool = False,
                 tensor: bool = False, hulls: bool = False):
        self._lib = _c.library()
        flags = _vtk_flags(False, float64, compact, tensor) & ~VtkFlags.SHAPES
        flags |= (VtkFlags.SHAPES if shapes else 0) | (VtkFlags.CONTACTS if contacts else 0)
        flags |= VtkFlags.HULLS if hulls else 0
        handle = ctypes.c_void_p()
        check(self._lib.nscd_world_vtk_series_create(os.fsencode(os.fspath(prefix)), int(flags),
                                                     ctypes.byref(handle)),
              "nscd_world_vtk_series_create")
        self._handle = handle

    def _destroy(self, handle):
        self._lib.nscd_world_vtk_series_destroy(handle)

    @property
    def frames(self) -> int:
        """Frames written so far."""
        return int(self._lib.nscd_world_vtk_series_frames(self._handle)) if self._handle else 0

    def write(self, world: "World") -> None:
        """Writes the next frame at the world's time and updates the collection."""
        if self._handle is None:
            raise ValueError("the series is closed")
        world._require_open()
        world._check(self._lib.nscd_world_vtk_series_write(self._handle, world._handle),
                     "nscd_world_vtk_series_write")
