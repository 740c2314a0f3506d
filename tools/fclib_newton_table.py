#!/usr/bin/python3
"""Gauss–Seidel, Newton and AUTO on the real FCLIB problems (docs/fc3d.md, "Newton").

Solves every local problem of an FCLIB directory (default /work/shared/data/fclib)
with nscd's fc3d solver through the Python package (nscd.fclib reads the file,
nscd.fc3d_solve_bsr solves it) by the three methods GAUSS_SEIDEL, NEWTON and
AUTO, and prints a markdown table: status, sweeps, Newton steps, seconds of the
solve, nscd's merit and the error

    E1 = ||r - P_K(r - u~)|| / (1 + ||q||),   u~_j = (u_j,n + mu_j ||u_j,t||, u_j,t),

computed here in numpy from W, q, mu of the file (u = W r + q recomputed), a
check independent of the library's own merit.

usage: PYTHONPATH=python NSCD_LIBRARY=build/libnscd.so \\
       /usr/bin/python3 tools/fclib_newton_table.py [DIR or FILES] [--tolerance T]
           [--gs-sweeps K] [--newton-steps K] [--json]
"""
import argparse
import glob
import json
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import nscd  # noqa: E402
import nscd.fclib  # noqa: E402


def cone_projection(x, mu):
    """Rows of x (k x 3) projected onto the cones ||x_t|| <= mu x_n."""
    p = np.zeros_like(x)
    t = np.hypot(x[:, 1], x[:, 2])
    inside = t <= mu * x[:, 0]
    p[inside] = x[inside]
    polar = ~inside & (mu * t <= -x[:, 0])
    rest = ~inside & ~polar
    pn = (x[rest, 0] + mu[rest] * t[rest]) / (1.0 + mu[rest] ** 2)
    scale = np.where(t[rest] > 0, mu[rest] * pn / np.where(t[rest] > 0, t[rest], 1.0), 0.0)
    p[rest, 0] = pn
    p[rest, 1] = scale * x[rest, 1]
    p[rest, 2] = scale * x[rest, 2]
    return p


def e1_error(W, q, mu, r):
    u = (W @ r + q).reshape(-1, 3)
    rr = r.reshape(-1, 3)
    ut = u.copy()
    ut[:, 0] += mu * np.hypot(u[:, 1], u[:, 2])
    e = rr - cone_projection(rr - ut, mu)
    return float(np.linalg.norm(e) / (1.0 + np.linalg.norm(q)))


METHODS = (("GS", nscd.Fc3dMethod.GAUSS_SEIDEL), ("NEWTON", nscd.Fc3dMethod.NEWTON),
           ("AUTO", nscd.Fc3dMethod.AUTO))


def solve(p, W, method, tolerance, budget):
    start = time.perf_counter()
    try:
        r, _, info = nscd.fc3d_solve_bsr(p.row_ptr, p.col_idx, p.blocks, p.q, p.mu,
                                         method=method, tolerance=tolerance,
                                         max_iterations=budget, warm_start=0)
        status = "OK"
    except nscd.NscdError as exc:
        if not hasattr(exc, "result"):
            return {"status": exc.status_name.split(":")[0]}
        r, _, info = exc.result
        status = "NOT_CONVERGED"
    seconds = time.perf_counter() - start
    return {"status": status, "sweeps": info.iterations, "newton": info.newton_iterations,
            "failure": nscd.Fc3dNewtonFailure(info.newton_failure).name,
            "seconds": seconds, "merit": info.merit, "e1": e1_error(W, p.q, p.mu, r)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("paths", nargs="*", default=["/work/shared/data/fclib"])
    ap.add_argument("--tolerance", type=float, default=1e-10)
    ap.add_argument("--gs-sweeps", type=int, default=20000)
    ap.add_argument("--newton-steps", type=int, default=1000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    files = []
    for path in args.paths:
        files += sorted(glob.glob(os.path.join(path, "*.hdf5"))) if os.path.isdir(path) else [path]
    rows = []
    for path in files:
        name = os.path.basename(path)
        try:
            p = nscd.fclib.read(path)
        except (nscd.NscdError, OSError) as exc:
            rows.append({"file": name, "error": str(exc).split("\n")[0][:60]})
            continue
        W = p.dense_W()
        row = {"file": name, "contacts": p.n_contacts,
               "rank": int(np.linalg.matrix_rank(W)), "rows": W.shape[0]}
        for label, method in METHODS:
            budget = args.newton_steps if label == "NEWTON" else args.gs_sweeps
            row[label] = solve(p, W, method, args.tolerance, budget)
        rows.append(row)
    if args.json:
        print(json.dumps({"tolerance": args.tolerance, "gs_sweeps": args.gs_sweeps,
                          "newton_steps": args.newton_steps, "rows": rows}, indent=1))
        return
    print(f"tolerance {args.tolerance:g} (nscd merit), GS/AUTO budget {args.gs_sweeps} sweeps, "
          f"Newton budget {args.newton_steps} steps\n")
    head = "| file | contacts | rank W |"
    for label, _ in METHODS:
        head += f" {label} status | sweeps / steps | time [s] | E1 |"
    print(head)
    print("|" + "---|" * (3 + 4 * len(METHODS)))
    for row in rows:
        if "error" in row:
            print(f"| {row['file']} | – | – |" + " not a local problem: "
                  f"{row['error']} |" + " |" * (4 * len(METHODS) - 1))
            continue
        line = f"| {row['file']} | {row['contacts']} | {row['rank']}/{row['rows']} |"
        for label, _ in METHODS:
            s = row[label]
            if "sweeps" not in s:
                line += f" {s['status']} | – | – | – |"
                continue
            its = f"{s['sweeps']}" if label == "GS" else (
                f"{s['newton']}" if label == "NEWTON" else f"{s['sweeps']} + {s['newton']}")
            failure = "" if s["failure"] == "NO_FAILURE" else f" ({s['failure']})"
            line += (f" {s['status']}{failure} | {its} | {s['seconds']:.3g} | "
                     f"{s['e1']:.1e} |")
        print(line)
    return


if __name__ == "__main__":
    main()
