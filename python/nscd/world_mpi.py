"""The rigid-body world distributed over MPI ranks: libnscd_mpi
(include/nscd/world_mpi.h, docs/distributed.md), for scripts run under mpirun::

    import nscd, nscd.world_mpi as wm
    w = wm.DistributedWorld(domain=((-1, -1, -1), (1, 1, 3)))   # every rank
    w.add_half_space()                                           # every rank: replicated
    if w.rank == 0:
        w.add_sphere(0.02, (0.5, 0.0, 0.2))                      # any one rank
    w.step(100)
    count, checksum, shadows = w.global_count()

MPI is initialised when the first DistributedWorld is created, through the
MPI library's C API (ctypes, the library loaded RTLD_GLOBAL as Open MPI's
plugins need), and finalised at exit when this module initialised it. The communicator is MPI_COMM_WORLD by
default (Open MPI), or any Fortran handle (mpi4py: ``comm.py2f()``).

Importing this module never fails: when libnscd_mpi is not installed (MPI was
not found at build time) or no MPI library loads, available() is False and
every other call raises MpiUnavailable. libnscd_mpi is looked up like
libnscd_fclib: $NSCD_MPI_LIBRARY, next to libnscd, the build tree, the
system's library path."""
import atexit
import ctypes
import ctypes.util
import os
from typing import Iterable, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _library as _c
from ._deprecated import callable_value
from .errors import check
from .world import BodyType, Shape, World, WorldStepReport, _enum, _set_array, _vec

__all__ = ["DistributedWorld", "MpiUnavailable", "available", "library", "prototypes"]

_mpi = None


class MpiUnavailable(OSError):
    """libnscd_mpi or the MPI library is not installed, or cannot be loaded."""


def _load_mpi():
    """Loads the MPI library globally (Open MPI's plugins need its symbols)."""
    global _mpi
    if _mpi is not None:
        return _mpi
    names = [ctypes.util.find_library("mpi"), "libmpi.so.40", "libmpi.so.12", "libmpi.so"]
    for name in [n for n in names if n]:
        try:
            _mpi = ctypes.CDLL(name, mode=ctypes.RTLD_GLOBAL)
            return _mpi
        except OSError:
            continue
    raise MpiUnavailable("no MPI library (libmpi) could be loaded")


def _init_mpi():
    """Initialises MPI unless the program did (once); finalised at exit."""
    mpi = _load_mpi()
    done = ctypes.c_int(0)
    mpi.MPI_Initialized(ctypes.byref(done))
    if not done.value:
        mpi.MPI_Init(None, None)
        atexit.register(mpi.MPI_Finalize)
    return mpi


def _comm_world() -> int:
    """The Fortran handle of MPI_COMM_WORLD (Open MPI's C handle is the
    address of ompi_mpi_comm_world)."""
    mpi = _init_mpi()
    try:
        world = ctypes.addressof(ctypes.c_char.in_dll(mpi, "ompi_mpi_comm_world"))
    except ValueError as exc:
        raise MpiUnavailable("not Open MPI: pass comm=mpi4py_comm.py2f()") from exc
    mpi.MPI_Comm_c2f.restype = ctypes.c_int
    mpi.MPI_Comm_c2f.argtypes = [ctypes.c_void_p]
    return int(mpi.MPI_Comm_c2f(world))


WorldMpiDesc = _c.WorldMpiDesc  # nscd_world_mpi_desc (generated)


def prototypes():
    """{C function name: (restype, argtypes)} of every function of libnscd_mpi:
    all of include/nscd/world_mpi.h (generated, _bindings.py)."""
    return _c.prototypes("nscd_mpi")


def _load():
    """libnscd_mpi through the package's one loader (_library.load), after
    the MPI library (loaded globally)."""
    try:
        _c.library()
        _load_mpi()
        return _c.load("nscd_mpi")
    except MpiUnavailable:
        raise
    except OSError as exc:
        raise MpiUnavailable(str(exc)) from None


def available() -> bool:
    """True when libnscd_mpi and an MPI library can be loaded."""
    try:
        _load()
    except OSError:
        return False
    return True


def library():
    """The ctypes.CDLL of libnscd_mpi (raises MpiUnavailable)."""
    return _load()


class OwnedBodies(NamedTuple):
    """The dynamic bodies owned by this rank (numpy arrays, one row each)."""
    global_ids: np.ndarray
    user_ids: np.ndarray
    positions: np.ndarray
    orientations: np.ndarray
    velocities: np.ndarray
    angular_velocities: np.ndarray


class DistributedWorld:
    """An nscd_world_mpi on this rank, a context manager; create it on every
    rank. ``domain=(lower, upper)`` is the box that is cut into ``dims``
    subdomains (zeros chosen by MPI); ``outlet=True`` removes bodies whose
    centre leaves it. ``balance_every=N`` moves the cuts to the quantiles of
    the bodies' work every N steps (0: equal cells; a body weighs 1 + 1.5
    per contact it resolved, nscd_world_mpi_desc.balance_contact_weight). Further keyword
    arguments are World's settings (dt, max_sweeps, relaxation,
    contact_margin, ...). Global ids are Python ints."""

    def __init__(self, domain: Tuple[Sequence[float], Sequence[float]],
                 dims: Sequence[int] = (0, 0, 0), halo: float = 0.0,
                 comm: Optional[int] = None, outlet: bool = False, balance_every: int = 0,
                 gravity: Optional[Sequence[float]] = None, **settings):
        self._lib = lib = _load()
        self._handle = None
        _init_mpi()
        desc = _c.WorldDesc()
        check(_c.library().nscd_world_desc_init(ctypes.byref(desc), ctypes.sizeof(desc)),
              "nscd_world_desc_init")
        for key, value in settings.items():
            if key in World._REALS:
                setattr(desc, key, float(value))
            elif key in World._INTS:
                setattr(desc, key, _c.int32(value, key))
            else:
                raise TypeError(f"unknown world setting {key!r}")
        if gravity is not None:
            _set_array(desc.gravity, _vec(gravity, 3, "gravity"))
        _set_array(desc.domain_min, _vec(domain[0], 3, "domain lower corner"))
        _set_array(desc.domain_max, _vec(domain[1], 3, "domain upper corner"))
        desc.use_domain = int(bool(outlet))
        mdesc = WorldMpiDesc()
        check(lib.nscd_world_mpi_desc_init(ctypes.byref(mdesc), ctypes.sizeof(mdesc)),
              "nscd_world_mpi_desc_init")
        _set_array(mdesc.dims, [int(d) for d in _vec(dims, 3, "dims")])
        mdesc.halo = float(halo)
        mdesc.balance_every = _c.int32(balance_every, "balance_every")
        out = ctypes.c_void_p()
        check(lib.nscd_world_mpi_create(_comm_world() if comm is None else int(comm),
                                        ctypes.byref(desc), ctypes.byref(mdesc),
                                        ctypes.byref(out)), "nscd_world_mpi_create")
        self._handle = out
        rank, size = ctypes.c_int32(), ctypes.c_int32()
        lib.nscd_world_mpi_subdomain(out, ctypes.byref(rank), ctypes.byref(size), None, None)
        self.rank, self.size = rank.value, size.value

    def close(self) -> None:
        """Destroys the world (collective)."""
        if self._handle is not None:
            self._lib.nscd_world_mpi_destroy(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _check(self, status, function):
        check(status, function, lambda: self._lib.nscd_world_mpi_last_error(self._handle))

    def add_body(self, shapes: Union[Shape, Iterable[Shape]] = (),
                 type: Union[BodyType, int, str] = BodyType.DYNAMIC,
                 position: Sequence[float] = (0.0, 0.0, 0.0),
                 orientation: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
                 velocity: Sequence[float] = (0.0, 0.0, 0.0),
                 density: Optional[float] = None, user_id: int = 0) -> int:
        """Adds a body and returns its global id: a dynamic body on any one
        rank, static and kinematic bodies on every rank alike."""
        shapes = [shapes] if isinstance(shapes, Shape) else list(shapes)
        body = _c.BodyDesc()
        check(_c.library().nscd_body_desc_init(ctypes.byref(body), ctypes.sizeof(body)),
              "nscd_body_desc_init")
        body.type = _enum(BodyType, type, "type")
        _set_array(body.position, _vec(position, 3, "position"))
        _set_array(body.orientation, _vec(orientation, 4, "orientation"))
        _set_array(body.velocity, _vec(velocity, 3, "velocity"))
        if density is not None:
            body.density = float(density)
        body.user_id = int(user_id)
        descs = (_c.ShapeDesc * max(len(shapes), 1))(*[s.desc() for s in shapes])
        out = ctypes.c_uint64()
        self._check(self._lib.nscd_world_mpi_add_body(self._handle, ctypes.byref(body), descs,
                                                      len(shapes), ctypes.byref(out)),
                    "nscd_world_mpi_add_body")
        return out.value

    def add_sphere(self, radius: float, position: Sequence[float], **body) -> int:
        """A dynamic sphere (add_body's keywords apply)."""
        return self.add_body(Shape.sphere(radius), position=position, **body)

    def add_half_space(self) -> int:
        """The static ground z <= 0 (on every rank)."""
        return self.add_body(Shape.half_space(), type=BodyType.STATIC)

    def balance(self) -> None:
        """Moves the cuts to the quantiles of the bodies' centres now (every rank)."""
        self._check(self._lib.nscd_world_mpi_balance(self._handle), "nscd_world_mpi_balance")

    def remove_body(self, global_id: int) -> None:
        """Removes a body this rank owns (ERR_STALE_HANDLE otherwise)."""
        self._check(self._lib.nscd_world_mpi_remove_body(self._handle, int(global_id)),
                    "nscd_world_mpi_remove_body")

    def step(self, n: int = 1) -> WorldStepReport:
        """n steps (collective); the report of the last, figures of the whole world."""
        report = _c.WorldStepReport()
        report.struct_size = ctypes.sizeof(report)
        for _ in range(int(n)):
            self._check(self._lib.nscd_world_mpi_step(self._handle, ctypes.byref(report)),
                        "nscd_world_mpi_step")
        return World._report(report)

    @property
    def time(self) -> float:
        """Simulated time, s (a property, as World.time; the old call time()
        still works and warns)."""
        return callable_value(float(self._lib.nscd_world_mpi_time(self._handle)),
                              "DistributedWorld.time()", "DistributedWorld.time (a property)")

    def global_count(self) -> Tuple[int, int, int]:
        """(bodies, sum of their global ids mod 2^64, shadows) over all ranks (collective)."""
        count, checksum, shadows = ctypes.c_int64(), ctypes.c_uint64(), ctypes.c_int64()
        self._check(self._lib.nscd_world_mpi_global_count(
            self._handle, ctypes.byref(count), ctypes.byref(checksum), ctypes.byref(shadows)),
            "nscd_world_mpi_global_count")
        return count.value, checksum.value, shadows.value

    def bodies(self) -> OwnedBodies:
        """The dynamic bodies this rank owns."""
        n = int(self._lib.nscd_world_mpi_body_count(self._handle))
        ids, users = np.zeros(n, np.uint64), np.zeros(n, np.uint64)
        x, q = np.zeros((n, 3)), np.zeros((n, 4))
        v, w = np.zeros((n, 3)), np.zeros((n, 3))
        count = ctypes.c_int32()
        up = ctypes.POINTER(ctypes.c_uint64)
        dp = ctypes.POINTER(ctypes.c_double)
        self._check(self._lib.nscd_world_mpi_get_bodies(
            self._handle, n, ctypes.byref(count), ids.ctypes.data_as(up),
            users.ctypes.data_as(up), x.ctypes.data_as(dp), q.ctypes.data_as(dp),
            v.ctypes.data_as(dp), w.ctypes.data_as(dp)), "nscd_world_mpi_get_bodies")
        return OwnedBodies(ids, users, x, q, v, w)

    def save(self, prefix: str, user_data: bytes = b"") -> None:
        """Checkpoint: prefix.rank<r> on each rank (collective; docs/checkpoint.md),
        with this rank's ``user_data``."""
        data = bytes(user_data)
        self._check(self._lib.nscd_world_mpi_save(self._handle, os.fsencode(prefix), data,
                                                  len(data)), "nscd_world_mpi_save")

    def load(self, prefix: str, user_capacity: int = 1 << 16) -> bytes:
        """Fills this fresh world (no body added, never stepped) from the
        checkpoint of save() on as many ranks (collective); returns this
        rank's user data (at most ``user_capacity`` bytes)."""
        size = ctypes.c_size_t(0)
        user = ctypes.create_string_buffer(max(int(user_capacity), 1))
        self._check(self._lib.nscd_world_mpi_load(self._handle, os.fsencode(prefix), user,
                                                  int(user_capacity), ctypes.byref(size)),
                    "nscd_world_mpi_load")
        return user.raw[:size.value]

    def write_vtk(self, prefix: str) -> None:
        """Parallel VTK: prefix_<rank>.vtp and prefix.pvtp (collective)."""
        self._check(self._lib.nscd_world_mpi_write_vtk(self._handle, os.fsencode(prefix)),
                    "nscd_world_mpi_write_vtk")

    def write_vtk_xml(self, prefix: str, float64: bool = False, compact: bool = False,
                      tensor: bool = False) -> None:
        """Binary parallel VTK XML of the shapes (nscd_world_mpi_write_vtk_xml,
        docs/paraview.md): prefix_<rank>.vtp and prefix.pvtp (collective).
        Options as World.write_vtk_xml."""
        flags = 1 | 16 * bool(float64) | 32 * bool(compact) | 64 * bool(tensor)
        self._check(self._lib.nscd_world_mpi_write_vtk_xml(self._handle, os.fsencode(prefix),
                                                           flags),
                    "nscd_world_mpi_write_vtk_xml")
