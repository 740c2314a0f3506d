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


def test_semi_implicit_variable_steps_land_on_contact_and_on_t_end():
    """Seed 004's semi-implicit scheme with dt in [1e-4, 1e-2]: the thrown ball
    (no gravity, exact free flight) lands at H / v0, stays (plastic even with
    e = 0.9), and the last step ends exactly on t_end (docs/variable_step.md)."""
    system = nscd.System(1, n_contacts=1, mass=lambda q: [1.0], forces=lambda t, q, v: [0.0],
                         contact=lambda i, t, q: (q[0], [1.0]))
    law = nscd.ContactLaw.newton(0.9)
    system.set_contact(0, law=law)
    system.set_state(0.0, [H0], [-3.0])
    seen = []
    with system, law, nscd.TimeStepping(system, on_step=seen.append, scheme="semi_implicit",
                                        dt_min=1e-4, dt_max=1e-2) as stepper:
        stats = stepper.advance(0.987654321)
        assert stats.t == 0.987654321 and seen[-1].t == 0.987654321
        landing = [r for r in seen if r.step_rule == nscd.StepRule.CONTACT]
        assert len(landing) == 1 and landing[0].t == pytest.approx(H0 / 3.0, abs=1e-12)
        assert stats.contact_steps >= 1 and 1e-4 <= stats.dt_smallest
        assert stats.dt_largest == pytest.approx(1e-2, rel=1e-12)
        assert 0.0 <= stats.max_momentum_residual < 1e-12
        t, q, v = system.state()
        assert abs(q[0]) < 1e-12 and abs(v[0]) < 1e-12


@pytest.mark.parametrize("dt_min, dt_max, status", [
    (2e-3, 1e-3, Status.ERR_OUT_OF_RANGE), (0.0, 1e-3, Status.ERR_OUT_OF_RANGE),
    (1e-4, 0.0, Status.ERR_OUT_OF_RANGE), (math.nan, 1e-3, Status.ERR_NOT_FINITE)])
def test_bad_step_bounds_are_refused(dt_min, dt_max, status):
    system, law = ball()
    with system, law:
        with pytest.raises(NscdError) as err:
            nscd.TimeStepping(system, dt_min=dt_min, dt_max=dt_max)
        assert err.value.status == status
