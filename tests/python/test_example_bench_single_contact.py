"""Sanity and cost bound of examples/bench_single_contact (issue: the maximum-dissipation
single contact may cost at most 20 unconstrained 3x3 solves)."""


def test_bench_single_contact(run_example):
    d = run_example("bench_single_contact", "--rounds", "3")
    assert d["mdp_failures"] == 0 and d["coulomb_failures"] == 0
    for key in ("ns_cholesky", "ns_mdp_mixed", "ns_mdp_sliding", "ns_mdp_sticking",
                "ns_coulomb_newton_sliding", "ns_coulomb_all_sliding"):
        assert d[key] > 0
    # CPU-time ratios, best of 7 interleaved repetitions: stable to a few percent
    assert d["ratio_mdp_sliding"] < 20
    assert d["ratio_mdp_mixed"] < 20
    assert d["ratio_mdp_sticking"] < d["ratio_mdp_sliding"]
