"""Figures of docs/granular_channel.md for seed 002, Sect. 4.3 (Figs. 10-12 in kind):
speed and angular speed maps on 150 x 65 cells for Coulomb and maximum dissipation
side by side, the radial distribution function near the outlet, the solid fraction
profile of the bed over the height, and the history of particles and contacts that
shows the steady state.

usage: docs/plots/granular_channel.py [RESULT.json]
Without an argument it runs examples/granular_channel --json (the default run:
minutes; NSCD_EXAMPLES_DIR, default build/examples). Writes docs/img/
granular_channel_{speed,angular_speed,rdf,profile,history}.png and
docs/img/granular_channel.json (the result without its maps)."""
import json
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.patches as patches  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
IMG = os.path.join(HERE, "..", "img")
EXAMPLES = os.environ.get("NSCD_EXAMPLES_DIR", os.path.join(HERE, "..", "..", "build", "examples"))
TITLES = {"coulomb": "Coulomb (De Saxcé)", "max_dissipation": "maximum dissipation"}


def load():
    if len(sys.argv) > 1:
        with open(sys.argv[1]) as f:
            return json.load(f)
    out = subprocess.run([os.path.join(EXAMPLES, "granular_channel"), "--json"], check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out)


def obstacle(ax):
    """The obstacle in cm: the left half of the disc r = 1 cm at (4, 4), the box [4,5]x[3,5]."""
    ax.add_patch(patches.Wedge((4, 4), 1, 90, 270, facecolor="0.6", edgecolor="k", lw=0.8))
    ax.add_patch(patches.Rectangle((4, 3), 1, 2, facecolor="0.6", edgecolor="k", lw=0.8))


def map_figure(d, key, label, name):
    runs = d["runs"]
    maps = [np.array(r[key], dtype=float) for r in runs]  # [150][65], x-major
    vmax = max(np.nanmax(m) for m in maps)
    fig, axes = plt.subplots(len(runs), 1, figsize=(7.6, 2.6 * len(runs) + 0.6), squeeze=False)
    for ax, r, m in zip(axes[:, 0], runs, maps):
        im = ax.imshow(m.T, origin="lower", extent=(0, 15, 0, 6.5), vmin=0, vmax=vmax,
                       cmap="viridis", aspect="equal", interpolation="nearest")
        obstacle(ax)
        title = f"{TITLES[r['friction_law']]}"
        if key == "speed_map":
            title += (f": peak {r['speed_peak']:.3f} m/s at ({100 * r['speed_peak_x']:.2f}, "
                      f"{100 * r['speed_peak_y']:.2f}) cm")
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("y [cm]")
        fig.colorbar(im, ax=ax, label=label, fraction=0.025, pad=0.01)
    axes[-1, 0].set_xlabel("x [cm]")
    fig.suptitle(f"{label}, mean over {runs[0]['samples']} samples in "
                 f"[{runs[0]['window_start']:.2f}, {runs[0]['window_end']:.2f}] s, "
                 f"k = {d['coarse_graining']:g}, 150 x 65 cells", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, name), dpi=110)
    plt.close(fig)


def rdf_figure(d):
    fig, ax = plt.subplots(figsize=(6, 4))
    for r, style in zip(d["runs"], ("-", "--")):
        ax.plot(r["rdf"]["r_over_diameter"], r["rdf"]["g"], style, label=TITLES[r["friction_law"]])
    ax.axhline(1.0, color="k", ls=":", lw=1)
    ax.set_xlabel("r / d")
    ax.set_ylabel("g(r)")
    ax.set_title(f"radial distribution in [12, 14] cm x 6.5 cm x 2 cm, k = {d['coarse_graining']:g}",
                 fontsize=9)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "granular_channel_rdf.png"), dpi=110)
    plt.close(fig)


def profile_figure(d):
    fig, ax = plt.subplots(figsize=(6, 4))
    diameter = d["diameter"]
    for r, style in zip(d["runs"], ("-", "--")):
        p = r["solid_fraction_profile"]
        z = np.array(p["z"]) / diameter
        ax.plot(p["solid_fraction"], z, style, label=TITLES[r["friction_law"]])
    r = d["runs"][0]
    h = r["bed_height_over_diameter"]
    ax.axhspan(1.0, h - 1.0, color="0.9",
               label=f"core [d, h - d]: {100 * r['solid_fraction_core']:.1f} %")
    ax.axhline(h, color="k", ls=":", lw=1, label=f"bed height h = {h:.2f} d")
    ax.axvline(0.572, color="r", ls=":", lw=1, label="Table 2's 57.2 %")
    ax.set_xlabel("solid fraction (exact sphere volume per slab)")
    ax.set_ylabel("z / d")
    ax.set_ylim(0, min(h + 3.0, z[-1]))
    ax.set_title(f"bed x in [8, 14] cm, k = {d['coarse_graining']:g}, "
                 f"slabs of {1000 * (p['z'][1] - p['z'][0]):.2f} mm", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "granular_channel_profile.png"), dpi=110)
    plt.close(fig)


def history_figure(d):
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4))
    for r, style in zip(d["runs"], ("-", "--")):
        h = r["history"]
        a1.plot(h["t"], h["particles"], style, label=TITLES[r["friction_law"]])
        a2.plot(h["t"], 2 * np.array(h["contacts"]) / np.maximum(1, np.array(h["particles"])),
                style, label=TITLES[r["friction_law"]])
    for ax in (a1, a2):
        ax.axvspan(0, d["warmup"], color="0.9", label="warm-up")
        ax.set_xlabel("t [s]")
        ax.legend(fontsize=8)
    a1.axhline(d["target_particles"], color="k", ls=":", lw=1, label="2.47e5 / k$^2$")
    a1.set_ylabel("particles")
    a2.axhline(2.59, color="k", ls=":", lw=1)
    a2.set_ylabel("2 x contacts / particles")
    fig.suptitle(f"granular channel, k = {d['coarse_graining']:g}: approach to the steady state",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "granular_channel_history.png"), dpi=110)
    plt.close(fig)


def main():
    d = load()
    os.makedirs(IMG, exist_ok=True)
    map_figure(d, "speed_map", "mean speed |v| [m/s]", "granular_channel_speed.png")
    map_figure(d, "angular_speed_map", "mean angular speed |ω| [rad/s]",
               "granular_channel_angular_speed.png")
    rdf_figure(d)
    profile_figure(d)
    history_figure(d)
    slim = dict(d, runs=[{k: v for k, v in r.items() if not k.endswith("_map")} for r in d["runs"]])
    with open(os.path.join(IMG, "granular_channel.json"), "w") as f:
        json.dump(slim, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
