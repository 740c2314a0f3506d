"""FCLIB problem files (HDF5) through the optional companion library
libnscd_fclib (include/nscd/fclib.h, docs/fclib.md).

    import nscd.fclib
    p = nscd.fclib.read("problem.hdf5")          # a Problem: W (block CSR), q, mu, r, u
    r, u, info = nscd.fc3d_solve_bsr(p.row_ptr, p.col_idx, p.blocks, p.q, p.mu)
    nscd.fclib.merit(p, r)                        # libfclib's own fclib_merit_local
    nscd.fclib.write("out.hdf5", p.with_solution(r, u))

    g = nscd.fclib.read_global("global.hdf5")    # a GlobalProblem: M, H (CSC), f, w, mu
    v, r, u, info = nscd.gfc3d_solve(g.M(), g.H(), g.f, g.w, g.mu)   # M(), H(): scipy.sparse
    nscd.fclib.write_global("out.hdf5", g.with_solution(v, r, u))

Importing this module never fails: when libnscd_fclib is not installed
(libfclib-dev was not found at build time), available() is False and every
function raises FclibUnavailable, which says so. The library is found through
$NSCD_FCLIB_LIBRARY, then next to the loaded libnscd, then in a build tree next
to the package, then on the system's library path (libnscd_fclib.so.<ABI>).
numpy is imported on first use."""
import ctypes
import os
from . import _library as _c
from .errors import check
from .kernels import _indices

__all__ = ["FclibUnavailable", "GlobalProblem", "Problem", "available", "library",
           "library_path", "merit", "prototypes", "read", "read_global", "write", "write_global"]


class FclibUnavailable(OSError):
    """libnscd_fclib is not installed, or cannot be loaded."""


def _load():
    """libnscd_fclib through the package's one loader (_library.load)."""
    try:
        return _c.load("nscd_fclib")
    except FclibUnavailable:
        raise
    except OSError as exc:
        raise FclibUnavailable(str(exc)) from None


def available() -> bool:
    """True when libnscd_fclib can be loaded."""
    try:
        _load()
    except OSError:
        return False
    return True


def library():
    """The ctypes.CDLL of libnscd_fclib (raises FclibUnavailable)."""
    return _load()


def library_path() -> str:
    """The path or name libnscd_fclib was loaded from."""
    _load()
    return _c.loaded_path("nscd_fclib")


def prototypes():
    """{C function name: (restype, argtypes)} of every function of libnscd_fclib
    this module binds: all of include/nscd/fclib.h (generated, _bindings.py)."""
    return _c.prototypes("nscd_fclib")


# ------------------------------------------------------------------ the C handle
class _Handle:
    """An nscd_fclib_problem, closed on exit of a with block."""

    def __init__(self):
        self.lib = _load()
        self.ptr = ctypes.c_void_p()
        check(self.lib.nscd_fclib_problem_create(None, ctypes.byref(self.ptr)),
              "nscd_fclib_problem_create")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.nscd_fclib_problem_destroy(self.ptr)
        self.ptr = ctypes.c_void_p()

    def call(self, name, *args):
        status = getattr(self.lib, name)(self.ptr, *args)
        check(status, name, lambda: self.lib.nscd_fclib_problem_last_error(self.ptr))

    def sizes(self):
        n, nb, has = ctypes.c_int32(), ctypes.c_int32(), ctypes.c_int32()
        self.call("nscd_fclib_problem_get_sizes", ctypes.byref(n), ctypes.byref(nb),
                  ctypes.byref(has))
        return n.value, nb.value, bool(has.value)

    def problem(self):
        """The handle's arrays as a Problem."""
        import numpy as np
        n, nb, has = self.sizes()
        row_ptr, col_idx = np.zeros(n + 1, np.int32), np.zeros(nb, np.int32)
        blocks, q, mu = np.zeros((nb, 3, 3)), np.zeros(3 * n), np.zeros(n)
        self.call("nscd_fclib_problem_get_bsr", _i32(row_ptr), _i32(col_idx), _f64(blocks),
                  _f64(q), _f64(mu))
        r = u = None
        if has:
            r, u = np.zeros(3 * n), np.zeros(3 * n)
            self.call("nscd_fclib_problem_get_solution", _f64(r), _f64(u))
        return Problem(row_ptr, col_idx, blocks, q, mu, r, u)

    def load(self, problem):
        """Sets the handle from a Problem (its arrays checked by the C library).

        The Problem is validated again here: its attributes are plain and
        may have been replaced since it was made (a float32 mu, a shorter
        col_idx, a non-contiguous view), and the C side reads exactly the
        lengths the sizes imply from raw pointers."""
        p = Problem(problem.row_ptr, problem.col_idx, problem.blocks, problem.q, problem.mu,
                    problem.r, problem.u)
        self.call("nscd_fclib_problem_set_bsr", p.n_contacts, _i32(p.row_ptr), _i32(p.col_idx),
                  _f64(p.blocks), _f64(p.q), _f64(p.mu))
        if p.r is not None:
            self.call("nscd_fclib_problem_set_solution", _f64(p.r), _f64(p.u))


def _i32(a):
    return a.ctypes.data_as(_c.c_int32_p)


def _f64(a):
    return a.ctypes.data_as(_c.c_double_p)


def _doubles(x, n, what):
    import numpy as np
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":  # complex would lose its imaginary part, text its meaning
        raise (TypeError if a.dtype.kind == "c" else ValueError)(
            f"{what}: expected real numbers, got {a.dtype}")
    a = np.ascontiguousarray(a, dtype=np.float64).reshape(-1)
    if a.size != n:
        raise ValueError(f"{what}: expected {n} values, got {a.size}")
    return a


# ------------------------------------------------------------------ the problem
class Problem:
    """A local FCLIB problem: find r, u = W r + q with r_j in the friction cone of
    mu_j (3 rows per contact, normal first; u_n > 0 separates).

    W is held in 3x3 block CSR form, each row's blocks in ascending column
    order (what nscd.fc3d_solve_bsr takes): ``row_ptr`` (n + 1 int32),
    ``col_idx`` (nnz int32), ``blocks`` (nnz x 3 x 3). ``q`` (3n), ``mu`` (n),
    and ``r``, ``u`` (3n each) or None when there is no solution."""

    def __init__(self, row_ptr, col_idx, blocks, q, mu, r=None, u=None):
        self.row_ptr = _indices(row_ptr, "row_ptr")
        if self.row_ptr.size < 2:
            raise ValueError("row_ptr: expected n + 1 >= 2 offsets")
        n = self.row_ptr.size - 1
        self.col_idx = _indices(col_idx, "col_idx")
        nnz = self.col_idx.size
        if int(self.row_ptr[-1]) != nnz:
            raise ValueError(f"col_idx: expected row_ptr[n] = {int(self.row_ptr[-1])} "
                             f"indices, got {nnz}")
        self.blocks = _doubles(blocks, 9 * nnz, "blocks").reshape(nnz, 3, 3)
        self.q = _doubles(q, 3 * n, "q")
        self.mu = _doubles(mu, n, "mu")
        if (r is None) != (u is None):
            raise ValueError("r and u: give both or neither")
        self.r = None if r is None else _doubles(r, 3 * n, "r")
        self.u = None if u is None else _doubles(u, 3 * n, "u")

    @property
    def n_contacts(self) -> int:
        return self.row_ptr.size - 1

    @property
    def has_solution(self) -> bool:
        return self.r is not None

    @classmethod
    def from_dense(cls, W, q, mu, r=None, u=None) -> "Problem":
        """A Problem from a dense 3n x 3n W: its 3x3 blocks that hold anything but
        +0.0 bits (so -0.0 survives) and every diagonal block (n <= 16384)."""
        import numpy as np
        W = np.asarray(W)
        if W.dtype.kind not in "biuf":
            raise (TypeError if W.dtype.kind == "c" else ValueError)(
                f"W: expected real numbers, got {W.dtype}")
        W = np.ascontiguousarray(W, dtype=np.float64)
        if W.ndim != 2 or W.shape[0] != W.shape[1] or W.shape[0] % 3 or W.shape[0] == 0:
            raise ValueError(f"W: expected 3n x 3n with n >= 1, got shape {W.shape}")
        n = W.shape[0] // 3
        q, mu = _doubles(q, 3 * n, "q"), _doubles(mu, n, "mu")
        with _Handle() as h:
            h.call("nscd_fclib_problem_set_dense", n, _f64(W), _f64(q), _f64(mu))
            p = h.problem()
        return p if r is None and u is None else p.with_solution(r, u)

    def with_solution(self, r, u) -> "Problem":
        """A copy of the problem holding the solution (r, u); None, None drops it."""
        return Problem(self.row_ptr, self.col_idx, self.blocks, self.q, self.mu, r, u)

    def dense_W(self):
        """W as a dense 3n x 3n numpy array (entries of unstored blocks +0.0)."""
        import numpy as np
        n = self.n_contacts
        W = np.zeros((3 * n, 3 * n))
        with _Handle() as h:
            h.load(self.with_solution(None, None))
            h.call("nscd_fclib_problem_get_dense", _f64(W), None, None)
        return W

    def __repr__(self):
        return (f"nscd.fclib.Problem({self.n_contacts} contacts, {self.col_idx.size} blocks, "
                f"{'with' if self.has_solution else 'no'} solution)")


def read(path) -> Problem:
    """nscd_fclib_read: the local problem of an FCLIB file (and its solution when the
    file has one). Raises NscdError (status ERR_IO for a missing or malformed file,
    ERR_UNSUPPORTED for 2D, mixed or global problems) or FclibUnavailable."""
    with _Handle() as h:
        h.call("nscd_fclib_read", os.fsencode(path))
        return h.problem()


def write(path, problem: Problem) -> None:
    """nscd_fclib_write: writes the problem (and its solution, if any) as an FCLIB
    local problem, replacing the file. Raises NscdError or FclibUnavailable."""
    if not isinstance(problem, Problem):
        raise TypeError(f"expected an nscd.fclib.Problem, got {type(problem).__name__}")
    with _Handle() as h:
        h.load(problem)
        h.call("nscd_fclib_write", os.fsencode(path))


def merit(problem: Problem, r) -> float:
    """libfclib's own merit of impulses r (fclib_merit_local, MERIT_1): the natural
    map of Coulomb's law in De Saxce's form, divided by 1 + sqrt(||q||)."""
    value = ctypes.c_double()
    r = _doubles(r, 3 * problem.n_contacts, "r")
    with _Handle() as h:
        h.load(problem.with_solution(None, None))
        h.call("nscd_fclib_problem_merit", _f64(r), ctypes.byref(value))
    return value.value



# ------------------------------------------------------------------ global problems
class _GlobalHandle:
    """An nscd_fclib_global, closed on exit of a with block."""

    def __init__(self):
        self.lib = _load()
        self.ptr = ctypes.c_void_p()
        check(self.lib.nscd_fclib_global_create(None, ctypes.byref(self.ptr)),
              "nscd_fclib_global_create")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.lib.nscd_fclib_global_destroy(self.ptr)
        self.ptr = ctypes.c_void_p()

    def call(self, name, *args):
        status = getattr(self.lib, name)(self.ptr, *args)
        check(status, name, lambda: self.lib.nscd_fclib_global_last_error(self.ptr))

    def problem(self):
        import numpy as np
        n, nc, mnz, hnz, has = (ctypes.c_int32() for _ in range(5))
        self.call("nscd_fclib_global_get_sizes", ctypes.byref(n), ctypes.byref(nc),
                  ctypes.byref(mnz), ctypes.byref(hnz), ctypes.byref(has))
        n, nc, mnz, hnz = n.value, nc.value, mnz.value, hnz.value
        Mp, Mi, Mx = np.zeros(n + 1, np.int32), np.zeros(mnz, np.int32), np.zeros(mnz)
        Hp, Hi, Hx = np.zeros(3 * nc + 1, np.int32), np.zeros(hnz, np.int32), np.zeros(hnz)
        f, w, mu = np.zeros(n), np.zeros(3 * nc), np.zeros(nc)
        self.call("nscd_fclib_global_get", _i32(Mp), _i32(Mi), _f64(Mx), _i32(Hp), _i32(Hi),
                  _f64(Hx), _f64(f), _f64(w), _f64(mu))
        v = r = u = None
        if has.value:
            v, r, u = np.zeros(n), np.zeros(3 * nc), np.zeros(3 * nc)
            self.call("nscd_fclib_global_get_solution", _f64(v), _f64(r), _f64(u))
        return GlobalProblem((Mp, Mi, Mx), (Hp, Hi, Hx), f, w, mu, v, r, u)

    def load(self, g):
        g = GlobalProblem(g.M_csc, g.H_csc, g.f, g.w, g.mu, g.v, g.r, g.u)
        (Mp, Mi, Mx), (Hp, Hi, Hx) = g.M_csc, g.H_csc
        self.call("nscd_fclib_global_set", g.n_dofs, g.n_contacts, _i32(Mp), _i32(Mi), _f64(Mx),
                  _i32(Hp), _i32(Hi), _f64(Hx), _f64(g.f), _f64(g.w), _f64(g.mu))
        if g.v is not None:
            self.call("nscd_fclib_global_set_solution", _f64(g.v), _f64(g.r), _f64(g.u))


class GlobalProblem:
    """A global FCLIB problem: find v, r, u with M v = H r + f, u = H' v + w and
    Coulomb's law (De Saxce) between u_j and r_j (include/nscd/gfc3d.h).

    ``M_csc`` and ``H_csc`` are (col_ptr, row_idx, values) in canonical CSC form
    (int32, int32, float64); M() and H() give scipy.sparse.csc_matrix copies.
    ``f`` (n), ``w`` (3 nc), ``mu`` (nc), and ``v``, ``r``, ``u`` or None."""

    def __init__(self, M_csc, H_csc, f, w, mu, v=None, r=None, u=None):
        self.f = _doubles(f, len(f), "f")
        n = self.f.size
        self.M_csc = self._csc(M_csc, n, "M")
        self.H_csc = self._csc(H_csc, None, "H")
        m = self.H_csc[0].size - 1
        if m % 3 or m == 0:
            raise ValueError(f"H: expected 3 nc >= 3 columns, got {m}")
        self.w = _doubles(w, m, "w")
        self.mu = _doubles(mu, m // 3, "mu")
        if not ((v is None) == (r is None) == (u is None)):
            raise ValueError("v, r and u: give all or none")
        self.v = None if v is None else _doubles(v, n, "v")
        self.r = None if r is None else _doubles(r, m, "r")
        self.u = None if u is None else _doubles(u, m, "u")

    @staticmethod
    def _csc(arrays, cols, what):
        ptr, idx, vals = arrays
        ptr, idx = _indices(ptr, what + " col_ptr"), _indices(idx, what + " row_idx")
        if ptr.size < 2 or (cols is not None and ptr.size != cols + 1):
            raise ValueError(f"{what}: col_ptr of {ptr.size} offsets")
        if int(ptr[-1]) != idx.size:
            raise ValueError(f"{what}: col_ptr[-1] = {int(ptr[-1])} but {idx.size} row indices")
        return ptr, idx, _doubles(vals, idx.size, what + " values")

    @property
    def n_dofs(self) -> int:
        return self.f.size

    @property
    def n_contacts(self) -> int:
        return self.w.size // 3

    @property
    def has_solution(self) -> bool:
        return self.v is not None

    def M(self):
        """M as a scipy.sparse.csc_matrix."""
        import scipy.sparse as sp
        p, i, x = self.M_csc
        return sp.csc_matrix((x.copy(), i.copy(), p.copy()), shape=(self.n_dofs, self.n_dofs))

    def H(self):
        """H as a scipy.sparse.csc_matrix."""
        import scipy.sparse as sp
        p, i, x = self.H_csc
        return sp.csc_matrix((x.copy(), i.copy(), p.copy()),
                             shape=(self.n_dofs, 3 * self.n_contacts))

    def with_solution(self, v, r, u) -> "GlobalProblem":
        """A copy holding the solution (v, r, u); None, None, None drops it."""
        return GlobalProblem(self.M_csc, self.H_csc, self.f, self.w, self.mu, v, r, u)

    def __repr__(self):
        return (f"nscd.fclib.GlobalProblem({self.n_dofs} dofs, {self.n_contacts} contacts, "
                f"{'with' if self.has_solution else 'no'} solution)")


def read_global(path) -> GlobalProblem:
    """nscd_fclib_read_global: the global problem of an FCLIB file (and its solution
    v, r, u when present). Raises NscdError (ERR_IO for a missing or malformed
    file, ERR_UNSUPPORTED for 2D problems or equality constraints) or FclibUnavailable."""
    with _GlobalHandle() as h:
        h.call("nscd_fclib_read_global", os.fsencode(path))
        return h.problem()


def write_global(path, problem: GlobalProblem) -> None:
    """nscd_fclib_write_global: writes the problem (and its solution) as an FCLIB
    global problem, replacing the file."""
    if not isinstance(problem, GlobalProblem):
        raise TypeError(f"expected an nscd.fclib.GlobalProblem, got {type(problem).__name__}")
    with _GlobalHandle() as h:
        h.load(problem)
        h.call("nscd_fclib_write_global", os.fsencode(path))
