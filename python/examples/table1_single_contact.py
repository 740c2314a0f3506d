#!/usr/bin/env python3
"""The academic single-contact problem of seed 002, Sect. 4.1 (Table 1): a
rigid body of six point masses hits an inclined plane. The impulsive Coulomb
law has three sliding solutions; the maximum-dissipation impulse is unique and
dissipates more. The Python twin of examples/mdp_single_contact.c.

The single-contact kernels use u = A x - b (A the 3x3 Delassus block, x the
impulse, normal first); fc3d uses u = W r + q, i.e. W = A and q = -b.

usage: table1_single_contact.py [--mu 3.7]   (prints JSON)"""
import argparse
import json
import math
import os
import sys

import numpy as np

try:
    import nscd
except ImportError:  # run from a source tree: the package next to this directory
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    import nscd


def dot3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross3(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def table1_problem():
    """A = Q'((2(mx+my+mz))^-1 E - dx^2 ex^x I^-1 ex^x) Q, b = Q' v with the
    contact frame Q = [n t o], t = n x e_x, o = n x t (as written, unnormalised).
    Plain floats in the C example's order of operations: the same bits."""
    dx, dy, dz, mx, my, mz = 10.0, 1.0, 1.0, 0.03, 65.0, 50.0
    nh, v = [0.25, 0.36, -0.9], [0.06, 0.7, 0.23]
    nn = math.sqrt(dot3(nh, nh))
    n = [x / nn for x in nh]
    t = cross3(n, [1.0, 0.0, 0.0])
    o = cross3(n, t)
    iy, iz = 2 * (mx * dx * dx + mz * dz * dz), 2 * (mx * dx * dx + my * dy * dy)
    minv = 1.0 / (2 * (mx + my + mz))
    m = [minv, minv + dx * dx / iz, minv + dx * dx / iy]  # diagonal in world axes
    q = [n, t, o]  # rows: the contact frame
    A = np.array([[q[i][0] * m[0] * q[j][0] + q[i][1] * m[1] * q[j][1] + q[i][2] * m[2] * q[j][2]
                   for j in range(3)] for i in range(3)])
    return A, np.array([dot3(q[i], v) for i in range(3)])


def solution(A, b, x):
    u = A @ x - b
    return {"x": x.tolist(), "u": u.tolist(), "objective": float(0.5 * (x @ u - x @ b))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mu", type=float, default=3.7)
    args = parser.parse_args()
    A, b = table1_problem()
    x_mdp = nscd.mdp_single_contact(A, b, args.mu)
    coulomb = nscd.coulomb_single_contact_all(A, b, args.mu)
    x_newton, info = nscd.coulomb_single_contact(A, b, args.mu)
    # The same impulse from fc3d with one contact: W = A, q = -b.
    r, u, _ = nscd.fc3d_solve(A, -b, [args.mu], friction_law=nscd.Fc3dFrictionLaw.MAX_DISSIPATION,
                              tolerance=1e-14)
    s = np.hypot(A[0, 1], A[0, 2])
    conic = "ellipse" if A[0, 0] > args.mu * s else (
        "parabola" if A[0, 0] == args.mu * s else "hyperbola")
    mdp = solution(A, b, x_mdp)
    print(json.dumps({
        "example": "table1_single_contact", "mu": args.mu, "conic": conic,
        "A": A.reshape(-1).tolist(), "b": b.tolist(),
        "mdp_solution": mdp["x"], "mdp_velocity": mdp["u"], "objective": mdp["objective"],
        "coulomb_solutions": [solution(A, b, x) for x in coulomb],
        "coulomb_newton": solution(A, b, x_newton), "newton_iterations": info.iterations,
        "fc3d_max_dissipation": r.tolist(),
        "paper": {"mdp_solution": [1.6, -1.1, -5.8], "objective": -0.634,
                  "coulomb_objectives": [-0.252, -0.393, -0.631]}}))


if __name__ == "__main__":
    main()
