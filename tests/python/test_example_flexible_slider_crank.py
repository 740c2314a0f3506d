"""Regression of examples/flexible_slider_crank (seed 003, Sect. 3, 4.1-4.5, App. C-D):
the JSON contract of slider_crank plus the rod, the cross-section of Sect. 3, the stiff
rod (E = 1e15) against the rigid examples/slider_crank before the first impact, the modal
model with every mode against the nodal one, the explicit schemes' stability limit on
the full model, and bad arguments. Short runs with few elements: docs/plots/
flexible_slider_crank.py makes the long ones of docs/flexible_bodies.md."""
import json
import math
import os
import subprocess

import numpy as np
import pytest

from conftest import examples_dir

M2, L2, J2, RHO = 0.038, 0.306, 5.9e-4, 7800.0


def example(name, *args, code=0):
    exe = os.path.join(examples_dir(), name)
    done = subprocess.run([exe, "--json", *args], capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == code, f"{name} {args}: {done.returncode} {done.stderr}"
    return json.loads(done.stdout) if done.stdout else None


def flexible(*args, code=0):
    return example("flexible_slider_crank", *args, code=code)


def test_json_contract_and_cross_section():
    out = flexible("--case", "table1", "--scheme", "bathe", "--dt", "1e-5", "--t-end", "0.002",
                   "--elements", "4", "--sample", "1e-3")
    for key in ("case", "scheme", "dt", "t_end", "rho_inf", "parameters", "samples", "final",
                "steps", "steps_with_contact", "impact_steps", "cpu_seconds_per_step"):
        assert key in out
    p = out["parameters"]
    assert (p["elements"], p["modes"], p["elastic_coordinates"]) == (4, 0, 12)
    assert len(out["final"]["q"]) == len(out["final"]["v"]) == 3 + 12
    assert out["samples"][0]["q"] == [0.0, 0.0, 0.0]
    assert out["samples"][0]["v"] == [150.0, -75.0, 0.0]
    assert out["steps"] == 200 and len(out["samples"]) == 3
    # Sect. 3: D = sqrt(12 J2/m2 - l2^2), H = m2/(rho l2 D): a 0.304 m x 52 um blade
    d = math.sqrt(12 * J2 / M2 - L2**2)
    assert p["height"] == pytest.approx(d, rel=1e-14) and d == pytest.approx(0.3044, abs=1e-4)
    assert p["thickness"] == pytest.approx(M2 / (RHO * L2 * d), rel=1e-14)
    assert p["thickness"] == pytest.approx(5.23e-5, rel=1e-3)
    assert RHO * p["area"] * L2 == pytest.approx(M2, rel=1e-14)
    # the rod's inertia about its centre with the rotary inertia: J2 (not m2 l2^2/12)
    j = M2 * L2**2 / 12 + RHO * p["second_moment"] * L2
    assert j == pytest.approx(J2, rel=1e-12)


def test_stiff_rod_reproduces_rigid_model_before_the_first_impact():
    """E = 1e15: the floating frame with a stiff rod is the rigid model (the first impact of
    Table 1 is at 2.7 ms; after it the elastic dofs take part in the impacts)."""
    args = ["--case", "table1", "--scheme", "bathe", "--dt", "1e-5", "--t-end", "0.0025",
            "--sample", "5e-4"]
    flex = flexible(*args, "--youngs-modulus", "1e15", "--elements", "4")
    rigid = example("slider_crank", *args)
    assert rigid["impact_steps"] == 0 and flex["impact_steps"] == 0
    qf = np.array([s["q"] for s in flex["samples"]])
    qr = np.array([s["q"] for s in rigid["samples"]])
    assert np.max(np.abs(qf[:, :2] - qr[:, :2])) < 2e-6  # rad; 8e-7 seen
    assert flex["max_deflection"] < 1e-9  # m


def max_dtheta(a, b):
    """max |Δθ1|, |Δθ2| over the common samples of two runs (the same sample times)."""
    n = min(len(a["samples"]), len(b["samples"]))
    ta = np.array([s["t"] for s in a["samples"][:n]])
    assert np.allclose(ta, [s["t"] for s in b["samples"][:n]])
    qa = np.array([s["q"][:2] for s in a["samples"][:n]])
    qb = np.array([s["q"][:2] for s in b["samples"][:n]])
    return np.max(np.abs(qa - qb), axis=0)


def test_stiff_rod_against_rigid_model_and_its_step_sensitivity():
    """Table 1, Bathe, 0.05 s: the stiff rod differs from the rigid model by ten times the
    rigid model's own step-size sensitivity (dt/2 and 2 dt against 1e-5 s), and by the same
    amount at every step: the impacts on the flexible model, not the integrator
    (docs/flexible_bodies.md, Fig. 21 section; 1.3e-3, 2.9e-5 and 1.3e-4 rad seen)."""
    base = ["--case", "table1", "--scheme", "bathe", "--t-end", "0.05", "--sample", "1e-4"]
    rigid = {dt: example("slider_crank", *base, "--dt", dt) for dt in ("5e-6", "1e-5", "2e-5")}
    own_half = max_dtheta(rigid["5e-6"], rigid["1e-5"]).max()
    own_double = max_dtheta(rigid["2e-5"], rigid["1e-5"]).max()
    stiff = flexible(*base, "--dt", "1e-5", "--youngs-modulus", "1e15")
    dtheta = max_dtheta(stiff, rigid["1e-5"])
    assert own_half < 6e-5 and own_double < 2.5e-4
    assert 6e-4 < dtheta.max() < 2.5e-3
    assert dtheta.max() > 5 * own_double
    assert stiff["impact_steps"] < rigid["1e-5"]["impact_steps"]  # 10 against 17 seen
    # the impacts on (θ1, θ2, θ3) only: the rigid model within its own tolerance
    # (1.5e-5 rad seen, the start-up's drift of the bilateral case)
    ref = flexible(*base, "--dt", "1e-5", "--youngs-modulus", "1e15", "--impulse-on",
                   "reference")
    assert ref["parameters"]["impulse_on"] == "reference"
    assert max_dtheta(ref, rigid["1e-5"]).max() < min(3e-5, own_double)
    assert abs(ref["impact_steps"] - rigid["1e-5"]["impact_steps"]) <= 2  # 16 against 17
    flexible("--scheme", "moreau_jean", "--t-end", "0.001", "--elements", "2", "--impulse-on",
             "reference", code=4)  # no impulsive correction to restrict


def test_bilateral_stiff_rod_matches_rigid_model():
    """c = 0 (no impacts): E = 1e15 against the rigid model over 0.05 s, Bathe, 1e-5 s; the
    difference (1.5e-5 rad seen) is the start-up's energy loss into the stiff modes, which
    falls like dt² (docs/flexible_bodies.md)."""
    args = ["--case", "bilateral", "--scheme", "bathe", "--dt", "1e-5", "--t-end", "0.05",
            "--sample", "1e-4"]
    rigid = example("slider_crank", *args)
    stiff = flexible(*args, "--youngs-modulus", "1e15", "--elements", "4")
    assert stiff["parameters"]["clearance"] == 0.0 and stiff["impact_steps"] == 0
    assert max_dtheta(stiff, rigid).max() < 4e-5
    e0 = stiff["samples"][0]["energy"]
    loss = e0 - stiff["samples"][-1]["energy"]
    assert 1e-6 < loss < 1e-4  # J: 4.2e-5 with 20 elements


def test_ed_alpha_completes_under_auto():
    """ED-α's coupled stages make non-symmetric local blocks at the first impact (2.69 ms):
    AUTO takes the prox solver for them, an explicit fc3d choice fails with NOT_SPD."""
    args = ["--case", "table1", "--scheme", "ed_alpha", "--rho-inf", "0", "--dt", "1e-5",
            "--t-end", "0.004", "--elements", "4", "--sample", "1e-3"]
    auto = flexible(*args)
    assert auto["impact_steps"] >= 1
    prox = flexible(*args, "--solver", "prox")
    assert np.allclose(auto["final"]["q"][:2], prox["final"]["q"][:2], rtol=0, atol=1e-8)
    fc3d = flexible(*args, "--solver", "fc3d", code=1)
    assert fc3d["status"] == "matrix not symmetric positive definite"
    assert fc3d["failed_at"] == pytest.approx(0.00269, abs=1e-8)


def test_modal_model_with_every_mode_is_the_nodal_model():
    args = ["--case", "table2", "--scheme", "generalized_alpha", "--rho-inf", "0", "--dt",
            "1e-5", "--t-end", "0.003", "--elements", "4"]
    nodal = flexible(*args)
    modal = flexible(*args, "--modes", "12")
    assert modal["parameters"]["elastic_coordinates"] == 12
    assert np.allclose(modal["final"]["q"][:3], nodal["final"]["q"][:3], rtol=0, atol=1e-10)
    few = flexible(*args, "--modes", "2")
    assert few["parameters"]["elastic_coordinates"] == 2
    f = few["parameters"]["lowest_frequencies_hz"]
    assert f == pytest.approx(nodal["parameters"]["lowest_frequencies_hz"][:2], rel=1e-12)


def test_explicit_schemes_need_the_modal_cut_off():
    """The full model's highest frequencies are far beyond 2/dt: the explicit midpoint rule
    and HETS diverge within a few steps and say so; below a 20 kHz cut-off they run."""
    for scheme in ("moreau_midpoint", "hets"):
        out = flexible("--scheme", scheme, "--t-end", "0.002", "--elements", "4", code=1)
        assert out["error"] == "integration failed" and out["failed_at"] < 0.002
        ok = flexible("--scheme", scheme, "--t-end", "0.004", "--cutoff", "20000",
                      "--elements", "4")
        assert ok["parameters"]["elastic_coordinates"] < 12
        assert max(ok["parameters"]["lowest_frequencies_hz"]) < 20000


def test_bad_arguments_fail_cleanly():
    for args in (["--case", "free"], ["--elements", "0"], ["--elements", "201"],
                 ["--modes", "-1"], ["--scheme", "rk4"], ["--cutoff", "1"],
                 ["--youngs-modulus", "-1"], ["--reference", "free"],
                 ["--impulse-on", "elastic"]):
        exe = os.path.join(examples_dir(), "flexible_slider_crank")
        done = subprocess.run([exe, "--json", *args], capture_output=True, text=True,
                              timeout=60, check=False)
        assert done.returncode == 2, (args, done.returncode, done.stderr)


def test_reference_conditions_describe_the_same_motion():
    """Tangential (eq. 184) and pinned (eq. 185) frames are two coordinate choices for one
    deformed rod: before the first impact of Table 2 the slider's path and θ1 agree (to
    8e-12 rad and 3e-13 m seen; the rotation of the element field is second order)."""
    args = ["--case", "table2", "--t-end", "0.006", "--elements", "4", "--sample", "1e-3"]
    tangent = flexible(*args)
    pinned = flexible(*args, "--reference", "pinned")
    assert pinned["parameters"]["reference"] == "pinned"
    assert tangent["impact_steps"] == pinned["impact_steps"] == 0
    qa = np.array([s["q"] for s in tangent["samples"]])
    qb = np.array([s["q"] for s in pinned["samples"]])
    xa = np.array([s["slider"] for s in tangent["samples"]])
    xb = np.array([s["slider"] for s in pinned["samples"]])
    assert np.max(np.abs(qa[:, 0] - qb[:, 0])) < 1e-9
    assert np.max(np.abs(xa - xb)) < 1e-10
    assert max(abs(s["deflection"]) for s in pinned["samples"]) < 1e-15  # tip on the x axis


def test_deterministic():
    args = ["--case", "table1", "--t-end", "0.004", "--modes", "10", "--sample", "1e-3"]
    a, b = flexible(*args), flexible(*args)
    assert a["final"] == b["final"] and a["samples"] == b["samples"]
