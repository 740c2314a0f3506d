"""Smoke regression of examples/bench_contact_laws: every kernel is timed and
the exact optimal damping costs at most 20 times the closed form (issue 3)."""


def test_every_function_is_timed(run_example):
    out = run_example("bench_contact_laws", "--calls", "20000")
    names = [f["name"] for f in out["functions"]]
    for expected in ("nscd_copt_closed_form", "nscd_copt_exact", "nscd_kelvin_voigt_restitution",
                     "nscd_hunt_crossley_factor(GONTHIER)",
                     "nscd_central_impact(hertz_damper exact)"):
        assert expected in names
    assert all(f["ns_per_call"] > 0 for f in out["functions"])
    assert out["exact_over_closed_form"] < 20
