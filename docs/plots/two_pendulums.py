#!/usr/bin/python3
"""Figures 11-12 of seed 001 from examples/two_pendulums --json.

usage: docs/plots/two_pendulums.py [BUILD_DIR]   (default: build)
writes docs/img/two_pendulums_fig11.png and two_pendulums_fig12.png"""
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMG = os.path.join(ROOT, "docs", "img")
STYLE = {"piecewise": ("-", "piecewise (Newton impact)"),
         "hertz_damper": ("--", "Hertz + damper, c_opt eq. 50"),
         "hunt_crossley": (":", "Hunt-Crossley, eq. 16")}


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
    exe = os.path.join(build, "examples", "two_pendulums")
    d = json.loads(subprocess.run([exe, "--json"], capture_output=True, text=True,
                                  check=True).stdout)
    os.makedirs(IMG, exist_ok=True)
    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for m in d["models"]:
        style, label = STYLE[m["name"]]
        axes[0].plot(m["t"], m["theta1_dot"], style, lw=1.2, label=label)
        axes[1].plot(m["t"], m["theta2_dot"], style, lw=1.2, label=label)
    axes[0].set_ylabel("dtheta1/dt (rad/s)")
    axes[1].set_ylabel("dtheta2/dt (rad/s)")
    axes[1].set_xlabel("t (s)")
    axes[0].legend(fontsize=8)
    axes[0].set_title("Fig. 11: two pendulums, e = 0.3, n = 3/2, k = 1e8")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "two_pendulums_fig11.png"), dpi=120)

    fig, ax = plt.subplots(figsize=(6, 4))
    for m in d["models"]:
        if m["name"] == "piecewise":
            continue
        style, label = STYLE[m["name"]]
        fc = m["first_contact"]
        ax.plot([1e3 * x for x in fc["penetration"]], [1e-3 * f for f in fc["force"]], style,
                label=label)
    ax.axhline(0.0, color="gray", lw=0.5)
    ax.set_xlabel("penetration (mm)")
    ax.set_ylabel("contact force (kN)")
    ax.set_title("Fig. 12: first contact")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "two_pendulums_fig12.png"), dpi=120)


if __name__ == "__main__":
    main()
