#!/usr/bin/python3
"""Independent reference for the model problem of seed 003 (eq. 91): the
exact modal solution and plain numpy implementations of the base schemes, so
that the library's time steppers (issue "time stepping of seed 003") can be
checked against a computation that shares no code with them.

The 3-dof chain: unit masses, k1 = k2 = k3 = 1 N/m, gravity gamma = 9.81
along the chain, released from rest at q = 0:
  model (a): mass 3 on a stiff spring k0 = 1e7 N/m;
  model (b): mass 3 held at q3 = 0 by a bilateral constraint (the 2-dof
             chain of masses 1 and 2; lambda = -(m3 gamma + k3 q2) holds mass 3).

Schemes (linear, constraint-free forms; for model (b) they run on the
reduced 2-dof system, i.e. with the constraint eliminated exactly):
  generalized-alpha, Arnold and Bruls' form as in seed 003 eqs. (20)-(25):
      M a_{n+1} + K q_{n+1} = f,
      (1 - am) A_{n+1} + am A_n = (1 - af) a_{n+1} + af a_n,
      q_{n+1} = q_n + h v_n + h^2 ((1/2 - beta) A_n + beta A_{n+1}),
      v_{n+1} = v_n + h ((1 - gamma) A_n + gamma A_{n+1}),
      am = (2 rho - 1)/(rho + 1), af = rho/(rho + 1),
      gamma = 1/2 - am + af, beta = (1 - am + af)^2 / 4        (eq. 55);
  Bathe (2005): trapezoidal rule over h/2, then the three-point backward
      difference over [t_n, t_n + h/2, t_{n+1}];
  ED-alpha, from its defining equations (77)-(84) (alpha_AR = 1/6), and in
      the paper's condensed velocity form (86)-(90) with the corrected c_7,
      c_14 (the printed ones carry a spurious 1/dt);
  Moreau-Jean theta (Siconos' MoreauJeanOSI with K given): the forces are
      the theta-mean of the step ends, linearised,
      v_{n+1} = v_n + h M^-1 (f - K (q_n + theta (q_{n+1} - q_n))),
      q_{n+1} = q_n + h ((1 - theta) v_n + theta v_{n+1});
  Moreau's midpoint rule: q_M = q_n + h/2 v_n, v_{n+1} = v_n + h M^-1 f(q_M),
      q_{n+1} = q_M + h/2 v_{n+1} (explicit in the forces);
  half-explicit time stepping (HETS, the library's variant of Schindler and
      Acary's scheme, docs/time_stepping.md): Heun's trapezoid on the
      velocities, the trapezoid of the end velocities on the positions,
      a_1 = M^-1 (f - K q_n - C v_n), Q_2 = q_n + h v_n, V_2 = v_n + h a_1,
      a_2 = M^-1 (f - K Q_2 - C V_2), v_{n+1} = v_n + h/2 (a_1 + a_2),
      q_{n+1} = q_n + h/2 (v_n + v_{n+1}) (explicit; with C = 0 it is the
      midpoint rule's map, stable for omega h <= 2 only).
Each is written as the linear map X_{n+1} = A X_n + c of its state, built
by applying one step to unit states: the same map gives the amplification
matrix for the spectral radius and the relative period error of a single
oscillator (Omega = omega h), which seed 003 prints wrongly for Bathe
(eq. 106).

usage: model_problem.py [--json]   prints errors, observed orders and
                                   spectral radii; --json as one object
"""
import json
import sys

import numpy as np

GAMMA = 9.81
K0 = 1e7


def chain(model):
    """M, K, f of model (a) (3 dofs) or (b) (2 dofs, q3 = 0 eliminated)."""
    k1 = k2 = k3 = 1.0
    if model == "a":
        K = np.array([[k1 + k2, -k2, 0.0], [-k2, k2 + k3, -k3], [0.0, -k3, k3 + K0]])
        return np.eye(3), K, GAMMA * np.ones(3)
    K = np.array([[k1 + k2, -k2], [-k2, k2 + k3]])
    return np.eye(2), K, GAMMA * np.ones(2)


def exact(model, t):
    """q(t) of the chain released from rest at q = 0 (modal superposition)."""
    M, K, f = chain(model)
    q_static = np.linalg.solve(K, f)
    w2, phi = np.linalg.eigh(K)  # M = I: mass-normalised modes
    omega = np.sqrt(w2)
    modal = phi.T @ q_static
    return q_static - phi @ (modal * np.cos(omega * t))


def constraint_force(t):
    """lambda(t) of model (b): the force that holds mass 3 at q3 = 0."""
    q = exact("b", t)
    return -(GAMMA + 1.0 * q[1])


def gen_alpha_step(M, K, f, h, rho):
    am = (2.0 * rho - 1.0) / (rho + 1.0)
    af = rho / (rho + 1.0)
    gamma = 0.5 - am + af
    beta = 0.25 * (1.0 - am + af) ** 2
    n = len(f)
    Minv = np.linalg.inv(M)

    def step(X):
        q, v, a, A = X[:n], X[n:2 * n], X[2 * n:3 * n], X[3 * n:]
        # unknown A1: a1 = ((1 - am) A1 + am A - af a)/(1 - af), q1 from A1
        q_known = q + h * v + h * h * (0.5 - beta) * A
        # M a1 + K (q_known + h^2 beta A1) = f, a1 = ((1-am) A1 + am A - af a)/(1-af)
        lhs = M * (1.0 - am) / (1.0 - af) + K * h * h * beta
        rhs = f - K @ q_known - M @ ((am * A - af * a) / (1.0 - af))
        A1 = np.linalg.solve(lhs, rhs)
        a1 = ((1.0 - am) * A1 + am * A - af * a) / (1.0 - af)
        q1 = q_known + h * h * beta * A1
        v1 = v + h * ((1.0 - gamma) * A + gamma * A1)
        return np.concatenate([q1, v1, a1, A1])

    def start(q0, v0):
        a0 = Minv @ (f - K @ q0)
        return np.concatenate([q0, v0, a0, a0])  # eq. (25): A_0 = a_0

    return step, start


def bathe_step(M, K, f, h):
    n = len(f)
    Minv = np.linalg.inv(M)

    def step(X):
        q, v, a = X[:n], X[n:2 * n], X[2 * n:]
        s = h / 2.0  # trapezoidal rule over h/2
        # q_m = q + s/2 (v + v_m), v_m = v + s/2 (a + a_m), M a_m + K q_m = f
        lhs = M + K * (s * s / 4.0)
        rhs = f - K @ (q + s * v + s * s / 4.0 * a)
        a_m = np.linalg.solve(lhs, rhs)
        v_m = v + s / 2.0 * (a + a_m)
        q_m = q + s / 2.0 * (v + v_m)
        # three-point backward differences: v1 = (q - 4 q_m + 3 q1)/h,
        # a1 = (v - 4 v_m + 3 v1)/h, M a1 + K q1 = f
        c = 3.0 / h
        # v1 = c q1 + (q - 4 q_m)/h ; a1 = c v1 + (v - 4 v_m)/h
        dv = (q - 4.0 * q_m) / h
        da = (v - 4.0 * v_m) / h
        lhs = M * c * c + K
        rhs = f - M @ (c * dv + da)
        q1 = np.linalg.solve(lhs, rhs)
        v1 = c * q1 + dv
        a1 = c * v1 + da
        return np.concatenate([q1, v1, a1])

    def start(q0, v0):
        return np.concatenate([q0, v0, Minv @ (f - K @ q0)])

    return step, start


def moreau_jean_step(M, K, f, h, theta):
    """Siconos' MoreauJeanOSI for a linear force f - K q: the forces are the
    theta-weighted mean of the step ends, f - K (q_n + theta (q_{n+1} - q_n)),
    with q_{n+1} - q_n = h ((1 - theta) v_n + theta v_{n+1})."""
    n = len(f)

    def step(X):
        q, v = X[:n], X[n:]
        lhs = M + K * (h * h * theta * theta)
        rhs = M @ v + h * (f - K @ (q + h * theta * (1.0 - theta) * v))
        v1 = np.linalg.solve(lhs, rhs)
        q1 = q + h * ((1.0 - theta) * v + theta * v1)
        return np.concatenate([q1, v1])

    def start(q0, v0):
        return np.concatenate([q0, v0])

    return step, start


def moreau_midpoint_step(M, K, f, h):
    """Moreau's midpoint rule: q_M = q_n + h/2 v_n, the forces at q_M,
    q_{n+1} = q_M + h/2 v_{n+1}: explicit in the forces, stable for
    omega h <= 2 only."""
    n = len(f)
    Minv = np.linalg.inv(M)

    def step(X):
        q, v = X[:n], X[n:]
        q_mid = q + 0.5 * h * v
        v1 = v + h * (Minv @ (f - K @ q_mid))
        return np.concatenate([q_mid + 0.5 * h * v1, v1])

    def start(q0, v0):
        return np.concatenate([q0, v0])

    return step, start


def hets_step(M, K, f, h, C=None):
    """HETS in smooth phases (no contact): explicit stages, so unstable for
    omega h > 2; C is an optional damping matrix (the chain has none)."""
    n = len(f)
    Minv = np.linalg.inv(M)
    C = np.zeros((n, n)) if C is None else C

    def step(X):
        q, v = X[:n], X[n:]
        a1 = Minv @ (f - K @ q - C @ v)
        Q2, V2 = q + h * v, v + h * a1
        a2 = Minv @ (f - K @ Q2 - C @ V2)
        v1 = v + 0.5 * h * (a1 + a2)
        return np.concatenate([q + 0.5 * h * (v + v1), v1])

    def start(q0, v0):
        return np.concatenate([q0, v0])

    return step, start


def ed_alpha_parameters(rho):
    """alpha and alpha_AR of eq. (84)."""
    return (1.0 - rho) / (1.0 + rho), 1.0 / 6.0


def ed_alpha_step(M, K, f, h, rho, alpha_ar=None):
    """ED-alpha straight from its defining equations (77)-(82) (C = 0): the
    stage j = i+ and the step end i+1 share the unknowns (a_j, a_{i+1}),
    on which v_j, v_{i+1} (79, 80) and q_j, q_{i+1} (81, 82) depend
    affinely; (77) and (78) are then one linear system of 2 n equations."""
    alpha, ar = ed_alpha_parameters(rho)
    ar = ar if alpha_ar is None else alpha_ar
    n = len(f)
    Minv = np.linalg.inv(M)

    def stage(q, v, a, aj, a1):
        vj = v + h * ar * (alpha * (aj - a) - a1 + a)  # (79)
        v1 = v + 0.5 * h * (aj + a1)  # (80)
        qj = q + h * ar * (alpha * (vj - v) - v1 + v)  # (81)
        q1 = q + 0.5 * h * (vj + v1)  # (82)
        return qj, vj, q1, v1

    def residual(q, v, a, z):
        aj, a1 = z[:n], z[n:]
        qj, _, q1, _ = stage(q, v, a, aj, a1)
        return np.concatenate([M @ aj + K @ qj - f, M @ a1 + K @ q1 - f])

    def step(X):
        q, v, a = X[:n], X[n:2 * n], X[2 * n:]
        r0 = residual(q, v, a, np.zeros(2 * n))
        J = np.column_stack([residual(q, v, a, e) - r0 for e in np.eye(2 * n)])
        z = np.linalg.solve(J, -r0)  # exact: the residual is affine in z
        aj, a1 = z[:n], z[n:]
        _, _, q1, v1 = stage(q, v, a, aj, a1)
        return np.concatenate([q1, v1, a1])

    def start(q0, v0):
        return np.concatenate([q0, v0, Minv @ (f - K @ q0)])  # (83), C = 0

    return step, start


def ed_alpha_coefficients(h, rho, printed=False):
    """c_1 .. c_15 of eq. (90); printed=True keeps the paper's c_7 and c_14,
    which carry a spurious 1/dt (eliminating the accelerations from (79) and
    (80) gives c_7 = (1 - alpha)/(1 + alpha) = -c_14, dimensionless)."""
    alpha, ar = ed_alpha_parameters(rho)
    d = h * ar * (alpha + 1.0)
    c = {1: 1.0, 2: h / 2.0, 3: h / 2.0, 4: 2.0 * ar * alpha / d,
         5: 2.0 * (0.5 - ar * alpha) / d, 6: -1.0 / d, 8: -h * ar, 9: 1.0,
         10: h * ar * alpha, 11: h * ar * (1.0 - alpha), 12: 1.0 / d,
         13: -2.0 * (0.5 + ar) / d, 15: 2.0 * ar / d}
    c[7] = ar * (1.0 - alpha) / d if printed else (1.0 - alpha) / (1.0 + alpha)
    c[14] = -ar * (1.0 - alpha) / d if printed else -(1.0 - alpha) / (1.0 + alpha)
    return c


def ed_alpha_condensed_step(M, K, f, h, rho, printed=False):
    """ED-alpha in the paper's velocity form (86)-(89): unknowns
    (v_{i+1}, v_j), then a_{i+1} from (80) and q_{i+1} from (82)."""
    alpha, ar = ed_alpha_parameters(rho)
    c = ed_alpha_coefficients(h, rho, printed)
    n = len(f)
    Minv = np.linalg.inv(M)

    def step(X):
        q, v, a = X[:n], X[n:2 * n], X[2 * n:]
        Mc = np.block([[c[4] * M + c[3] * K, c[6] * M + c[2] * K],
                       [c[15] * M + c[8] * K, c[12] * M + c[10] * K]])
        Rc = np.concatenate([f - c[5] * M @ v - c[7] * M @ a - c[1] * K @ q,
                             f - c[13] * M @ v - c[14] * M @ a - c[9] * K @ q - c[11] * K @ v])
        vc = np.linalg.solve(Mc, Rc)
        v1, vj = vc[:n], vc[n:]
        aj = (2.0 * (v1 - v) / h + (vj - v) / (h * ar) - (1.0 - alpha) * a) / (1.0 + alpha)
        a1 = 2.0 * (v1 - v) / h - aj
        q1 = q + 0.5 * h * (vj + v1)
        return np.concatenate([q1, v1, a1])

    def start(q0, v0):
        return np.concatenate([q0, v0, Minv @ (f - K @ q0)])

    return step, start


def scheme(name, M, K, f, h, parameter):
    if name == "generalized_alpha":
        return gen_alpha_step(M, K, f, h, parameter)
    if name == "bathe":
        return bathe_step(M, K, f, h)
    if name == "moreau_jean":
        return moreau_jean_step(M, K, f, h, parameter)
    if name == "moreau_midpoint":
        return moreau_midpoint_step(M, K, f, h)
    if name == "ed_alpha":
        return ed_alpha_step(M, K, f, h, parameter)
    if name == "hets":
        return hets_step(M, K, f, h)
    raise ValueError(name)


def run(model, name, parameter, h, t_end):
    M, K, f = chain(model)
    step, start = scheme(name, M, K, f, h, parameter)
    n = len(f)
    X = start(np.zeros(n), np.zeros(n))
    steps = int(round(t_end / h))
    for _ in range(steps):
        X = step(X)
        if not np.all(np.isfinite(X)) or np.max(np.abs(X)) > 1e12:
            return None
    return X[:n]


def amplification(name, parameter, Omega):
    """Amplification matrix of the scheme on q'' + omega^2 q = 0 (h = 1,
    omega = Omega), from its step applied to unit states."""
    M, K, f = np.eye(1), np.array([[Omega * Omega]]), np.zeros(1)
    step, start = scheme(name, M, K, f, 1.0, parameter)
    size = len(start(np.zeros(1), np.zeros(1)))
    columns = []
    for k in range(size):
        e = np.zeros(size)
        e[k] = 1.0
        columns.append(step(e))
    return np.array(columns).T


def spectral_properties(name, parameter, Omega):
    """Spectral radius, and the relative period error of the principal
    (complex) eigenvalue pair."""
    lam = np.linalg.eigvals(amplification(name, parameter, Omega))
    rho = float(np.max(np.abs(lam)))
    principal = lam[np.argmax(np.abs(lam.imag))]
    Omega_bar = abs(np.angle(principal))
    period_error = float(Omega / Omega_bar - 1.0) if Omega_bar > 0 else float("inf")
    return rho, period_error


CASES = [("generalized_alpha", 1.0), ("generalized_alpha", 0.8), ("generalized_alpha", 0.0),
         ("bathe", None), ("ed_alpha", 0.0), ("ed_alpha", 0.8), ("moreau_jean", 0.5),
         ("moreau_jean", 1.0), ("moreau_midpoint", None), ("hets", None)]


def main():
    out = {"exact": {"t": [1.0, 5.0, 10.0],
                     "q_a": [exact("a", t).tolist() for t in (1.0, 5.0, 10.0)],
                     "q_b": [exact("b", t).tolist() for t in (1.0, 5.0, 10.0)],
                     "lambda_b": [constraint_force(t) for t in (1.0, 5.0, 10.0)]},
           "runs": [], "orders": [], "spectral": []}
    dts = [1e-2, 5e-3, 2.5e-3, 1.25e-3, 6.25e-4]
    for name, parameter in CASES:
        errors = []
        for dt in dts:
            q = run("b", name, parameter, dt, 10.0)  # model (b): no stiff mode
            err = None if q is None else float(np.max(np.abs(q - exact("b", 10.0))))
            errors.append(err)
            out["runs"].append({"model": "b", "scheme": name, "parameter": parameter, "dt": dt,
                                "t_end": 10.0, "error_q": err})
        good = [(dt, e) for dt, e in zip(dts, errors) if e]
        if len(good) >= 2:
            x = np.log([g[0] for g in good])
            y = np.log([g[1] for g in good])
            out["orders"].append({"scheme": name, "parameter": parameter,
                                  "order": float(np.polyfit(x, y, 1)[0])})
        q = run("a", name, parameter, 1e-3, 10.0)
        out["runs"].append({"model": "a", "scheme": name, "parameter": parameter, "dt": 1e-3,
                            "t_end": 10.0, "stable": q is not None,
                            "error_q1": None if q is None
                            else float(abs(q[0] - exact("a", 10.0)[0]))})
        for Omega in (0.1, 1.0, 10.0, 1e3):
            rho, period = spectral_properties(name, parameter, Omega)
            out["spectral"].append({"scheme": name, "parameter": parameter, "Omega": Omega,
                                    "rho": rho, "period_error": period})
    if "--json" in sys.argv[1:]:
        print(json.dumps(out))
        return
    for o in out["orders"]:
        print("order %-18s %-5s %.3f" % (o["scheme"], o["parameter"], o["order"]))
    for r in out["runs"]:
        if r["model"] == "a":
            print("model (a) dt 1e-3 %-18s %-5s stable %s error q1 %s" % (
                r["scheme"], r["parameter"], r["stable"], r["error_q1"]))
    for s in out["spectral"]:
        print("rho %-18s %-5s Omega %-6g %.6f  period error %.3e" % (
            s["scheme"], s["parameter"], s["Omega"], s["rho"], s["period_error"]))


if __name__ == "__main__":
    main()
