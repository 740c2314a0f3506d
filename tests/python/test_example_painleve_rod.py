"""Regression of examples/painleve_rod against seed 002, Sect. 4.2."""
import math


def test_mu_star_minimum(run_example):
    d = run_example("painleve_rod")
    assert abs(d["mu_star_min"] - 4.0 / 3.0) < 1e-13
    assert abs(d["theta_star"] - 0.5 * math.acos(-3.0 / 5.0)) < 1e-12
    assert abs(d["theta_star"] - math.atan(2.0)) < 1e-12


def test_maximum_dissipation_picks_lambda0_or_zero(run_example):
    d = run_example("painleve_rod")
    assert d["n_cases"] == len(d["sweep"]) > 100
    assert 0 < d["n_impulsive"] < d["n_cases"]
    for c in d["sweep"]:
        th, mu = c["theta0"], c["mu"]
        mu_star = (math.cos(th) + 1 / (3 * math.cos(th))) / math.sin(th)
        assert abs(c["mu_star"] - mu_star) < 1e-12 * mu_star
        assert c["impulsive"] == (mu >= mu_star)
        # Lambda_0 = m v0 / 8 (3 sin 2th, 5 + 3 cos 2th, 0) in the contact frame (n, t, o)
        lam = [3 * math.sin(2 * th) / 8, (5 + 3 * math.cos(2 * th)) / 8, 0.0]
        want = lam if c["impulsive"] else [0.0, 0.0, 0.0]
        assert all(abs(a - b) < 1e-13 for a, b in zip(c["mdp"], want))
        # Lambda_0 lies in the cone whenever mu >= mu* (paper)
        if c["impulsive"]:
            assert math.hypot(lam[1], lam[2]) <= mu * lam[0]
            # the Coulomb-like model admits at least 0 and Lambda_0
            assert c["n_coulomb"] == -1 or c["n_coulomb"] >= 2
        else:
            assert c["n_coulomb"] == 1
    assert d["max_error"] < 1e-13
    assert d["delassus_closed_form_deviation"] < 1e-13
