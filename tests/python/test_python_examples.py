"""The Python examples of python/examples/ against their C twins in examples/:
the same models through the Python package give the C programs' numbers
(bit for bit where both compute in the same order)."""
import json
import math
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.normpath(os.path.join(HERE, "..", "..", "python", "examples"))


def run_python_example(name, *args):
    done = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), *args],
                          capture_output=True, text=True, timeout=600, check=False,
                          env=dict(os.environ))
    assert done.returncode == 0, f"{name} failed: {done.stderr}"
    return json.loads(done.stdout)


@pytest.mark.parametrize("e", ["0.8", "0.5"])
def test_bouncing_ball_matches_c(run_example, e):
    py = run_python_example("bouncing_ball.py", "--e", e)
    c = run_example("bouncing_ball", "--e", e)
    assert py["impact_count"] == c["impact_count"] > 10
    for a, b in zip(py["impacts"], c["impacts"]):
        assert a["t"] == b["t"] and a["v_before"] == b["v_before"]
        assert a["v_after"] == b["v_after"]
    assert py["rest_time"] == c["rest_time"]
    assert py["rest_time_error"] < 1e-7


@pytest.mark.parametrize("mu, impacts", [("0.15", 10), ("0", 6)])
def test_double_pendulum_matches_c_and_the_paper(run_example, mu, impacts):
    py = run_python_example("double_pendulum_routh.py", "--mu", mu)
    c = run_example("double_pendulum_routh", "--mu", mu)
    assert py["n_impacts_within_6s"] == c["n_impacts_within_6s"] == impacts  # seed 000, Sect. 4
    assert py["steps"] == c["steps"]
    for a, b in zip(py["impacts"], c["impacts"]):
        assert a["case"] == b["case"]
        for key in ("t", "omega1", "omega2", "impulse_t", "impulse_n"):
            assert a[key] == pytest.approx(b[key], rel=1e-12, abs=1e-12), key
        assert a["energy_after"] <= a["energy_before"] + 1e-12
    assert py["final_psi"] == pytest.approx(c["final_psi"], rel=1e-12)


def test_table1_single_contact_matches_c(run_example):
    py = run_python_example("table1_single_contact.py")
    c = run_example("mdp_single_contact")
    assert py["A"] == c["A"] and py["b"] == c["b"]  # the same problem, bit for bit
    assert py["mdp_solution"] == c["mdp_solution"]
    assert py["conic"] == c["conic"] == "ellipse"
    assert len(py["coulomb_solutions"]) == len(c["coulomb_solutions"]) == 3
    for a, b in zip(py["coulomb_solutions"], c["coulomb_solutions"]):
        assert a["x"] == b["x"]
        assert a["objective"] == pytest.approx(b["objective"], rel=1e-14)
    assert py["coulomb_newton"]["x"] == c["coulomb_newton"]["x"]
    assert py["newton_iterations"] == c["newton_iterations"]
    # Table 1: maximum dissipation dissipates more than every Coulomb solution.
    assert py["objective"] == pytest.approx(-0.634, abs=5e-4)
    assert all(py["objective"] < s["objective"] for s in py["coulomb_solutions"])
    # fc3d with one contact (W = A, q = -b) finds the same maximum-dissipation impulse.
    assert py["fc3d_max_dissipation"] == pytest.approx(py["mdp_solution"], abs=1e-9)


def test_fc3d_granular_matches_c(run_example):
    py = run_python_example("fc3d_granular.py", "--contacts", "100")
    c = run_example("fc3d_bench", "--min-contacts", "100", "--max-contacts", "100",
                    "--grains", "spheres")["runs"][0]
    for key in ("bodies", "contacts", "blocks"):
        assert py[key] == c[key], key
    for law in ("coulomb", "max_dissipation"):
        a, b = py[law], c[law]
        assert a["converged"] and b["converged"] == 1
        assert a["iterations"] == b["iterations"]
        assert a["merit"] == b["merit"]  # the same blocks, the same sweeps: the same bits
        for key in ("sticking", "sliding", "open"):
            assert a[key] == b[key], (law, key)
        assert a["dissipated_energy"] == pytest.approx(b["dissipated_energy"], rel=1e-12)
        assert math.isfinite(a["dissipated_energy"]) and a["dissipated_energy"] > 0.0
