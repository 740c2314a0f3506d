#!/usr/bin/python3
"""Independent reference solutions for tests/unit/test_impact_friction.c.

Nothing here shares code or method with the library: planar frictional
impacts are solved by exhaustive enumeration of the open / stick / slip cases
of every contact, each case a set of linear equalities and inequalities in
the impulses whose feasibility is decided by a linear program (scipy's
linprog), so that rank-deficient Delassus matrices (two corners of one rigid
body) are handled exactly; spatial impacts by enumerating open / stick /
slide with the slip angle as an unknown (scipy's fsolve from many starts).
Every solution found is reported; the tests use problems whose
post-impact velocity is unique.

Laws (docs/frictional_impacts.md):
  Newton (Moreau):  r solves Coulomb on xi = W r + q, q = u- + e min(u-_n, 0);
  Poisson (Pfeiffer-Glocker): P_c solves Coulomb on u- (e = 0), u_c = u- + W P_c,
  P_e solves Coulomb on u_c with P_e,n >= e P_c,n (complementary to u+_n >= 0,
  friction bound mu P_e,n); r = P_c + P_e.

Run:  /usr/bin/python3 tests/unit/frictional_impacts_reference.py
It prints the numbers pasted into the C test.
"""
import itertools
import math

import numpy as np
from scipy.optimize import fsolve, linprog

np.set_printoptions(precision=17)


# ----------------------------------------------------------------- planar case
def planar_solutions(W, q, mu, s):
    """All solutions y (2 per contact: normal, tangent) of the planar Coulomb
    problem with lower bounds s of the normal impulses, xi = W y + q."""
    k = len(mu)
    modes = []
    for j in range(k):
        if mu[j] == 0.0:
            modes.append(["bound", "active"])
        elif s[j] == 0.0:
            modes.append(["open", "stick", "slide+", "slide-"])
        else:
            modes.append(["bound-stick", "bound-slide+", "bound-slide-", "stick", "slide+",
                          "slide-"])
    found = []
    for combo in itertools.product(*modes):
        Aeq, beq, Aub, bub = [], [], [], []

        def eq(row, rhs):
            Aeq.append(row), beq.append(rhs)

        def ge(row, rhs):  # row . y >= rhs
            Aub.append(-np.asarray(row)), bub.append(-rhs)

        for j, mode in enumerate(combo):
            n, t = 2 * j, 2 * j + 1
            e_n = np.zeros(2 * k); e_n[n] = 1.0
            e_t = np.zeros(2 * k); e_t[t] = 1.0
            xi_n, xi_t = W[n], W[t]  # xi = W y + q
            if mu[j] == 0.0:
                eq(e_t, 0.0)
                if mode == "bound":
                    eq(e_n, s[j]); ge(xi_n, -q[n])
                else:
                    eq(xi_n, -q[n]); ge(e_n, s[j])
                continue
            if mode == "open":
                eq(e_n, 0.0); eq(e_t, 0.0); ge(xi_n, -q[n])
                continue
            bound = mode.startswith("bound")
            kind = mode.split("-")[-1] if bound else mode
            if bound:
                eq(e_n, s[j]); ge(xi_n, -q[n])
            else:
                eq(xi_n, -q[n]); ge(e_n, s[j])
            if kind == "stick":
                eq(xi_t, -q[t])
                ge(mu[j] * e_n - e_t, 0.0); ge(mu[j] * e_n + e_t, 0.0)
            else:
                d = 1.0 if kind == "slide+" else -1.0
                eq(e_t + d * mu[j] * e_n, 0.0)
                ge(d * xi_t, -d * q[t])
        res = linprog(np.zeros(2 * k), A_ub=np.array(Aub) if Aub else None,
                      b_ub=np.array(bub) if bub else None, A_eq=np.array(Aeq),
                      b_eq=np.array(beq), bounds=[(None, None)] * (2 * k), method="highs")
        if res.status == 0:
            found.append((combo, res.x))
    return found


def unique_velocity(Minv_Ht, v0, sols, tol=1e-9):
    vs = []
    for combo, y in sols:
        v = v0 + Minv_Ht @ y
        if not any(np.max(np.abs(v - w)) < tol * (1 + np.max(np.abs(w))) for w, _ in vs):
            vs.append((v, combo))
    return vs


def planar_impact(M, H, v0, mu, e, law):
    """H: 2k x n rows (normal, tangent per contact)."""
    k = len(mu)
    Minv_Ht = np.linalg.solve(M, H.T)
    W = H @ Minv_Ht
    W = 0.5 * (W + W.T)
    u = H @ v0
    if law == "newton":
        q = u.copy()
        for j in range(k):
            q[2 * j] += e[j] * min(u[2 * j], 0.0)
        sols = planar_solutions(W, q, mu, np.zeros(k))
        out = []
        for v, combo in unique_velocity(Minv_Ht, v0, sols):
            out.append((v, combo))
        return out, W, u
    out = []
    comp = planar_solutions(W, u, mu, np.zeros(k))
    for vc, ccombo in unique_velocity(Minv_Ht, v0, comp):
        # the compression impulse of this velocity (any of the case's family)
        y_c = [y for c, y in comp if c == ccombo][0]
        uc = u + W @ y_c
        s = np.array([e[j] * y_c[2 * j] for j in range(k)])
        exp = planar_solutions(W, uc, mu, s)
        for v, combo in unique_velocity(Minv_Ht, vc, exp):
            out.append((v, (ccombo, combo)))
    return out, W, u


# -------------------------------------------------- the planar rigid block
def block_rows(theta, corners):
    """Rows [normal; tangent] of corners (body frame) of a planar body with
    q = (x, y, theta): gap = y + p_y, normal row (0, 1, p_x), tangent row
    (1, 0, -p_y) (velocity of the corner along +x)."""
    c, s = math.cos(theta), math.sin(theta)
    rows = []
    for (rx, ry) in corners:
        px, py = c * rx - s * ry, s * rx + c * ry
        rows.append([0.0, 1.0, px])
        rows.append([1.0, 0.0, -py])
    return np.array(rows)


def kinetic(M, v):
    return 0.5 * v @ M @ v


def report(name, M, v0, sols, W, u, mu):
    print(f"--- {name}: u- = {np.array2string(u, separator=', ')}")
    for v, combo in sols:
        dT = kinetic(M, v) - kinetic(M, v0)
        print(f"  cases {combo}, dT = {dT:.17g}")
        print("  v+ = {" + ", ".join(f"{x:.17g}" for x in v) + "}")
    if len(sols) != 1:
        print("  !!", len(sols), "distinct solutions")


def main():
    # block: m = 1, half sizes a = 0.5, b = 0.2, I = m (4a^2 + 4b^2) / 12
    m, a, b = 1.0, 0.5, 0.2
    inertia = m * (4 * a * a + 4 * b * b) / 12.0
    M = np.diag([m, m, inertia])
    corners = [(-a, -b), (a, -b)]

    # one corner of the block tilted by 0.6 rad
    H1 = block_rows(0.6, corners[:1])
    for name, v0, mu, e in [("single sliding newton", [1.0, -2.0, 0.5], [0.2], [0.5]),
                            ("single sticking newton", [0.3, -2.0, 0.5], [1.5], [0.0]),
                            ("single sticking newton gains energy", [0.75, -2.0, 3.0], [1.5],
                             [1.0])]:
        sols, W, u = planar_impact(M, H1, np.array(v0), mu, e, "newton")
        report(name, M, np.array(v0), sols, W, u, mu)

    # two corners: the block tilted by 0.3 rad landing on a step (the corners
    # at different heights), and the flat block (theta = 0) with a spin
    cases = [("step newton stick/slide", 0.3, [-1.5, -1.0, -2.0], 1.0, [0.5, 0.5], "newton"),
             ("step newton slide/slide", 0.3, [-0.5, -1.0, -2.0], 0.5, [0.5, 0.5], "newton"),
             ("step newton slide/open", 0.3, [-2.0, -1.0, 1.0], 1.0, [0.5, 0.5], "newton"),
             ("flat newton slide", 0.0, [2.0, -1.0, 0.8], 0.2, [0.5, 0.5], "newton"),
             ("flat newton stick", 0.0, [0.4, -1.0, 0.8], 0.9, [0.0, 0.0], "newton"),
             ("step poisson", 0.3, [-1.5, -1.0, -2.0], 1.0, [0.6, 0.3], "poisson"),
             ("step poisson", 0.3, [-0.5, -1.0, 1.5], 0.5, [0.6, 0.3], "poisson"),
             ("step poisson", 0.3, [0.5, -1.0, 1.5], 0.2, [0.6, 0.3], "poisson"),
             ("flat poisson stick", 0.0, [0.4, -1.0, 0.8], 0.9, [0.5, 0.5], "poisson")]
    for name, theta, v0, mu, e, law in cases:
        sols, W, u = planar_impact(M, block_rows(theta, corners), np.array(v0), [mu, mu], e,
                                   law)
        report(f"{name} (theta {theta}, mu {mu}, e {e})", M, np.array(v0), sols, W, u, mu)

    spatial_main()


# ---------------------------------------------------------------- spatial case
def spatial_rows(points):
    """Rigid body with v = (velocity of the centre, angular velocity), floor
    z = 0: normal row (0,0,1, p_y,-p_x,0), tangents along x and y."""
    rows = []
    for (px, py, pz) in points:
        rows.append([0, 0, 1, py, -px, 0])
        rows.append([1, 0, 0, 0, pz, -py])
        rows.append([0, 1, 0, -pz, 0, px])
    return np.array(rows, dtype=float)


def spatial_solutions(W, q, mu, s):
    """Coulomb with lower bounds s (3 per contact); modes open/bound, stick,
    slide (angle unknown), bound-stick, bound-slide."""
    k = len(mu)
    modes = []
    for j in range(k):
        modes.append(["open", "stick", "slide"] if s[j] == 0.0 else
                     ["bound-stick", "bound-slide", "stick", "slide"])
    sols = []
    for combo in itertools.product(*modes):
        # unknowns: y (3k), per sliding contact: angle phi and speed lam
        sl = [j for j in range(k) if combo[j].endswith("slide")]
        nx = 3 * k + 2 * len(sl)

        def F(x):
            y = x[:3 * k]
            xi = W @ y + q
            res = []
            for j, mode in enumerate(combo):
                n = 3 * j
                if mode == "open":
                    res += [y[n], y[n + 1], y[n + 2]]
                    continue
                res.append(y[n] - s[j] if mode.startswith("bound") else xi[n])
                if mode.endswith("stick"):
                    res += [xi[n + 1], xi[n + 2]]
                else:
                    i = sl.index(j)
                    phi, lam = x[3 * k + 2 * i], x[3 * k + 2 * i + 1]
                    w = np.array([math.cos(phi), math.sin(phi)])
                    res += list(y[n + 1:n + 3] + mu[j] * y[n] * w)
                    res += list(xi[n + 1:n + 3] - lam * w)
            return np.array(res)

        # the sliding blocks add 2 equations each (y_t and xi_t are 2-vectors)
        for start in range(24):
            rng = np.random.default_rng(start)
            x0 = np.concatenate([rng.normal(size=3 * k),
                                 np.ravel([[rng.uniform(0, 2 * math.pi), rng.uniform(0, 2)]
                                           for _ in sl])]) if sl else rng.normal(size=3 * k)
            f = lambda x: np.concatenate([F(x), np.zeros(max(0, nx - len(F(x))))])
            x, info, ier, msg = fsolve(f, x0, full_output=True, xtol=1e-14)
            if ier != 1 or np.max(np.abs(F(x))) > 1e-11:
                continue
            y = x[:3 * k]
            xi = W @ y + q
            ok = True
            for j, mode in enumerate(combo):
                n = 3 * j
                tol = 1e-9
                if mode == "open":
                    ok &= xi[n] >= -tol
                    continue
                ok &= y[n] >= s[j] - tol
                if mode.startswith("bound"):
                    ok &= xi[n] >= -tol
                if mode.endswith("stick"):
                    ok &= math.hypot(y[n + 1], y[n + 2]) <= mu[j] * y[n] + tol
                else:
                    ok &= x[3 * k + 2 * sl.index(j) + 1] >= -tol
            if ok:
                sols.append((combo, y))
    return sols


def spatial_impact(M, H, v0, mu, e, law):
    k = len(mu)
    Minv_Ht = np.linalg.solve(M, H.T)
    W = H @ Minv_Ht
    W = 0.5 * (W + W.T)
    u = H @ v0
    if law == "newton":
        q = u.copy()
        for j in range(k):
            q[3 * j] += e[j] * min(u[3 * j], 0.0)
        return unique_velocity(Minv_Ht, v0, spatial_solutions(W, q, mu, np.zeros(k)), 1e-8), W, u
    out = []
    comp = spatial_solutions(W, u, mu, np.zeros(k))
    for vc, ccombo in unique_velocity(Minv_Ht, v0, comp, 1e-8):
        y_c = [y for c, y in comp if c == ccombo][0]
        uc = u + W @ y_c
        s = np.array([e[j] * y_c[3 * j] for j in range(k)])
        for v, combo in unique_velocity(Minv_Ht, vc, spatial_solutions(W, uc, mu, s), 1e-8):
            out.append((v, (ccombo, combo)))
    return out, W, u


def spatial_main():
    # a box (m = 2, half sizes 0.4, 0.25, 0.15) whose two corners touch the floor
    m = 2.0
    hx, hy, hz = 0.4, 0.25, 0.15
    I = np.diag([m * (hy**2 + hz**2) / 3, m * (hx**2 + hz**2) / 3, m * (hx**2 + hy**2) / 3])
    M = np.zeros((6, 6)); M[:3, :3] = m * np.eye(3); M[3:, 3:] = I
    points = [(-hx, -hy, -hz), (hx, hy * 0.2, -hz)]
    H = spatial_rows(points)
    for name, v0, mu, e, law in [
            ("spatial newton", [0.7, -0.4, -1.0, 0.3, -0.5, 0.9], [0.3, 0.3], [0.4, 0.4], "newton"),
            ("spatial poisson", [0.7, -0.4, -1.0, 0.3, -0.5, 0.9], [0.3, 0.3], [0.4, 0.4],
             "poisson"),
            ("spatial newton stick", [0.2, -0.1, -1.0, 0.3, -0.5, 0.2], [1.0, 0.8], [0.0, 0.0],
             "newton")]:
        sols, W, u = spatial_impact(M, H, np.array(v0), mu, e, law)
        report(name, M, np.array(v0), sols, W, u, mu)


if __name__ == "__main__":
    main()
