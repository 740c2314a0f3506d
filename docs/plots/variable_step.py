"""Figures of docs/variable_step.md: a ball dropped from 1 m on a floor, stepped
with variable steps in [1e-4, 1e-2] by seed 004's semi-implicit scheme and by
Moreau-Jean (theta = 1/2): height against the exact parabola, and the size of
every step (the landing step shortened to the predicted contact).

usage: /usr/bin/python3 docs/plots/variable_step.py [BUILD_DIR]
(BUILD_DIR holds libnscd.so; default build/)"""
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build")
os.environ.setdefault("NSCD_LIBRARY", os.path.join(os.path.abspath(BUILD), "libnscd.so"))
sys.path.insert(0, os.path.join(ROOT, "python"))
import nscd  # noqa: E402

G, H = 9.81, 1.0


def drop(scheme):
    """(t, y, h) after every step of the drop with the given scheme."""
    system = nscd.System(1, n_contacts=1, mass=lambda q: [1.0], forces=lambda t, q, v: [-G],
                         contact=lambda i, t, q: (q[0], [1.0]))
    system.set_state(0.0, [H], [0.0])
    t, y, h = [0.0], [H], []

    def on_step(report):  # the state after each accepted step
        t.append(report.t)
        y.append(system.state()[1][0])
        h.append(report.dt)

    with system, nscd.TimeStepping(system, on_step=on_step, scheme=scheme, dt_min=1e-4,
                                   dt_max=1e-2) as stepper:
        stepper.advance(0.7)
    return t, y, h


def main():
    out = os.path.join(ROOT, "docs", "img")
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    t_exact = [0.7 * k / 400 for k in range(401)]
    ax1.plot(t_exact, [max(H - 0.5 * G * s * s, 0.0) for s in t_exact], "k-", lw=0.8,
             label="exact (plastic)")
    for scheme, style in (("semi_implicit", "o"), ("moreau_jean", "x")):
        t, y, h = drop(scheme)
        ax1.plot(t, y, style, ms=3, label=scheme)
        ax2.semilogy(t[1:], h, style, ms=3, label=scheme)
    ax1.axvline(math.sqrt(2 * H / G), color="grey", lw=0.5)
    ax2.axvline(math.sqrt(2 * H / G), color="grey", lw=0.5)
    ax1.set_ylabel("height y (m)")
    ax1.legend()
    ax2.set_xlabel("t (s)")
    ax2.set_ylabel("step size h (s)")
    ax2.set_ylim(5e-5, 2e-2)
    ax2.legend()
    fig.suptitle("Ball dropped from 1 m, variable steps in [1e-4, 1e-2]")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "variable_step_ball.png"), dpi=100)
    print("wrote docs/img/variable_step_ball.png")


if __name__ == "__main__":
    main()
