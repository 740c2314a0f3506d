"""Equality (bilateral) constraints through the ctypes package: a pendulum in
Cartesian coordinates held on its circle, its rod tension, and bad input."""
import math

import pytest

import nscd
from nscd import NscdError, Status

G, L, M, THETA0 = 9.81, 1.0, 1.5, -0.6


def pendulum(equality=None, n_equalities=1):
    def circle(index, t, q):
        return (q[0] ** 2 + q[1] ** 2 - L * L) / (2 * L), [q[0] / L, q[1] / L]

    system = nscd.System(
        2, mass=lambda q: [M, 0.0, 0.0, M], forces=lambda t, q, v: [0.0, -M * G],
        n_equalities=n_equalities, equality=equality or circle)
    system.set_state(0.0, [L * math.sin(THETA0), -L * math.cos(THETA0)], [0.0, 0.0])
    return system


def test_pendulum_stays_on_its_circle():
    with pendulum() as system, nscd.EventDriven(system) as stepper:
        assert system.sizes == (2, 0)
        # at rest the rod carries the weight's radial part: lambda = -m g cos(theta0)
        assert stepper.equality_force(0) == pytest.approx(-M * G * math.cos(THETA0), abs=1e-12)
        stepper.advance(1.0)
        t, q, v = system.state()
        assert math.hypot(q[0], q[1]) == pytest.approx(L, abs=1e-9)
        g, rate = system.equality(0)
        assert abs(g) < 1e-9 and abs(rate) < 1e-7
        theta = math.atan2(q[0], -q[1])
        omega = (q[0] * v[1] - q[1] * v[0]) / (L * L)
        tension = -M * (L * omega ** 2 + G * math.cos(theta))
        assert stepper.equality_force(0) == pytest.approx(tension, rel=1e-6)


def test_bad_equalities_are_refused():
    with pytest.raises(NscdError) as info:
        nscd.System(2, mass=lambda q: [1.0, 0.0, 0.0, 1.0], n_equalities=-1)
    assert info.value.status == Status.ERR_INVALID_ARGUMENT
    with pytest.raises(NscdError) as info:
        nscd.System(2, mass=lambda q: [1.0, 0.0, 0.0, 1.0], n_equalities=1)
    assert info.value.status == Status.ERR_NULL_POINTER
    with pendulum(equality=lambda i, t, q: (math.nan, [1.0, 0.0])) as system:
        with pytest.raises(NscdError) as info:
            system.equality(0)
        assert info.value.status == Status.ERR_NOT_FINITE
        with pytest.raises(NscdError) as info:
            system.equality(1)
        assert info.value.status == Status.ERR_INDEX
        before = system.state()
        with nscd.EventDriven(system) as stepper:
            with pytest.raises(NscdError) as info:
                stepper.advance(1.0)
            assert info.value.status == Status.ERR_NOT_FINITE
            with pytest.raises(NscdError) as info:
                stepper.equality_force(1)
            assert info.value.status == Status.ERR_INDEX
        assert system.state() == before


def test_stiffness_and_damping_callbacks_are_accepted():
    # K = -dh/dq and C = -dh/dv of h = -k q - c v; only implicit steppers read them
    with nscd.System(1, mass=lambda q: [1.0], forces=lambda t, q, v: [-4.0 * q[0] - 0.5 * v[0]],
                     stiffness=lambda t, q, v: [4.0], damping=lambda t, q, v: [0.5]) as system:
        assert system.sizes == (1, 0)
