"""Figures of docs/mdp_single_contact.md: the paper's Figs. 2-4 (an exemplary
hyperbola problem) and Fig. 7 (the academic problem of Table 1).

Runs examples/mdp_single_contact --json (set NSCD_EXAMPLES_DIR, default build/examples)
and writes PNGs into docs/img/."""
import json
import math
import os
import subprocess

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
IMG = os.path.join(HERE, "..", "img")
EXAMPLES = os.environ.get("NSCD_EXAMPLES_DIR", os.path.join(HERE, "..", "..", "build", "examples"))


def run(*args):
    out = subprocess.run([os.path.join(EXAMPLES, "mdp_single_contact"), "--json", *args],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def reduced(d):
    """Schur complement of A_nn (Sect. 3.2): objective on the plane of maximum compression."""
    A = np.array(d["A"]).reshape(3, 3)
    b = np.array(d["b"])
    N, a, bn = A[0, 0], A[0, 1:], b[0]
    Ah = A[1:, 1:] - np.outer(a, a) / N
    bh = b[1:] - a * bn / N
    return A, b, d["mu"], N, a, bn, Ah, bh


def f_obj(alpha, d):
    """f_obj(alpha) of Sect. 3.2; NaN where f_r(alpha) <= 0 (no boundary point)."""
    A, b, mu, N, a, bn, Ah, bh = reduced(d)
    fr = N + mu * (a[0] * np.cos(alpha) + a[1] * np.sin(alpha))
    r = np.where(fr > 0, mu * bn / np.where(fr > 0, fr, 1.0), np.nan)
    y = np.stack([r * np.cos(alpha), r * np.sin(alpha)])
    return 0.5 * np.einsum("ik,ij,jk->k", y, Ah, y) - bh @ y, fr


def eq8_roots(d):
    """Real roots of eq. (8) with the appendix-A constants, via the quartic in e^{i alpha}."""
    A, b, mu, *_ = reduced(d)
    Ann, Ant, Ano, Att, Ato, Aoo = A[0, 0], A[0, 1], A[0, 2], A[1, 1], A[1, 2], A[2, 2]
    bn, bt, bo = b
    D = Ant * bo - Ano * bt
    c0 = 1.5 * mu * Ann * (Ano * bt - Ant * bo)
    c1 = math.sqrt(
        mu**4 * ((Ano**2 * (Att**2 + Ato**2) - 2 * Ant * Ano * Ato * (Att + Aoo)
                  + Ant**2 * (Ato**2 + Aoo**2)) * bn**2
                 + 2 * D * (Ano**2 * Ato + Ant * Ano * (Att - Aoo) - Ant**2 * Ato) * bn
                 + (Ant**2 + Ano**2) * D**2)
        + 2 * mu**2 * Ann * ((2 * Ant * Ano * Ato - Ano**2 * Att - Ant**2 * Aoo) * bn**2
                             + Ann * (Ano * (Att * bo - Ato * bt) - Ant * (Ato * bo - Aoo * bt)) * bn
                             + Ann * D**2)
        + Ann**2 * ((Ant**2 + Ano**2) * bn**2 - 2 * Ann * (Ant * bt + Ano * bo) * bn
                    + Ann**2 * (bt**2 + bo**2)))
    c2 = mu * Ann * math.sqrt(
        (0.25 * (Att**2 + Aoo**2) + Ato**2 - 0.5 * Att * Aoo) * bn**2
        + (Ano * (0.5 * (Att - Aoo) * bo - Ato * bt) - Ant * (Ato * bo + 0.5 * (Att - Aoo) * bt)) * bn
        + 0.25 * (Ant**2 + Ano**2) * (bo**2 + bt**2))
    p1 = math.atan2(mu**2 * ((Ano * Ato - Ant * Aoo) * bn - Ano**2 * bt + Ant * Ano * bo)
                    - Ann**2 * bt + Ann * Ant * bn,
                    mu**2 * ((Ant * Ato - Ano * Att) * bn + Ant * Ano * bt - Ant**2 * bo)
                    - Ann**2 * bo + Ann * Ano * bn)
    p2 = math.atan2((Att - Aoo) * bn - Ant * bt + Ano * bo, 2 * Ato * bn - Ano * bt - Ant * bo)
    # c0 + c1 cos(a + p1) + c2 cos(2a + p2) = 0, times 2 y^2 with y = e^{i a}
    e1, e2 = np.exp(1j * p1), np.exp(1j * p2)
    coeffs = [c2 * e2, c1 * e1, 2 * c0, c1 / e1, c2 / e2]
    ys = np.roots(coeffs)
    return [math.atan2(y.imag, y.real) for y in ys if abs(abs(y) - 1) < 1e-6]


def plane_contours(ax, d, extent):
    A, b, mu, N, a, bn, Ah, bh = reduced(d)
    t = np.linspace(extent[0], extent[1], 400)
    o = np.linspace(extent[2], extent[3], 400)
    T, O = np.meshgrid(t, o)
    F = 0.5 * (Ah[0, 0] * T**2 + 2 * Ah[0, 1] * T * O + Ah[1, 1] * O**2) - bh[0] * T - bh[1] * O
    ax.contour(T, O, F, levels=20, colors="0.7", linewidths=0.6)
    ax.contour(T, O, F, levels=[0.0], colors="k", linewidths=1.0)
    # feasible set: ||y|| <= mu (bn - a'y) / N, boundary gamma(alpha)
    alpha = np.linspace(-math.pi, math.pi, 4001)
    fr = N + mu * (a[0] * np.cos(alpha) + a[1] * np.sin(alpha))
    r = np.where(fr > 0, mu * bn / np.where(fr > 0, fr, 1.0), np.nan)
    ax.plot(r * np.cos(alpha), r * np.sin(alpha), color="tab:blue", lw=2, label="conic section")
    feas = np.sqrt(T**2 + O**2) <= mu * (bn - a[0] * T - a[1] * O) / N
    ax.contourf(T, O, feas.astype(float), levels=[0.5, 1.5], colors=["tab:blue"], alpha=0.08)
    x0 = np.linalg.solve(A, b)
    ax.plot(x0[1], x0[2], "kx", ms=9, mew=2, label="unconstrained minimum")
    xs = d["mdp_solution"]
    ax.plot(xs[1], xs[2], "rx", ms=10, mew=2.5, label="maximum dissipation")
    ax.set_xlim(extent[0], extent[1])
    ax.set_ylim(extent[2], extent[3])
    ax.set_xlabel("$x_t$")
    ax.set_ylabel("$x_o$")
    ax.set_aspect("equal")


def fobj_panel(ax, d):
    alpha = np.linspace(-math.pi, math.pi, 20001)
    f, fr = f_obj(alpha, d)
    ax.plot(alpha, f, color="tab:blue", lw=1.8, label="$f_{obj}(\\alpha)$")
    finite = f[np.isfinite(f)]
    lo, hi = finite.min(), np.percentile(finite, 70)
    pad = 0.15 * (hi - lo)
    ax.set_ylim(lo - pad, hi + pad)
    bad = fr <= 0
    if bad.any():
        ax.fill_between(alpha, lo - pad, hi + pad, where=bad, facecolor="none", edgecolor="0.6",
                        hatch="//", linewidth=0.0, label="infeasible ($f_r \\leq 0$)")
        A, b, mu, N, a, bn, Ah, bh = reduced(d)
        a0 = math.atan2(a[1], a[0])
        da = math.acos(-N / (mu * math.hypot(*a)))
        for pole in (a0 - da, a0 + da):
            pole = (pole + math.pi) % (2 * math.pi) - math.pi
            ax.axvline(pole, color="k", ls=":", lw=1)
    roots = eq8_roots(d)
    fr_roots = f_obj(np.array(roots), d)[0] if roots else []
    ax.plot(roots, fr_roots, "o", mfc="none", mec="tab:green", ms=7,
            label="roots of eq. (8)")
    xs = d["mdp_solution"]
    a_star = math.atan2(xs[2], xs[1])
    ax.plot([a_star], f_obj(np.array([a_star]), d)[0], "rx", ms=10, mew=2.5, label="global minimum")
    ax.set_xlabel("$\\alpha$")
    ax.set_ylabel("$f_{obj}$")
    ax.set_xlim(-math.pi, math.pi)


def main():
    os.makedirs(IMG, exist_ok=True)
    hyp = run("--case", "hyperbola")
    xs = hyp["mdp_solution"]
    x0 = np.linalg.solve(np.array(hyp["A"]).reshape(3, 3), np.array(hyp["b"]))
    pts = np.array([[0.0, 0.0], x0[1:], xs[1:]])
    c, h = pts.mean(axis=0), 0.9 * np.ptp(pts, axis=0).max() + 0.3
    ext = (c[0] - h, c[0] + h, c[1] - h, c[1] + h)

    fig, ax = plt.subplots(figsize=(5.2, 5))
    plane_contours(ax, hyp, ext)
    ax.set_title("Fig. 2: objective on the plane of max. compression")
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "mdp_fig2_conic.png"), dpi=120)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(6, 4))
    fobj_panel(ax, hyp)
    ax.set_title("Fig. 3: $f_{obj}$ along the conic section")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "mdp_fig3_fobj.png"), dpi=120)
    plt.close(fig)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.6))
    plane_contours(a1, hyp, ext)
    a1.legend(loc="lower left", fontsize=7)
    fobj_panel(a2, hyp)
    a2.legend(fontsize=7)
    fig.suptitle("Fig. 4: hyperbola, two local minima of $f_{obj}$, one global "
                 f"(x* = {xs[0]:.4f}, {xs[1]:.4f}, {xs[2]:.4f})")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "mdp_fig4_example.png"), dpi=120)
    plt.close(fig)

    t1 = run()
    fig, ax = plt.subplots(figsize=(5.5, 5.5))
    plane_contours(ax, t1, (-3.2, 0.8, -15.0, 1.5))
    for i, s in enumerate(t1["coulomb_solutions"]):
        ax.plot(s["x"][1], s["x"][2], "o", mfc="none", mec="r", ms=9, mew=1.5,
                label="Coulomb solutions" if i == 0 else None)
    ax.set_aspect("auto")
    ax.set_title("Fig. 7: academic problem (Table 1)")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "mdp_fig7_table1.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
