"""Smoke regression of examples/bench_contact_laws: every kernel is timed and
the output is consistent. No speed is asserted here (a test fails under load):
the speed target of issue 3 (the exact optimal damping costs at most 20 times
the closed form) is checked by `make bench` (tools/speed_targets.py)."""
import math


def test_every_function_is_timed(run_example):
    out = run_example("bench_contact_laws", "--calls", "20000")
    assert out["calls"] == 20000
    by_name = {f["name"]: f["ns_per_call"] for f in out["functions"]}
    assert len(by_name) == len(out["functions"])  # no kernel twice
    for expected in ("nscd_copt_closed_form", "nscd_copt_exact", "nscd_kelvin_voigt_restitution",
                     "nscd_hunt_crossley_factor(GONTHIER)",
                     "nscd_central_impact(hertz_damper exact)"):
        assert expected in by_name
    assert all(math.isfinite(ns) and ns > 0 for ns in by_name.values())
    # the ratio is the quotient of the two timings it names, whatever their values
    ratio = by_name["nscd_copt_exact"] / by_name["nscd_copt_closed_form"]
    assert math.isclose(out["exact_over_closed_form"], ratio, rel_tol=1e-12)
