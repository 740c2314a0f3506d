#!/usr/bin/python3
"""Figures 6-9 of seed 001 from examples/optimal_damping --json.

usage: docs/plots/optimal_damping.py [BUILD_DIR]   (default: build)
writes docs/img/copt_fig6.png, copt_fig7.png, copt_fig8.png, copt_fig9.png"""
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMG = os.path.join(ROOT, "docs", "img")


def run(build):
    exe = os.path.join(build, "examples", "optimal_damping")
    return json.loads(subprocess.run([exe, "--json"], capture_output=True, text=True,
                                     check=True).stdout)


def fig6(d):
    fig, ax = plt.subplots(figsize=(6, 4))
    e = d["fig6"]["e"]
    for curve, style in zip(d["fig6"]["curves"], ("-", "--")):
        a, b = curve["alpha"], curve["beta"]
        ax.plot(e, curve["c_opt"], "o", ms=3, label=f"exact c_opt, n = {curve['n']}")
        ax.plot(e, [a * (x ** b - 1) for x in e], "k" + style, lw=1,
                label=f"fit {a:.3f} (e^{b:.4f} - 1)")
    ax.set_xlabel("e")
    ax.set_ylabel("c_opt  (m = v = k = 1)")
    ax.set_title("Fig. 6: c_opt vs e")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "copt_fig6.png"), dpi=120)


def fig7(d):
    f = d["fig7"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    ax1.plot(f["n"], f["alpha"], "o", ms=4, label="fit to exact c_opt")
    ax1.plot(f["n"], f["alpha_eq46"], "k-", label="eq. 46")
    ax2.plot(f["n"], f["beta"], "o", ms=4, label="fit to exact c_opt")
    ax2.plot(f["n"], f["beta_eq47"], "k-", label="eq. 47")
    for ax, name in ((ax1, "alpha"), (ax2, "beta")):
        ax.set_xlabel("n")
        ax.set_ylabel(name)
        ax.legend()
    fig.suptitle("Fig. 7: alpha(n), beta(n) (strongly correlated; see docs)")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "copt_fig7.png"), dpi=120)


def fig8(d):
    f = d["fig8"]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.loglog(f["e"], f["max_error_closed_form"], "o-", ms=3, label="closed form, eq. 49")
    ax.loglog(f["e"], [max(x, 1e-17) for x in f["max_error_exact"]], "s-", ms=3,
              label="exact (nscd_copt_exact)")
    ax.axhline(1e-9, color="gray", ls=":", lw=1, label="1e-9")
    ax.set_xlabel("e")
    ax.set_ylabel("max |e_out - e|")
    ax.set_title(f"Fig. 8: {f['systems']} random systems per e")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "copt_fig8.png"), dpi=120)


def fig9(d):
    f = d["fig9"]
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
    ax1.plot(f["e"], f["e_exact_eq57"], "-", label="e_exact(xi(c_opt eq. 57)), eq. 55")
    ax1.plot(f["e"], f["e"], "k:", label="e")
    ax1.set_xscale("log")
    ax1.set_xlabel("e")
    ax1.set_ylabel("e_exact")
    ax1.legend()
    ax2.loglog(f["e"], [max(x, 1e-17) for x in f["error_eq57"]], label="eq. 57")
    ax2.loglog(f["e"], [max(x, 1e-17) for x in f["error_exact"]], label="exact")
    ax2.set_xlabel("e")
    ax2.set_ylabel("|e_exact - e|")
    ax2.legend()
    fig.suptitle("Fig. 9: n = 1 (Kelvin-Voigt)")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "copt_fig9.png"), dpi=120)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    d = run(build)
    os.makedirs(IMG, exist_ok=True)
    for make in (fig6, fig7, fig8, fig9):
        make(d)


if __name__ == "__main__":
    main()
