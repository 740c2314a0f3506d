"""Regression of examples/bouncing_ball against the analytic solution."""
import math

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


def test_plastic_impact_rests_at_first_contact(run_example):
    out = run_example("bouncing_ball", "--e", "0")
    assert len(out["impacts"]) == 1
    assert out["rest_time"] == pytest.approx(math.sqrt(2 / 9.81), abs=1e-12)


def test_paper_method_is_coarser_but_close(run_example):
    out = run_example("bouncing_ball", "--rk4")
    first = out["impacts"][0]
    assert abs(first["t"] - math.sqrt(2 / 9.81)) < 1e-7
    assert abs(out["rest_time"] - out["rest_time_analytic"]) < 1e-2


def test_bad_restitution_is_rejected(run_example):
    with pytest.raises(AssertionError):
        run_example("bouncing_ball", "--e", "1.5")
