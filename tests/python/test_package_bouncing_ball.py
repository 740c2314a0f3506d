"""The ctypes package drives the event-driven stepper: a bouncing ball against
its closed-form solution.

Dropped from h0 at rest, the ball first hits at t1 = sqrt(2 h0 / g) with speed
v1 = g t1; after impact k (k = 1, 2, ...) it leaves with e^k v1 and flies for
2 e^k v1 / g, so impact k+1 is at t1 + sum_{j=1..k} 2 e^j v1 / g, and the
impacts accumulate at t_inf = t1 + 2 v1 e / (g (1 - e))."""
import math

import pytest

import nscd
from nscd.bouncing_ball import analytic_rest_time, bouncing_ball


def analytic_impacts(h0, e, g, count):
    t1 = math.sqrt(2.0 * h0 / g)
    v1 = g * t1
    times, speeds = [t1], [v1]
    for _ in range(count - 1):
        speeds.append(e * speeds[-1])
        times.append(times[-1] + 2.0 * speeds[-1] / g)
    return times, speeds


@pytest.mark.parametrize("h0, e, g", [(1.0, 0.5, 9.81), (2.0, 0.8, 9.81), (0.3, 0.3, 1.62)])
def test_impact_times_and_rest_time(h0, e, g):
    result = bouncing_ball(h0, e, g=g)
    assert len(result.impacts) >= 5
    times, speeds = analytic_impacts(h0, e, g, len(result.impacts))
    # Every impact, down to the last one before the Zeno transition.
    for k, impact in enumerate(result.impacts):
        assert abs(impact.t - times[k]) < 1e-8, (k, impact.t, times[k])
        # Velocities: relative to v1, since the last ones are tiny.
        assert abs(impact.v_before + speeds[k]) < 1e-9 * speeds[0], (k, impact)
        assert abs(impact.v_after - e * speeds[k]) < 1e-9 * speeds[0], (k, impact)
    t_inf = analytic_rest_time(h0, e, g)
    assert t_inf == pytest.approx(times[0] + 2 * speeds[0] * e / (g * (1 - e)), rel=1e-15)
    assert result.rest_time is not None, "the ball never came to rest"
    assert abs(result.rest_time - t_inf) < 1e-6, (result.rest_time, t_inf)


def test_ball_rests_on_the_floor_afterwards():
    h0, e, g = 1.0, 0.5, 9.81
    law = nscd.ContactLaw.newton(e)
    system = nscd.System(1, n_contacts=1, mass=lambda q: [1.0], forces=lambda t, q, v: [-g],
                         contact=lambda i, t, q: (q[0], [1.0]))
    system.set_contact(0, law)
    law.close()
    system.set_state(0.0, [h0], [0.0])
    stepper = nscd.EventDriven(system)
    stats = stepper.advance(5.0)
    t, q, v = system.state()
    assert t == 5.0 and stats.t == 5.0
    assert abs(q[0]) < 1e-9 and abs(v[0]) < 1e-8
    assert system.contact(0)[2] == 1  # NSCD_CONTACT_CLOSED
    assert stats.impacts == len(stepper.impacts) > 5
    assert isinstance(stats.workspace_peak_bytes, int) and stats.workspace_peak_bytes >= 0
    normal, tangent = stepper.contact_force(0)  # the floor carries the weight
    assert normal == pytest.approx(g, rel=1e-12) and tangent == []
    with pytest.raises(nscd.NscdError) as failure:
        stepper.contact_force(1)
    assert failure.value.status == nscd.Status.ERR_INDEX
    stepper.close()
    system.close()


def test_handler_can_stop_at_first_impact():
    h0, g = 1.0, 9.81
    system = nscd.System(1, n_contacts=1, mass=lambda q: [1.0], forces=lambda t, q, v: [-g],
                         contact=lambda i, t, q: (q[0], [1.0]))
    system.set_contact(0, nscd.ContactLaw.newton(0.5))
    system.set_state(0.0, [h0], [0.0])
    stepper = nscd.EventDriven(system, on_event=lambda ev: ev.type == nscd.EventType.IMPACT)
    stats = stepper.advance(10.0)
    assert stats.stopped
    assert stats.t == pytest.approx(math.sqrt(2 * h0 / g), abs=1e-8)
    assert len(stepper.impacts) == 1


def test_deterministic():
    a = bouncing_ball(1.0, 0.7)
    b = bouncing_ball(1.0, 0.7)
    assert a.impacts == b.impacts and a.rest_time == b.rest_time


def test_demo_is_out_of_the_namespace():
    """`import nscd` does not import the demo; the old spellings still work
    and warn (DeprecationWarning)."""
    import subprocess
    import sys
    code = ("import sys, warnings, nscd\n"
            "assert 'nscd.bouncing_ball' not in sys.modules\n"
            "assert 'bouncing_ball' not in nscd.__all__ and 'BouncingBall' not in nscd.__all__\n"
            "warnings.simplefilter('error')\n"
            "try:\n    nscd.analytic_rest_time(1.0, 0.5)\n"
            "except DeprecationWarning:\n    pass\n"
            "else:\n    raise SystemExit('no warning')\n"
            "try:\n    nscd.bouncing_ball(1.0, 0.5)\n"
            "except DeprecationWarning:\n    pass\n"
            "else:\n    raise SystemExit('no warning')\n"
            "from nscd.bouncing_ball import bouncing_ball\n"
            "assert len(bouncing_ball(1.0, 0.5).impacts) >= 5\n")
    subprocess.run([sys.executable, "-c", code], check=True)
    with pytest.warns(DeprecationWarning):
        old = nscd.bouncing_ball(1.0, 0.7)
    assert old.impacts == bouncing_ball(1.0, 0.7).impacts
