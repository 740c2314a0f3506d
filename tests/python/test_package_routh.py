"""Routh's planar frictional impact through the package, against hand
solutions of the impulse-space construction (include/nscd/routh.h)."""
import math

import numpy as np
import pytest

import nscd
from nscd import NscdError, RouthCase, Status


def test_frictionless_slip():
    # G = I, u0 = (1, -1): F_c = 1, F = (1 + e) F_c, T = 0.
    P, u1 = nscd.routh_impact(np.eye(2), [1.0, -1.0], 0.0, 0.5)
    np.testing.assert_allclose(P, [0.0, 1.5], atol=1e-15)
    np.testing.assert_allclose(u1, [1.0, 0.5], atol=1e-15)
    r = nscd.routh_impact_ex(np.eye(2), [1.0, -1.0], 0.0, 0.5)
    assert r.impact_case == RouthCase.SLIP
    np.testing.assert_allclose(r.compression_impulse, [0.0, 1.0], atol=1e-15)
    assert r.energy_change == pytest.approx(-0.375, rel=1e-14)  # 1/2 (1 + 1) - 1/2 (1 + 1/4)
    assert (r.slip_before, r.slip_after) == (1, 1)


def test_stick_in_compression():
    # G = I, u0 = (0.1, -1), mu = 1: slip stops at F = 0.1 (T = -0.1), then sticks
    # (eps = 0 <= mu alpha); compression ends at F_c = 1, Poisson ends at 1.5.
    r = nscd.routh_impact_ex([[1.0, 0.0], [0.0, 1.0]], [0.1, -1.0], 1.0, 0.5)
    assert r.impact_case == RouthCase.STICK_IN_COMPRESSION
    np.testing.assert_allclose(r.transition_impulse, [-0.1, 0.1], atol=1e-14)
    np.testing.assert_allclose(r.impulse, [-0.1, 1.5], atol=1e-14)
    np.testing.assert_allclose(r.velocity, [0.0, 0.5], atol=1e-14)
    assert (r.slip_before, r.slip_after) == (1, 0)
    P, u1 = nscd.routh_impact(np.eye(2), [0.1, -1.0], 1.0, 0.5)
    np.testing.assert_array_equal(P, r.impulse)
    np.testing.assert_array_equal(u1, r.velocity)


def test_case_names():
    assert nscd.routh_case_name(RouthCase.SLIP) == "slip"
    assert nscd.routh_case_name(RouthCase.STICK_IN_COMPRESSION) == "stick_in_compression"
    assert nscd.routh_case_name(99) == "unknown"
    for case in RouthCase:
        assert nscd.routh_case_name(case) != "unknown"


def test_errors():
    with pytest.raises(NscdError) as info:
        nscd.routh_impact(np.eye(2), [1.0, 0.5], 0.3, 0.5)  # separating
    assert info.value.status == Status.ERR_NOT_COLLIDING
    with pytest.raises(NscdError) as info:
        nscd.routh_impact([[1.0, 2.0], [2.0, 1.0]], [0.0, -1.0], 0.3, 0.5)
    assert info.value.status == Status.ERR_NOT_SPD
    with pytest.raises(NscdError) as info:
        nscd.routh_impact_ex(np.eye(2), [0.0, -1.0], 0.3, 1.5)
    assert info.value.status == Status.ERR_OUT_OF_RANGE
    with pytest.raises(NscdError) as info:
        nscd.routh_impact(np.eye(2), [math.nan, -1.0], 0.3, 0.5)
    assert info.value.status == Status.ERR_NOT_FINITE
    with pytest.raises(ValueError):
        nscd.routh_impact(np.eye(3), [0.0, -1.0], 0.3, 0.5)
    with pytest.raises(ValueError):
        nscd.routh_impact(np.eye(2), [0.0, -1.0, 0.0], 0.3, 0.5)
