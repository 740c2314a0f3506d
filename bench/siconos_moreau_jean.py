#!/usr/bin/python3
"""nscd's Moreau-Jean against Siconos' MoreauJeanOSI on the same bouncing ball, in one run.

The ball: one dof (height q), m = 1 kg, g = 9.81 m/s^2, floor g_N = q, Newton restitution
e = 0.9, dropped at rest from h0 = 1 m, dt = 1e-3 s, 3 s (nine impacts). Both take
Moreau-Jean with theta = 1/2 and the activation g + dt/2 g' <= 0 (Siconos' default gamma
1/2, nscd's gamma option), an LCP per step.
  - Siconos (python3-siconos 4.4, Debian): LagrangianLinearTIDS, NewtonImpactNSL,
    LagrangianLinearTIR, MoreauJeanOSI(0.5), LCP, TimeStepping. Its time per step is
    TimeStepping.run() (the C++ loop, no Python per step) over the steps; the trajectory
    comes from a second simulation stepped from Python.
  - nscd: build/bench/bench_ts_bouncing_ball (C, public API), median CPU time per step.
Prints one JSON object: both times per step, their ratio (Siconos / nscd), and the
agreement of the trajectories (max |q_siconos - q_nscd| and |v| over the points every
10 steps). The two compute the same scheme: the trajectories must agree to 1e-9 (seen:
2.8e-16 m and 0 m/s); exits 1 when they do not or a run fails, 2 when siconos is not
installed. ctest runs it with --repeat 1 where python3-siconos is found (bench/CMakeLists.txt).

usage: bench/siconos_moreau_jean.py [BUILD_DIR] [--repeat N]"""
import contextlib
import json
import os
import subprocess
import sys
import time

import numpy as np

H0, E, GRAVITY, MASS = 1.0, 0.9, 9.81, 1.0
DT, T_END, EVERY = 1e-3, 3.0, 10


def siconos_simulation(sk):
    ball = sk.LagrangianLinearTIDS([H0], [0.0], [[MASS]])
    ball.setFExtPtr(np.array([-MASS * GRAVITY]))
    interaction = sk.Interaction(sk.NewtonImpactNSL(E), sk.LagrangianLinearTIR([[1.0]]))
    nsds = sk.NonSmoothDynamicalSystem(0.0, T_END)
    nsds.insertDynamicalSystem(ball)
    nsds.link(interaction, ball)
    osi = sk.MoreauJeanOSI(0.5)
    simulation = sk.TimeStepping(nsds, sk.TimeDiscretisation(0.0, DT), osi, sk.LCP())
    return simulation, ball


def siconos_trajectory(sk):
    simulation, ball = siconos_simulation(sk)
    points, step = [], 0
    while simulation.hasNextEvent():
        simulation.computeOneStep()
        step += 1
        if step % EVERY == 0:
            points.append([simulation.nextTime(), ball.q()[0], ball.velocity()[0]])
        simulation.nextStep()
    return np.array(points), step


@contextlib.contextmanager
def stdout_to_stderr():
    """Siconos' run() prints progress lines on the C stdout: keep the JSON clean."""
    sys.stdout.flush()
    saved = os.dup(1)
    os.dup2(2, 1)
    try:
        yield
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def siconos_time_per_step(sk, repeat):
    times = []
    for _ in range(repeat + 1):  # the first is a warm-up
        simulation, _ = siconos_simulation(sk)
        with stdout_to_stderr():
            start = time.process_time()
            simulation.run()
            times.append(time.process_time() - start)
    steps = int(round(T_END / DT))
    return float(np.median(times[1:])) / steps


def nscd_run(build_dir, repeat):
    exe = os.path.join(build_dir, "bench", "bench_ts_bouncing_ball")
    done = subprocess.run([exe, "--repeat", str(repeat), "--h0", repr(H0), "--e", repr(E),
                           "--dt", repr(DT), "--t-end", repr(T_END), "--every", str(EVERY),
                           "--trajectory"], capture_output=True, text=True, check=True,
                          env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
    return json.loads(done.stdout)


def main():
    args = sys.argv[1:]
    repeat = 5
    if "--repeat" in args:
        i = args.index("--repeat")
        repeat = int(args[i + 1])
        del args[i:i + 2]
    build_dir = args[0] if args else "build"
    try:
        import siconos.kernel as sk
    except ImportError:
        print("siconos_moreau_jean: python3-siconos is not installed", file=sys.stderr)
        return 2
    ours = nscd_run(build_dir, repeat)
    theirs, steps = siconos_trajectory(sk)
    mine = np.array(ours["trajectory"])
    n = min(len(mine), len(theirs))
    assert n > 0 and steps == ours["steps"]
    assert np.allclose(mine[:n, 0], theirs[:n, 0], atol=1e-12), "sample times differ"
    dq = float(np.max(np.abs(mine[:n, 1] - theirs[:n, 1])))
    dv = float(np.max(np.abs(mine[:n, 2] - theirs[:n, 2])))
    siconos_step = siconos_time_per_step(sk, repeat)
    nscd_step = ours["us_per_step"] * 1e-6
    print(json.dumps({
        "benchmark": "siconos_moreau_jean", "model": "bouncing ball", "h0": H0, "e": E,
        "dt": DT, "t_end": T_END, "steps": steps, "theta": 0.5,
        "siconos_version": getattr(sk, "__version__", "4.4 (python3-siconos)"),
        "siconos_us_per_step": siconos_step * 1e6, "nscd_us_per_step": nscd_step * 1e6,
        "ratio_siconos_over_nscd": siconos_step / nscd_step,
        "points_compared": n,
        "max_abs_q_difference": dq, "max_abs_v_difference": dv, "agree": dq <= 1e-9 and dv <= 1e-9,
        "final_nscd": ours["final"], "final_siconos": theirs[n - 1].tolist(),
    }))
    return 0 if dq <= 1e-9 and dv <= 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
