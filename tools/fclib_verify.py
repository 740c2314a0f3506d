#!/usr/bin/python3
"""Solves the local problems of real FCLIB files with nscd and checks each
solution independently, in numpy.

    tools/fclib_verify.py [FILE_OR_DIR ...] [--law coulomb|max_dissipation]
                          [--tolerance T] [--max-sweeps K] [--relaxations 1,0.8]
                          [--require-e1 E] [--expect-stall NAME ...] [--json]
                          [--acceleration none|anderson]

For every local problem (W, q, mu) of the files (default: the directory
$NSCD_FCLIB_DATA_DIR, else ../shared/data/fclib next to the repository):

* the file is read with h5py (independently of nscd; nscd.fclib, i.e.
  libfclib, only when h5py is not installed);
* the diagonal blocks are measured in numpy (relative asymmetry
  max |A - A'| / (trace/3), smallest eigenvalue of the symmetric part) and
  classified by nscd (nscd.fc3d_check_bsr);
* nscd.fc3d_solve_bsr solves it (block Gauss-Seidel, no warm start) with the
  first relaxation of --relaxations that converges (sweeps accelerated by
  Anderson with --acceleration anderson, docs/fc3d.md "Acceleration");
* E1 = ||r - P_K(r - u~)|| / (1 + ||q||) is computed here, with u = W r + q,
  u~_j = (u_n + mu ||u_T||, u_T) De Saxce's modified velocity and P_K the
  projection onto the friction cones (Coulomb law); for maximum dissipation the
  largest violation of each block's variational inequality with W_jj as given,
  sampled on 1440 points (mdp_violation).

Prints one row per file (a Markdown table, or JSON lines with --json).
Exit status: 0 when every local problem was accepted and, unless named by
--expect-stall, converged with E1 (or the VI violation) <= --require-e1 (when given); 1 otherwise;
77 when no data file was found (ctest's SKIP_RETURN_CODE). nscd is the
package in ../python (libnscd from $NSCD_LIBRARY or the build tree)."""
import argparse
import glob
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import nscd  # noqa: E402

SKIP = 77


def default_data_dir():
    env = os.environ.get("NSCD_FCLIB_DATA_DIR")
    if env:
        return env
    return os.path.normpath(os.path.join(HERE, "..", "..", "shared", "data", "fclib"))


def read_local(path):
    """(W dense, q, mu) of a local FCLIB problem, or None for a global one."""
    try:
        import h5py
    except ImportError:
        import nscd.fclib
        try:
            p = nscd.fclib.read(path)
        except nscd.NscdError as exc:
            if exc.status == nscd.Status.ERR_UNSUPPORTED:  # a global problem
                return None
            raise
        return p.dense_W(), np.asarray(p.q, float), np.asarray(p.mu, float)
    with h5py.File(path, "r") as f:
        if "fclib_local" not in f:
            return None
        g = f["fclib_local"]
        Wg = g["W"]
        m, n, nz = int(Wg["m"][0]), int(Wg["n"][0]), int(Wg["nz"][0])
        x, i, p = Wg["x"][:], Wg["i"][:], Wg["p"][:]
        W = np.zeros((m, n))
        if nz < 0:  # compressed columns
            for col in range(n):
                for k in range(p[col], p[col + 1]):
                    W[i[k], col] += x[k]
        else:  # triplets
            for k in range(nz):
                W[i[k], p[k]] += x[k]
        return W, np.asarray(g["vectors/q"][:], float), np.asarray(g["vectors/mu"][:], float)


def to_bsr(W):
    """The non-zero 3x3 blocks of W (the diagonal always kept), ascending columns."""
    n = W.shape[0] // 3
    row_ptr, col_idx, blocks = [0], [], []
    for j in range(n):
        for k in range(n):
            B = W[3 * j:3 * j + 3, 3 * k:3 * k + 3]
            if j == k or np.any(B != 0.0):
                col_idx.append(k)
                blocks.append(B)
        row_ptr.append(len(col_idx))
    return np.array(row_ptr), np.array(col_idx), np.array(blocks).reshape(-1)


def diagonal_blocks(W):
    n = W.shape[0] // 3
    asym, eig = 0.0, np.inf
    for j in range(n):
        A = W[3 * j:3 * j + 3, 3 * j:3 * j + 3]
        s = np.trace(A) / 3.0
        asym = max(asym, np.abs(A - A.T).max() / s)
        eig = min(eig, np.linalg.eigvalsh(0.5 * (A + A.T))[0] / s)
    return asym, eig


def project_cone(y, mu):
    """Projection of each row (y_n, y_t, y_o) onto {||(y_t, y_o)|| <= mu y_n}."""
    p = np.zeros_like(y)
    t = np.hypot(y[:, 1], y[:, 2])
    inside = t <= mu * y[:, 0]
    p[inside] = y[inside]
    between = ~inside & (mu * t > -y[:, 0])
    a = (mu[between] * t[between] + y[between, 0]) / (mu[between] ** 2 + 1.0)
    p[between, 0] = a
    p[between, 1] = mu[between] * a * y[between, 1] / t[between]
    p[between, 2] = mu[between] * a * y[between, 2] / t[between]
    return p


def coulomb_e1(W, q, mu, r):
    u = (W @ r + q).reshape(-1, 3)
    rr = r.reshape(-1, 3)
    ut = np.hypot(u[:, 1], u[:, 2])
    tilde = u.copy()
    tilde[:, 0] += mu * ut
    return float(np.linalg.norm(rr - project_cone(rr - tilde, mu)) / (1.0 + np.linalg.norm(q)))


def mdp_violation(W, q, mu, r, samples=720):
    """Largest violation over the contacts of the maximum-dissipation block
    conditions with W_jj as given: r_j in the cone, u_n >= 0, r_n u_n = 0, and
    (z - r_j)'u_j >= 0 for z on the boundary of the conic section
    {z in K : (W_jj z + v_j)_n = 0} (720 points) and the midpoints with r_j.
    Dimensionless like the merit: velocities divided by ||q||, impulses by
    ||q|| / s_j (s_j = trace(W_jj)/3)."""
    u = W @ r + q
    qn = np.linalg.norm(q) or 1.0
    worst = 0.0
    th = 2.0 * np.pi * np.arange(samples) / samples
    for j in range(mu.size):
        sl = slice(3 * j, 3 * j + 3)
        A, y, uj = W[sl, sl], r[sl], u[sl]
        v = uj - A @ y
        s = np.trace(A) / 3.0
        worst = max(worst, (np.hypot(y[1], y[2]) - mu[j] * y[0]) * s / qn, -uj[0] / qn,
                    abs(uj[0] * y[0]) * s / qn ** 2)
        if v[0] >= 0.0:
            continue
        d = np.stack([np.ones_like(th), mu[j] * np.cos(th), mu[j] * np.sin(th)], axis=1)
        an = d @ A[0]
        z = (-v[0] / an[an > 0.0])[:, None] * d[an > 0.0]
        z = np.concatenate([z, 0.5 * (z + y)])
        worst = max(worst, float(-((z - y) @ uj).min() * s / qn ** 2))
    return worst


def verify(path, args):
    name = os.path.basename(path)
    data = read_local(path)
    if data is None:
        return {"file": name, "status": "global problem (not a local one): skipped",
                "accepted": True, "skipped": True}
    W, q, mu = data
    if args.symmetrize:
        W = 0.5 * (W + W.T)
    n = mu.size
    row_ptr, col_idx, blocks = to_bsr(W)
    asym, eig = diagonal_blocks(W)
    rep = nscd.fc3d_check_bsr(row_ptr, col_idx, blocks)
    row = {"file": name, "contacts": n, "asymmetry": asym, "min_eigenvalue": eig,
           "semidefinite": rep.n_semidefinite, "accepted": rep.status == nscd.Status.OK,
           "status": rep.status.name, "message": rep.message}
    if not row["accepted"]:
        return row
    law = (nscd.Fc3dFrictionLaw.COULOMB if args.law == "coulomb"
           else nscd.Fc3dFrictionLaw.MAX_DISSIPATION)
    for omega in args.relaxations:
        try:
            r, u, info = nscd.fc3d_solve_bsr(row_ptr, col_idx, blocks, q, mu, warm_start=0,
                                             friction_law=law, tolerance=args.tolerance,
                                             max_iterations=args.max_sweeps, relaxation=omega,
                                             acceleration=args.acceleration)
            status = "OK"
        except nscd.NscdError as exc:
            if exc.status != nscd.Status.ERR_NOT_CONVERGED:
                raise
            r, u, info = exc.result
            status = "NOT_CONVERGED"
        row.update({"status": status, "relaxation": omega, "sweeps": info.iterations,
                    "merit": info.merit, "local_failures": info.local_failures})
        if status == "OK":
            break
    if args.law == "coulomb":
        row["e1"] = coulomb_e1(W, q, mu, r)
    else:
        row["vi"] = mdp_violation(W, q, mu, r)
    return row


def fmt(x, spec):
    return "–" if x is None else format(x, spec)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="*", help="FCLIB files or directories")
    ap.add_argument("--law", choices=("coulomb", "max_dissipation"), default="coulomb")
    ap.add_argument("--tolerance", type=float, default=1e-10)
    ap.add_argument("--max-sweeps", type=int, default=200000)
    ap.add_argument("--relaxations", default="1,0.8",
                    help="relaxations tried in turn until one converges (default 1,0.8)")
    ap.add_argument("--require-e1", type=float, default=None)
    ap.add_argument("--expect-stall", nargs="*", default=[],
                    help="file names (without .hdf5) Gauss-Seidel is known not to converge on")
    ap.add_argument("--symmetrize", action="store_true",
                    help="solve (W + W')/2 instead of W (an experiment: is the asymmetry slow?)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--acceleration", choices=("none", "anderson"), default="none",
                    help="nscd_fc3d_options.acceleration of the sweeps (default none)")
    args = ap.parse_args()
    args.relaxations = [float(w) for w in args.relaxations.split(",")]
    args.acceleration = 1 if args.acceleration == "anderson" else 0
    files = []
    for p in args.paths or [default_data_dir()]:
        files += sorted(glob.glob(os.path.join(p, "*.hdf5"))) if os.path.isdir(p) else [p]
    files = [f for f in files if os.path.isfile(f)]
    if not files:
        print(f"fclib_verify: no FCLIB file in {args.paths or [default_data_dir()]}: skipped")
        return SKIP
    if not args.json:
        check = "E1" if args.law == "coulomb" else "VI violation"
        print("| file | contacts | max asymmetry | min eig/s | semi-def. | status | ω | sweeps "
              f"| merit | {check} |")
        print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|")
    failures = []
    for path in files:
        row = verify(path, args)
        stem = os.path.splitext(row["file"])[0]
        if args.json:
            print(json.dumps(row))
        elif row.get("skipped"):
            print(f"| {row['file']} | | | | | {row['status']} | | | | |")
        else:
            print(f"| {row['file']} | {row['contacts']} | {row['asymmetry']:.1e} "
                  f"| {row['min_eigenvalue']:.2e} | {row['semidefinite']} | {row['status']} "
                  f"| {fmt(row.get('relaxation'), 'g')} | {fmt(row.get('sweeps'), 'd')} "
                  f"| {fmt(row.get('merit'), '.1e')} "
                  f"| {fmt(row.get('e1', row.get('vi')), '.1e')} |")
        if not row["accepted"]:
            failures.append(f"{row['file']}: refused: {row['message']}")
        elif row.get("skipped") or stem in args.expect_stall:
            continue
        elif row["status"] != "OK":
            failures.append(f"{row['file']}: not converged (merit {row['merit']:.2e})")
        elif args.require_e1 is not None and not row.get("e1", row.get("vi")) <= args.require_e1:
            failures.append(f"{row['file']}: E1 / VI violation "
                            f"{row.get('e1', row.get('vi')):.2e} > {args.require_e1:g}")
    for f in failures:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
