"""Independent reference for tests/unit/test_beam.c (seed 003, App. C).

Element matrices by exact symbolic integration (sympy) of the shape matrix
(110) instead of the library's Gauss quadrature, assembled with numpy, and
the cantilever's eigenvalues by scipy.linalg.eigh. Prints the numbers the C
test asserts. Run: /usr/bin/python3 tests/unit/beam_reference.py
"""
import numpy as np
import scipy.linalg
import sympy as sp

xi, l = sp.symbols("xi l", positive=True)
S = sp.Matrix([[1 - xi, 0, 0, xi, 0, 0],
               [0, 1 - 3 * xi**2 + 2 * xi**3, l * (xi - 2 * xi**2 + xi**3), 0,
                3 * xi**2 - 2 * xi**3, l * (xi**3 - xi**2)]])
# slope of the transverse row: the cross-section's axial shift is -y w'
Sy = sp.Matrix([[0] * 6, [0] * 6])
Sy[0, :] = -sp.diff(S[1, :], xi) / l


def element(length, rho_a, rho_i, ea, ei, x0):
    """m_ff, K_ff, S_bar, I3, I4, S_tilde of one element starting at x0."""
    sub = {l: length}
    Sl = S.subs(sub)
    Syl = Sy.subs(sub)
    x = x0 + xi * length
    integ = lambda e: np.array(sp.integrate(e * length, (xi, 0, 1)).evalf(30), dtype=float)
    mff = integ(rho_a * Sl.T * Sl + rho_i * Syl.T * Syl)
    b1 = sp.diff(Sl[0, :], xi) / length
    b2 = sp.diff(Sl[1, :], xi, 2) / length**2
    kff = integ(ea * b1.T * b1 + ei * b2.T * b2)
    sbar = integ(rho_a * Sl)
    i3 = integ(rho_a * x * Sl[0, :])
    i4 = integ(rho_a * x * Sl[1, :] - rho_i * Syl[0, :])
    stil = integ(rho_a * (Sl[0, :].T * Sl[1, :] - Sl[1, :].T * Sl[0, :]))
    return mff, kff, sbar, i3, i4, stil


def assemble(n_el, L, rho, A, I, E, rotary=True):
    N = 3 * (n_el + 1)
    M = np.zeros((N, N)); K = np.zeros((N, N)); Sb = np.zeros((2, N))
    I3 = np.zeros(N); I4 = np.zeros(N); St = np.zeros((N, N))
    h = L / n_el
    for e in range(n_el):
        m, k, sb, i3, i4, st = element(h, rho * A, rho * I if rotary else 0.0, E * A, E * I, e * h)
        s = slice(3 * e, 3 * e + 6)
        M[s, s] += m; K[s, s] += k; Sb[:, s] += sb; I3[s] += i3.ravel(); I4[s] += i4.ravel()
        St[s, s] += st
    return M, K, Sb, I3, I4, St


def main():
    # cantilever of the C test
    L, rho, A, I, E, n = 1.2, 7800.0, 1e-4, 2e-9, 2e11, 20
    M, K, Sb, I3, I4, St = assemble(n, L, rho, A, I, E, rotary=False)
    free = np.arange(3, 3 * (n + 1))
    Kc, Mc = K[np.ix_(free, free)], M[np.ix_(free, free)]
    f = np.zeros(len(free)); f[-2] = 1.0  # unit tip load, transverse dof of the last node
    u = np.linalg.solve(Kc, f)
    print("tip deflection", repr(u[-2]), "analytic", repr(L**3 / (3 * E * I)))
    w = np.sqrt(scipy.linalg.eigh(Kc, Mc, eigvals_only=True))
    beta = [1.8751040687119611, 4.6940911329741745, 7.8547574382376126, 10.995540734875467]
    bend = sorted(w)[:4]
    scale = np.sqrt(E * I / (rho * A * L**4))
    for b, om in zip(beta, bend):
        print("omega", repr(om), "analytic", repr(b * b * scale), "rel", (om - b * b * scale) / (b * b * scale))
    print("axial omega1", repr(np.pi / 2 / L * np.sqrt(E / rho)))
    # pinned reference (185): simply supported, first bending mode pi^2 scale
    pin = np.array([2] + [i for i in range(3, 3 * (n + 1)) if i != 3 * n + 1])
    w = np.sqrt(scipy.linalg.eigh(K[np.ix_(pin, pin)], M[np.ix_(pin, pin)], eigvals_only=True))
    print("pinned omega1", repr(w[0]), "analytic", repr(np.pi**2 * scale))
    # the second element of a beam L = 1, 2 elements, rho = 2, A = 1, I = 0.005, E = 3
    m, k, sb, i3, i4, st = element(0.5, 2.0, 0.01, 3.0, 0.015, 0.5)
    np.set_printoptions(precision=17)
    for name, a in (("mff", m), ("kff", k), ("sbar", sb), ("i3", i3), ("i4", i4), ("stilde", st)):
        print(name, ", ".join(repr(float(v)) for v in np.asarray(a).ravel()))


if __name__ == "__main__":
    main()
