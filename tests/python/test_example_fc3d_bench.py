"""Regression of examples/fc3d_bench.c on small packings (about 1e2 and 3e2 contacts)."""


def test_fc3d_bench_small(run_example):
    out = run_example("fc3d_bench", "--max-contacts", "400", "--jacobi")
    assert out["mu"] == 0.4
    runs = out["runs"]
    # two sizes, each with homogeneous spheres and eccentric grains
    assert [r["grains"] for r in runs] == ["spheres", "eccentric"] * 2
    for r in runs:
        assert 50 <= r["contacts"] <= 600
        assert r["blocks"] >= r["contacts"]
        for law in ("coulomb", "max_dissipation", "coulomb_jacobi", "max_dissipation_jacobi"):
            s = r[law]
            assert s["status"] == 0 and s["converged"] == 1, (law, s)
            assert 1 <= s["iterations"] < out["max_iterations"]
            assert s["merit"] <= out["tolerance"]
            assert s["ns_per_contact_sweep"] > 0
            assert s["sticking"] + s["sliding"] + s["open"] == r["contacts"]
            assert s["dissipated_energy"] > 0  # impacts only remove kinetic energy
        # Both laws solve the same problem; the Jacobi blend reaches the same solution.
        c, m = r["coulomb"], r["max_dissipation"]
        assert abs(r["coulomb_jacobi"]["dissipated_energy"] - c["dissipated_energy"]) <= 1e-4 * c[
            "dissipated_energy"]
        if r["grains"] == "spheres":
            # W_jj = diag(a, b, b) for spheres: the two block laws coincide exactly, so the
            # sweeps and their results are the same (within the solver tolerance).
            assert c["iterations"] == m["iterations"]
            assert abs(c["dissipated_energy"] - m["dissipated_energy"]) <= 1e-6 * c[
                "dissipated_energy"]
        else:
            # Maximum dissipation dissipates at least as much as Coulomb here, and only a
            # little more (Table 2 of the paper: no macroscopic difference).
            assert m["dissipated_energy"] >= c["dissipated_energy"] * (1 - 1e-6)
            assert m["dissipated_energy"] <= c["dissipated_energy"] * 1.05
