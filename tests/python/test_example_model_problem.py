"""Regression of examples/model_problem (seed 003, Sect. 2.8, eq. 91) against the exact modal
solution and the independent numpy reference tools/reference/model_problem.py.

Every scheme is run by the example by name; one the library refuses is listed by the example
under "unsupported", and its tests fail here."""
import importlib.util
import json
import math
import os
import subprocess

import numpy as np
import pytest

from conftest import examples_dir

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "..", "tools", "reference", "model_problem.py")
GAMMA = 9.81

# (scheme, rho_inf) as the example runs them; rho_inf None where it is no parameter
CASES = [("moreau_jean", None), ("moreau_midpoint", None), ("hets", None),
         ("generalized_alpha", 1.0), ("generalized_alpha", 0.8), ("generalized_alpha", 0.5),
         ("generalized_alpha", 0.0), ("bathe", None), ("ed_alpha", 0.0), ("ed_alpha", 0.8)]
ALPHA_CASES = [c for c in CASES if c[0] in ("generalized_alpha", "bathe", "ed_alpha")]
# order on the model problem: theta = 1/2 and the midpoint rule 2, generalized-alpha and Bathe
# 2, ED-alpha 3 with alpha_AR = 1/6 (eq. 84); HETS: compared with the reference when it has one
EXPECTED_ORDER = {"moreau_jean": 2.0, "moreau_midpoint": 2.0, "generalized_alpha": 2.0,
                  "bathe": 2.0, "ed_alpha": 3.0}


def case_id(case):
    return case[0] if case[1] is None else "%s-%g" % case


def run_model_problem(*args):
    exe = os.path.join(examples_dir(), "model_problem")
    done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=600, check=False)
    return done


@pytest.fixture(scope="module")
def out():
    done = run_model_problem("--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def ref():
    spec = importlib.util.spec_from_file_location("model_problem_reference", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def supported(out, case):
    """Fails the test when the library refused the scheme (velocity level, consistent start)."""
    for u in out["unsupported"]:
        if (u["scheme"], u["rho_inf"]) == case and u["level"] == "velocity" \
                and u["start"] == "consistent":
            pytest.fail("%s refused by the library (%s)" % (case, u["reason"]))


def runs_of(out, case, model=None, level="velocity", start="consistent"):
    return [r for r in out["runs"] if (r["scheme"], r["rho_inf"]) == case
            and (model is None or r["model"] == model) and r["level"] == level
            and r["start"] == start]


def reference_parameter(case):
    name, rho = case
    return {"moreau_jean": 0.5}.get(name, rho)


def reference_run(ref, model, case, dt, t_end):
    """The reference scheme as its linear map X -> A X + c (built from its own step applied
    to unit states), iterated: the same map as stepping, in a fraction of the time. None when
    the run diverges, as ref.run says; pytest.skip when the reference lacks the scheme."""
    M, K, f = ref.chain(model)
    try:
        step, start = ref.scheme(case[0], M, K, f, dt, reference_parameter(case))
    except ValueError:
        pytest.skip("no reference implementation of %s" % case[0])
    n = len(f)
    X = start(np.zeros(n), np.zeros(n))
    c = step(np.zeros_like(X))
    A = np.column_stack([step(e) - c for e in np.eye(len(X))])
    for _ in range(int(round(t_end / dt))):
        X = A @ X + c
        if not np.all(np.isfinite(X)) or np.max(np.abs(X)) > 1e12:
            return None
    return X[:n]


# ------------------------------------------------------------------ contract


def test_json_contract(out):
    assert {"exact", "runs", "orders", "spectral", "unsupported"} <= set(out)
    assert out["exact"]["t"] == [1, 5, 10]
    assert len(out["exact"]["q"]) == 3 and all(len(q) == 3 for q in out["exact"]["q"])
    names = {c[0] for c in CASES}
    keys = {"model", "scheme", "rho_inf", "dt", "level", "start", "stable", "t_end", "q_end",
            "error_q", "lambda_end"}
    assert out["runs"], "Moreau-Jean and the midpoint rule are always built"
    for r in out["runs"]:
        assert keys <= set(r), r.keys()
        assert r["model"] in ("a", "b") and r["scheme"] in names
        assert r["level"] in ("velocity", "acceleration")
        assert r["start"] in ("paper", "consistent")
        assert isinstance(r["stable"], bool) and r["t_end"] == 10
        assert len(r["q_end"]) == 3
        if r["stable"]:
            assert r["t_reached"] == 10 and r["error_q"] is not None
            assert [s["t"] for s in r["samples"]] == [1, 5, 10]
        else:
            assert r["error_q"] is None
        assert (r["lambda_end"] is None) == (r["model"] == "a" or not r["stable"])
    for o in out["orders"]:
        assert {"scheme", "rho_inf", "order"} <= set(o) and o["scheme"] in names
    for s in out["spectral"]:
        assert {"scheme", "rho_inf", "dt_over_T", "rho", "period_error", "residual"} <= set(s)
        assert all(o in (2, 3) for o in s["fit_order"])
        assert s["dt_over_T"][0] == pytest.approx(1e-3) and s["dt_over_T"][-1] == pytest.approx(1e3)
        assert len(s["rho"]) == len(s["period_error"]) == len(s["dt_over_T"]) == 25
    for u in out["unsupported"]:
        assert u["scheme"] in names and not runs_of(out, (u["scheme"], u["rho_inf"]),
                                                     level=u["level"], start=u["start"])
    # every case is either run (both models, five steps of the study and the paper's) or
    # listed as unsupported
    for case in CASES:
        refused = any((u["scheme"], u["rho_inf"]) == case for u in out["unsupported"])
        assert refused or len(runs_of(out, case)) == 12, case


def test_exact_solution_matches_reference(out, ref):
    for k, t in enumerate(out["exact"]["t"]):
        assert out["exact"]["q"][k] == pytest.approx(ref.exact("a", t).tolist(), rel=1e-12,
                                                     abs=1e-15)
        qb = ref.exact("b", t).tolist() + [0.0]
        assert out["exact"]["q_b"][k] == pytest.approx(qb, rel=1e-12, abs=1e-15)
        assert out["exact"]["lambda_b"][k] == pytest.approx(ref.constraint_force(t), rel=1e-12)
    # omega_max of model (a) is sqrt(k0 + k3) = 3162.3 s^-1 (f_max = 503.3 Hz, Sect. 2.8)
    assert max(out["exact"]["omega_a"]) / (2 * math.pi) == pytest.approx(503.29, abs=0.01)


def test_bad_arguments_fail_cleanly():
    for args in (["--scheme", "nonsense"], ["--t-end", "0"], ["--study-dt", "-1"]):
        done = run_model_problem("--json", *args)
        assert done.returncode == 2 and done.stdout == "", args
        assert "model_problem:" in done.stderr


def test_runs_are_deterministic():
    first = run_model_problem("--json", "--quick", "--scheme", "moreau_jean")
    second = run_model_problem("--json", "--quick", "--scheme", "moreau_jean")
    assert first.returncode == 0 and second.returncode == 0
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    for r in a["runs"] + b["runs"]:
        r.pop("cpu_seconds")
    assert a == b


def test_histories(ref):
    done = run_model_problem("--json", "--quick", "--histories", "--scheme", "moreau_jean")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    (a,) = [r for r in out["runs"] if r["model"] == "a" and r["dt"] == 1e-3]
    t = np.array(a["history"]["t"])
    assert np.allclose(t[:20], 1e-3 * np.arange(1, 21))  # every step to 0.02 s, then 0.01 s
    assert np.allclose(np.diff(t[20:]), 0.01) and t[-1] == pytest.approx(10.0)
    exact = np.array([ref.exact("a", x) for x in t])
    assert np.max(np.abs(np.array(a["history"]["q"])[:, :2] - exact[:, :2])) < 1e-5
    b = [r for r in out["runs"] if r["model"] == "b" and "history" in r]
    assert len(b) == 1 and len(b[0]["history"]["lambda"]) == 100 + 90  # 1e-2 to 1 s, then 0.1
    assert len(out["exact"]["history_b"]["t"]) == len(out["exact"]["history_b"]["lambda"])


# ------------------------------------------------------------------ accuracy


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_runs_match_reference(out, ref, case):
    """Same scheme, same dt, same linear map: the end states agree to rounding, so the errors
    against the exact solution agree well within the 20 % of the acceptance."""
    supported(out, case)
    for r in runs_of(out, case):
        q = reference_run(ref, r["model"], case, r["dt"], 10.0)
        assert r["stable"] == (q is not None), (r["model"], r["dt"])
        if q is None:
            continue
        n = len(q)
        assert np.allclose(r["q_end"][:n], q, rtol=1e-8, atol=1e-12), (r["model"], r["dt"])
        exact = ref.exact(r["model"], 10.0)
        error_ref = float(np.max(np.abs(q[:2] - exact[:2])))
        assert r["error_q"] == pytest.approx(error_ref, rel=0.2), (r["model"], r["dt"])


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_observed_orders(out, ref, case):
    supported(out, case)
    orders = {o["model"]: o for o in out["orders"] if (o["scheme"], o["rho_inf"]) == case}
    assert "b" in orders and orders["b"]["points"] == 5  # model (b) has no stiff mode
    expected = EXPECTED_ORDER.get(case[0])
    if expected is None:  # HETS: the order of the reference scheme on the same steps
        dts = [1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4]
        errors = [np.max(np.abs(reference_run(ref, "b", case, dt, 10.0)[:2]
                                - ref.exact("b", 10.0)[:2])) for dt in dts]
        expected = float(np.polyfit(np.log(dts), np.log(errors), 1)[0])
    for o in orders.values():
        assert o["order"] == pytest.approx(expected, abs=0.15), o


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_stiff_model_at_the_papers_step(out, case):
    """Model (a), dt = 1e-3, omega dt = 3.16: the implicit schemes are stable, the explicit
    ones (midpoint rule, HETS; omega dt > 2) diverge and say so without crashing."""
    supported(out, case)
    (r,) = [r for r in runs_of(out, case, "a") if r["dt"] == 1e-3]
    if case[0] in ("moreau_midpoint", "hets"):
        assert not r["stable"] and r["error_q"] is None
        assert r["status"] in ("ok", "not_finite") and r["t_reached"] < 10
    else:
        assert r["stable"] and r["status"] == "ok"
        assert r["error_q"] < 1e-4  # q ~ 18 m: 4.4e-6 (theta = 1/2) down to 1.1e-9 (ED-alpha)


# ------------------------------------------------------------------ model (b): levels, starts


def generalized_alpha_constrained(rho, level, start, h, t_end):
    """Independent generalized-alpha (eqs. 20-25, 55) on the 3-dof chain of model (b) with the
    constraint q3 = 0 and its force lambda as unknowns: M a1 + K q1 = f + w' lambda1 with
    w v1 = 0 (velocity level) or w a1 = 0 (acceleration level). The paper's start takes
    a0 = M^-1 (f - K q0), the consistent one solves for lambda0 with w a0 = 0. Returns t,
    q3, v3 and lambda - lambda_exact per step."""
    M, K, f, w = np.eye(3), np.array([[2.0, -1, 0], [-1, 2, -1], [0, -1, 1]]), \
        GAMMA * np.ones(3), np.array([0.0, 0, 1])
    am, af = (2 * rho - 1) / (rho + 1), rho / (rho + 1)
    gam, beta = 0.5 - am + af, 0.25 * (1 - am + af) ** 2
    q, v = np.zeros(3), np.zeros(3)
    if start == "consistent":
        Z = np.block([[M, -w[:, None]], [w[None, :], np.zeros((1, 1))]])
        a = np.linalg.solve(Z, np.concatenate([f - K @ q, [0.0]]))[:3]
    else:
        a = np.linalg.solve(M, f - K @ q)
    A = a.copy()
    ca = (1 - am) / (1 - af)
    rows = []
    for i in range(int(round(t_end / h))):
        q_known, v_known, a_known = q + h * v + h * h * (0.5 - beta) * A, \
            v + h * (1 - gam) * A, (am * A - af * a) / (1 - af)
        Z, rhs = np.zeros((4, 4)), np.zeros(4)
        Z[:3, :3], Z[:3, 3], rhs[:3] = M * ca + K * h * h * beta, -w, f - K @ q_known - M @ a_known
        if level == "velocity":
            Z[3, :3], rhs[3] = w * h * gam, -w @ v_known
        else:
            Z[3, :3], rhs[3] = w * ca, -w @ a_known
        s = np.linalg.solve(Z, rhs)
        A1, lam = s[:3], s[3]
        a, q, v, A = ca * A1 + a_known, q_known + h * h * beta * A1, v_known + h * gam * A1, A1
        t = h * (i + 1)
        exact = -(GAMMA + 1.0 * (q_exact_b(t)[1]))
        rows.append((t, q[2], v[2], lam - exact))
    return np.array(rows)


def q_exact_b(t):
    K = np.array([[2.0, -1], [-1, 2]])
    qs = np.linalg.solve(K, GAMMA * np.ones(2))
    w2, phi = np.linalg.eigh(K)
    return qs - phi @ ((phi.T @ qs) * np.cos(np.sqrt(w2) * t))


def oscillation(e):
    """Largest |second difference| / 4 of the force error: A for an alternating +-A."""
    return float(np.max(np.abs(e[2:] - 2 * e[1:-1] + e[:-2])) / 4)


@pytest.mark.parametrize("rho", [1.0, 0.0])
@pytest.mark.parametrize("level", ["velocity", "acceleration"])
@pytest.mark.parametrize("start", ["paper", "consistent"])
def test_generalized_alpha_levels_and_starts(out, rho, level, start):
    """Figs. 17-18 at dt = 1e-2 against an independent generalized-alpha with the constraint:
    the paper's start on the velocity level makes the constraint force oscillate (+-9.81 N
    forever for rho_inf = 1, a transient of 0.36 N that dies out for rho_inf = 0, with a
    constant position error q3 = -2.5e-4 m); on the acceleration level it leaves a constant
    residual velocity v3 = gamma dt / 2 = 0.049 m/s, a linear drift. The consistent start
    removes both."""
    case = ("generalized_alpha", rho)
    supported(out, case)
    runs = runs_of(out, case, "b", level, start)
    runs = [r for r in runs if r["dt"] == out["parameters"]["study_dt"]]
    if not runs:
        pytest.skip("level %s with the %s start is not supported" % (level, start))
    (r,) = runs
    assert r["stable"]
    expected = generalized_alpha_constrained(rho, level, start, r["dt"], 10.0)
    c = r["constraint"]
    osc = oscillation(expected[:, 3])
    late = oscillation(expected[expected[:, 0] >= 9.0 - 1e-9, 3])
    assert c["lambda_oscillation"] == pytest.approx(osc, rel=1e-3, abs=1e-6)
    assert c["lambda_oscillation_late"] == pytest.approx(late, rel=1e-3, abs=1e-6)
    assert c["q3_end"] == pytest.approx(expected[-1, 1], rel=1e-6, abs=1e-12)
    assert c["v3_end"] == pytest.approx(expected[-1, 2], rel=1e-6, abs=1e-12)
    slope = np.polyfit(expected[:, 0], expected[:, 1], 1)[0]
    assert c["q3_slope"] == pytest.approx(slope, rel=1e-6, abs=1e-12)
    if start == "consistent":
        assert c["lambda_oscillation"] < 1e-6 and c["q3_max"] < 1e-12
    elif level == "acceleration":  # the drift of Fig. 17
        assert c["v3_end"] == pytest.approx(GAMMA * r["dt"] / 2, rel=1e-6)
    elif rho == 1.0:  # the undamped oscillation of Fig. 18
        assert c["lambda_oscillation_late"] == pytest.approx(GAMMA, rel=1e-6)


@pytest.mark.parametrize("case", ALPHA_CASES, ids=case_id)
def test_starts_of_the_alpha_schemes(out, case):
    """Every alpha scheme: the consistent start leaves no oscillation of the constraint force
    and no drift, on both levels. The paper's start (a0 without the constraint force, so
    a3_0 = gamma) on the acceleration level leaves the residual velocity the scheme's own
    formulas give, v3 = gamma dt / 2 for generalized-alpha (v3_{n+1} = v3_n + dt ((1 - g) A3_n
    + g A3_{n+1}) summed over the decaying A3) and gamma dt / 3 for Bathe (trapezoidal half step
    v3_m = dt a3_0 / 4, then the three-point difference with a3 = 0: v3 = (4 v3_m - v3_0) / 3):
    the linear drift of Fig. 17. ED-alpha does not drift: its step ends never see a_i
    (v_{i+1} = v_i + dt/2 (a_j + a_{i+1}), eq. 80), only the stage does (eq. 79), so a3_0 shifts
    q3 once by dt^2 alpha_AR (1 - alpha) gamma / 2 (alpha = (1 - rho_inf)/(1 + rho_inf), eq. 84:
    no shift at all for rho_inf = 0, where a_i drops out). On the velocity level the paper's
    start disturbs the force for a few steps only, except for generalized-alpha with
    rho_inf = 1 (its spurious root -1: +-9.81 N for ever)."""
    supported(out, case)
    dt = out["parameters"]["study_dt"]
    study = {}
    for r in out["runs"]:
        if (r["scheme"], r["rho_inf"]) == case and r["model"] == "b" and r["dt"] == dt:
            study[(r["level"], r["start"])] = r
    assert ("velocity", "consistent") in study
    for level in ("velocity", "acceleration"):
        r = study.get((level, "consistent"))
        if r is not None:
            assert r["stable"]
            assert r["constraint"]["lambda_oscillation"] < 1e-6
            assert r["constraint"]["q3_max"] < 1e-9 and r["constraint"]["v3_max"] < 1e-9
    r = study.get(("acceleration", "paper"))
    if r is not None:
        c = r["constraint"]
        if case[0] == "generalized_alpha":
            assert c["v3_end"] == pytest.approx(GAMMA * dt / 2, rel=1e-6)
            assert c["q3_slope"] == pytest.approx(GAMMA * dt / 2, rel=1e-3)
        elif case[0] == "bathe":
            assert c["v3_end"] == pytest.approx(GAMMA * dt / 3, rel=1e-6)
            assert c["q3_slope"] == pytest.approx(GAMMA * dt / 3, rel=1e-3)
        else:
            alpha = (1 - case[1]) / (1 + case[1])
            assert abs(c["v3_end"]) < 1e-9 and abs(c["q3_slope"]) < 1e-9
            assert c["q3_end"] == pytest.approx(dt * dt / 6 * (1 - alpha) * GAMMA / 2, rel=1e-6,
                                                abs=1e-12)
    r = study.get(("velocity", "paper"))
    if r is not None and case != ("generalized_alpha", 1.0):
        assert r["constraint"]["lambda_oscillation_late"] < 1e-6
        assert r["constraint"]["v3_max"] < 1e-9


def test_moreau_schemes_hold_the_constraint(out):
    """The Moreau schemes' unknowns are impulses on the velocity level: v3 = 0 exactly after
    every step, no drift, and the mean force P / dt follows the exact force at mid-step."""
    for case in (("moreau_jean", None), ("moreau_midpoint", None)):
        for r in runs_of(out, case, "b"):
            c = r["constraint"]
            assert c["q3_max"] == 0.0 and c["v3_max"] == 0.0
            assert c["lambda_error_max"] < 0.1 * r["dt"]  # O(dt^2): 6.7e-4 at dt = 1e-2
            assert c["lambda_oscillation"] < 1e-6


# ------------------------------------------------------------------ spectral properties


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_spectral_matches_reference(out, ref, case):
    """Spectral radius and period error recovered from the library's own trajectories equal
    the eigenvalues of the reference's amplification matrix (built from its step, not from
    the misprinted eq. 106)."""
    supported(out, case)
    (s,) = [s for s in out["spectral"] if (s["scheme"], s["rho_inf"]) == case]
    assert s["status"] == "ok"
    try:
        ref.scheme(case[0], np.eye(1), np.eye(1), np.zeros(1), 1.0, reference_parameter(case))
    except ValueError:
        pytest.skip("no reference implementation of %s" % case[0])
    for r, rho, period, residual in zip(s["dt_over_T"], s["rho"], s["period_error"],
                                        s["residual"]):
        Omega = 2 * math.pi * r
        rho_ref, period_ref = ref.spectral_properties(case[0], reference_parameter(case), Omega)
        # a triple root (generalized-alpha at large Omega) is found to eps^(1/3) only, a
        # double one to the square root of the trajectory's misfit of the fitted map
        assert rho == pytest.approx(rho_ref, rel=1e-4 + 10 * math.sqrt(residual), abs=1e-9), r
        lam = np.linalg.eigvals(ref.amplification(case[0], reference_parameter(case), Omega))
        complex_pair = np.max(np.abs(lam.imag)) > 1e-9 * np.max(np.abs(lam))
        if complex_pair and period is not None:
            assert period == pytest.approx(period_ref, rel=1e-3, abs=1e-9), r


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_spectral_limits(out, case):
    supported(out, case)
    (s,) = [s for s in out["spectral"] if (s["scheme"], s["rho_inf"]) == case]
    ratio, rho = np.array(s["dt_over_T"]), np.array(s["rho"])
    Omega = 2 * math.pi * ratio
    small = ratio <= 1e-2
    assert np.all(np.abs(rho[small] - 1) < 1e-3)  # no damping of the resolved modes
    if case[0] in ("generalized_alpha", "ed_alpha"):  # rho(Omega -> infinity) = rho_inf
        assert rho[-1] == pytest.approx(case[1], abs=0.01)
        assert np.all(rho <= 1 + 1e-9)
    elif case[0] == "bathe":  # L-stable
        assert rho[-1] < 0.01 and np.all(rho <= 1 + 1e-9)
    elif case[0] == "moreau_jean":  # theta = 1/2, implicit: trapezoidal, rho = 1
        assert np.all(np.abs(rho - 1) < 1e-9)
    elif case[0] == "moreau_midpoint":  # Stoermer-Verlet: stable for Omega <= 2 only
        assert np.all(np.abs(rho[Omega < 2] - 1) < 1e-9) and np.all(rho[Omega > 2.1] > 1)


REFERENCE_SCHEMES = [("generalized_alpha", 1.0), ("generalized_alpha", 0.8),
                     ("generalized_alpha", 0.5), ("generalized_alpha", 0.0), ("bathe", None),
                     ("ed_alpha", 0.0), ("ed_alpha", 0.8), ("moreau_jean", 0.5),
                     ("moreau_midpoint", None)]


@pytest.mark.parametrize("name, parameter", REFERENCE_SCHEMES)
def test_estimator_on_reference_trajectories(ref, name, parameter):
    """The example's estimator (model_problem --fit-samples) recovers the spectral radius and
    the period error from trajectories alone: fed the reference schemes' own trajectories
    (q, v / omega) from (1, 0) and (0, 1), it must give the eigenvalues of their
    amplification matrices, for every scheme, also those this build of the library lacks
    (generalized-alpha needs the recurrence of order 3: its auxiliary acceleration is a third
    state)."""
    ratios = np.logspace(-3, 3, 25)
    lines = []
    for r in ratios:
        Omega = 2 * math.pi * r
        step, start = ref.scheme(name, np.eye(1), np.array([[Omega * Omega]]), np.zeros(1), 1.0,
                                 parameter)
        values = [Omega]
        for q0, v0 in ((1.0, 0.0), (0.0, Omega)):
            X = start(np.array([q0]), np.array([v0]))
            for n in range(11):
                X = step(X) if n else X
                values += [X[0], X[1] / Omega]
        lines.append(" ".join("%.17g" % v for v in values))
    exe = os.path.join(examples_dir(), "model_problem")
    done = subprocess.run([exe, "--fit-samples"], input="\n".join(lines) + "\n",
                          capture_output=True, text=True, timeout=60, check=True)
    fits = json.loads(done.stdout)["fits"]
    assert len(fits) == len(ratios)
    third = name == "generalized_alpha" and parameter < 1.0
    for r, fit in zip(ratios, fits):
        Omega = 2 * math.pi * r
        assert fit["status"] == "ok"
        rho_ref, period_ref = ref.spectral_properties(name, parameter, Omega)
        tol = 1e-4 + 10 * math.sqrt(fit["residual"])
        assert fit["rho"] == pytest.approx(rho_ref, rel=tol, abs=1e-9), r
        lam = np.linalg.eigvals(ref.amplification(name, parameter, Omega))
        if np.max(np.abs(lam.imag)) > 1e-9 * np.max(np.abs(lam)) and fit["period_error"]:
            assert fit["period_error"] == pytest.approx(period_ref, rel=10 * tol, abs=1e-9), r
        if third:
            assert fit["order"] == 3, r
        elif name != "ed_alpha":  # ED-alpha: the reference's own rounding at large Omega
            assert fit["order"] == 2, r
