"""Routh's planar frictional impact (include/nscd/routh.h), solved exactly in
impulse space: u(P) = u0 + G P with u = (s, c), P = (T, F)."""
import ctypes
import enum
from typing import NamedTuple, Tuple

import numpy as np

from . import _library as _c
from .errors import check

__all__ = ["RouthCase", "RouthResult", "routh_case_name", "routh_impact", "routh_impact_ex"]


class RouthCase(enum.IntEnum):
    """nscd_routh_case: the arrangement of Fig. 4 (seed 000) an impact followed."""
    SLIP = 0
    STICK_IN_COMPRESSION = 1
    REVERSAL_IN_COMPRESSION = 2
    STICK_IN_RESTITUTION = 3
    REVERSAL_IN_RESTITUTION = 4
    STICK = 5
    SLIP_FROM_REST = 6


class RouthResult(NamedTuple):
    """nscd_routh_result (arrays are numpy (2,) vectors, tangential first)."""
    impact_case: RouthCase
    impulse: np.ndarray
    velocity: np.ndarray
    compression_impulse: np.ndarray
    transition_impulse: np.ndarray
    energy_change: float
    slip_before: int
    slip_after: int


def _inputs(G, u0):
    G = np.ascontiguousarray(G, dtype=np.float64).reshape(-1)
    u0 = np.ascontiguousarray(u0, dtype=np.float64).reshape(-1)
    if G.size != 4:
        raise ValueError(f"G: expected a 2x2 matrix, got {G.size} values")
    if u0.size != 2:
        raise ValueError(f"u0: expected 2 values (s0, c0), got {u0.size}")
    return G, u0


def routh_impact(G, u0, mu: float, e: float) -> Tuple[np.ndarray, np.ndarray]:
    """nscd_routh_impact: impulse P = (T, F) and velocity after impact
    u1 = u0 + G P of a planar impact with inverse inertia G (2x2 SPD,
    tangential first), velocity before u0 = (s0, c0) with c0 < 0, Coulomb's
    mu and Poisson's e. Returns (P, u1)."""
    G, u0 = _inputs(G, u0)
    P, u1 = np.zeros(2), np.zeros(2)
    check(_c.library().nscd_routh_impact(G.ctypes.data_as(_c.c_double_p),
                                         u0.ctypes.data_as(_c.c_double_p), float(mu), float(e),
                                         P.ctypes.data_as(_c.c_double_p),
                                         u1.ctypes.data_as(_c.c_double_p)),
          "nscd_routh_impact")
    return P, u1


def routh_impact_ex(G, u0, mu: float, e: float) -> RouthResult:
    """nscd_routh_impact_ex: as routh_impact(), with the case of Fig. 4, the
    impulse at maximum compression, where slip stopped and the energy change."""
    G, u0 = _inputs(G, u0)
    r = _c.RouthResult(struct_size=ctypes.sizeof(_c.RouthResult))
    check(_c.library().nscd_routh_impact_ex(G.ctypes.data_as(_c.c_double_p),
                                            u0.ctypes.data_as(_c.c_double_p), float(mu),
                                            float(e), ctypes.byref(r)),
          "nscd_routh_impact_ex")
    try:
        case = RouthCase(r.impact_case)
    except ValueError:
        case = r.impact_case
    return RouthResult(case, np.array(r.impulse), np.array(r.velocity),
                       np.array(r.compression_impulse), np.array(r.transition_impulse),
                       r.energy_change, r.slip_before, r.slip_after)


def routh_case_name(impact_case: int) -> str:
    """nscd_routh_case_name: short name of a case ("slip", ...; "unknown")."""
    name = _c.library().nscd_routh_case_name(_c.int32(impact_case, "impact_case"))
    return name.decode()
