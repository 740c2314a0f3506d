"""Regression of examples/prismatic_slider (seed 004, Sect. 4.2): a triangular
slider in a triangular guide (clearance 0.3 mm) falls into the apex and rests;
the gap forces sum to the weight; the active set is the paper's six vertices:
the two apex vertices on both inclined faces, the four upper vertices on one
inclined face each (eight closed gaps of twelve, the top face open by 3c)."""
import math

import pytest


def check_rest(out):
    p = out["parameters"]
    assert out["rest_time"] is not None and 0.0 < out["rest_time"] < 0.5 * p["t_end"]
    weight = p["mass"] * p["g"]
    assert out["weight"] == pytest.approx(weight, rel=1e-15)
    fx, fy, fz = out["force_sum"]
    assert abs(fx) < 1e-8 * weight and abs(fy - weight) < 1e-8 * weight and abs(fz) < 1e-12
    assert out["closed_gaps"] == 8 and out["vertices_in_contact"] == 6
    apex = [a for a in out["active_set"] if a["point"][1] < 0.0]
    upper = [a for a in out["active_set"] if a["point"][1] > 0.0]
    assert len(apex) == 4 and len(upper) == 4
    # apex down: the slider (circumradius R - 2c: its inradius is the cavity's
    # less c) drops by c / sin 30 deg = 2c until its apex touches both faces;
    # its apex vertices are R - 2c below its centre (points relative to it)
    r, c = p["cavity_circumradius"], p["clearance"]
    # (within the contact distance 1e-9 m / sin 30 deg: the semi-implicit scheme
    # lands the gaps at the contact distance)
    assert out["position"][1] == pytest.approx(-2.0 * c, abs=2.5e-9)
    assert abs(out["position"][0]) < 1e-9
    for a in apex:
        assert a["point"][1] == pytest.approx(-(r - 2.0 * c), abs=1e-9)
    for a in out["active_set"]:  # inclined faces only: normals (+-cos 30, sin 30, 0)
        n = a["normal"]
        assert abs(abs(n[0]) - math.sqrt(3.0) / 2.0) < 1e-9 and abs(n[1] - 0.5) < 1e-9
        assert a["value"] <= 2e-9 and a["force"] >= 0.0


@pytest.mark.parametrize("scheme", ["midpoint", "semi_implicit"])
def test_slider_rests_on_six_vertices(run_example, scheme):
    out = run_example("prismatic_slider", "--scheme", scheme)
    check_rest(out)
    sizes = out["step_sizes"]
    assert 1e-3 <= sizes["min"] and sizes["max"] <= 1e-2 + 1e-15 and sizes["count"] < 1000


def test_spun_slider_rests_too(run_example):
    out = run_example("prismatic_slider", "--scheme", "semi_implicit", "--spin")
    check_rest(out)


def test_slider_rests_with_the_plastic_form_too(run_example):
    """--clearance-energy-form 0 (every gap plastic): the same rest."""
    check_rest(run_example("prismatic_slider", "--clearance-energy-form", "0"))


def test_spun_slider_rests_with_the_midpoint_rule():
    """With the energy form of the gaps (the default) the spun slider comes to
    rest under the midpoint rule too (0.54 s with the gyroscopic term of the
    implicit midpoint rule, issue 24; 0.31 s with the explicit term before,
    which added energy), over 2 s so that it has more than half the run at
    rest; with plastic gaps that run fails in the pivoting LCP
    (docs/joints.md, known failure)."""
    import json
    import os
    import subprocess
    from conftest import examples_dir
    exe = os.path.join(examples_dir(), "prismatic_slider")
    done = subprocess.run([exe, "--json", "--spin", "--t-end", "2"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    check_rest(json.loads(done.stdout))
