"""Figures 7-12 and 15-18 of seed 003 in kind, from examples/model_problem --json --histories:

- model_problem_fig15.png: q1, q2 of model (a) at dt = 1e-3 and their error against the
  exact modal solution, per scheme;
- model_problem_fig16.png: q3 of model (a) (the stiff mode, omega = 3162 s^-1) over the
  first 20 ms;
- model_problem_fig17_18.png: model (b) (mass 3 held by the bilateral constraint) at the
  study step: q3, v3 and the constraint force against the exact one, velocity and
  acceleration level, paper's and consistent start (the α schemes; the Moreau schemes on the
  velocity level only);
- model_problem_spectral.png: spectral radius and relative period error against dt / T,
  recovered from the library's trajectories (markers) and from the amplification matrices of
  the independent reference tools/reference/model_problem.py (lines).

Schemes the library does not have in this build are missing from the first three figures
and drawn from the reference only in the last.

Usage: /usr/bin/python3 docs/plots/model_problem.py [EXAMPLES_DIR] [--json FILE]
(default build/examples); writes docs/img/model_problem_*.png."""
import importlib.util
import json
import math
import os
import subprocess
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IMG = os.path.join(ROOT, "docs", "img")
REFERENCE = os.path.join(ROOT, "tools", "reference", "model_problem.py")
CASES = [("moreau_jean", None), ("moreau_midpoint", None), ("hets", None),
         ("generalized_alpha", 1.0), ("generalized_alpha", 0.8), ("generalized_alpha", 0.5),
         ("generalized_alpha", 0.0), ("bathe", None), ("ed_alpha", 0.0), ("ed_alpha", 0.8)]
COLORS = dict(zip([c for c in CASES], plt.rcParams["axes.prop_cycle"].by_key()["color"]))


def label(scheme, rho):
    names = {"moreau_jean": "Moreau-Jean θ=1/2", "moreau_midpoint": "Moreau midpoint",
             "hets": "HETS", "generalized_alpha": "gen-α", "bathe": "Bathe", "ed_alpha": "ED-α"}
    return names[scheme] + ("" if rho is None else " ρ∞=%g" % rho)


def load(argv):
    if "--json" in argv:
        with open(argv[argv.index("--json") + 1]) as f:
            return json.load(f)
    examples = next((a for a in argv[1:] if not a.startswith("--")),
                    os.path.join(ROOT, "build", "examples"))
    done = subprocess.run([os.path.join(examples, "model_problem"), "--json", "--histories"],
                          capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def reference():
    spec = importlib.util.spec_from_file_location("model_problem_reference", REFERENCE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fig15_16(out):
    runs = [r for r in out["runs"] if r["model"] == "a" and r["dt"] == out["parameters"]
            ["paper_dt"] and r["stable"] and "history" in r]
    ex = out["exact"]["history_a"]
    te, qe = np.array(ex["t"]), np.array(ex["q"])
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True)
    for i in range(2):
        axes[0, i].plot(te, qe[:, i], "k", lw=2.5, label="exact (modal)")
    for r in runs:
        t, q = np.array(r["history"]["t"]), np.array(r["history"]["q"])
        exact = np.array([np.interp(t, te, qe[:, i]) for i in range(3)]).T
        key = (r["scheme"], r["rho_inf"])
        for i in range(2):
            axes[0, i].plot(t, q[:, i], color=COLORS[key], lw=1, label=label(*key))
            mask = t >= 0.02  # the exact history is on 0.01 s there: no interpolation error
            axes[1, i].semilogy(t[mask], np.abs(q[mask, i] - exact[mask, i]) + 1e-16,
                                color=COLORS[key], lw=1)
    for i in range(2):
        axes[0, i].set_ylabel("q%d (m)" % (i + 1))
        axes[1, i].set_ylabel("|q%d - exact| (m)" % (i + 1))
        axes[1, i].set_xlabel("t (s)")
    axes[0, 0].legend(fontsize=7)
    fig.suptitle("Model (a), dt = 1e-3 s: masses 1 and 2 (Fig. 15 in kind)")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "model_problem_fig15.png"), dpi=110)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(8, 4.5))
    mask = te <= 0.02 + 1e-12
    ax.plot(te[mask] * 1e3, qe[mask, 2] * 1e6, "k", lw=2.5, label="exact (sampled at 1e-4 s)")
    for r in runs:
        t, q = np.array(r["history"]["t"]), np.array(r["history"]["q"])
        m = t <= 0.02 + 1e-12
        key = (r["scheme"], r["rho_inf"])
        ax.plot(np.concatenate([[0], t[m]]) * 1e3, np.concatenate([[0], q[m, 2]]) * 1e6, "o-",
                ms=3, color=COLORS[key], lw=1, label=label(*key))
    ax.set_xlabel("t (ms)")
    ax.set_ylabel("q3 (µm)")
    ax.set_title("Model (a), dt = 1e-3 s: mass 3 on the stiff spring (Fig. 16 in kind)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "model_problem_fig16.png"), dpi=110)
    plt.close(fig)


def fig17_18(out):
    dt = out["parameters"]["study_dt"]
    runs = [r for r in out["runs"] if r["model"] == "b" and r["dt"] == dt and "history" in r
            and r["stable"] and (r["rho_inf"] in (None, 1.0, 0.0))]
    ex = out["exact"]["history_b"]
    fig, axes = plt.subplots(3, 1, figsize=(10, 10))
    axes[2].plot(ex["t"], ex["lambda"], "k", lw=2.5, label="exact")
    styles = {("velocity", "consistent"): "-", ("velocity", "paper"): "--",
              ("acceleration", "consistent"): "-.", ("acceleration", "paper"): ":"}
    for r in runs:
        h = r["history"]
        t, q, v = np.array(h["t"]), np.array(h["q"]), np.array(h["v"])
        key = (r["scheme"], r["rho_inf"])
        style = styles[(r["level"], r["start"])]
        name = "%s, %s level, %s start" % (label(*key), r["level"], r["start"])
        axes[0].plot(t, q[:, 2], style, color=COLORS[key], lw=1, label=name)
        axes[1].plot(t, v[:, 2], style, color=COLORS[key], lw=1)
        axes[2].plot(t, h["lambda"], style, color=COLORS[key], lw=1)
    axes[0].set_ylabel("q3 (m)")
    axes[1].set_ylabel("v3 (m/s)")
    axes[2].set_ylabel("constraint force λ (N)")
    axes[0].set_xlabel("t (s)")
    axes[1].set_xlabel("t (s)")
    axes[2].set_xlabel("t (s): the first 0.3 s, every step")
    axes[2].set_xlim(0, 0.3)
    axes[0].legend(fontsize=6, ncol=2)
    fig.suptitle("Model (b), dt = %g s: drift and constraint force (Figs. 17-18 in kind)" % dt)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "model_problem_fig17_18.png"), dpi=110)
    plt.close(fig)


def spectral(out, ref):
    fig, axes = plt.subplots(1, 2, figsize=(13, 5))
    ratios = np.logspace(-3, 3, 121)
    for key in CASES:
        scheme, rho_inf = key
        parameter = {"moreau_jean": 0.5}.get(scheme, rho_inf)
        try:
            props = [ref.spectral_properties(scheme, parameter, 2 * math.pi * r) for r in ratios]
            rho_ref = np.array([p[0] for p in props])
            per_ref = np.array([p[1] for p in props])
            axes[0].semilogx(ratios, rho_ref, "-", color=COLORS[key], lw=1)
            axes[1].loglog(ratios, np.abs(per_ref), "-", color=COLORS[key], lw=1)
        except ValueError:  # no reference for this scheme
            pass
        lib = [s for s in out["spectral"] if (s["scheme"], s["rho_inf"]) == key]
        if lib:
            s = lib[0]
            per = np.array([np.nan if p is None else abs(p) for p in s["period_error"]])
            axes[0].semilogx(s["dt_over_T"], s["rho"], "o", ms=4, color=COLORS[key],
                             label=label(*key) + " (library)")
            axes[1].loglog(s["dt_over_T"], per, "o", ms=4, color=COLORS[key])
        else:
            axes[0].plot([], [], "-", color=COLORS[key], label=label(*key) + " (reference only)")
    axes[0].set_ylim(0, 1.2)
    axes[0].set_xlabel("dt / T")
    axes[0].set_ylabel("spectral radius ρ")
    axes[1].set_xlabel("dt / T")
    axes[1].set_ylabel("|relative period error| T̄/T - 1")
    axes[1].set_ylim(1e-12, 1e4)
    axes[0].legend(fontsize=7)
    fig.suptitle("Spectral radius and period error (Figs. 7-12 in kind): markers from the "
                 "library's trajectories, lines from the reference's amplification matrices")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "model_problem_spectral.png"), dpi=110)
    plt.close(fig)


def main(argv):
    out = load(argv)
    fig15_16(out)
    fig17_18(out)
    spectral(out, reference())


if __name__ == "__main__":
    main(sys.argv)
