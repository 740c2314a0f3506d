"""The time stepper through the ctypes package: a ball dropped on a floor
comes to rest holding its weight, the report and the observer, bad options."""
import math

import pytest

import nscd
from nscd import NscdError, Status

G, H0 = 9.81, 1.0


def ball(e=0.0):
    system = nscd.System(1, n_contacts=1, mass=lambda q: [1.0], forces=lambda t, q, v: [-G],
                         contact=lambda i, t, q: (q[0], [1.0]))
    law = nscd.ContactLaw.newton(e)
    system.set_contact(0, law=law)
    system.set_state(0.0, [H0], [0.0])
    return system, law


@pytest.mark.parametrize("scheme", ["moreau_jean", "moreau_midpoint"])
def test_plastic_ball_comes_to_rest_holding_its_weight(scheme):
    system, law = ball()
    with system, law, nscd.TimeStepping(system, scheme=scheme, dt=1e-3) as stepper:
        stats = stepper.advance(2.0)
        assert stats.steps == 2000 and stats.t == pytest.approx(2.0)
        t, q, v = system.state()
        # Moreau's position drift: at most dt |v_impact| + g dt^2 deep (docs/time_stepping.md)
        bound = 1e-3 * math.sqrt(2.0 * G * H0) + G * 1e-6
        assert abs(v[0]) < 1e-12 and -bound < q[0] <= 1e-12
        normal, tangent = stepper.contact_impulse(0)
        assert normal == pytest.approx(G * 1e-3, rel=1e-9) and tangent == []
        assert stepper.contact_force(0)[0] == pytest.approx(G, rel=1e-9)
        report = stepper.report
        assert report.step == 1999 and report.active_contacts == 1 and report.converged
        assert not report.impact


def test_observer_sees_the_impact_and_stops():
    system, law = ball(e=1.0)
    seen = []

    def on_step(report):
        seen.append(report)
        return report.impact  # stop at the impact step

    t_impact = math.sqrt(2.0 * H0 / G)
    with system, law, nscd.TimeStepping(system, on_step=on_step, dt=1e-3) as stepper:
        stats = stepper.advance(2.0)
        assert stats.stopped and seen[-1].impact
        assert 0.0 <= seen[-1].t - t_impact <= 2e-3  # the step that ends past the floor
        assert stepper.contact_impulse(0)[0] == pytest.approx(2.0 * G * t_impact, rel=1e-2)


@pytest.mark.parametrize("option, value, status", [
    ("dt", 0.0, Status.ERR_OUT_OF_RANGE), ("theta", 0.2, Status.ERR_OUT_OF_RANGE),
    ("rho_infinity", math.nan, Status.ERR_NOT_FINITE), ("scheme", 9, Status.ERR_INVALID_ARGUMENT)])
def test_bad_options_are_refused(option, value, status):
    system, law = ball()
    with system, law:
        with pytest.raises(NscdError) as info:
            nscd.TimeStepping(system, **{option: value})
        assert info.value.status == status
    with pytest.raises(TypeError):
        nscd.TimeStepping(system, no_such_option=1)
