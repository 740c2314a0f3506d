#!/usr/bin/python3
"""The rigid slider-crank of seed 003 (Sect. 4.1-4.3, Figs. 21-29 for the rigid model) from
examples/slider_crank --json: crank and rod angles, crank speed, the corner gaps and the
normal contact forces against t, for every scheme this build implements.

usage: docs/plots/slider_crank.py [BUILD_DIR]   (default: build)
writes docs/img/slider_crank_table1.png (0.05 s) and slider_crank_table2.png (0.5 s),
both at dt = 1e-5 s."""
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMG = os.path.join(ROOT, "docs", "img")
SCHEMES = ["moreau_midpoint", "moreau_jean", "hets", "generalized_alpha", "bathe", "ed_alpha"]
RUNS = {"table1": (0.05, 1e-4, "Table 1: c = 1 mm, e_N = 0.4, μ = 0.01, ω0 = (150, -75, 0)"),
        "table2": (0.5, 5e-4, "Table 2: c = 0.5 mm, T = 1 N·m, e_N = 0.1, μ = 0.1, from rest")}


def run(build, case, scheme, t_end, sample):
    exe = os.path.join(build, "examples", "slider_crank")
    done = subprocess.run([exe, "--json", "--case", case, "--scheme", scheme, "--dt", "1e-5",
                           "--t-end", repr(t_end), "--sample", repr(sample)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"{case} {scheme}: skipped ({done.stderr.strip()})", file=sys.stderr)
        return None
    return json.loads(done.stdout)


def plot_case(build, case):
    t_end, sample, title = RUNS[case]
    fig, axes = plt.subplots(5, 1, figsize=(8, 11), sharex=True)
    for scheme in SCHEMES:
        d = run(build, case, scheme, t_end, sample)
        if d is None:
            continue
        s = d["samples"]
        t = np.array([x["t"] for x in s])
        q = np.array([x["q"] for x in s])
        v = np.array([x["v"] for x in s])
        gap = 1e3 * np.array([x["gap"] for x in s])
        force = np.array([x["normal_force"] for x in s])
        axes[0].plot(t, q[:, 0], lw=1, label=scheme)
        axes[1].plot(t, q[:, 1], lw=1, label=scheme)
        axes[2].plot(t, v[:, 0], lw=1, label=scheme)
        axes[3].plot(t, gap[:, 0], lw=1, label=f"{scheme}: upper front corner")
        axes[3].plot(t, gap[:, 2], "--", lw=1, label=f"{scheme}: lower front corner")
        axes[4].plot(t, force[:, 0] + force[:, 1] - force[:, 2] - force[:, 3], lw=0.8,
                     label=scheme)
    axes[0].set_ylabel("θ1 (rad)")
    axes[1].set_ylabel("θ2 (rad)")
    axes[2].set_ylabel("ω1 (rad/s)")
    axes[3].set_ylabel("corner gap (mm)")
    axes[4].set_ylabel("λ_N upper − lower (N)")
    axes[4].set_yscale("symlog", linthresh=1.0)  # impacts (1e4 N) and resting (1 N)
    axes[4].set_xlabel("t (s)")
    axes[0].legend(fontsize=7)
    axes[3].legend(fontsize=6, ncol=2)
    axes[0].set_title(f"Rigid slider-crank, {title}, dt = 1e-5 s", fontsize=9)
    fig.tight_layout()
    path = os.path.join(IMG, f"slider_crank_{case}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(path)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    os.makedirs(IMG, exist_ok=True)
    for case in RUNS:
        plot_case(build, case)


if __name__ == "__main__":
    main()
