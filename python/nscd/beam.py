"""The planar floating-frame beam of seed 003 (include/nscd/beam.h): mass
matrix, generalized forces, stiffness, energies and material points of a beam
with coordinates p = (R_x, R_y, θ, q_e), as numpy arrays (docs/flexible_bodies.md)."""
import ctypes
import enum
from typing import Optional, Sequence, Tuple, Union

import numpy as np

from . import _library as _c
from ._handle import OwnedHandle
from .errors import check

__all__ = ["Beam", "BeamReference"]

_D = ctypes.POINTER(ctypes.c_double)


class BeamReference(enum.IntEnum):
    """nscd_beam_reference: the condition fixing the body frame (App. C.8)."""
    TANGENT = 0  # clamped-free at the root, eq. (184)
    PINNED = 1   # root pinned, tip on the frame's x axis, eq. (185)


def _ptr(a):
    return a.ctypes.data_as(_D)


class Beam(OwnedHandle):
    """A beam (opaque nscd_beam), a context manager.

    Keyword arguments set the fields of nscd_beam_desc, the others keep the
    library's defaults: ``youngs_modulus``, ``density``, ``area``,
    ``second_moment``, ``length``, ``cutoff_frequency`` (Hz), ``n_elements``,
    ``n_modes``, ``reference`` (BeamReference or "tangent" / "pinned"),
    ``rotary_inertia`` (bool) and ``gravity`` (2 values). Raises NscdError on
    invalid settings."""

    _REALS = ("youngs_modulus", "density", "area", "second_moment", "length",
              "cutoff_frequency")
    _INTS = ("n_elements", "n_modes")

    def __init__(self, reference: Union[BeamReference, int, str, None] = None,
                 rotary_inertia: Optional[bool] = None,
                 gravity: Optional[Sequence[float]] = None, **settings):
        lib = _c.library()
        self._lib = lib
        desc = _c.BeamDesc()
        check(lib.nscd_beam_desc_init(ctypes.byref(desc), ctypes.sizeof(desc)),
              "nscd_beam_desc_init")
        for key, value in settings.items():
            if key in self._REALS:
                setattr(desc, key, float(value))
            elif key in self._INTS:
                setattr(desc, key, _c.int32(value, key))
            else:
                raise TypeError(f"unknown beam setting {key!r}")
        if reference is not None:
            if isinstance(reference, str):
                reference = BeamReference[reference.upper()]
            desc.reference = int(reference)
        if rotary_inertia is not None:
            desc.rotary_inertia = int(bool(rotary_inertia))
        if gravity is not None:
            g = [float(x) for x in gravity]
            if len(g) != 2:
                raise ValueError("gravity takes 2 values")
            desc.gravity[0], desc.gravity[1] = g
        out = ctypes.c_void_p()
        check(lib.nscd_beam_create(ctypes.byref(desc), ctypes.byref(out)), "nscd_beam_create")
        self._handle = out
        n, ne = ctypes.c_int32(), ctypes.c_int32()
        check(lib.nscd_beam_get_sizes(out, ctypes.byref(n), ctypes.byref(ne)),
              "nscd_beam_get_sizes")
        self.n_coordinates, self.n_elastic = n.value, ne.value
        self.n_nodal = 3 * (desc.n_elements + 1)

    def _destroy(self, handle):
        self._lib.nscd_beam_destroy(handle)

    def _vector(self, x, what):
        a = np.ascontiguousarray(x, dtype=float)
        if a.shape != (self.n_coordinates,):
            raise ValueError(f"{what} takes {self.n_coordinates} values")
        return a

    def frequencies(self, count: Optional[int] = None) -> np.ndarray:
        """nscd_beam_frequencies: the lowest angular frequencies ω (rad/s)."""
        count = self.n_elastic if count is None else count
        out = np.zeros(max(int(count), 1))
        check(self._lib.nscd_beam_frequencies(self._handle, _c.int32(count, "count"), _ptr(out)),
              "nscd_beam_frequencies")
        return out[:count]

    def mass(self, p) -> np.ndarray:
        """nscd_beam_mass: M(p), n x n."""
        p = self._vector(p, "p")
        out = np.zeros((self.n_coordinates, self.n_coordinates))
        check(self._lib.nscd_beam_mass(self._handle, _ptr(p), _ptr(out)), "nscd_beam_mass")
        return out

    def forces(self, p, velocity) -> np.ndarray:
        """nscd_beam_forces: h = Q_v + Q_g − K p."""
        return self._pv("nscd_beam_forces", p, velocity)

    def quadratic_velocity(self, p, velocity) -> np.ndarray:
        """nscd_beam_quadratic_velocity: Q_v = −Ṁ ṗ + ∂T/∂p."""
        return self._pv("nscd_beam_quadratic_velocity", p, velocity)

    def _pv(self, name, p, velocity):
        p, v = self._vector(p, "p"), self._vector(velocity, "velocity")
        out = np.zeros(self.n_coordinates)
        check(getattr(self._lib, name)(self._handle, _ptr(p), _ptr(v), _ptr(out)), name)
        return out

    def stiffness(self) -> np.ndarray:
        """nscd_beam_stiffness: K, n x n (zero on the reference coordinates)."""
        out = np.zeros((self.n_coordinates, self.n_coordinates))
        check(self._lib.nscd_beam_stiffness(self._handle, _ptr(out)), "nscd_beam_stiffness")
        return out

    def energy(self, p, velocity) -> Tuple[float, float, float]:
        """nscd_beam_energy: (kinetic, strain, gravity) in J."""
        p, v = self._vector(p, "p"), self._vector(velocity, "velocity")
        out = np.zeros(3)
        check(self._lib.nscd_beam_energy(self._handle, _ptr(p), _ptr(v), _ptr(out)),
              "nscd_beam_energy")
        return float(out[0]), float(out[1]), float(out[2])

    def point(self, x: float, p, velocity=None):
        """nscd_beam_point: (position r, rows L (2 x n), convective γ or None)."""
        p = self._vector(p, "p")
        v = None if velocity is None else self._vector(velocity, "velocity")
        r, rows, gamma = np.zeros(2), np.zeros((2, self.n_coordinates)), np.zeros(2)
        check(self._lib.nscd_beam_point(self._handle, float(x), _ptr(p),
                                        None if v is None else _ptr(v), _ptr(r), _ptr(rows),
                                        None if v is None else _ptr(gamma)), "nscd_beam_point")
        return r, rows, (None if v is None else gamma)

    def nodal_displacements(self, elastic) -> np.ndarray:
        """nscd_beam_nodal_displacements: (u, w, w') of every node, shape (nodes, 3)."""
        q = np.ascontiguousarray(elastic, dtype=float)
        if q.shape != (self.n_elastic,):
            raise ValueError(f"elastic takes {self.n_elastic} values")
        out = np.zeros(self.n_nodal)
        check(self._lib.nscd_beam_nodal_displacements(self._handle, _ptr(q), _ptr(out)),
              "nscd_beam_nodal_displacements")
        return out.reshape(-1, 3)
