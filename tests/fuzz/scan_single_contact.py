#!/usr/bin/python3
"""Independent reference for the degenerate-conic single-contact reproducers.

For each problem (A, b, mu) of the reproducers tests/fuzz/corpus/single_contact/regress-*
(formerly known-*, issue 28)
(hyperbolas, near-parabolas, near grazing), this script computes, without any of
the library's formulations (no Schur complement, no quartic, no eq. 8):

* every Coulomb solution: no contact (b_n <= 0), sticking (A^-1 b in the cone) and
  sliding x = x_n (1, -mu cos th, -mu sin th) with x_n = b_n / D(th) > 0,
  D = a_n'w, u_to = lambda d, lambda > 0. The slip angle th is scanned on a grid of
  2 000 000 angles (float64); every sign change of G(th) = d x (A_to w x_n - b_to) D
  = b_n (d x A_to w) - D (d x b_to), and every local minimum of |G| on the grid, is
  refined by bisection in 60- to 400-digit arithmetic (mpmath; digits by b_n / ||b||), where
  b_n / D is exact even 1e-300 away from a zero of D;
* the maximum-dissipation impulse: the minimum of f(x) = x'Ax/2 - x'b over the
  sticking point (when admissible), x = 0, and the conic's boundary x(th) =
  b_n w(th) / D(th), D > 0, scanned on the same 2e6 angles plus 4000 angles
  log-spaced (10^(30 - digits) .. 1) on both sides of every zero of D (the far parts of a
  hyperbola's branches, in mpmath), the best samples refined by golden-section
  search in mpmath.

It then calls the library (ctypes, build/libnscd.so or NSCD_LIB) and compares:
the enumeration must list exactly the reference solutions (1e-7 relative), the
maximum-dissipation objective must be within 1e-9 (relative to |f| + the
objective's rounding scale) of the reference minimum.

Usage: /usr/bin/python3 tests/fuzz/scan_single_contact.py [LIBNSCD]
Exit status 0 when every problem matches.
"""
import ctypes
import math
import os
import sys

import mpmath as mp
import numpy as np

mp.mp.dps = 400

# (name, A row-major, b, mu): the decoded reproducers (NSCD_FUZZ_VERBOSE=1 prints them)
PROBLEMS = [
    ("hyperbola-enumeration",
     [5.6235614386525346e-06, 6.9785127257884806e-06, -6.6511769797127371e-06,
      6.9785127257884806e-06, 8.8857023151827409e-06, -8.2523369902356381e-06,
      -6.6511769797127371e-06, -8.2523369902356381e-06, 8.1404178283655988e-06],
     [2.0311284046692601e-07, -6.0469977874418255e-07, -5.9414053559166853e-07],
     1.2359502555886168),
    ("hyperbola-mdp",
     [2.3714049503727833e-06, 3.618532006367246e-11, 2.3714049503727833e-06,
      3.618532006367246e-11, 2.3714049509249357e-06, -2.2601350911769898e-06,
      2.3714049503727833e-06, -2.2601350911769898e-06, 4.5873852339580481e-06],
     [15.259021896696368, 953154.80277714191, -937499.04631113145], 1.0000152590218967),
    ("near-grazing-accuracy",
     [273.9520313459181, -8663.123886829444, 8629.5474243703829, -8663.123886829444,
      488972.01678188087, -504209.78282272484, 8629.5474243703829, -504209.78282272484,
      521928.71317564487],
     [4.7009298615353768e-11, -9.7878060647028414e-07, 2], 1.0048065918974594),
    ("near-grazing-accuracy-separating",
     [273.9520313459181, -8663.123886829444, 8629.5474243703829, -8663.123886829444,
      488972.01678188087, -504209.78282272484, 8629.5474243703829, -504209.78282272484,
      521928.71317564487],
     [-2.3504649307676881e-10, -9.7878060647028414e-07, 2], 1.0048065918974594),
    ("near-grazing-enumeration",
     [116.4031550094423, 2738.1245235473348, 2763.1933122921478, 2738.1245235473348,
      64522.775356215621, 67738.526402266318, 2763.1933122921478, 67738.526402266318,
      131310.24782349021],
     [1e-300, 22409.354714625544, -29563.939123423959], 0.95292591744869148),
    ("near-grazing-mdp",
     [0.0010002108334003557, 0.031629443739203421, 0.031629443739203421,
      0.031629443739203421, 2.0004216668007118, 1.000226095639364, 0.031629443739203421,
      1.000226095639364, 2.0004216670335988],
     [1e-300, 1.0002108334003559, -1.0002108334003559], 1.0000152590218967),
    ("near-grazing-section",
     [2.3714049503727833e-06, -2.0806559036611666e-08, 2.3714049503727833e-06,
      -2.0806559036611666e-08, 2.3603659700392993e-06, -2.2756239063938589e-06,
      2.3714049503727833e-06, -2.2756239063938589e-06, 4.5873852339580481e-06],
     [1.1438582231095518e-09, 7.1451103906538393e-05, -7.0268354503843122e-05],
     0.9999847409781033),
    ("parabola-coulomb",
     [2.3714049503727833e-06, 3.0757522054121593e-09, 2.3667008587645058e-06,
      3.0757522054121593e-09, 2.3714089396752544e-06, -2.2756285094503745e-06,
      2.3667008587645058e-06, -2.2756285094503745e-06, 4.6134598754814918e-06],
     [1937.0788929163793, 952753.01611040987, -999395.43543748325], 1.0000152590218967),
    ("parabola-enumeration",
     [2.3714049503727833e-06, 3.618532006367246e-11, 2.3713325797326557e-06,
      3.618532006367246e-11, 2.3714049509249357e-06, -2.260135092281295e-06,
      2.3713325797326557e-06, -2.260135092281295e-06, 4.5872535296884324e-06],
     [15.259021896696368, 953154.80277714191, -999816.89173723967], 1.0000152590218967),
    ("near-grazing-far-branch",
     [108867.01492095577, -105564.78190807384, -111650.30715661959, -105564.78190807384,
      103466.52152986429, 101369.66004159737, -111650.30715661959, 101369.66004159737,
      270532.42968440044],
     [1e-300, 708683.36653814965, 871905.85760348744], 0.95292591744869148),
    ("parabola-coulomb-tolerance",
     [2.3714049503727833e-06, 3.618532006367246e-11, 2.3713325797326557e-06,
      3.618532006367246e-11, 2.3714049509249357e-06, -2.260135092281295e-06,
      2.3713325797326557e-06, -2.260135092281295e-06, 4.5872535296884324e-06],
     [15.259021896696368, 953154.80277714191, -999816.89173723967], 1.0000152590218967),
    ("parabola-mdp",
     [2.3714049503727833e-06, 2.35204580413871e-09, 2.3714049503727833e-06,
      2.35204580413871e-09, 2.3714072832174809e-06, -2.2578192306929148e-06,
      2.3714049503727833e-06, -2.2578192306929148e-06, 4.5873852339580481e-06],
     [1.1438582231095518e-09, 7.1451103906538393e-05, -7.0268354503843122e-05],
     0.9999847409781033),
]

N_GRID = 2_000_000


class Problem:
    def __init__(self, A, b, mu):
        self.Af = np.array(A, dtype=float).reshape(3, 3)
        self.Af = 0.5 * (self.Af + self.Af.T)  # the library uses the symmetric part
        self.bf = np.array(b, dtype=float)
        self.mu = float(mu)
        self.A = mp.matrix([[mp.mpf(float(self.Af[i, j])) for j in range(3)] for i in range(3)])
        self.b = mp.matrix([mp.mpf(float(v)) for v in self.bf])
        self.m = mp.mpf(self.mu)

    # ---- exact (mpmath) pieces
    def w(self, th):
        return mp.matrix([1, -self.m * mp.cos(th), -self.m * mp.sin(th)])

    def D(self, th):
        w = self.w(th)
        return sum(self.A[0, j] * w[j] for j in range(3))

    def G(self, th):
        w = self.w(th)
        c, s = mp.cos(th), mp.sin(th)
        m0 = sum(self.A[1, j] * w[j] for j in range(3))
        m1 = sum(self.A[2, j] * w[j] for j in range(3))
        q = c * m1 - s * m0
        p = c * self.b[2] - s * self.b[1]
        return self.b[0] * q - self.D(th) * p

    def f(self, x):
        Ax = self.A * x
        return sum(x[i] * (Ax[i] / 2 - self.b[i]) for i in range(3))

    def boundary(self, th):
        D = self.D(th)
        if not D > 0:
            return None
        return self.w(th) * (self.b[0] / D)

    # ---- float64 grid
    def grid(self, th):
        c, s = np.cos(th), np.sin(th)
        A, b, mu = self.Af, self.bf, self.mu
        w1, w2 = -mu * c, -mu * s
        D = A[0, 0] + A[0, 1] * w1 + A[0, 2] * w2
        m0 = A[1, 0] + A[1, 1] * w1 + A[1, 2] * w2
        m1 = A[2, 0] + A[2, 1] * w1 + A[2, 2] * w2
        q = c * m1 - s * m0
        p = c * b[2] - s * b[1]
        return D, b[0] * q - D * p


def bisect(fun, a, b, iters=1400):
    fa = fun(a)
    for _ in range(iters):
        mid = (a + b) / 2
        fm = fun(mid)
        if fm == 0:
            return mid
        if (fm < 0) == (fa < 0):
            a, fa = mid, fm
        else:
            b = mid
        if abs(b - a) < mp.mpf(10) ** (10 - mp.mp.dps):
            break
    return (a + b) / 2


def coulomb_solutions(pr):
    sols = []
    A, b, mu = pr.Af, pr.bf, pr.mu
    if b[0] <= 0:
        sols.append(mp.matrix([0, 0, 0]))
    x0 = mp.lu_solve(pr.A, pr.b)
    if x0[0] >= 0 and mp.sqrt(x0[1] ** 2 + x0[2] ** 2) <= pr.m * x0[0]:
        sols.append(x0)
    if b[0] == 0:
        return sols  # not among the reproducers
    th = -np.pi + 2 * np.pi * np.arange(N_GRID) / N_GRID
    _, G = pr.grid(th)
    Gn = np.roll(G, -1)
    h = 2 * np.pi / N_GRID
    idx = list(np.nonzero(np.signbit(G) != np.signbit(Gn))[0])
    aG = np.abs(G)
    dips = np.nonzero((aG < np.roll(aG, 1)) & (aG < np.roll(aG, -1)))[0]
    cands = []
    for i in idx:
        lo = mp.mpf(float(th[i]))
        cands.append(bisect(pr.G, lo, lo + mp.mpf(h)))
    for i in dips:
        if i in idx or (i - 1) % N_GRID in idx:
            continue
        try:  # a close pair of roots hidden between grid points
            r = mp.findroot(pr.G, mp.mpf(float(th[i])), tol=mp.mpf(10) ** (20 - mp.mp.dps))
            cands.append(r)
        except (ValueError, ZeroDivisionError):
            pass
    for r in cands:
        D = pr.D(r)
        if D == 0:
            continue
        xn = pr.b[0] / D
        if not xn > 0:
            continue
        x = pr.w(r) * xn
        u = pr.A * x - pr.b
        lam = mp.cos(r) * u[1] + mp.sin(r) * u[2]
        if lam > 0:
            if all(mp.norm(x - y) > mp.mpf(10) ** -30 * mp.norm(x) for y in sols):
                sols.append(x)
    return sols


def golden(fun, a, b, iters=300):
    g = (mp.sqrt(5) - 1) / 2
    x1, x2 = b - g * (b - a), a + g * (b - a)
    f1, f2 = fun(x1), fun(x2)
    for _ in range(iters):
        if f2 < f1:
            a, x1, f1 = x1, x2, f2
            x2 = a + g * (b - a)
            f2 = fun(x2)
        else:
            b, x2, f2 = x2, x1, f1
            x1 = b - g * (b - a)
            f1 = fun(x1)
    return (x1, f1) if f1 <= f2 else (x2, f2)


def mdp_reference(pr):
    """min f over the admissible set of maximum dissipation (b_n >= 0 here)."""
    if pr.bf[0] < 0:
        return mp.mpf(0), mp.matrix([0, 0, 0])
    best = (mp.mpf(0), mp.matrix([0, 0, 0]))
    x0 = mp.lu_solve(pr.A, pr.b)
    if x0[0] >= 0 and mp.sqrt(x0[1] ** 2 + x0[2] ** 2) <= pr.m * x0[0]:
        return pr.f(x0), x0

    def fb(th):
        x = pr.boundary(th)
        return mp.inf if x is None else pr.f(x)

    # float64 scan of the 2e6 angles (x_n = b_n / D in float64: fine away from D = 0)
    th = -np.pi + 2 * np.pi * np.arange(N_GRID) / N_GRID
    D, _ = pr.grid(th)
    with np.errstate(all="ignore"):
        xn = pr.bf[0] / D
        X = np.stack([xn, -pr.mu * xn * np.cos(th), -pr.mu * xn * np.sin(th)])
        AX = pr.Af @ X
        F = np.sum(X * (0.5 * AX - pr.bf[:, None]), axis=0)
    F[~(D > 0) | ~np.isfinite(F)] = np.inf
    order = np.argsort(F)[:3]
    h = 2 * math.pi / N_GRID
    starts = [(mp.mpf(float(th[i])) - h, mp.mpf(float(th[i])) + h) for i in order]
    # zeros of D (poles of x_n), log-spaced offsets on both sides, in mpmath
    N = pr.A[0, 0]
    a0 = mp.atan2(pr.A[0, 2], pr.A[0, 1])
    ms = pr.m * mp.sqrt(pr.A[0, 1] ** 2 + pr.A[0, 2] ** 2)
    poles = []
    if ms >= N:
        da = mp.acos(N / ms)
        poles = [a0 + da, a0 - da]
    else:
        poles = [a0]  # the far tip of an eccentric ellipse
    for P in poles:
        for sgn in (-1, 1):
            lo_exp = 30 - mp.mp.dps
            offs = [mp.mpf(10) ** (lo_exp - lo_exp * k / 999) for k in range(1000)]
            vals = [fb(P + sgn * o) for o in offs]
            k = min(range(len(vals)), key=lambda j: vals[j])
            if vals[k] < mp.inf:
                lo = offs[max(k - 1, 0)]
                hi = offs[min(k + 1, len(offs) - 1)]
                starts.append((P + sgn * lo, P + sgn * hi) if sgn > 0 else
                              (P + sgn * hi, P + sgn * lo))
    for a, c in starts:
        # golden-section in the log of the offset from a (handles both scales)
        t, ft = golden(fb, a, c)
        if ft < best[0]:
            best = (ft, pr.boundary(t))
    return best


def load_library(path):
    lib = ctypes.CDLL(path)
    d3, d9 = ctypes.c_double * 3, ctypes.c_double * 9
    lib.nscd_mdp_single_contact.argtypes = [d9, d3, ctypes.c_double, d3]
    lib.nscd_coulomb_single_contact_all.argtypes = [
        d9, d3, ctypes.c_double, ctypes.c_double * 18, ctypes.c_int32,
        ctypes.POINTER(ctypes.c_int32)]
    return lib


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = sys.argv[1] if len(sys.argv) > 1 else os.environ.get(
        "NSCD_LIB", os.path.join(root, "build", "libnscd.so"))
    lib = load_library(path)
    d3, d9 = ctypes.c_double * 3, ctypes.c_double * 9
    failures = 0
    worst_gap, worst_sol = 0.0, 0.0
    for name, A, b, mu in PROBLEMS:
        # digits: enough to resolve x_n = b_n / D where D is as small as b_n / ||b||
        bb = np.abs(np.array(b, dtype=float))
        mp.mp.dps = int(min(400, 60 + max(0.0, -math.log10(bb[0] / np.max(bb))) if bb[0] > 0
                            else 60))
        pr = Problem(A, b, mu)
        ref = coulomb_solutions(pr)
        fref, xref = mdp_reference(pr)
        for y in ref:  # every Coulomb solution is admissible for MDP when b_n >= 0
            if pr.bf[0] >= 0 and pr.f(y) < fref:
                fref, xref = pr.f(y), y
        x = d3()
        assert lib.nscd_mdp_single_contact(d9(*pr.Af.ravel()), d3(*pr.bf), mu, x) == 0
        xm = mp.matrix([mp.mpf(v) for v in x])
        fx = pr.f(xm)
        nA = float(np.max(np.abs(pr.Af)))
        nx = max(float(mp.norm(xm)), float(mp.norm(xref)))
        fscale = abs(float(fref)) + 1e-7 * (nA * nx * nx + float(np.linalg.norm(pr.bf)) * nx)
        gap = float(fx - fref) / fscale if fscale > 0 else 0.0
        sol = (ctypes.c_double * 18)()
        n = ctypes.c_int32()
        st = lib.nscd_coulomb_single_contact_all(d9(*pr.Af.ravel()), d3(*pr.bf), mu, sol, 6,
                                                 ctypes.byref(n))
        got = [mp.matrix([mp.mpf(sol[3 * i + k]) for k in range(3)]) for i in range(n.value)]
        dist = 0.0
        matched = st == 0 and len(got) == len(ref)
        for y in ref:
            ny = float(mp.norm(y))
            e = min((float(mp.norm(g - y)) / max(ny, 1e-300) for g in got), default=math.inf)
            dist = max(dist, e)
        matched = matched and dist <= 1e-7
        ok = matched and gap <= 1e-9
        failures += not ok
        worst_gap, worst_sol = max(worst_gap, gap), max(worst_sol, dist)
        print(f"{name:34s} {'ok ' if ok else 'BAD'} MDP gap {gap:9.2e}  Coulomb solutions "
              f"{len(ref)} ref / {len(got)} listed (status {st}), worst distance {dist:8.1e}")
    print(f"worst MDP optimality gap {worst_gap:.2e}, worst solution distance {worst_sol:.2e}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
