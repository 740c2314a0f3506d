"""Compliant contact helpers of the direct central impact (include/nscd/compliant.h):
optimal damping, Hunt–Crossley factors, Kelvin–Voigt restitution and the
central-impact simulation of a compliant ContactLaw."""
import ctypes
import enum
from typing import NamedTuple

from . import _library as _c
from .errors import check

__all__ = ["CentralImpact", "CoptMethod", "HcModel", "Indentation", "central_impact",
           "copt_closed_form", "copt_exact", "hunt_crossley_factor", "kelvin_voigt_restitution"]


class HcModel(enum.IntEnum):
    """nscd_hc_model: the hysteresis damping factor of the Hunt–Crossley force."""
    HUNT_CROSSLEY = 1
    LANKARANI_NIKRAVESH = 2
    HU_GUO = 3
    FLORES = 4
    GONTHIER = 5


class CoptMethod(enum.IntEnum):
    """nscd_copt_method: how the Hertz–damper law picks its damping."""
    CLOSED_FORM = 0
    EXACT = 1


class Indentation(enum.IntEnum):
    """nscd_indentation: what remains of the indentation after separation."""
    TEMPORARY = 0
    PERMANENT = 1


def _out(function, *args):
    """Calls a C function whose last argument is a double out-parameter."""
    value = ctypes.c_double()
    check(getattr(_c.library(), function)(*args, ctypes.byref(value)), function)
    return value.value


def copt_closed_form(m: float, k: float, n: float, v: float, e: float) -> float:
    """nscd_copt_closed_form: damping c (N s/m) of the Hertz–damper impact of
    effective mass m, stiffness k, exponent n and onset velocity v for the
    restitution e, by the closed form of eq. 49 (seed 001)."""
    return _out("nscd_copt_closed_form", float(m), float(k), float(n), float(v), float(e))


def copt_exact(m: float, k: float, n: float, v: float, e: float) -> float:
    """nscd_copt_exact: the exact optimal damping of eq. 23 (the impact
    restitutes e to within 1e-9)."""
    return _out("nscd_copt_exact", float(m), float(k), float(n), float(v), float(e))


def hunt_crossley_factor(model: int, k: float, e: float, v: float) -> float:
    """nscd_hunt_crossley_factor: the factor mu (s/m) of the Hunt–Crossley force
    (mu v + k) delta^n for an HcModel."""
    return _out("nscd_hunt_crossley_factor", _c.int32(model, "model"), float(k), float(e),
                float(v))


def kelvin_voigt_restitution(xi: float) -> float:
    """nscd_kelvin_voigt_restitution: exact restitution of the linear
    Kelvin–Voigt impact of damping ratio xi = c / (2 sqrt(k m)) >= 0."""
    return _out("nscd_kelvin_voigt_restitution", float(xi))


class CentralImpact(NamedTuple):
    """nscd_central_impact_result."""
    e_out: float
    duration: float
    max_penetration: float
    residual_penetration: float
    peak_force: float
    damping: float
    steps: int


def central_impact(law, m: float, v: float) -> CentralImpact:
    """nscd_central_impact: simulates m delta'' = -f(delta, delta'), delta(0) = 0,
    delta'(0) = v > 0 under a compliant ContactLaw until separation."""
    result = _c.CentralImpactResult(struct_size=ctypes.sizeof(_c.CentralImpactResult))
    check(_c.library().nscd_central_impact(_c.law_handle(law), float(m), float(v),
                                           ctypes.byref(result)),
          "nscd_central_impact")
    return CentralImpact(result.e_out, result.duration, result.max_penetration,
                         result.residual_penetration, result.peak_force, result.damping,
                         result.steps)
