#!/usr/bin/python3
"""Independent reference of seed 003's rigid slider-crank with a clearance
joint (Table 1 / Table 2, after Flores et al.), integrated by Moreau's
midpoint rule, for checking the library's time steppers against a
computation that shares no code with them.

Model (coordinates theta1 crank, theta2 rod, theta3 slider; SI units):
  crank of length l1 about the origin, rod of length l2 from the crank tip
  A to its tip B, slider centred at B with half-length a, half-height b,
  turned by theta3, in a horizontal guide of height d = 2 (b + c) centred on
  y = 0 (the paper does not give d; with this one every corner gap is c at
  theta = 0). Centres of mass at mid-length; mass matrix of Flores et al.
  (with Steiner's term m1 l1^2 / 4 for the crank):
      M11 = J1 + (m1/4 + m2 + m3) l1^2,  M12 = (m2/2 + m3) l1 l2 cos(theta2 - theta1),
      M22 = J2 + (m2/4 + m3) l2^2,       M33 = J3;
  forces h from Lagrange's equations (gyroscopic terms of M12), gravity
  along -y, a torque T on the crank (Table 2: 1 N m; Table 1: 0).
  Contacts: the two upper corners with the upper wall, g = (b + c) - y_k,
  and the two lower corners with the lower wall, g = y_k + (b + c);
  tangents along x. Newton's impact law with e_N per corner, e_T = 0,
  Coulomb friction mu.

Moreau's midpoint rule (Moreau 1988; Siconos' MoreauJeanOSI with theta = 1/2
and the forces at the midpoint): q_M = q + h/2 v; the contacts with
g(q_M) <= 0 take part; M(q_M) (v+ - v) = h h(q_M, v) + W' P (the
velocity-dependent forces at the step's start velocity: first order in
them, see the energy test) with the local
law on u = W v+ (normal: u_N + e_N u_N(v) >= 0 _|_ P_N >= 0; tangent:
Coulomb, sticking or sliding); q+ = q_M + h/2 v+. The local problem is
solved by projected Gauss-Seidel over the corners with an exact 2x2
solution per corner (stick, slide left, slide right).

With keep_loaded (--keep-loaded) the active set and the impact law are the
library's (docs/time_stepping.md): a corner that carried a normal impulse
P_N in the previous step stays active while g(q_M) <= h W_ee P_N (W_ee =
w_N M(q_M)^-1 w_N', the gap that impulse would close in one step), and the
restitution bias is e_N min(u_N(v), 0). Without it (default) a corner takes part only while
g(q_M) <= 0: the two rules differ by O(h) in the positions (a loaded corner
whose gap opens by curvature keeps u_N = 0 instead of bouncing).

usage: slider_crank.py [--case table1|table2|bilateral] [--dt DT] [--t-end T] [--keep-loaded]
prints JSON: samples every 1 ms, the final state, max penetration.
"""
import argparse
import json
import math

import numpy as np

L1, L2, A, B = 0.153, 0.306, 0.05, 0.025
M1, M2, M3 = 0.038, 0.038, 0.076
J1, J2, J3 = 7.4e-5, 5.9e-4, 2.7e-6
GRAVITY = 9.81

CASES = {
    "table1": dict(c=1e-3, torque=0.0, e_n=0.4, mu=0.01, v0=(150.0, -75.0, 0.0)),
    "table2": dict(c=5e-4, torque=1.0, e_n=0.1, mu=0.1, v0=(0.0, 0.0, 0.0)),
    # c = 0: a prismatic joint (bilateral), so e_N = 0. With e_N > 0 the redundant corner set
    # has no solution: a corner approaching its wall must separate at e_N |u_N|, its opposite
    # corner (normal row exactly the negative at theta3 = 0) must then approach its own wall.
    "bilateral": dict(c=0.0, torque=0.0, e_n=0.0, mu=0.01, v0=(150.0, -75.0, 0.0)),
}
CORNERS = [(+1, +1), (-1, +1), (+1, -1), (-1, -1)]  # (x sign, y sign): upper corners first


def mass(q):
    c12 = (M2 / 2 + M3) * L1 * L2 * math.cos(q[1] - q[0])
    return np.array([[J1 + (M1 / 4 + M2 + M3) * L1 ** 2, c12, 0.0],
                     [c12, J2 + (M2 / 4 + M3) * L2 ** 2, 0.0],
                     [0.0, 0.0, J3]])


def forces(q, v, torque):
    """h(q, v): gyroscopic terms of M12 (Lagrange), gravity, torque."""
    c = (M2 / 2 + M3) * L1 * L2 * math.sin(q[1] - q[0])
    g1 = -GRAVITY * L1 * math.cos(q[0]) * (M1 / 2 + M2 + M3)
    g2 = -GRAVITY * L2 * math.cos(q[1]) * (M2 / 2 + M3)
    return np.array([c * v[1] ** 2 + g1 + torque, -c * v[0] ** 2 + g2, 0.0])


def corner(q, k):
    """Position of corner k and its Jacobian d(x, y)/d(theta1, theta2, theta3)."""
    sx, sy = CORNERS[k]
    ox, oy = sx * A, sy * B
    c3, s3 = math.cos(q[2]), math.sin(q[2])
    x = L1 * math.cos(q[0]) + L2 * math.cos(q[1]) + c3 * ox - s3 * oy
    y = L1 * math.sin(q[0]) + L2 * math.sin(q[1]) + s3 * ox + c3 * oy
    J = np.array([[-L1 * math.sin(q[0]), -L2 * math.sin(q[1]), -s3 * ox - c3 * oy],
                  [L1 * math.cos(q[0]), L2 * math.cos(q[1]), c3 * ox - s3 * oy]])
    return np.array([x, y]), J


def contact(q, k, clearance):
    """Gap, normal row and tangential row of corner k."""
    p, J = corner(q, k)
    upper = CORNERS[k][1] > 0
    if upper:  # wall y = b + c above, normal -y
        return (B + clearance) - p[1], -J[1], J[0]
    return p[1] + (B + clearance), J[1], J[0]


def local_2x2(W, u_free, e_u, mu, P):
    """Exact solution of one corner's 2D problem for the other corners fixed:
    u = W P + u_free, u_N + e u_N^- >= 0 _|_ P_N >= 0, Coulomb on P_T."""
    w = u_free + np.array([e_u, 0.0])  # xi = u + e u^- on the normal row
    # separate: P = 0 if admissible
    if w[0] >= 0.0:
        return np.zeros(2)
    # stick: xi = 0
    try:
        Ps = np.linalg.solve(W, -w)
        if Ps[0] >= 0.0 and abs(Ps[1]) <= mu * Ps[0] * (1 + 1e-12):
            return Ps
    except np.linalg.LinAlgError:
        pass
    # slide: P_T = -s mu P_N, xi_N = 0, s = sign of the sliding velocity
    for s in (1.0, -1.0):
        a = W[0, 0] - s * mu * W[0, 1]
        if a <= 0.0:
            continue
        pn = -w[0] / a
        if pn < 0.0:
            continue
        ut = W[1, 0] * pn - s * mu * W[1, 1] * pn + w[1]
        if s * ut >= -1e-14 * (abs(w[1]) + 1.0):
            return np.array([pn, -s * mu * pn])
    return P  # no candidate (ill-posed): keep the previous iterate


def solve_local(W, u_free, e_u, mu, tol=1e-12, max_sweeps=10000):
    """Projected Gauss-Seidel over corners, 2x2 blocks of W (2k x 2k)."""
    k = len(u_free) // 2
    P = np.zeros(2 * k)
    for sweep in range(max_sweeps):
        change = 0.0
        for j in range(k):
            s = slice(2 * j, 2 * j + 2)
            u_other = u_free[s] + W[s] @ P - W[s, s] @ P[s]
            new = local_2x2(W[s, s], u_other, e_u[j], mu, P[s])
            change = max(change, float(np.max(np.abs(new - P[s]))))
            P[s] = new
        if change <= tol * (1.0 + float(np.max(np.abs(P)))):
            return P, sweep + 1
    raise RuntimeError("local solver did not converge")


def step(q, v, h, case, loaded=None):
    """One step; `loaded` (the 4 corners' last normal impulses, updated) switches
    on the library's active set."""
    clearance, e_n, mu = case["c"], case["e_n"], case["mu"]
    q_mid = q + 0.5 * h * v
    M = mass(q_mid)
    v_free = v + h * np.linalg.solve(M, forces(q_mid, v, case["torque"]))
    rows, e_u, corners = [], [], []
    penetration = 0.0
    for k in range(4):
        g, wn, wt = contact(q_mid, k, clearance)
        penetration = max(penetration, -g)
        kept = loaded is not None and loaded[k] > 0.0 and g <= h * (wn @ np.linalg.solve(M, wn)) * loaded[k]
        if g <= 0.0 or kept:
            rows += [wn, wt]
            u = float(wn @ v)
            e_u.append(e_n * (u if loaded is None else min(u, 0.0)))
            corners.append(k)
    P = np.zeros(0)
    if not rows:
        v1 = v_free
        active = 0
    else:
        H = np.array(rows)
        Minv_Ht = np.linalg.solve(M, H.T)
        W = H @ Minv_Ht
        P, _ = solve_local(W, H @ v_free, np.array(e_u), mu)
        v1 = v_free + Minv_Ht @ P
        active = len(e_u)
    if loaded is not None:
        loaded[:] = [0.0] * 4
        for j, k in enumerate(corners):
            loaded[k] = max(float(P[2 * j]), 0.0)
    return q_mid + 0.5 * h * v1, v1, active, penetration


def simulate(case_name, dt, t_end, sample=1e-3, keep_loaded=False):
    case = CASES[case_name]
    q, v = np.zeros(3), np.array(case["v0"], dtype=float)
    steps = int(round(t_end / dt))
    every = max(1, int(round(sample / dt)))
    samples = [{"t": 0.0, "q": q.tolist(), "v": v.tolist()}]
    max_penetration, with_contact = 0.0, 0
    loaded = [0.0] * 4 if keep_loaded else None
    for i in range(1, steps + 1):
        q, v, active, penetration = step(q, v, dt, case, loaded)
        max_penetration = max(max_penetration, penetration)
        with_contact += active > 0
        if i % every == 0:
            samples.append({"t": i * dt, "q": q.tolist(), "v": v.tolist()})
    return {"case": case_name, "scheme": "moreau_midpoint", "dt": dt, "samples": samples,
            "final": {"t": steps * dt, "q": q.tolist(), "v": v.tolist()},
            "max_penetration": max_penetration, "steps_with_contact": with_contact}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--case", default="table1", choices=sorted(CASES))
    p.add_argument("--dt", type=float, default=1e-5)
    p.add_argument("--t-end", type=float, default=0.05)
    p.add_argument("--keep-loaded", action="store_true",
                   help="the library's active set: loaded corners stay active")
    args = p.parse_args()
    print(json.dumps(simulate(args.case, args.dt, args.t_end, keep_loaded=args.keep_loaded)))


if __name__ == "__main__":
    main()
