"""nscd.fclib: FCLIB files from Python through libnscd_fclib (skipped when nscd was
built without it), and the binding coverage of libnscd_fclib's exports.

Coverage of the companion library: tests/python/test_package_coverage.py checks
libnscd's exports against nscd._library.prototypes(); libnscd_fclib's exports
are checked here against nscd.fclib.prototypes(), with the same rules (every
exported nscd_* function bound, every prototype exported; no exclusions)."""
import json
import os
import shutil
import subprocess
import sys

import pytest

np = pytest.importorskip("numpy")
import nscd  # noqa: E402
import nscd.fclib as fclib  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "data", "fclib_spheres.hdf5"))

needs_fclib = pytest.mark.skipif(not fclib.available(),
                                 reason="libnscd_fclib not built (libfclib-dev missing)")


def exported(path):
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("nm (binutils) is not installed")
    out = subprocess.run([nm, "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return {f[2].split("@")[0] for f in (line.split() for line in out.splitlines())
            if len(f) >= 3 and f[1] in ("T", "t", "W") and f[2].startswith("nscd_")}


@needs_fclib
def test_every_fclib_export_is_bound():
    names = exported(fclib.library_path())
    bound = set(fclib.prototypes())
    assert names, "no nscd_* function exported by libnscd_fclib"
    assert sorted(names - bound) == [], "exported by libnscd_fclib but not bound"
    assert sorted(bound - names) == [], "bound but not exported by libnscd_fclib"


def bitwise_equal(a, b):
    a, b = np.ascontiguousarray(a, np.float64), np.ascontiguousarray(b, np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def random_problem(n, seed):
    rng = np.random.default_rng(seed)
    W = rng.uniform(-1, 1, (3 * n, 3 * n))
    for j in range(n):
        for k in range(n):
            if j != k and (j + k) % 3 == 0:
                W[3 * j:3 * j + 3, 3 * k:3 * k + 3] = 0.0
    W[0, 10] = -0.0  # in the zero block (0, 3): the block is kept for it
    return W, rng.uniform(-1, 1, 3 * n), rng.uniform(0, 1, n)


@needs_fclib
@pytest.mark.parametrize("with_solution", [False, True])
def test_round_trip_dense(tmp_path, with_solution):
    W, q, mu = random_problem(6, 3)
    r = u = None
    if with_solution:
        r, u = np.linspace(-1, 1, 18), np.linspace(2, 3, 18)
    p = fclib.Problem.from_dense(W, q, mu, r, u)
    path = tmp_path / "dense.hdf5"
    fclib.write(path, p)
    back = fclib.read(path)
    assert back.n_contacts == 6 and back.has_solution == with_solution
    assert bitwise_equal(back.dense_W(), W)
    assert np.signbit(back.dense_W()[0, 10])
    assert bitwise_equal(back.q, q) and bitwise_equal(back.mu, mu)
    for name in ("row_ptr", "col_idx"):
        assert np.array_equal(getattr(back, name), getattr(p, name))
    assert bitwise_equal(back.blocks, p.blocks)
    if with_solution:
        assert bitwise_equal(back.r, r) and bitwise_equal(back.u, u)
    else:
        assert back.r is None and back.u is None


@needs_fclib
def test_round_trip_bsr_sorts_rows(tmp_path):
    rng = np.random.default_rng(7)
    blocks = rng.uniform(-1, 1, (4, 3, 3))
    p = fclib.Problem([0, 2, 4], [1, 0, 0, 1], blocks, rng.uniform(-1, 1, 6), [0.3, 0.4])
    fclib.write(tmp_path / "bsr.hdf5", p)
    back = fclib.read(tmp_path / "bsr.hdf5")
    assert back.col_idx.tolist() == [0, 1, 0, 1]
    assert bitwise_equal(back.blocks, blocks[[1, 0, 2, 3]])


@needs_fclib
def test_sample_solved_as_by_the_tool():
    """The committed file (written by libfclib from tests/fclib/make_fclib_spheres.c),
    solved from Python, gives bitwise the merit nscd-fclib-solve prints."""
    p = fclib.read(SAMPLE)
    assert p.n_contacts == 5 and p.has_solution
    assert fclib.merit(p, p.r) < 1e-14
    r, u, info = nscd.fc3d_solve_bsr(p.row_ptr, p.col_idx, p.blocks, p.q, p.mu)
    assert info.converged and np.max(np.abs(r - p.r)) < 1e-8
    assert fclib.merit(p, r) < 1e-9
    tool = os.path.join(os.path.dirname(fclib.library_path()), "fclib", "nscd-fclib-solve")
    if not os.path.exists(tool):
        pytest.skip(f"{tool} not found")
    out = json.loads(subprocess.run([tool, SAMPLE, "--json"], capture_output=True, text=True,
                                    check=True).stdout)
    assert out["iterations"] == info.iterations
    assert out["merit"] == info.merit  # %.17g: the same double
    assert out["fclib_merit"] == fclib.merit(p, r)


@needs_fclib
def test_bad_files_raise(tmp_path):
    with pytest.raises(nscd.NscdError) as err:
        fclib.read(tmp_path / "missing.hdf5")
    assert err.value.status == nscd.Status.ERR_IO and "cannot be opened" in err.value.last_error
    bad = tmp_path / "bad.hdf5"
    bad.write_text("not HDF5")
    with pytest.raises(nscd.NscdError) as err:
        fclib.read(bad)
    assert err.value.status == nscd.Status.ERR_IO
    with pytest.raises(nscd.NscdError) as err:
        fclib.Problem.from_dense(np.eye(3), [0, 0, -1], [-0.5])
    assert err.value.status == nscd.Status.ERR_OUT_OF_RANGE
    with pytest.raises(ValueError):
        fclib.Problem([0, 1], [0], np.eye(3), [0, 0, 0], [0.1], r=[0, 0, 0])


def test_absent_library_is_a_clear_error():
    """Without libnscd_fclib the module imports and says what is missing."""
    code = ("import nscd.fclib as f\n"
            "assert not f.available()\n"
            "try:\n    f.read('x.hdf5')\nexcept f.FclibUnavailable as e:\n"
            "    assert 'libfclib-dev' in str(e), e\nelse:\n    raise SystemExit('no error')\n")
    env = dict(os.environ, NSCD_FCLIB_LIBRARY=os.path.join(HERE, "no-such-libnscd_fclib.so"))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
