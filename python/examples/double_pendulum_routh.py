#!/usr/bin/env python3
"""The double pendulum of seed 000 (Sect. 4) hitting a rough floor, with
Routh's frictional impact law: the Python twin of
examples/double_pendulum_routh.c (same model, same stepper options).

Rod OA (m1, l1, I1) swings about O; body 2 (a rod of length l2 and a disk of
radius r; mass m2, centre of mass at lc from A, inertia I2) swings about A.
The floor lies at depth D below O; only the disk touches it. Coordinates
psi1, psi2 (0 = hanging down). The gap is f = D - l1 cos psi1 - (l2 + r)
cos psi2 - r (eq. 7), the normal row W_N = df/dpsi and the tangential row
W_T = -(l1 cos psi1, r + (l2 + r) cos psi2) (eqs. 32-33). Each impact is
classified again with the pure kernel nscd.routh_impact_ex (its case).
The paper counts 10 impacts in 6 s with mu = 0.15 and 6 with mu = 0.

usage: double_pendulum_routh.py [--mu 0.15] [--e 0.9] [--t-end 6]   (prints JSON)"""
import argparse
import json
import math
import os
import sys

try:
    import nscd
except ImportError:  # run from a source tree: the package next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import nscd

M1, M2, L1, L2, R, LC, I1, I2, D, G = 3.2, 3.8, 0.5, 0.6, 0.05, 0.3627, 6.76e-2, 0.164, 0.9, 9.81
Q0 = [140.0 * math.pi / 180.0, -math.pi / 2.0]
V0 = [1.2, -0.5]


def mass_matrix(q):
    """A of eq. 3, row-major."""
    a12 = L1 * LC * M2 * math.cos(q[0] - q[1])
    return [I1 + L1 * L1 * (M1 / 4.0 + M2), a12, a12, I2 + LC * LC * M2]


def forces(t, q, v):
    """Q of eq. 3 without torques and damping."""
    s12 = math.sin(q[0] - q[1])
    return [-L1 * LC * M2 * s12 * v[1] * v[1] - (M1 / 2.0 + M2) * G * L1 * math.sin(q[0]),
            L1 * LC * M2 * s12 * v[0] * v[0] - M2 * G * LC * math.sin(q[1])]


def rows(q):
    wn = [L1 * math.sin(q[0]), (L2 + R) * math.sin(q[1])]
    wt = [-L1 * math.cos(q[0]), -(R + (L2 + R) * math.cos(q[1]))]
    return wn, wt


def floor_contact(index, t, q):
    gap = D - L1 * math.cos(q[0]) - (L2 + R) * math.cos(q[1]) - R
    wn, wt = rows(q)
    return gap, wn, wt


def energy(q, v):
    """Kinetic plus potential energy (zero potential at the height of O)."""
    a = mass_matrix(q)
    kinetic = 0.5 * (a[0] * v[0] * v[0] + 2.0 * a[1] * v[0] * v[1] + a[3] * v[1] * v[1])
    potential = -M1 * G * 0.5 * L1 * math.cos(q[0]) - M2 * G * (L1 * math.cos(q[0])
                                                               + LC * math.cos(q[1]))
    return kinetic + potential


def solve_mass(q, b):
    a = mass_matrix(q)
    det = a[0] * a[3] - a[1] * a[2]
    return [(a[3] * b[0] - a[1] * b[1]) / det, (a[0] * b[1] - a[2] * b[0]) / det]


def routh_case(q, v_before, mu, e):
    """The impact again with the pure kernel: G = [W_T; W_N] A^-1 [W_T; W_N]'."""
    wn, wt = rows(q)
    mt, mn = solve_mass(q, wt), solve_mass(q, wn)
    g = [[wt[0] * mt[0] + wt[1] * mt[1], wt[0] * mn[0] + wt[1] * mn[1]],
         [wn[0] * mt[0] + wn[1] * mt[1], wn[0] * mn[0] + wn[1] * mn[1]]]
    u0 = [wt[0] * v_before[0] + wt[1] * v_before[1], wn[0] * v_before[0] + wn[1] * v_before[1]]
    result = nscd.routh_impact_ex(g, u0, mu, e)
    return nscd.routh_case_name(result.impact_case), result


def simulate(mu: float, e: float, t_end: float) -> dict:
    with nscd.ContactLaw.routh(e) as law, nscd.System(
            n_dof=2, n_contacts=1, mass=mass_matrix, forces=forces,
            contact=floor_contact) as pendulum:
        pendulum.set_contact(0, law, friction=mu, n_tangent=1)
        pendulum.set_state(0.0, Q0, V0)
        # Impacts accumulating near 6.955 s (mu = 0.15): called Zeno once 8
        # in a row come closer than 1 microsecond, as in the C example.
        with nscd.EventDriven(pendulum, zeno_policy=nscd.ZenoPolicy.PERSISTENT_CONTACT,
                              zeno_min_interval=1e-6) as stepper:
            stats = stepper.advance(t_end)
            events = stepper.events
        t, q, v = pendulum.state()
    impacts = []
    for ev in events:
        if ev.type != nscd.EventType.IMPACT:
            continue
        case, result = routh_case(ev.q, ev.v_before, mu, e)
        impacts.append({"t": ev.t, "energy_before": energy(ev.q, ev.v_before),
                        "energy_after": energy(ev.q, ev.v_after), "omega1": ev.v_after[0],
                        "omega2": ev.v_after[1], "case": case,
                        "impulse_t": result.impulse[0], "impulse_n": result.impulse[1]})
    return {"mu": mu, "e": e, "t_end": t_end, "method": "dopri5", "impacts": impacts,
            "n_impacts": len(impacts),
            "n_impacts_within_6s": sum(1 for i in impacts if i["t"] <= 6.0),
            "t_reached": t, "initial_energy": energy(Q0, V0), "final_energy": energy(q, v),
            "final_psi": list(q), "final_omega": list(v), "steps": stats.steps_accepted}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mu", type=float, default=0.15)
    parser.add_argument("--e", type=float, default=0.9)
    parser.add_argument("--t-end", type=float, default=6.0)
    args = parser.parse_args()
    print(json.dumps(simulate(args.mu, args.e, args.t_end)))


if __name__ == "__main__":
    main()
