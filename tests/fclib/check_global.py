"""Independent check of nscd's global solver on FCLIB global files.

usage: check_global.py NSCD_FCLIB_SOLVE FILE_OR_DIR...   (PYTHONPATH: python/,
       NSCD_LIBRARY: libnscd; run by ctest as fclib.check_global)

Each file whose root holds /fclib_global is read twice: with h5py and scipy here
(triplet, CSC or CSR as CSparse stores them) and by nscd.fclib.read_global; the
two must give the same M, H, f, w, mu. nscd.gfc3d_solve solves it, and numpy
checks the result without the library: the equilibrium M v - H r - f, u = H'v + w,
u = W r + q for W = H'M^-1 H, q = H'M^-1 f + w condensed here by scipy's sparse LU,
and E1 = ||r - P_K(r - u~)|| / (1 + ||w||) (Coulomb in De Saxce's form). The tool
nscd-fclib-solve must report a converged solve with an E1 below the bound too.
Prints one JSON line per file; exit 0 when every check held, 77 (skip) when
no file holds a global problem."""
import json
import os
import subprocess
import sys
import time

import h5py
import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spla

import nscd
import nscd.fclib as fclib

E1_BOUND = 1e-10  # solved to the fc3d merit 1e-12


def read_matrix(group):
    m, n, nz = int(group["m"][0]), int(group["n"][0]), int(group["nz"][0])
    p, i, x = group["p"][()], group["i"][()], group["x"][()]
    if nz >= 0:
        return sp.coo_matrix((x[:nz], (i[:nz], p[:nz])), shape=(m, n)).tocsc()
    if nz == -1:
        return sp.csc_matrix((x[:p[n]], i[:p[n]], p), shape=(m, n))
    return sp.csr_matrix((x[:p[m]], i[:p[m]], p), shape=(m, n)).tocsc()


def project_cone(mu, x):
    t = np.hypot(x[1], x[2])
    if t <= mu * x[0]:
        return x.copy()
    if mu * t <= -x[0]:
        return np.zeros(3)
    a = (x[0] + mu * t) / (1.0 + mu * mu)
    return np.array([a, mu * a * x[1] / t, mu * a * x[2] / t])


def e1(r, u, w, mu):
    e = []
    for j in range(mu.size):
        rj, uj = r[3 * j:3 * j + 3], u[3 * j:3 * j + 3]
        ut = uj + np.array([mu[j] * np.hypot(uj[1], uj[2]), 0.0, 0.0])
        e.append(rj - project_cone(mu[j], rj - ut))
    return float(np.linalg.norm(np.concatenate(e)) / (1.0 + np.linalg.norm(w)))


def check(tool, path):
    with h5py.File(path, "r") as h:
        if "fclib_global" not in h:
            return None
        g = h["fclib_global"]
        M, H = read_matrix(g["M"]), read_matrix(g["H"])
        f, w, mu = (g["vectors"][k][()] for k in ("f", "w", "mu"))
    mine = fclib.read_global(path)
    same = ((mine.M() != M).nnz == 0 and (mine.H() != H).nnz == 0 and np.array_equal(mine.f, f)
            and np.array_equal(mine.w, w) and np.array_equal(mine.mu, mu))
    start = time.perf_counter()
    v, r, u, info = nscd.gfc3d_solve(M, H, f, w, mu, tolerance=1e-12, max_iterations=100000)
    seconds = time.perf_counter() - start
    lu = spla.splu(M.tocsc())
    W = H.T @ lu.solve(H.toarray())
    q = H.T @ lu.solve(f) + w
    scale = 1.0 + np.abs(f).max() + np.abs(H @ r).max()
    out = {
        "file": os.path.basename(path), "dofs": int(M.shape[0]), "contacts": int(mu.size),
        "same_as_h5py": bool(same), "converged": bool(info.converged),
        "iterations": info.iterations, "seconds": seconds,
        "equilibrium": float(np.abs(M @ v - H @ r - f).max() / scale),
        "u_is_Hv_plus_w": float(np.abs(u - (H.T @ v + w)).max() / scale),
        "u_is_Wr_plus_q": float(np.abs(u - (W @ r + q)).max() / (1.0 + np.abs(q).max())),
        "e1": e1(r, u, w, mu),
    }
    tool_out = subprocess.run([tool, path, "--json", "--tolerance", "1e-12", "--max-sweeps",
                               "100000"], capture_output=True, text=True)
    report = json.loads(tool_out.stdout) if tool_out.returncode == 0 else {}
    out["tool_e1"] = report.get("e1")
    out["ok"] = bool(same and info.converged and out["equilibrium"] < 1e-12
                     and out["u_is_Hv_plus_w"] < 1e-12 and out["u_is_Wr_plus_q"] < 1e-9
                     and out["e1"] < E1_BOUND and report.get("converged") is True
                     and report.get("problem") == "global" and report["e1"] < E1_BOUND)
    return out


def main(argv):
    tool, paths = argv[1], []
    for a in argv[2:]:
        paths += ([os.path.join(a, n) for n in sorted(os.listdir(a)) if n.endswith(".hdf5")]
                  if os.path.isdir(a) else [a])
    checked, ok = 0, True
    for path in paths:
        out = check(tool, path)
        if out is None:
            continue
        checked += 1
        ok &= out["ok"]
        print(json.dumps(out))
    print(json.dumps({"global_files": checked, "ok": ok}))
    if checked == 0:
        return 77  # nothing to check: ctest's skip code
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
