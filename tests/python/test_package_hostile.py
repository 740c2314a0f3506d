"""Hostile input through the package (docs/hostile_input.md): arrays replaced
behind a Problem's checks, integers that do not fit their C types, floats and
strings where integers are meant, unknown enum names, non-callables, complex
arrays. Every case raises a Python exception naming the argument; none wraps
around, truncates or reads past a buffer (run under ASan by
tests/checks/sanitizers.sh)."""
import os

import pytest

np = pytest.importorskip("numpy")
import nscd  # noqa: E402
import nscd.fclib as fclib  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.normpath(os.path.join(HERE, "..", "data", "fclib_spheres.hdf5"))
needs_fclib = pytest.mark.skipif(not fclib.available(),
                                 reason="libnscd_fclib not built (libfclib-dev missing)")


# ------------------------------------------------------------ fclib.Problem at write()
@needs_fclib
@pytest.mark.parametrize("field, value, error", [
    ("mu", lambda p: p.mu.astype(np.float32)[:-1], ValueError),       # fewer bytes than n doubles
    ("mu", lambda p: p.mu.astype(np.complex128), TypeError),
    ("col_idx", lambda p: p.col_idx[:-1], ValueError),                 # shorter than row_ptr[n]
    ("row_ptr", lambda p: np.append(p.row_ptr, p.row_ptr[-1]), ValueError),  # more contacts
    ("q", lambda p: p.q[:-2], ValueError),
    ("blocks", lambda p: p.blocks[:-1], ValueError),
    ("col_idx", lambda p: p.col_idx.astype(np.float64), TypeError),
    ("row_ptr", lambda p: p.row_ptr.astype(np.uint64) + np.uint64(2**63), OverflowError),
    ("mu", lambda p: np.array(["0.5"] * p.n_contacts), ValueError),
])
def test_problem_replaced_arrays_are_checked_at_write(tmp_path, field, value, error):
    p = fclib.read(SAMPLE)
    setattr(p, field, value(p))
    with pytest.raises(error):
        fclib.write(str(tmp_path / "out.hdf5"), p)
    assert not (tmp_path / "out.hdf5").exists()
    with pytest.raises(error):
        fclib.merit(p, np.zeros(3 * fclib.read(SAMPLE).n_contacts))


@needs_fclib
def test_problem_with_float32_and_strided_arrays_is_written_as_doubles(tmp_path):
    """A replaced array of another real dtype or layout is converted, not
    reinterpreted: the file holds the same values."""
    p = fclib.read(SAMPLE)
    mu = p.mu.copy()
    p.mu = np.repeat(mu, 2)[::2]          # a non-contiguous view with the same values
    p.q = p.q.astype(np.float32)          # rounded to float32, then written as doubles
    fclib.write(str(tmp_path / "out.hdf5"), p)
    back = fclib.read(str(tmp_path / "out.hdf5"))
    assert np.array_equal(back.mu, mu)
    assert np.array_equal(back.q, p.q.astype(np.float64))


def test_complex_arrays_are_refused_by_the_kernels():
    W = np.eye(3, dtype=np.complex128)
    with pytest.raises(TypeError, match="real"):
        nscd.fc3d_solve(W, np.zeros(3), [0.5])
