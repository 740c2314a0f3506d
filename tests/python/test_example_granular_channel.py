"""Regression of examples/granular_channel (seed 002, Sect. 4.3): a short run of
the coarse-grained channel checks the JSON contract and physical invariants; the
full statistics (Table 2, Figs. 10-12) need the default run of minutes and are
in docs/granular_channel.md."""
import math

import pytest

STEPS = 120  # 6 ms at k = 5: the initial grid, three inflow layers, first outflow
RUN_KEYS = {"friction_law", "particles_avg", "contacts_avg", "contacts_per_particle",
            "solid_fraction", "max_penetration", "max_penetration_over_diameter",
            "speed_peak", "inflow_rate", "outflow_rate", "seconds"}


@pytest.fixture(scope="module")
def short_run():
    from conftest import examples_dir  # noqa: F401  (skips outside ctest)
    import json
    import os
    import subprocess
    exe = os.path.join(examples_dir(), "granular_channel")
    done = subprocess.run([exe, "--json", "--steps", str(STEPS), "--warmup", "0"],
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_contract_and_scaling(short_run):
    d = short_run
    k = d["coarse_graining"]
    assert k == 5
    assert d["steps"] == STEPS
    assert d["dt"] == pytest.approx(k * 1e-5, rel=1e-15)
    assert d["duration"] == pytest.approx(STEPS * d["dt"], rel=1e-15)
    assert d["diameter"] == pytest.approx(k * 0.47e-3, rel=1e-15)
    assert d["grid"] == pytest.approx(k * 1e-3, rel=1e-15)
    # a layer: floor(6.5 cm / grid) x floor(2 cm / grid) sites, every ceil(0.94 mm / (v dt)) steps
    assert d["layer_sites"] == math.floor(65 / k) * math.floor(20 / k)
    assert d["steps_per_layer"] == math.ceil(0.94e-3 / (1.0 * d["dt"]) - 1e-9)
    assert d["nominal_inflow_rate"] == pytest.approx(
        d["layer_sites"] / (d["steps_per_layer"] * d["dt"]), rel=1e-12)
    assert [r["friction_law"] for r in d["runs"]] == ["coulomb", "max_dissipation"]
    for r in d["runs"]:
        assert RUN_KEYS <= set(r)
    assert d["invariants"]["hold"] is True
    # contacts are counted as pe counts them: a gap below pe's contactThreshold,
    # 1e-8 m at d = 0.47 mm (pe/Thresholds.h), scaled with the diameter
    assert d["contact_threshold"] == pytest.approx(1e-8 * d["diameter"] / 0.47e-3, rel=1e-15)


@pytest.mark.parametrize("law", [0, 1])
def test_invariants(short_run, law):
    d = short_run
    r = d["runs"][law]
    # speed_peak needs 20 particle samples in a cell: null (not NaN) in so short a run
    for key in RUN_KEYS - {"friction_law", "speed_peak"}:
        assert r[key] is not None and math.isfinite(r[key]), key
    assert r["speed_peak"] is None or 0 < r["speed_peak"] < 2
    assert r["not_finite_seen"] == 0 and r["escaped_seen"] == 0
    # particles are conserved: live = spawned - removed, and the world agrees
    assert r["particles_final"] == r["spawned"] - r["removed"]
    assert r["bodies_final"] - r["fixed_bodies"] == r["particles_final"]
    assert r["fixed_bodies"] == 6  # floor, ceiling, two walls, obstacle, plane
    # the layers spawned: one per steps_per_layer steps, each site filled or skipped
    assert r["layers"] == STEPS // d["steps_per_layer"]
    # max penetration below 10 % of the diameter (the target)
    assert 0.0 <= r["max_penetration_over_diameter"] < 0.1
    assert r["max_penetration"] == pytest.approx(
        r["max_penetration_over_diameter"] * d["diameter"], rel=1e-12)
    # contacts per particle is the paper's 2 x contacts / particles
    assert r["contacts_per_particle"] == pytest.approx(
        2 * r["contacts_avg"] / r["particles_avg"], rel=1e-12)
    # counted contacts <= detected; particles at the samples between the first fill and now
    assert r["contacts_avg"] <= r["contacts_detected_avg"]
    assert r["particles_avg"] > 0
    # a blow-up check: no cell mean above 2 m/s. (No tighter bound: the plane, moving
    # at 1 m/s with infinite mass, does work and can squeeze a particle sideways
    # out of a jam; cells of 1.28 m/s are seen, above the 1.25 m/s of a perturbed
    # particle after 6 ms of fall.)
    speeds = [v for row in r["speed_map"] for v in row if v is not None]
    assert len(r["speed_map"]) == 150 and all(len(row) == 65 for row in r["speed_map"])
    assert 0.5 < max(speeds) < 2.0


def test_determinism_across_threads(short_run):
    """Coulomb alone (main thread) equals Coulomb run on a second thread beside
    maximum dissipation: the two worlds share nothing, the results are bitwise."""
    import json
    import os
    import subprocess
    from conftest import examples_dir
    exe = os.path.join(examples_dir(), "granular_channel")
    done = subprocess.run([exe, "--json", "--steps", str(STEPS), "--warmup", "0",
                           "--law", "coulomb"],
                          capture_output=True, text=True, timeout=600, check=True)
    alone = json.loads(done.stdout)["runs"][0]
    both = short_run["runs"][0]
    for key in alone:
        if key not in ("seconds", "seconds_per_step", "cpu_seconds", "cpu_seconds_per_step"):
            assert alone[key] == both[key], key


@pytest.mark.parametrize("law", [0, 1])
def test_bed_profile_and_force_carrying_contacts(short_run, law):
    d = short_run
    r = d["runs"][law]
    p = r["solid_fraction_profile"]
    z, phi = p["z"], p["solid_fraction"]
    dz = z[1] - z[0]
    assert len(z) == 200 and z[-1] + dz / 2 == pytest.approx(0.02, rel=1e-12)
    assert all(0.0 <= f < 0.75 for f in phi)  # no slab denser than any sphere packing
    # the profile holds the bed particles' whole volume: its integral over z is the
    # bed's solid fraction times its height (h = 2 x mean centre height), as long as
    # no sphere reaches above the 2 cm of the channel
    assert sum(phi) * dz == pytest.approx(r["solid_fraction"] * r["bed_height"], rel=1e-9)
    # the core is the profile's mean over the slabs inside [d, h - d]
    dia, h = d["diameter"], r["bed_height"]
    core = [f for zc, f in zip(z, phi) if zc - dz / 2 >= dia and zc + dz / 2 <= h - dia]
    if core:
        assert r["solid_fraction_core"] == pytest.approx(sum(core) / len(core), rel=1e-12)
    else:
        assert r["solid_fraction_core"] is None
    assert r["contacts_per_particle_force_carrying"] == pytest.approx(
        2 * r["contacts_active_avg"] / r["particles_avg"], rel=1e-12)
