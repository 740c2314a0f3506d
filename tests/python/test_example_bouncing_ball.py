"""Regression of examples/bouncing_ball against the analytic solution."""
import math
import os
import subprocess

import pytest


@pytest.mark.parametrize("e", [0.8, 0.5, 0.3])
def test_impact_and_rest_times_are_analytic(run_example, e):
    h0, g = 1.0, 9.81
    out = run_example("bouncing_ball", "--e", str(e), "--h0", str(h0))
    assert out["parameters"] == {"h0": h0, "e": e, "g": g, "t_end": 10.0}
    t1 = math.sqrt(2 * h0 / g)
    v1 = g * t1
    t_exact, speed = t1, v1
    for impact in out["impacts"]:
        assert abs(impact["t"] - t_exact) < 1e-8
        assert impact["v_after"] == pytest.approx(-e * impact["v_before"], rel=1e-12)
        t_exact += 2 * e * speed / g
        speed *= e
    assert len(out["impacts"]) > 10
    t_inf = t1 + 2 * v1 * e / (g * (1 - e))
    assert abs(out["rest_time"] - t_inf) < 1e-6
    inv = out["invariants"]  # (run_example checks them all against their tolerances)
    assert inv["hold"]
    assert inv["events"] == len(out["impacts"]) + 1  # the impacts, then the contact closes
    assert inv["max_event_energy_gain"] <= 0.0  # Newton's law only dissipates
    assert inv["energy_tolerance"] == pytest.approx(1e-12 * g * h0)  # scale m g h0, m = 1
    # the fastest landing is the first, at v1: persistent + event-time * v1 + rounding
    assert inv["gap_tolerance"] == pytest.approx(1e-10 + 1e-12 * v1 + 1e-14, rel=1e-12)
    assert -inv["gap_tolerance"] <= inv["min_gap"] <= 0.0
    # free flight is a parabola, which DOPRI5 integrates to rounding
    assert inv["max_smooth_energy_rise"] < 1e-12 * g * h0
    assert inv["drift_tolerance"] == pytest.approx(1e3 * 1e-10 * g * h0)


def test_plastic_impact_rests_at_first_contact(run_example):
    out = run_example("bouncing_ball", "--e", "0")
    assert len(out["impacts"]) == 1
    assert out["rest_time"] == pytest.approx(math.sqrt(2 / 9.81), abs=1e-12)
    inv = out["invariants"]
    assert inv["hold"] and inv["events"] == 2
    assert inv["max_event_energy_gain"] == 0.0  # the closing event does not change v


def test_paper_method_is_coarser_but_close(run_example):
    out = run_example("bouncing_ball", "--rk4")
    first = out["impacts"][0]
    assert abs(first["t"] - math.sqrt(2 / 9.81)) < 1e-7
    assert abs(out["rest_time"] - out["rest_time_analytic"]) < 1e-2
    inv = out["invariants"]
    assert inv["hold"]
    assert inv["max_event_energy_gain"] <= 0.0
    # the paper's method sees a landing at the end of a fixed step h = 1e-4 s:
    # the ball may sink by g h^2 / 2 (and does by 1.2e-8 m, the last bounces
    # being shorter than a step); the event-time term does not apply
    assert inv["gap_tolerance"] == pytest.approx(1e-10 + 0.5 * 9.81 * 1e-8 + 1e-14, rel=1e-12)
    assert -inv["gap_tolerance"] <= inv["min_gap"] < -1e-9
    # the state at an event is interpolated linearly: about m g^2 h^2 / 8 off
    assert inv["max_smooth_energy_rise"] < 2 * 9.81**2 * 1e-8 / 8
    assert inv["drift_tolerance"] == pytest.approx(1e-5 * 9.81)


def test_text_output_reports_the_invariants():
    path = os.environ.get("NSCD_EXAMPLES_DIR")
    if not path:
        pytest.skip("NSCD_EXAMPLES_DIR is not set (run through ctest)")
    done = subprocess.run([os.path.join(path, "bouncing_ball"), "--e", "0.5"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "invariants hold" in done.stdout
    assert done.stderr == ""


def test_bad_restitution_is_rejected(run_example):
    with pytest.raises(AssertionError):
        run_example("bouncing_ball", "--e", "1.5")
