"""Figure of docs/mdp_single_contact.md for Sect. 4.2 (Painleve's rod): mu*(theta0) with
its minimum 4/3, and the maximum-dissipation impulse over the (theta0, mu) sweep.

Runs examples/painleve_rod --json (NSCD_EXAMPLES_DIR, default build/examples)."""
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


def main():
    out = subprocess.run([os.path.join(EXAMPLES, "painleve_rod"), "--json"], check=True,
                         capture_output=True, text=True).stdout
    d = json.loads(out)
    sweep = d["sweep"]
    th = np.linspace(0.05, math.pi / 2 - 0.05, 400)
    mu_star = (np.cos(th) + 1 / (3 * np.cos(th))) / np.sin(th)

    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.4))
    a1.plot(th, mu_star, "k-", lw=1.5, label="$\\mu_*(\\theta_0)$")
    imp = [c for c in sweep if c["impulsive"]]
    non = [c for c in sweep if not c["impulsive"]]
    a1.scatter([c["theta0"] for c in imp], [c["mu"] for c in imp], s=14, c="tab:red",
               label="max. dissipation: $\\Lambda_0$ (impact, stick)")
    a1.scatter([c["theta0"] for c in non], [c["mu"] for c in non], s=14, facecolors="none",
               edgecolors="tab:blue", label="max. dissipation: 0 (no impact)")
    a1.plot([d["theta_star"]], [d["mu_star_min"]], "k*", ms=12,
            label=f"min $\\mu_*$ = {d['mu_star_min']:.12f} at $\\theta_0$ = {d['theta_star']:.6f}")
    a1.set_ylim(0, 7.0)
    a1.set_xlabel("$\\theta_0$ [rad]")
    a1.set_ylabel("$\\mu$")
    a1.legend(fontsize=7, loc="upper center")
    a1.set_title("Painlevé rod: impulsive region $\\mu \\geq \\mu_*(\\theta_0)$")

    for mu, color, ms in ((2.0, "tab:red", 10), (3.0, "tab:purple", 7), (5.0, "tab:green", 4)):
        cs = [c for c in sweep if c["mu"] == mu]
        a2.plot([c["theta0"] for c in cs], [c["mdp"][0] for c in cs], "o", color=color, ms=ms,
                label=f"max. dissipation $x_n$, $\\mu$ = {mu:g}")
    lam_n = 3 * np.sin(2 * th) / 8
    a2.plot(th, lam_n, "k--", lw=1, label="$\\Lambda_{0,n} = \\frac{3}{8} m v_0 \\sin 2\\theta_0$")
    a2.set_xlabel("$\\theta_0$ [rad]")
    a2.set_ylabel("normal impulse / $(m v_0)$")
    a2.legend(fontsize=7)
    a2.set_title(f"max. error vs {{$\\Lambda_0$ or 0}}: {d['max_error']:.1e}")
    fig.tight_layout()
    os.makedirs(IMG, exist_ok=True)
    fig.savefig(os.path.join(IMG, "painleve_rod.png"), dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
