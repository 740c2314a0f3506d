"""Regression of examples/two_pendulums (seed 001, Sect. 6): three impacts in
8 s for the three contact models, restitution of each, Fig. 12 loop shape."""
import pytest

from conftest import check_invariants

# Impact times found when this example was written (event location to 1e-12 s,
# integration tolerance 1e-10); the first impact is the same for every model.
EXPECTED = {
    "piecewise": [1.142446, 3.763189, 6.694251],
    "hertz_damper": [1.142446, 3.762041, 6.692355],
    "hunt_crossley": [1.142446, 3.863309, 6.864196],
}


@pytest.fixture(scope="module")
def result():
    import os
    import json
    import subprocess

    path = os.environ.get("NSCD_EXAMPLES_DIR")
    if not path:
        pytest.skip("NSCD_EXAMPLES_DIR is not set (run through ctest)")
    done = subprocess.run([os.path.join(path, "two_pendulums"), "--json"], capture_output=True,
                          text=True, timeout=600, check=True)
    out = json.loads(done.stdout)
    check_invariants(out["invariants"])
    return out


def model(result, name):
    return next(m for m in result["models"] if m["name"] == name)


def test_parameters_of_the_paper(result):
    p = result["parameters"]
    assert (p["m1"], p["m2"], p["L1"], p["L2"], p["a"]) == (1.0, 0.2, 6.0, 4.0, 2.0)
    assert (p["e"], p["n"], p["k"], p["t_end"]) == (0.3, 1.5, 1e8, 8.0)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_three_impacts_at_the_recorded_times(result, name):
    impacts = model(result, name)["impacts"]
    assert [round(i["t"], 6) for i in impacts] == pytest.approx(EXPECTED[name], abs=2e-6)


def test_restitution_of_each_model(result):
    for impact in model(result, "piecewise")["impacts"]:
        assert impact["e_out"] == pytest.approx(0.3, abs=1e-12)
    # eq. 50 (closed form): within its own accuracy (~1e-3), gravity acts during contact
    for impact in model(result, "hertz_damper")["impacts"]:
        assert impact["e_out"] == pytest.approx(0.3, abs=2e-3)
        assert 1e-5 < impact["t_end"] - impact["t"] < 1e-2
    # eq. 16 is an approximation: it dissipates too much at e = 0.3
    for impact in model(result, "hunt_crossley")["impacts"]:
        assert 0.25 < impact["e_out"] < 0.27


def test_force_penetration_loops(result):
    hd = model(result, "hertz_damper")["first_contact"]
    hc = model(result, "hunt_crossley")["first_contact"]
    # Hertz-damper: a force jump c v at onset, zero force at separation with a
    # residual penetration (eqs. 20, 51); Hunt-Crossley: zero at both ends.
    assert hd["force"][0] > 0.1 * max(hd["force"])
    assert abs(hd["force"][-1]) < 1e-6 * max(hd["force"])
    assert hd["penetration"][-1] > 0.1 * max(hd["penetration"])
    # zero at onset up to the event location's round-off (the first sample's
    # penetration is that of the located event, a few ulps of the gap)
    assert abs(hc["force"][0]) < 1e-12 * max(hc["force"])
    assert abs(hc["force"][-1]) < 1e-6 * max(hc["force"])
    assert abs(hc["penetration"][-1]) < 1e-6 * max(hc["penetration"])


def test_invariants_of_each_model(result):
    # scale: the largest potential energy m1 g L1/2 + m2 g L2/2
    scale = 0.5 * 9.81 * (1.0 * 6.0 + 0.2 * 4.0)
    for m in result["models"]:
        inv = m["invariants"]
        check_invariants(inv)
        assert inv["energy_tolerance"] == pytest.approx(1e-12 * scale)
        assert inv["drift_tolerance"] == pytest.approx(1e-7 * scale)
        assert inv["max_smooth_energy_rise"] < 1e-12 * scale
        assert inv["min_gap"] > -1e-11
    piecewise = model(result, "piecewise")["invariants"]
    assert piecewise["events"] == 3
    assert piecewise["max_event_energy_gain"] < -0.1  # each impact dissipates (e = 0.3)
    for name in ("hertz_damper", "hunt_crossley"):
        inv = model(result, name)["invariants"]
        assert inv["events"] == 6  # onset and separation of each contact
        # v does not jump at a compliant onset or separation; the energy of the
        # whole contact is checked as one smooth phase (it only dissipates)
        assert inv["max_event_energy_gain"] == 0.0
    total = result["invariants"]  # the worst of the three
    check_invariants(total)
    assert total["events"] == 15
    assert total["min_gap"] == min(m["invariants"]["min_gap"] for m in result["models"])
    assert total["max_event_energy_gain"] == 0.0


def test_elastic_contacts_keep_the_energy(run_example):
    # e = 1: the compliant contacts give back what they stored (to the integration
    # error), which the checker measures from onset to separation
    out = run_example("two_pendulums", "--e", "1")
    for m in out["models"]:
        inv = m["invariants"]
        assert inv["hold"]
        assert inv["max_event_energy_gain"] <= inv["energy_tolerance"]
        assert inv["max_smooth_energy_rise"] < 1e-7


def test_exact_damping_restitutes_e(run_example):
    out = run_example("two_pendulums", "--copt", "exact", "--t-end", "2")
    impact = next(m for m in out["models"] if m["name"] == "hertz_damper")["impacts"][0]
    # gravity and the rods' motion during the ~0.4 ms contact are not in eq. 23
    assert impact["e_out"] == pytest.approx(0.3, abs=1e-4)
