#!/usr/bin/env python3
"""Plots of examples/fc3d_bench: iterations, time to tolerance and time per contact and
sweep against the number of contacts, for Coulomb and maximum-dissipation friction.

Usage: docs/plots/fc3d_bench.py [BUILD_DIR] [--json FILE]
Runs BUILD_DIR/examples/fc3d_bench (1e2 to 1e4 contacts with the Jacobi blend, then 3e4
and 1e5 contacts with Gauss-Seidel only; several minutes in all) unless --json gives a
saved output. Writes docs/img/fc3d_bench.png and the data docs/img/fc3d_bench.json.
"""
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(exe, *args):
    out = subprocess.run([exe, "--json", *args], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def load():
    """All runs; sizes above 1e4 contacts are run one grain kind per process and without
    the Jacobi blend, so that each process stays within about two minutes."""
    args = sys.argv[1:]
    if "--json" in args:
        with open(args[args.index("--json") + 1]) as f:
            return json.load(f)
    build = args[0] if args else os.path.join(ROOT, "build")
    exe = os.path.join(build, "examples", "fc3d_bench")
    data = run(exe, "--jacobi", "--max-contacts", "1e4")
    for grains in ("spheres", "eccentric"):
        for size in ("31623", "1e5"):
            data["runs"] += run(exe, "--grains", grains, "--min-contacts", size,
                                "--max-contacts", size)["runs"]
    with open(os.path.join(ROOT, "docs", "img", "fc3d_bench.json"), "w") as f:
        json.dump(data, f, indent=1)
    return data


def main():
    data = load()
    runs = data["runs"]
    series = [("coulomb", "Coulomb, GS", "C0", "-"),
              ("max_dissipation", "max. dissipation, GS", "C3", "-"),
              ("coulomb_jacobi", "Coulomb, Jacobi blend", "C0", ":"),
              ("max_dissipation_jacobi", "max. diss., Jacobi blend", "C3", ":")]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.6))
    for grains, marker in (("spheres", "o"), ("eccentric", "s")):
        for key, label, color, ls in series:
            rs = sorted((r for r in runs if r["grains"] == grains and key in r),
                        key=lambda r: r["contacts"])
            n = [r["contacts"] for r in rs]
            lab = f"{label} ({grains})"
            axes[0].plot(n, [r[key]["iterations"] for r in rs], ls=ls, marker=marker,
                         color=color, mfc="none" if grains == "eccentric" else color, label=lab)
            axes[1].plot(n, [r[key]["seconds"] for r in rs], ls=ls, marker=marker, color=color,
                         mfc="none" if grains == "eccentric" else color)
            axes[2].plot(n, [r[key]["ns_per_contact_sweep"] for r in rs], ls=ls, marker=marker,
                         color=color, mfc="none" if grains == "eccentric" else color)
    tol = data["tolerance"]
    axes[0].set_ylabel(f"sweeps to merit <= {tol:g}")
    axes[1].set_ylabel("time to tolerance [s]")
    axes[2].set_ylabel("time per contact and sweep [ns]")
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("contacts")
        ax.grid(True, which="both", alpha=0.3)
    axes[2].set_ylim(bottom=0)
    axes[0].set_yscale("log")
    axes[1].set_yscale("log")
    axes[0].legend(fontsize=7)
    fig.suptitle(f"fc3d_bench: grain packings, mu = {data['mu']:g} "
                 "(filled: homogeneous spheres, open: eccentric grains)")
    fig.tight_layout()
    path = os.path.join(ROOT, "docs", "img", "fc3d_bench.png")
    fig.savefig(path, dpi=110)
    print(path)


if __name__ == "__main__":
    main()
