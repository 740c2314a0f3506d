"""Regression of examples/mdp_single_contact against Table 1 of seed 002 (Sect. 4.1)."""
import math


def _close(a, b, tol):
    return all(abs(x - y) <= tol for x, y in zip(a, b))


def _matvec(A, x):
    return [sum(A[3 * i + j] * x[j] for j in range(3)) for i in range(3)]


def test_table1_maximum_dissipation(run_example):
    d = run_example("mdp_single_contact")
    paper = d["paper"]
    # the paper prints 2 significant digits
    assert _close(d["mdp_solution"], paper["mdp_solution"], 0.05)
    assert _close(d["mdp_velocity"], paper["mdp_velocity"], 5e-4)
    assert abs(d["objective"] - paper["objective"]) < 5e-4
    assert abs(d["mdp_velocity"][0]) < 1e-14  # on the plane of maximum compression
    x = d["mdp_solution"]
    assert math.hypot(x[1], x[2]) <= d["mu"] * x[0] * (1 + 1e-12)  # on the cone


def test_table1_three_coulomb_solutions(run_example):
    d = run_example("mdp_single_contact")
    sols = d["coulomb_solutions"]
    assert len(sols) == 3
    ours = sorted(sols, key=lambda s: -s["objective"])  # paper order: x1, x2, x3
    for got, want in zip(ours, d["paper"]["coulomb_solutions"]):
        tol = [0.006 + 0.01 * abs(v) for v in want["x"]]
        assert all(abs(g - w) <= t for g, w, t in zip(got["x"], want["x"], tol))
        assert abs(got["objective"] - want["objective"]) < 6e-4
        # Coulomb: u_n = 0 and the friction impulse opposes the slip at the cone limit
        u = got["u"]
        ut = math.hypot(u[1], u[2])
        assert abs(u[0]) < 1e-13 and ut > 0
        xs = got["x"]
        assert abs(xs[1] + d["mu"] * xs[0] * u[1] / ut) < 1e-12
        assert abs(xs[2] + d["mu"] * xs[0] * u[2] / ut) < 1e-12
    # maximum dissipation dissipates strictly more than every Coulomb solution
    assert all(d["objective"] < s["objective"] for s in sols)
    # the Newton solver lands on one of the three
    xn = d["coulomb_newton"]["x"]
    assert any(_close(xn, s["x"], 1e-10) for s in sols)


def test_hyperbola_case(run_example):
    d = run_example("mdp_single_contact", "--case", "hyperbola")
    assert d["conic"] == "hyperbola"
    x = d["mdp_solution"]
    A, b = d["A"], d["b"]
    u = [ax - bi for ax, bi in zip(_matvec(A, x), b)]
    assert abs(u[0]) < 1e-13
    assert abs(math.hypot(x[1], x[2]) - d["mu"] * x[0]) < 1e-12
