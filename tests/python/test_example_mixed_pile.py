"""examples/mixed_pile (issue 24): 100 spheres, boxes, capsules and cylinders
of 1-3 cm dropped into a 20 x 20 cm container at the world's defaults
(dt 1e-3 s, 10 sweeps), seeds 1-3, 2.5 s (1.5 s before the exact
cylinder-box pair: a cylinder of seed 3 then still rolled on its rim at
5.05 cm/s at 1.5 s, and came to rest by 2.5 s). The assertions are physical:
no step fails, no body leaves the container, the mechanical energy never
rises over a step by more than the one source a step has (the penetration
correction, which lifts bodies at max_correction_speed at most: M g c dt),
the pile is at rest at the end, and the penetration after 1 s is bounded
(measured 1.9e-5 to 1.3e-4 m; docs/world.md, "The mixed pile")."""
import pytest

G = 9.81
MAX_CORRECTION_SPEED = 0.1  # m/s, the world's documented default


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_mixed_pile_settles_without_energy_or_escape(run_example, seed):
    out = run_example("mixed_pile", "--seed", str(seed), "--t-end", "2.5", timeout=240)
    assert out["bodies"] == 100 and min(out["spheres"], out["boxes"], out["capsules"],
                                        out["cylinders"]) > 0
    assert out["failed_step"] == -1 and out["steps"] == 2500
    assert out["escaped"] == 0
    bound = out["mass"] * G * MAX_CORRECTION_SPEED * out["dt"]
    assert out["correction_work_per_step"] == pytest.approx(bound, rel=1e-12)
    assert out["energy_rise_max"] <= bound
    # at rest: the kinetic energy at the end is that of a speed below 2 cm/s
    assert out["final_kinetic_energy"] <= 0.5 * out["mass"] * 0.02 ** 2
    assert out["final_fastest_speed"] < 0.05
    # the penetration after 1 s, measured and bounded: a tenth of the
    # smallest body (1 cm)
    print(f"seed {seed}: penetration {out['max_penetration_after_settle']:.3g} m, "
          f"energy rise {out['energy_rise_max']:.3g} J of {bound:.3g} J, "
          f"{out['not_converged_steps']} steps not converged")
    assert 0.0 <= out["max_penetration_after_settle"] < 1e-3
