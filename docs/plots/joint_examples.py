#!/usr/bin/python3
"""Figures of the seed 004 joint examples beyond the pendulum's energy:
the pendulum with variable steps (Fig. 37 analogue), the cylindrical slider
seating with a tilt, the prismatic slider falling into the apex.

usage: docs/plots/joint_examples.py [BUILD_DIR]   (default: build)
writes docs/img/revolute_pendulum_steps.png, docs/img/cylindrical_slider.png,
docs/img/prismatic_slider.png."""
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMG = os.path.join(ROOT, "docs", "img")


def run(build, name, *args):
    exe = os.path.join(build, "examples", name)
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "out.csv")
        done = subprocess.run([exe, "--json", "--csv", csv, *args], capture_output=True,
                              text=True, check=True)
        data = np.genfromtxt(csv, delimiter=",", names=True)
    return json.loads(done.stdout), data


def pendulum(build):
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    cases = [("1e-3",), ("2e-4",), ("2e-4", "--dt-max", "1e-3"), ("1e-3", "--dt-max", "2e-3")]
    for scheme, style in (("midpoint", "-"), ("semi_implicit", "--")):
        for case in cases:
            out, data = run(build, "revolute_pendulum", "--joint", "clearance", "--scheme",
                            scheme, "--dt", *case)
            e = np.array(out["energy"])
            label = f"{scheme}, h {' '.join(case).replace('--dt-max ', '-> ')}"
            ax.plot(e[:, 0], e[:, 1], style, lw=1.0, label=label)
            bx.bar(f"{scheme[:4]} {' '.join(case).replace('--dt-max ', '-')}",
                   out["cpu_seconds"])
    ax.set_xlabel("t (s)")
    ax.set_ylabel("energy (J)")
    ax.set_title("Clearance pendulum, 10 s: energy")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    bx.set_ylabel("CPU time (s)")
    bx.set_title("CPU time (shared machine, indicative)")
    bx.tick_params(axis="x", labelrotation=60, labelsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "revolute_pendulum_steps.png"), dpi=110)


def cylindrical(build):
    out, data = run(build, "cylindrical_slider")
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    t = data["t"]
    ax.plot(t, data["tilt"] * 1e3, label="tilt (mrad)")
    ax.axhline(out["tilt_seated"] * 1e3, color="k", ls=":", label="-asin(2c/L)")
    ax.plot(t, data["y"] * 1e6, label="y of the centre (µm)")
    ax.set_xlim(0.0, 0.1)
    ax.set_xlabel("t (s)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax.set_title("Cylindrical slider seating (c = 0.1 mm)")
    bx.semilogy(t, np.abs(data["axial_error"]) + 1e-18, label="|x - F t²/2m| (m)")
    bx.semilogy(t, data["h"], label="step size h (s)")
    bx.set_xlabel("t (s)")
    bx.legend(fontsize=8)
    bx.grid(alpha=0.3)
    bx.set_title(f"axial error, steps (front {out['force_front'][1]:.9f} N)")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "cylindrical_slider.png"), dpi=110)


def prismatic(build):
    out, data = run(build, "prismatic_slider")
    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.2))
    t = data["t"]
    ax.plot(t, data["y"] * 1e3, ".-", label="y of the centre (mm)")
    ax.axhline(-2e3 * out["parameters"]["clearance"], color="k", ls=":", label="-2c")
    ax.set_xlim(0.0, 0.2)
    ax.set_xlabel("t (s)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    ax.set_title(f"Prismatic slider: rests at t = {out['rest_time']:.3f} s")
    r = out["parameters"]["cavity_circumradius"]
    ang = -np.pi / 2 + 2 * np.pi / 3 * np.arange(4)
    bx.plot(r * np.cos(ang) * 1e3, r * np.sin(ang) * 1e3, "k-", label="guide cavity")
    for a in out["active_set"]:
        p = np.array(a["point"]) + np.array(out["position"])
        bx.plot(p[0] * 1e3, p[1] * 1e3, "o", ms=4 + 2 * a["force"], mfc="none")
        bx.arrow(p[0] * 1e3, p[1] * 1e3, a["normal"][0] * a["force"], a["normal"][1] * a["force"],
                 width=0.05, color="C3")
    bx.set_aspect("equal")
    bx.set_title(f"{out['vertices_in_contact']} vertices, {out['closed_gaps']} closed gaps "
                 "(arrows: force, mm per N)")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "prismatic_slider.png"), dpi=110)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    os.makedirs(IMG, exist_ok=True)
    pendulum(build)
    cylindrical(build)
    prismatic(build)


if __name__ == "__main__":
    main()
