"""Regression of examples/double_pendulum_routh.c: the double pendulum of
seed 000 (Sect. 4) hitting a rough floor, Routh's impact law.

The reference impacts come from an independent integration of the same model
(scipy's DOP853 at rtol 1e-13 with its own event location, the impacts by
nscd_routh_impact), made when this test was written. The paper reports 6
impacts for mu = 0 and 10 for mu = 0.15 within 6 s, and an equilibrium
energy of about -40.007 J."""
import pytest

# (t, energy before, energy after) of each impact within 6 s
REFERENCE = {
    0.0: [
        (1.4781753668, 21.51565656, 12.25357595),
        (2.3897168250, 12.25357595, 5.27401688),
        (2.9030937359, 5.27401688, -0.62745859),
        (3.7043576819, -0.62745859, -5.68309105),
        (4.5178643673, -5.68309105, -10.91294249),
        (5.4218479948, -10.91294249, -14.74653623),
    ],
    0.15: [
        (1.4781753668, 21.51565656, 4.60927926),
        (2.3924904222, 4.60927926, -8.40648345),
        (3.0869958707, -8.40648345, -16.47157956),
        (3.7789958164, -16.47157956, -23.28576474),
        (4.3120810759, -23.28576474, -26.97949080),
        (4.7343388100, -26.97949080, -29.09162679),
        (5.0911539919, -29.09162679, -30.53697643),
        (5.4032249007, -30.53697643, -31.63187593),
        (5.6528902029, -31.63187593, -32.26655866),
        (5.8544294087, -32.26655866, -32.71055531),
    ],
}


@pytest.mark.parametrize("mu", [0.0, 0.15])
def test_impacts_within_6s(run_example, mu):
    out = run_example("double_pendulum_routh", "--mu", str(mu), "--t-end", "6")
    assert out["outcome"] == "completed"
    impacts = out["impacts"]
    assert len(impacts) == len(REFERENCE[mu])  # 6 for mu = 0, 10 for mu = 0.15
    assert out["n_impacts"] == len(impacts) and not out["impacts_truncated"]
    for got, (t, e_before, e_after) in zip(impacts, REFERENCE[mu]):
        assert got["t"] == pytest.approx(t, abs=1e-6)
        assert got["energy_before"] == pytest.approx(e_before, abs=1e-5)
        assert got["energy_after"] == pytest.approx(e_after, abs=1e-5)
        assert got["energy_after"] < got["energy_before"]
        assert got["case"] in ("slip", "stick_in_compression", "reversal_in_compression",
                               "stick_in_restitution", "reversal_in_restitution")
    # energy is constant between impacts (no damping, no torques)
    for a, b in zip(impacts, impacts[1:]):
        assert b["energy_before"] == pytest.approx(a["energy_after"], abs=1e-6)
    assert out["final_energy"] == pytest.approx(impacts[-1]["energy_after"], abs=1e-6)
    # the library's jump is the pure kernel's
    assert out["max_routh_check"] < 1e-10
    assert out["equilibrium_energy"] == pytest.approx(-40.007, abs=1e-3)
    inv = out["invariants"]  # (run_example checks them all against their tolerances)
    assert inv["hold"]
    assert inv["events"] == len(impacts)  # impacts only within 6 s
    gains = [i["energy_after"] - i["energy_before"] for i in impacts]
    assert inv["max_event_energy_gain"] == pytest.approx(max(gains), abs=1e-12)
    assert inv["max_event_energy_gain"] < -0.4  # every impact dissipates
    # scale: the potential swing m1 g l1/2 + m2 g (l1 + lc) plus the initial
    # kinetic energy (1.2257 J)
    assert inv["energy_tolerance"] == pytest.approx(1e-12 * 41.2332, rel=1e-4)
    assert inv["gap_tolerance"] < 1.1e-10 and inv["min_gap"] >= -inv["gap_tolerance"]
    assert inv["max_smooth_energy_rise"] < 1e-7  # drift tolerance 4.1e-6 J


@pytest.mark.parametrize("mu", [0.0, 0.15])
def test_paper_method_agrees(run_example, mu):
    ours = run_example("double_pendulum_routh", "--mu", str(mu), "--t-end", "6")
    paper = run_example("double_pendulum_routh", "--mu", str(mu), "--t-end", "6",
                        "--paper-method")
    assert paper["method"] == "rk4_linear"
    assert len(paper["impacts"]) == len(ours["impacts"])
    for a, b in zip(paper["impacts"], ours["impacts"]):
        # RK4 with h = 1e-4 and linear interpolation of the gap (eqs. 9-11)
        assert a["t"] == pytest.approx(b["t"], abs=2e-6)
        assert a["energy_after"] == pytest.approx(b["energy_after"], abs=1e-4)
    assert ours["invariants"]["hold"] and paper["invariants"]["hold"]
    # the paper's method: a step h = 1e-4 s, |d2g/dt2| <= 300 m/s^2, so the disk
    # may sink by 300 h^2 / 2 = 1.5e-6 m; it does by about 1e-7 m
    inv = paper["invariants"]
    assert inv["gap_tolerance"] == pytest.approx(1e-10 + 1.5e-6 + 1e-14, rel=1e-12)
    assert -inv["gap_tolerance"] <= inv["min_gap"] < -1e-8
    assert inv["max_smooth_energy_rise"] < 1e-4  # the linear interpolation at events
    assert ours["invariants"]["min_gap"] > -1.1e-10


def test_first_impact_friction_costs_more_energy(run_example):
    smooth = run_example("double_pendulum_routh", "--mu", "0", "--t-end", "1.5")
    rough = run_example("double_pendulum_routh", "--mu", "0.15", "--t-end", "1.5")
    assert smooth["impacts"][0]["t"] == rough["impacts"][0]["t"]
    assert rough["impacts"][0]["energy_after"] < smooth["impacts"][0]["energy_after"] - 7.0


def test_run_to_8s_passes_into_sticking_contact(run_example):
    out = run_example("double_pendulum_routh", "--mu", "0.15", "--t-end", "8", timeout=60)
    # impacts accumulate near 6.955 s; the stepper closes the contact, which
    # slides for a moment and then sticks: the pendulum rests on the floor,
    # held by static friction (|T| / F = 0.056 < mu), until 8 s
    assert out["outcome"] == "completed"
    assert out["t_reached"] == pytest.approx(8.0)
    assert 90 <= out["n_impacts"] <= 120 and not out["impacts_truncated"]
    t_last = out["impacts"][-1]["t"]
    assert t_last == pytest.approx(6.95514, abs=1e-4)
    kinds = [e["type"] for e in out["events"]]
    assert kinds == ["contact_closed", "contact_stick"]
    assert out["events"][0]["t"] == pytest.approx(t_last, abs=1e-9)
    assert 0.0 < out["events"][1]["t"] - t_last < 1e-4
    assert max(abs(w) for w in out["final_omega"]) < 1e-9
    assert out["final_energy"] == pytest.approx(out["impacts"][-1]["energy_after"], abs=1e-6)
    assert out["seconds"] > 0
    inv = out["invariants"]
    assert inv["hold"]
    assert inv["events"] == out["n_impacts"] + 2  # and contact_closed, contact_stick
    assert inv["max_event_energy_gain"] <= inv["energy_tolerance"]
    # resting on the floor: the projections keep the gap within the tolerance
    assert inv["min_gap"] >= -inv["gap_tolerance"]
    assert inv["max_smooth_energy_rise"] < 1e-7


def test_run_to_8s_can_stop_cleanly(run_example):
    out = run_example("double_pendulum_routh", "--mu", "0.15", "--t-end", "8", "--zeno", "stop",
                      timeout=60)
    assert out["outcome"] == "zeno_stop"
    assert out["status"] != "ok"
    assert "accumulat" in out["reason"].lower()
    assert out["t_reached"] == pytest.approx(out["impacts"][-1]["t"])
    assert out["t_reached"] == pytest.approx(6.95514, abs=1e-4)
    assert out["invariants"]["hold"]  # a clean stop, with the invariants intact


def test_sticking_contact_forces(run_example, tmp_path):
    path = tmp_path / "rest.csv"
    run_example("double_pendulum_routh", "--mu", "0.15", "--t-end", "7.5", "--csv", str(path),
                "--csv-dt", "0.01")
    lines = path.read_text().strip().splitlines()
    header = lines[0].split(",")
    row = dict(zip(header, map(float, lines[-1].split(","))))
    assert row["closed"] == 1.0
    # at rest on the floor: the contact carries the pendulum with static
    # friction inside the cone, and the horizontal forces balance (R = H = T)
    assert row["F_contact"] == pytest.approx(21.697, abs=1e-3)
    assert abs(row["T_contact"]) <= 0.15 * row["F_contact"]
    assert row["R_O"] == pytest.approx(row["T_contact"], abs=1e-6)
    assert row["H_A"] == pytest.approx(row["T_contact"], abs=1e-6)
    assert abs(row["gap"]) < 1e-9


def absolute_coordinate_reactions(psi1, psi2, w1, w2):
    """Joint reactions of the free pendulum by an independent formulation:
    both bodies in absolute coordinates (X, Z, theta; X horizontal, Z up, O
    at the origin), the joints O and A as four constraints with Lagrange
    multipliers. Returns P, R (at O) and V, H (at A) in the paper's frame
    (x = -X, z = Z): rod OA feels (-R, P) at O and (H, V) at A."""
    import numpy as np
    m1, m2, l1, lc, I1, I2, g = 3.2, 3.8, 0.5, 0.3627, 6.76e-2, 0.164, 9.81
    s1, c1, s2, c2 = np.sin(psi1), np.cos(psi1), np.sin(psi2), np.cos(psi2)
    M = np.diag([m1, m1, I1, m2, m2, I2])
    f = np.array([0.0, -m1 * g, 0.0, 0.0, -m2 * g, 0.0])
    # pin O: (X1 - l1/2 sin1, Z1 + l1/2 cos1) = 0; pin A joins the end of the
    # rod to body 2: (X2 - X1 - l1/2 sin1 - lc sin2, Z2 - Z1 + l1/2 cos1 + lc cos2) = 0
    C = np.array([
        [1, 0, -l1 / 2 * c1, 0, 0, 0],
        [0, 1, -l1 / 2 * s1, 0, 0, 0],
        [-1, 0, -l1 / 2 * c1, 1, 0, -lc * c2],
        [0, -1, -l1 / 2 * s1, 0, 1, -lc * s2],
    ])
    # C a + bias = 0, bias from differentiating the rows once more
    bias = np.array([l1 / 2 * s1 * w1**2, -l1 / 2 * c1 * w1**2,
                     l1 / 2 * s1 * w1**2 + lc * s2 * w2**2,
                     -l1 / 2 * c1 * w1**2 - lc * c2 * w2**2])
    K = np.block([[M, -C.T], [C, np.zeros((4, 4))]])
    sol = np.linalg.solve(K, np.concatenate([f, -bias]))
    lam = sol[6:]  # force on rod OA at O = lam[0:2]; on body 2 at A = lam[2:4]
    P, R = lam[1], lam[0]
    V, H = -lam[3], lam[2]
    return P, R, V, H


def test_csv_joint_reactions_match_an_independent_model(run_example, tmp_path):
    path = tmp_path / "pendulum.csv"
    run_example("double_pendulum_routh", "--mu", "0.15", "--t-end", "1", "--csv", str(path))
    lines = path.read_text().strip().splitlines()
    header = lines[0].split(",")
    for column in ("t", "psi1", "psi2", "omega1", "omega2", "energy", "P_O", "R_O", "V_A", "H_A"):
        assert column in header
    assert len(lines) == 1 + 1000
    for line in lines[1::97]:  # free flight until the first impact at 1.478 s
        row = dict(zip(header, map(float, line.split(","))))
        expected = absolute_coordinate_reactions(row["psi1"], row["psi2"], row["omega1"],
                                                 row["omega2"])
        for name, value in zip(("P_O", "R_O", "V_A", "H_A"), expected):
            assert row[name] == pytest.approx(value, rel=1e-7, abs=1e-7)


# The stepper's own benchmark past 6 s (issue 28): after an impact the modes
# of the contact at rest (open, stick, slip) come from one contact problem at
# the level of accelerations (docs/multi_contact_events.md). Before, the
# active-set search on modes failed for 8 of these 30 runs (SINGULAR where a
# sticking tip's rows are dependent, NOT_CONVERGED where it cycled).
@pytest.mark.parametrize("e", [0.0, 0.3, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("mu", [0.0, 0.05, 0.15, 0.3, 0.6, 1.0])
def test_sweep_reaches_10s(run_example, mu, e):
    out = run_example("double_pendulum_routh", "--mu", str(mu), "--e", str(e), "--t-end", "10")
    assert out["status"] == "ok", out["reason"]
    assert out["outcome"] == "completed"
    assert out["t_reached"] == 10
    assert out["invariants"]["hold"]
    assert out["invariants"]["violations"] == 0
    # every impact dissipates, and energy never exceeds the initial one
    assert out["invariants"]["max_event_energy_gain"] <= out["invariants"]["energy_tolerance"]
    assert out["final_energy"] <= out["initial_energy"] + out["invariants"]["drift_tolerance"]
    # nothing can go below the equilibrium (the lowest potential energy)
    assert out["final_energy"] >= out["equilibrium_energy"] - 1e-6
