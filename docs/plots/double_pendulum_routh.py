"""Figures 5-9 of seed 000 (double pendulum hitting a rough floor) from
examples/double_pendulum_routh: energy, angular velocities and joint
reactions for mu = 0 (black) and mu = 0.15 (red); solid lines are our
adaptive integrator with exact event location, dashed lines the paper's
method (RK4, h = 1e-4, linear interpolation of the gap).

Usage: /usr/bin/python3 docs/plots/double_pendulum_routh.py [EXAMPLES_DIR]
(default build/examples); writes docs/img/routh_fig*.png."""
import json
import os
import subprocess
import sys
import tempfile

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
IMG = os.path.join(ROOT, "docs", "img")


def run(exe, mu, paper, tmp):
    csv = os.path.join(tmp, f"mu{mu}_{'paper' if paper else 'ours'}.csv")
    args = [exe, "--json", "--mu", str(mu), "--t-end", "6", "--csv", csv, "--csv-dt", "1e-3"]
    if paper:
        args.append("--paper-method")
    out = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
    data = np.genfromtxt(csv, delimiter=",", names=True)
    return out, data


def main():
    examples = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build", "examples")
    exe = os.path.join(examples, "double_pendulum_routh")
    os.makedirs(IMG, exist_ok=True)
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for mu in (0.0, 0.15):
            for paper in (False, True):
                runs[mu, paper] = run(exe, mu, paper, tmp)
    colour = {0.0: "black", 0.15: "red"}

    def figure(name, title, panels):
        fig, axes = plt.subplots(len(panels), 1, figsize=(8, 3.2 * len(panels)), sharex=True,
                                 squeeze=False)
        for ax, (column, label) in zip(axes[:, 0], panels):
            for mu in (0.0, 0.15):
                for paper in (False, True):
                    data = runs[mu, paper][1]
                    ax.plot(data["t"], data[column], color=colour[mu],
                            linestyle="--" if paper else "-", linewidth=0.8 if paper else 1.2,
                            label=f"mu = {mu:g}" + (", paper's method" if paper else ", ours"))
            ax.set_ylabel(label)
            ax.grid(alpha=0.3)
        axes[0, 0].set_title(title)
        axes[0, 0].legend(fontsize=8)
        axes[-1, 0].set_xlabel("t [s]")
        fig.tight_layout()
        fig.savefig(os.path.join(IMG, name), dpi=110)
        plt.close(fig)

    figure("routh_fig5_energy.png", "Fig. 5: mechanical energy (stepwise loss at impacts)",
           [("energy", "E [J]")])
    figure("routh_fig6_omega1.png", "Fig. 6: angular velocity of the rod OA",
           [("omega1", "dpsi1/dt [rad/s]")])
    figure("routh_fig7_omega2.png", "Fig. 7: angular velocity of the second part",
           [("omega2", "dpsi2/dt [rad/s]")])
    figure("routh_fig8_reactions_O.png", "Fig. 8: reaction at the joint O",
           [("P_O", "P [N]"), ("R_O", "R [N]")])
    figure("routh_fig9_reactions_A.png", "Fig. 9: reaction at the joint A",
           [("V_A", "V [N]"), ("H_A", "H [N]")])

    # impact times and energies, ours vs the paper's method
    fig, ax = plt.subplots(figsize=(8, 3.5))
    for mu in (0.0, 0.15):
        ours, paper = runs[mu, False][0], runs[mu, True][0]
        dt = [abs(a["t"] - b["t"]) for a, b in zip(ours["impacts"], paper["impacts"])]
        de = [abs(a["energy_after"] - b["energy_after"])
              for a, b in zip(ours["impacts"], paper["impacts"])]
        k = np.arange(1, len(dt) + 1)
        ax.semilogy(k, dt, "o-", color=colour[mu], label=f"|dt| impact time, mu = {mu:g}")
        ax.semilogy(k, de, "s--", color=colour[mu], label=f"|dE| after impact [J], mu = {mu:g}")
    ax.set_xlabel("impact number")
    ax.set_title("Paper's method (RK4 h = 1e-4, linear interpolation) minus ours")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "routh_method_difference.png"), dpi=110)
    plt.close(fig)

    # beyond 6 s: accumulation of impacts, then a sticking persistent contact
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "late.csv")
        out = json.loads(subprocess.run(
            [exe, "--json", "--mu", "0.15", "--t-end", "8", "--csv", csv, "--csv-dt", "2e-4"],
            capture_output=True, text=True, check=True).stdout)
        data = np.genfromtxt(csv, delimiter=",", names=True)
    late = data["t"] >= 5.5
    fig, axes = plt.subplots(3, 1, figsize=(8, 8), sharex=True)
    axes[0].plot(data["t"][late], data["energy"][late], color="red")
    axes[0].set_ylabel("E [J]")
    axes[1].plot(data["t"][late], data["omega1"][late], color="red", label="dpsi1/dt")
    axes[1].plot(data["t"][late], data["omega2"][late], color="darkred", linestyle="--",
                 label="dpsi2/dt")
    axes[1].set_ylabel("[rad/s]")
    axes[1].legend(fontsize=8)
    axes[2].plot(data["t"][late], data["F_contact"][late], color="black", label="normal F")
    axes[2].plot(data["t"][late], data["T_contact"][late], color="gray", label="friction T")
    axes[2].set_ylabel("contact force [N]")
    axes[2].legend(fontsize=8)
    for event in out["events"]:
        for ax in axes:
            ax.axvline(event["t"], color="blue", linewidth=0.6, linestyle=":")
    for ax in axes:
        ax.grid(alpha=0.3)
    axes[0].set_title(f"mu = 0.15: {len(out['impacts'])} impacts accumulate at "
                      f"{out['events'][0]['t']:.6f} s, then the disk sticks")
    axes[-1].set_xlabel("t [s]")
    fig.tight_layout()
    fig.savefig(os.path.join(IMG, "routh_beyond_6s.png"), dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
