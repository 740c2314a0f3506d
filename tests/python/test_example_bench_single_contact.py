"""Sanity of examples/bench_single_contact. Its cost bound (the maximum-dissipation
single contact may cost at most 20 unconstrained 3x3 solves) is a speed target:
tools/speed_targets.py checks it (make bench), not a test."""


def test_bench_single_contact(run_example):
    d = run_example("bench_single_contact", "--rounds", "3")
    assert d["mdp_failures"] == 0 and d["coulomb_failures"] == 0
    for key in ("ns_cholesky", "ns_mdp_mixed", "ns_mdp_sliding", "ns_mdp_sticking",
                "ns_coulomb_newton_sliding", "ns_coulomb_all_sliding"):
        assert d[key] > 0
    for key in ("ratio_mdp_sliding", "ratio_mdp_mixed", "ratio_mdp_sticking"):
        assert d[key] > 0
