#!/usr/bin/python3
"""The rocking of the clearance pendulum's hole, independently of nscd
(docs/joints.md, "The energy form of the clearance gaps"): scipy's DOP853 on
the rigid body of examples/revolute_pendulum.c (m = 1 kg, isotropic
I_cm = 0.02 kg m², L = 0.5 m, c = 0.1 mm, hole 0.05 m long) whose hole's two
end circles are both held on the pin (the two radial gaps at 0, bilateral:
contact forces lam_i of either sign, solved from the acceleration-level
constraints; no stabilisation, the gaps drift by < 1e-12 m while the motion
is planar), from the state after the first plastic impact
(clearance_pendulum_reference.py) with an out-of-plane spin `seed` (rad/s).

It prints the twist phi0 - phi1 (the contact directions at the two ends), the
two gaps, the two contact forces and the tilt rates: the planar motion is
unstable to this conical mode (the twist grows about x100 per 50 ms from
0.1 s on) and one end's force turns negative near 0.25 s: the hole must lift
off at one end and rock, whatever the integrator. Beyond that the bilateral
model no longer holds (and drifts).

Usage: clearance_pendulum_rocking.py [seed = 1e-10] [t_end = 0.3]
"""
import math, sys
import numpy as np
from scipy.integrate import solve_ivp
M, L, I, G, C, HL = 1.0, 0.5, 0.02, 9.81, 1e-4, 0.05
ENDS = [np.array([-L, 0.0, HL / 2]), np.array([-L, 0.0, -HL / 2])]  # body frame, from the com

def quat_to_R(q):
    w, x, y, z = q
    return np.array([[1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)],
                     [2*(x*y+w*z), 1-2*(x*x+z*z), 2*(y*z-w*x)],
                     [2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)]])

def rhs(t, s):
    x, q, v, w = s[0:3], s[3:7], s[7:10], s[10:13]
    R = quat_to_R(q / np.linalg.norm(q))
    A = np.zeros((2, 2)); b = np.zeros(2); J = []
    for r_b in ENDS:
        r = R @ r_b
        p = x + r; pd = v + np.cross(w, r)
        rho = math.hypot(p[0], p[1]); n = np.array([p[0] / rho, p[1] / rho, 0.0])
        # rows of d(rho)/dt = n . pd  (gap g = c - rho): unknown accel a, alpha
        ja = n; jw = np.cross(r, n)  # n.(alpha x r) = alpha.(r x n)
        pdp = np.array([pd[0], pd[1], 0.0])
        extra = (pdp @ pdp - (n @ pdp) ** 2) / rho + n @ np.cross(w, np.cross(w, r))
        J.append((ja, jw, extra))
    # force on body from end i: -lam_i n_i at p_i; a = g + sum(-lam n)/M, alpha = sum(r x -lam n)/I
    for i in range(2):
        ja_i, jw_i, extra_i = J[i]
        # rho_ddot_i = ja_i.a + jw_i.alpha + extra_i = 0
        b[i] = -(ja_i @ np.array([0.0, -G, 0.0]) + extra_i)
        for k in range(2):
            ja_k, jw_k, _ = J[k]
            A[i, k] = -(ja_i @ ja_k) / M - (jw_i @ jw_k) / I
    lam = np.linalg.solve(A, b)
    a = np.array([0.0, -G, 0.0]) - sum(lam[k] * J[k][0] for k in range(2)) / M
    alpha = -sum(lam[k] * J[k][1] for k in range(2)) / I
    wq = np.array([0.0, *w])
    qd = 0.5 * np.array([q[0]*wq[0]-q[1]*wq[1]-q[2]*wq[2]-q[3]*wq[3],
                         q[0]*wq[1]+q[1]*wq[0]+q[2]*wq[3]-q[3]*wq[2],
                         q[0]*wq[2]-q[1]*wq[3]+q[2]*wq[0]+q[3]*wq[1],
                         q[0]*wq[3]+q[1]*wq[2]-q[2]*wq[1]+q[3]*wq[0]])
    return np.concatenate([v, qd, a, alpha]), lam

def phis(s):
    x, q = s[0:3], s[3:7]
    R = quat_to_R(q / np.linalg.norm(q))
    out = []
    for r_b in ENDS:
        p = x + R @ r_b
        out.append((math.atan2(p[0], -p[1]), C - math.hypot(p[0], p[1])))
    return out

seed = float(sys.argv[1]) if len(sys.argv) > 1 else 1e-10
t1 = math.sqrt(2 * C / G); v0 = G * t1; IO = I + M * L * L; P = M * v0 * I / IO
s0 = np.array([L, -C, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, P / M - v0, 0.0, seed, 0.0, -L * P / I])
# the seed: an out-of-plane spin omega_x (its rate at the two ends, +-seed HL/2
# along z, is tangent to the gaps: the constraints hold to first order).
sol = solve_ivp(lambda t, s: rhs(t, s)[0], (t1, float(sys.argv[2]) if len(sys.argv) > 2 else 0.3),
                s0, method="DOP853", rtol=1e-10, atol=1e-13, dense_output=True, max_step=2e-4)
for t in [0.01, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5, 0.6]:
    if t > sol.t[-1]: break
    s = sol.sol(t); (p0, g0), (p1, g1) = phis(s); lam = rhs(t, s)[1]
    print('%.2f phi0-phi1 %.3e  gaps %.1e %.1e  lam %.4f %.4f  tilt w %.2e %.2e' % (t, p0 - p1, g0, g1, lam[0], lam[1], s[10], s[11]))
