"""Pure numerical kernels of libnscd, with numpy arrays in and out:
multi-contact fc3d (include/nscd/fc3d.h), dense LCP (lcp.h) and the
single-contact problems (single_contact.h)."""
import ctypes
import enum
from typing import NamedTuple, Optional, Tuple

import numpy as np

from . import _library as _c
from .errors import NscdError, Status, check

__all__ = ["Fc3dBlockKind", "Fc3dBlockReport", "Fc3dFrictionLaw", "Fc3dInfo", "Fc3dMethod",
           "Fc3dNewtonFailure", "CoulombInfo", "Gfc3dInfo", "coulomb_single_contact",
           "coulomb_single_contact_all", "fc3d_check", "fc3d_check_bsr", "fc3d_solve",
           "fc3d_solve_bsr", "gfc3d_solve", "lcp_solve", "mdp_single_contact"]

LCP_MAX_SIZE = 64


def _real(x, what):
    """x as an array of real numbers: complex values (whose imaginary part
    the conversion would drop with only numpy's warning), text and objects
    are a TypeError."""
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise (TypeError if a.dtype.kind == "c" else ValueError)(
            f"{what}: expected real numbers, got {a.dtype}")
    return a


def _vector(x, n, what):
    """x as a contiguous float64 array of n values (a copy when needed)."""
    a = np.ascontiguousarray(_real(x, what), dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError(f"{what}: expected {n} values, got {a.size}")
    return a


def _matrix(x, n, what):
    """x as a contiguous row-major n x n float64 array."""
    a = np.ascontiguousarray(_real(x, what), dtype=np.float64)
    if a.shape != (n, n) and not (a.ndim == 1 and a.size == n * n):
        raise ValueError(f"{what}: expected a {n}x{n} matrix, got shape {a.shape}")
    return a.reshape(n, n)


def _square(x, what):
    a = np.ascontiguousarray(_real(x, what), dtype=np.float64)
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"{what}: expected a square matrix, got shape {a.shape}")
    return a


def _indices(x, what):
    """x as a contiguous int32 vector; values outside int32_t are an error, not wrapped."""
    a = np.asarray(x)
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise TypeError(f"{what}: expected integers, got {a.dtype}")
    a = a.reshape(-1)
    # compared in the array's own type: a uint64 above 2^63 cast to int64 first would wrap
    if a.size and (int(a.min()) < -2**31 or int(a.max()) >= 2**31):
        raise OverflowError(f"{what}: values do not fit an int32_t")
    return np.ascontiguousarray(a, dtype=np.int32)


def _ptr(a):
    return a.ctypes.data_as(_c.c_double_p)


# ------------------------------------------------------------------ fc3d
class FrictionLaw(enum.IntEnum):
    """nscd_friction_law: the library's one friction-law enumeration (the
    world's step, the fc3d and global solvers)."""
    COULOMB = 0
    MAX_DISSIPATION = 1


Fc3dFrictionLaw = FrictionLaw  # fc3d's name (nscd_fc3d_friction_law, an alias in C too)


class Fc3dMethod(enum.IntEnum):
    """nscd_fc3d_method."""
    GAUSS_SEIDEL = 0
    JACOBI_BLEND = 1
    NEWTON = 2  # semismooth Newton, Coulomb only (since 0.2)
    AUTO = 3  # Gauss–Seidel, Newton when a window of sweeps stalls (since 0.2)
    PROX = 4  # proximal-point loop around Newton, Coulomb only (since 0.2)


class Fc3dNewtonFailure(enum.IntEnum):
    """nscd_fc3d_newton_failure: why a Newton phase stopped short of the tolerance."""
    NO_FAILURE = 0
    MAX_ITERATIONS = 1
    LINE_SEARCH = 2
    SINGULAR = 3
    NOT_FINITE = 4
    TOO_LARGE = 5
    UNSUPPORTED_LAW = 6


class Fc3dInfo(NamedTuple):
    """nscd_fc3d_info: what a solve did."""
    iterations: int
    merit: float
    converged: bool
    merit_evaluations: int
    last_update: float
    local_failures: int
    newton_iterations: int = 0
    newton_failure: "Fc3dNewtonFailure" = Fc3dNewtonFailure.NO_FAILURE


_FC3D_OPTIONS = ("friction_law", "tolerance", "max_iterations", "relaxation", "method",
                 "jacobi_weight", "jacobi_groups", "warm_start", "acceleration",
                 "anderson_memory")


def _fc3d_options(options):
    opts = _c.Fc3dOptions()
    check(_c.library().nscd_fc3d_options_init(ctypes.byref(opts), ctypes.sizeof(opts)),
          "nscd_fc3d_options_init")
    for key, value in options.items():
        if key not in _FC3D_OPTIONS:
            raise TypeError(f"unknown fc3d option {key!r} (known: {', '.join(_FC3D_OPTIONS)})")
        real = key in ("tolerance", "relaxation", "jacobi_weight")
        setattr(opts, key, float(value) if real else _c.int32(value, key))
    return opts


def _fc3d_result(status, function, r, u, info):
    result = Fc3dInfo(info.iterations, info.merit, bool(info.converged), info.merit_evaluations,
                      info.last_update, info.local_failures, info.newton_iterations,
                      Fc3dNewtonFailure(info.newton_failure))
    if status == Status.ERR_NOT_CONVERGED:
        exc = NscdError(status, function)
        exc.result = (r, u, result)  # the last iterate
        raise exc
    check(status, function)
    return r, u, result


def fc3d_solve(W, q, mu, r0=None, **options) -> Tuple[np.ndarray, np.ndarray, Fc3dInfo]:
    """nscd_fc3d_solve_dense: finds impulses r and velocities u = W r + q with
    r_j in the friction cone of mu_j and the friction law of the options.

    W is the 3n x 3n Delassus matrix, q the 3n free velocities, mu the n
    friction coefficients; r0 an optional initial guess (warm start). Keyword
    options are the fields of nscd_fc3d_options: friction_law (Fc3dFrictionLaw),
    tolerance, max_iterations, relaxation, method (Fc3dMethod: GAUSS_SEIDEL,
    JACOBI_BLEND, NEWTON or AUTO), jacobi_weight,
    jacobi_groups, warm_start, acceleration (0 none, 1 Anderson:
    NSCD_FC3D_ACCEL_ANDERSON), anderson_memory. Returns (r, u, info). Raises NscdError; on
    NSCD_ERR_NOT_CONVERGED the exception's ``result`` holds (r, u, info) of the
    last iterate."""
    W = _square(W, "W")
    if W.shape[0] % 3 or W.shape[0] == 0:
        raise ValueError(f"W: expected 3n x 3n with n >= 1, got shape {W.shape}")
    n = W.shape[0] // 3
    q = _vector(q, 3 * n, "q")
    mu = _vector(np.full(n, float(mu)) if np.ndim(mu) == 0 else mu, n, "mu")
    opts = _fc3d_options(options)
    r = np.zeros(3 * n) if r0 is None else _vector(r0, 3 * n, "r0").copy()
    u = np.zeros(3 * n)
    info = _c.Fc3dInfo(struct_size=ctypes.sizeof(_c.Fc3dInfo))
    status = _c.library().nscd_fc3d_solve_dense(n, _ptr(W), _ptr(q), _ptr(mu), ctypes.byref(opts),
                                               _ptr(r), _ptr(u), ctypes.byref(info))
    return _fc3d_result(status, "nscd_fc3d_solve_dense", r, u, info)


def fc3d_solve_bsr(row_ptr, col_idx, blocks, q, mu, r0=None,
                   **options) -> Tuple[np.ndarray, np.ndarray, Fc3dInfo]:
    """nscd_fc3d_solve_bsr: as fc3d_solve() with W in 3x3 block CSR form:
    row_ptr (n + 1 offsets), col_idx (block columns), blocks (nnz x 3 x 3 or
    9 nnz values, each block row-major)."""
    row_ptr = _indices(row_ptr, "row_ptr")
    if row_ptr.size < 2:
        raise ValueError("row_ptr: expected n + 1 >= 2 offsets")
    n = row_ptr.size - 1
    col_idx = _indices(col_idx, "col_idx")
    nnz = int(row_ptr[-1])
    if nnz < 0 or col_idx.size != nnz:
        raise ValueError(f"col_idx: expected row_ptr[n] = {nnz} indices, got {col_idx.size}")
    blocks = _vector(blocks, 9 * nnz, "blocks")
    q = _vector(q, 3 * n, "q")
    mu = _vector(np.full(n, float(mu)) if np.ndim(mu) == 0 else mu, n, "mu")
    opts = _fc3d_options(options)
    r = np.zeros(3 * n) if r0 is None else _vector(r0, 3 * n, "r0").copy()
    u = np.zeros(3 * n)
    info = _c.Fc3dInfo(struct_size=ctypes.sizeof(_c.Fc3dInfo))
    status = _c.library().nscd_fc3d_solve_bsr(
        n, row_ptr.ctypes.data_as(_c.c_int32_p), col_idx.ctypes.data_as(_c.c_int32_p),
        _ptr(blocks), _ptr(q), _ptr(mu), ctypes.byref(opts), _ptr(r), _ptr(u),
        ctypes.byref(info))
    return _fc3d_result(status, "nscd_fc3d_solve_bsr", r, u, info)


class Fc3dBlockKind(enum.IntEnum):
    """nscd_fc3d_block_kind: the class of a diagonal block W_jj."""
    REGULAR = 0
    SEMIDEFINITE = 1
    NOT_FINITE = 2
    NOT_POSITIVE = 3
    INDEFINITE = 4


class Fc3dBlockReport(NamedTuple):
    """nscd_fc3d_block_report, with the status of the check."""
    status: Status
    n_regular: int
    n_semidefinite: int
    refused_block: int
    refused_kind: Fc3dBlockKind
    max_asymmetry: float
    min_eigenvalue: float
    message: str


def _block_report(status, function, rep):
    if status not in (Status.OK, Status.ERR_NOT_FINITE, Status.ERR_NOT_SPD):
        check(status, function)
    return Fc3dBlockReport(Status(status), rep.n_regular, rep.n_semidefinite, rep.refused_block,
                           Fc3dBlockKind(rep.refused_kind), rep.max_asymmetry,
                           rep.min_eigenvalue, rep.message.decode("utf-8", "replace"))


def fc3d_check(W) -> Fc3dBlockReport:
    """nscd_fc3d_check_dense: classifies the diagonal blocks of W as the fc3d
    solvers do (regular, semi-definite, or refused with the block named in
    ``message``). Returns the report; its ``status`` is Status.OK, ERR_NOT_SPD
    or ERR_NOT_FINITE (what a solve would return). Raises NscdError otherwise."""
    W = _square(W, "W")
    if W.shape[0] % 3 or W.shape[0] == 0:
        raise ValueError(f"W: expected 3n x 3n with n >= 1, got shape {W.shape}")
    rep = _c.Fc3dBlockReport(struct_size=ctypes.sizeof(_c.Fc3dBlockReport))
    status = _c.library().nscd_fc3d_check_dense(W.shape[0] // 3, _ptr(W), ctypes.byref(rep))
    return _block_report(status, "nscd_fc3d_check_dense", rep)


def fc3d_check_bsr(row_ptr, col_idx, blocks) -> Fc3dBlockReport:
    """nscd_fc3d_check_bsr: fc3d_check() for W in 3x3 block CSR form (as
    fc3d_solve_bsr() takes it)."""
    row_ptr = _indices(row_ptr, "row_ptr")
    if row_ptr.size < 2:
        raise ValueError("row_ptr: expected n + 1 >= 2 offsets")
    col_idx = _indices(col_idx, "col_idx")
    nnz = int(row_ptr[-1])
    if nnz < 0 or col_idx.size != nnz:
        raise ValueError(f"col_idx: expected row_ptr[n] = {nnz} indices, got {col_idx.size}")
    blocks = _vector(blocks, 9 * nnz, "blocks")
    rep = _c.Fc3dBlockReport(struct_size=ctypes.sizeof(_c.Fc3dBlockReport))
    status = _c.library().nscd_fc3d_check_bsr(
        row_ptr.size - 1, row_ptr.ctypes.data_as(_c.c_int32_p),
        col_idx.ctypes.data_as(_c.c_int32_p), _ptr(blocks), ctypes.byref(rep))
    return _block_report(status, "nscd_fc3d_check_bsr", rep)


# ------------------------------------------------------------------ global fc3d
class Gfc3dInfo(NamedTuple):
    """nscd_gfc3d_info: what a global solve did."""
    iterations: int
    merit: float
    converged: bool
    equilibrium_residual: float
    factor_nnz: int
    w_blocks: int
    local_failures: int
    dense_condensation: bool


def _csc(A, rows, what):
    """(col_ptr, row_idx, values, n_cols) of a scipy.sparse matrix (anything with
    tocsc()) or a dense 2-D array, canonical: rows sorted, duplicates summed."""
    if hasattr(A, "tocsc"):
        A = A.tocsc(copy=True)
        A.sum_duplicates()
        A.sort_indices()
        if A.shape[0] != rows:
            raise ValueError(f"{what}: expected {rows} rows, got {A.shape[0]}")
        return (_indices(A.indptr, what), _indices(A.indices, what),
                _vector(A.data, A.data.size, what), A.shape[1])
    A = np.asarray(A)
    if A.dtype.kind not in "biuf":
        raise (TypeError if A.dtype.kind == "c" else ValueError)(
            f"{what}: expected real numbers, got {A.dtype}")
    A = np.ascontiguousarray(A, dtype=np.float64)
    if A.ndim != 2 or A.shape[0] != rows:
        raise ValueError(f"{what}: expected {rows} rows, got shape {A.shape}")
    cols, rows_idx, vals, ptr = A.shape[1], [], [], [0]
    for c in range(cols):
        nz = np.nonzero(A[:, c])[0]
        rows_idx.append(nz)
        vals.append(A[nz, c])
        ptr.append(ptr[-1] + nz.size)
    return (np.asarray(ptr, np.int32), np.concatenate(rows_idx).astype(np.int32),
            np.ascontiguousarray(np.concatenate(vals)), cols)


_GFC3D_OPTIONS = ("pivot_tolerance", "symmetry_tolerance", "condensation")


def gfc3d_solve(M, H, f, w, mu, r0=None,
                **options) -> Tuple[np.ndarray, np.ndarray, np.ndarray, Gfc3dInfo]:
    """nscd_gfc3d_solve: the global problem M v = H r + f, u = H' v + w, Coulomb's
    law between u_j and r_j (FCLIB's convention; include/nscd/gfc3d.h).

    M (n x n, symmetric positive definite, both triangles) and H (n x 3 nc) are
    scipy.sparse matrices or dense arrays; f (n), w (3 nc), mu (nc or a scalar).
    Keyword options: pivot_tolerance, symmetry_tolerance, condensation ("auto",
    "sparse" or "dense") (nscd_gfc3d_options) and
    the fields of nscd_fc3d_options for the local solve (as fc3d_solve). Returns
    (v, r, u, info). Raises NscdError; on NSCD_ERR_NOT_CONVERGED the exception's
    ``result`` holds (v, r, u, info) of the last iterate."""
    f = _vector(f, np.size(f), "f")
    n = f.size
    Mp, Mi, Mx, mcols = _csc(M, n, "M")
    if mcols != n:
        raise ValueError(f"M: expected {n} x {n}")
    Hp, Hi, Hx, hcols = _csc(H, n, "H")
    if hcols % 3 or hcols == 0:
        raise ValueError(f"H: expected 3 nc >= 3 columns, got {hcols}")
    nc = hcols // 3
    w = _vector(w, 3 * nc, "w")
    mu = _vector(np.full(nc, float(mu)) if np.ndim(mu) == 0 else mu, nc, "mu")
    lib = _c.library()
    gopts = _c.Gfc3dOptions()
    check(lib.nscd_gfc3d_options_init(ctypes.byref(gopts), ctypes.sizeof(gopts)),
          "nscd_gfc3d_options_init")
    local = {}
    for key, value in options.items():
        if key == "condensation":
            gopts.condensation = {"auto": 0, "sparse": 1, "dense": 2}[value]
        elif key in _GFC3D_OPTIONS:
            setattr(gopts, key, float(value))
        else:
            local[key] = value
    lopts = _fc3d_options(local)
    v = np.zeros(n)
    r = np.zeros(3 * nc) if r0 is None else _vector(r0, 3 * nc, "r0").copy()
    u = np.zeros(3 * nc)
    info = _c.Gfc3dInfo(struct_size=ctypes.sizeof(_c.Gfc3dInfo))
    i32 = _c.c_int32_p
    status = lib.nscd_gfc3d_solve(
        n, nc, Mp.ctypes.data_as(i32), Mi.ctypes.data_as(i32), _ptr(Mx), Hp.ctypes.data_as(i32),
        Hi.ctypes.data_as(i32), _ptr(Hx), _ptr(f), _ptr(w), _ptr(mu), ctypes.byref(gopts),
        ctypes.byref(lopts), _ptr(v), _ptr(r), _ptr(u), ctypes.byref(info))
    result = Gfc3dInfo(info.iterations, info.merit, bool(info.converged),
                       info.equilibrium_residual, info.factor_nnz, info.w_blocks,
                       info.local_failures, bool(info.dense_condensation))
    if status == Status.ERR_NOT_CONVERGED:
        exc = NscdError(status, "nscd_gfc3d_solve")
        exc.result = (v, r, u, result)
        raise exc
    check(status, "nscd_gfc3d_solve")
    return v, r, u, result


# ------------------------------------------------------------------ LCP
def lcp_solve(M, q) -> Tuple[np.ndarray, np.ndarray]:
    """nscd_lcp_solve_dense: z >= 0 with w = M z + q >= 0 and z'w = 0, by
    Murty's principal pivoting (exact for P-matrices; n <= 64). Returns (z, w)."""
    M = _square(M, "M")
    n = M.shape[0]
    if n > LCP_MAX_SIZE:
        raise ValueError(f"M: at most {LCP_MAX_SIZE} x {LCP_MAX_SIZE}, got {n} x {n}")
    q = _vector(q, n, "q")
    z, w = np.zeros(n), np.zeros(n)
    check(_c.library().nscd_lcp_solve_dense(n, _ptr(M), _ptr(q), _ptr(z), _ptr(w)),
          "nscd_lcp_solve_dense")
    return z, w


# ------------------------------------------------------------------ single contact
class CoulombInfo(NamedTuple):
    """nscd_coulomb_info."""
    iterations: int
    converged: bool
    residual: float


def mdp_single_contact(A, b, mu: float) -> np.ndarray:
    """nscd_mdp_single_contact: the maximum-dissipation impulse x (normal first)
    of one contact with u = A x - b, A the 3x3 SPD Delassus block."""
    A, b, x = _matrix(A, 3, "A"), _vector(b, 3, "b"), np.zeros(3)
    check(_c.library().nscd_mdp_single_contact(_ptr(A), _ptr(b), float(mu), _ptr(x)),
          "nscd_mdp_single_contact")
    return x


def coulomb_single_contact(A, b, mu: float, tolerance: Optional[float] = None,
                           max_iterations: Optional[int] = None,
                           enumeration_safeguard: Optional[bool] = None
                           ) -> Tuple[np.ndarray, CoulombInfo]:
    """nscd_coulomb_single_contact: one solution x of the impulsive Coulomb law
    of one contact (u = A x - b) by a damped nonsmooth Newton method. Options
    left None keep the nscd_coulomb_options_init defaults. Returns (x, info).
    On NSCD_ERR_NOT_CONVERGED the NscdError's ``result`` holds the info."""
    A, b, x = _matrix(A, 3, "A"), _vector(b, 3, "b"), np.zeros(3)
    lib = _c.library()
    opts = _c.CoulombOptions()
    check(lib.nscd_coulomb_options_init(ctypes.byref(opts), ctypes.sizeof(opts)),
          "nscd_coulomb_options_init")
    if tolerance is not None:
        opts.tolerance = float(tolerance)
    if max_iterations is not None:
        opts.max_iterations = _c.int32(max_iterations, "max_iterations")
    if enumeration_safeguard is not None:
        opts.enumeration_safeguard = int(bool(enumeration_safeguard))
    info = _c.CoulombInfo()
    status = lib.nscd_coulomb_single_contact(_ptr(A), _ptr(b), float(mu), ctypes.byref(opts),
                                             _ptr(x), ctypes.byref(info))
    result = CoulombInfo(info.iterations, bool(info.converged), info.residual)
    if status == Status.ERR_NOT_CONVERGED:
        exc = NscdError(status, "nscd_coulomb_single_contact")
        exc.result = result  # x is left unchanged by the library
        raise exc
    check(status, "nscd_coulomb_single_contact")
    return x, result


def coulomb_single_contact_all(A, b, mu: float) -> np.ndarray:
    """nscd_coulomb_single_contact_all: every solution of the impulsive Coulomb
    law of one contact, as a k x 3 array (no contact, stick, then sliding by
    increasing objective)."""
    A, b = _matrix(A, 3, "A"), _vector(b, 3, "b")
    solutions = np.zeros((8, 3))
    count = ctypes.c_int32()
    check(_c.library().nscd_coulomb_single_contact_all(_ptr(A), _ptr(b), float(mu),
                                                       _ptr(solutions), 8, ctypes.byref(count)),
          "nscd_coulomb_single_contact_all")
    return solutions[:count.value].copy()
