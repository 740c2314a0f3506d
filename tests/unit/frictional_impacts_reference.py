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
    poisson_counter_example()


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


def embedded_impact(M, rows, nt, v0, mu, e, law):
    """Contacts given by their rows (normal, tangents); a planar contact
    (nt = 1) gets a zero second tangent with W_oo = W_nn, as in the library
    (its impulse r_o is 0 at every solution)."""
    k = len(mu)
    H = []
    for c in range(k):
        H += [rows[c][0], rows[c][1], rows[c][2] if nt[c] == 2 else np.zeros(len(v0))]
    H = np.array(H, dtype=float)
    Minv_Ht = np.linalg.solve(M, H.T)
    W = H @ Minv_Ht
    W = 0.5 * (W + W.T)
    for c in range(k):
        if nt[c] == 1:
            W[3 * c + 2, 3 * c + 2] = W[3 * c, 3 * c]
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
        s = np.array([e[j] * y_c[3 * j] for j in range(k)])
        for v, combo in unique_velocity(Minv_Ht, vc, spatial_solutions(W, u + W @ y_c, mu, s),
                                        1e-8):
            out.append((v, (ccombo, combo)))
    return out, W, u


def poisson_counter_example():
    """Two planar contacts of a rigid body with e = (0.957, 0.063): Poisson's
    law with friction creates kinetic energy (a case of the random study)."""
    M = np.array([1.1308045248903507, 0, 0, 0, 0, 0, 0, 1.1308045248903507, 0, 0, 0, 0, 0, 0,
                  1.1308045248903507, 0, 0, 0, 0, 0, 0, 0.1673075446844593, -0.07255890167168777,
                  0.061089705091806501, 0, 0, 0, -0.072558901671687784, 0.24561792247008407,
                  -0.070202658652368966, 0, 0, 0, 0.061089705091806515, -0.070202658652368993,
                  0.28175531800058179]).reshape(6, 6)
    rows = [[[-0.31112917350701474, 0.93198973299915522, -0.18599401865921714,
              -0.16338271632324949, -0.064176804604140547, -0.048275711001329463],
             [-0.80951217888202598, -0.3624198082931242, -0.46188950496677239,
              0.13551658756676846, -0.16682833946405723, -0.10660652112662751], None],
            [[0.8124328307362696, 0.14842897795946666, -0.56384548773911469,
              -0.091788709538707866, 0.022261119741192756, -0.12639626886881827],
             [-0.42205207839232434, 0.8169232848155854, -0.39307555234437214,
              -0.16237037685848907, -0.12078063748882578, -0.07667676078367848], None]]
    v0 = np.array([0.24977934495907203, -1.6925727208650838, 1.2083828559645482,
                   1.4349709122834344, -0.8015289197898194, -0.9238366223927167])
    mu = [0.7878387230303739, 0.9637192905723198]
    for e in ([0.9566673954837791, 0.06284991520186622], [0.9566673954837791] * 2):
        sols, W, u = embedded_impact(M, rows, [1, 1], v0, mu, e, "poisson")
        report(f"poisson counter-example, e = {e}", M, v0, sols, W, u, mu)
        Tc = sum(0.5 * u[3 * j:3 * j + 3] @ np.linalg.solve(W[3 * j:3 * j + 3, 3 * j:3 * j + 3],
                                                          u[3 * j:3 * j + 3]) for j in range(2))
        print(f"  T_c = {Tc:.17g}")


if __name__ == "__main__":
    main()
