"""Tangential restitution e_T of Newton's law with friction through the ctypes
package: a particle landing on a floor with a horizontal velocity."""
import math

import pytest

import nscd
from nscd import NscdError, Status


def first_impact(e_t, mu=1.0, e=0.5, vx=0.3):
    system = nscd.System(
        2, n_contacts=1, mass=lambda q: [1.0, 0.0, 0.0, 1.0],
        forces=lambda t, q, v: [0.0, -9.81],
        contact=lambda i, t, q: (q[1], [0.0, 1.0], [1.0, 0.0]))
    with system, nscd.ContactLaw.newton(e) as law:
        system.set_contact(0, law=law, friction=mu, n_tangent=1, tangential_restitution=e_t)
        system.set_state(0.0, [0.0, 1.0], [vx, 0.0])
        with nscd.EventDriven(system, on_event=lambda ev: 1) as stepper:  # stop at the first
            stepper.advance(2.0)
            return stepper.impacts[0]


@pytest.mark.parametrize("e_t", [0.0, 0.5, 1.0])
def test_sticking_impact_restitutes_the_slip(e_t):
    impact = first_impact(e_t)
    assert impact.v_after[0] == pytest.approx(-e_t * 0.3, abs=1e-9)
    assert impact.v_after[1] == pytest.approx(-0.5 * impact.v_before[1], abs=1e-9)


@pytest.mark.parametrize("e_t", [-0.5, 1.5, math.nan])
def test_bad_tangential_restitution(e_t):
    with nscd.System(1, n_contacts=1, mass=lambda q: [1.0],
                     contact=lambda i, t, q: (q[0], [1.0])) as system:
        with pytest.raises(NscdError) as info:
            system.set_contact(0, tangential_restitution=e_t)
        expected = Status.ERR_NOT_FINITE if math.isnan(e_t) else Status.ERR_OUT_OF_RANGE
        assert info.value.status == expected
