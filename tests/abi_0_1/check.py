"""Checks the outputs of the 0.1.0 example programs run against this build
(tests/abi_0_1/run.sh) by the physics each one computes."""
import json
import math
import sys

work = sys.argv[1]


def load(name):
    with open(f"{work}/{name}.json") as f:
        return json.load(f)


failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


# A ball dropped from 1 m with e = 0.8: impact times in closed form.
ball = load("bouncing_ball")
check(len(ball["impacts"]) > 10, "bouncing_ball: too few impacts")
for k, imp in enumerate(ball["impacts"]):
    check(abs(imp["t"] - imp["t_analytic"]) <= 1e-8 * max(1.0, imp["t_analytic"]),
          f"bouncing_ball: impact {k} at {imp['t']} against {imp['t_analytic']}")
    e = ball["parameters"]["e"]
    check(abs(imp["v_after"] + e * imp["v_before"]) <= 1e-9 * abs(imp["v_before"]),
          f"bouncing_ball: impact {k} does not follow Newton's law")

# Seed 000's double pendulum with mu = 0.15: the paper's 10 impacts in 6 s,
# and no impact gains energy.
pendulum = load("double_pendulum_routh")
check(pendulum["status"] == "ok",
      f"double_pendulum_routh: status {pendulum['status']}, outcome {pendulum['outcome']}")
check(pendulum["n_impacts_within_6s"] == 10,
      f"double_pendulum_routh: {pendulum['n_impacts_within_6s']} impacts in 6 s, the paper has 10")
for k, imp in enumerate(pendulum["impacts"]):
    check(imp["energy_after"] <= imp["energy_before"] * (1 + 1e-12),
          f"double_pendulum_routh: impact {k} gains energy")

# Painlevé's rod: the critical friction of the closed form, 4/3.
rod = load("painleve_rod")
check(math.isclose(rod["mu_star_min"], 4.0 / 3.0, rel_tol=1e-12),
      f"painleve_rod: mu*_min {rod['mu_star_min']}")
check(rod["n_cases"] > 0 and rod["max_error"] < 1e-9, f"painleve_rod: max error {rod['max_error']}")

# Two pendulums: three contact models each find the impact.
pendulums = load("two_pendulums")
for model in pendulums["models"]:
    check(len(model["impacts"]) > 0, f"two_pendulums: {model['name']} found no impact")

# The maximum-dissipation single contact of seed 002's Table 1: the impulse
# is admissible (x_n >= 0, |x_t| <= mu x_n) and the velocity u_n >= 0.
mdp = load("mdp_single_contact")
x = mdp["mdp_solution"]
mu = mdp["mu"]
check(x[0] >= 0 and math.hypot(x[1], x[2]) <= mu * x[0] * (1 + 1e-12) + 1e-15,
      f"mdp_single_contact: impulse {x} outside the cone")
check(mdp["mdp_velocity"][0] >= -1e-12, f"mdp_single_contact: u_n {mdp['mdp_velocity'][0]}")

if failures:
    print("\n".join(failures), file=sys.stderr)
    sys.exit(1)
print("abi_0_1: 5 programs built against the 0.1.0 headers run and check out")
