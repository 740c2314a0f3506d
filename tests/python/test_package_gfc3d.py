"""nscd.gfc3d_solve (include/nscd/gfc3d.h) and nscd.fclib.read_global /
write_global: global problems M v = H r + f, u = H'v + w, Coulomb's law,
checked with numpy and scipy, independently of the library."""
import os

import pytest

np = pytest.importorskip("numpy")
sp = pytest.importorskip("scipy.sparse")
import nscd  # noqa: E402
import nscd.fclib as fclib  # noqa: E402


def project_cone(mu, x):
    t = np.hypot(x[1], x[2])
    if t <= mu * x[0]:
        return x.copy()
    if mu * t <= -x[0]:
        return np.zeros(3)
    a = (x[0] + mu * t) / (1.0 + mu * mu)
    return np.array([a, mu * a * x[1] / t, mu * a * x[2] / t])


def e1(r, u, w, mu):
    """||r - P_K(r - u~)|| / (1 + ||w||), u~_j = u_j + mu_j ||u_j,t|| e_n."""
    e = []
    for j in range(mu.size):
        rj, uj = r[3 * j:3 * j + 3], u[3 * j:3 * j + 3]
        ut = uj + np.array([mu[j] * np.hypot(uj[1], uj[2]), 0.0, 0.0])
        e.append(rj - project_cone(mu[j], rj - ut))
    return np.linalg.norm(np.concatenate(e)) / (1.0 + np.linalg.norm(w))


def box_on_plane(vx0, mu=0.3, h=0.01, m=2.0, a=1.0, c=0.1, g=9.81):
    I = [m * (a * a + c * c) / 3, m * (a * a + c * c) / 3, m * 2 * a * a / 3]
    M = sp.diags([m, m, m] + I).tocsc()
    f = M @ np.array([vx0, 0, -1.0, 0, 0, 0])
    f[2] -= h * m * g
    H = np.zeros((6, 12))
    for j, (sx, sy) in enumerate([(1, 1), (-1, 1), (-1, -1), (1, -1)]):
        p = np.array([sx * a, sy * a, -c])
        for k, d in enumerate(np.array([[0, 0, 1.0], [1.0, 0, 0], [0, 1.0, 0]])):
            H[:, 3 * j + k] = np.concatenate([d, np.cross(p, d)])
    return M, sp.csc_matrix(H), f, np.zeros(12), np.full(4, mu)


def test_box_slides_on_a_plane():
    mu, h = 0.3, 0.01
    M, H, f, w, mus = box_on_plane(2.0, mu, h)
    v, r, u, info = nscd.gfc3d_solve(M, H, f, w, mus, tolerance=1e-12, max_iterations=10000)
    assert info.converged
    assert np.allclose(M @ v - H @ r - f, 0.0, atol=1e-12)
    assert np.allclose(u, H.T @ v + w, atol=1e-12)
    assert e1(r, u, w, mus) < 1e-9
    # analytic: no rotation, vertical stop, vx = vx0 - mu (1 + h g)
    assert v[0] == pytest.approx(2.0 - mu * (1 + h * 9.81), abs=1e-9)
    assert np.allclose(v[1:], 0.0, atol=1e-9)


def test_coupled_problem_against_the_condensed_one():
    """M with off-diagonal coupling: nscd's r checked against numpy's own
    condensation W = H'M^-1 H, q = H'M^-1 f + w solved by nscd.fc3d_solve."""
    rng = np.random.default_rng(3)
    n, nc = 15, 4
    A = rng.standard_normal((n, n)) * (rng.random((n, n)) < 0.2)
    Md = A @ A.T + n * np.eye(n)
    H = rng.standard_normal((n, 3 * nc))
    f, w = rng.standard_normal(n), rng.standard_normal(3 * nc) * 0.3
    w[0::3] = -1.0
    mu = rng.uniform(0.2, 0.8, nc)
    v, r, u, info = nscd.gfc3d_solve(sp.csc_matrix(Md), H, f, w, mu, tolerance=1e-12,
                                     max_iterations=20000)
    assert info.converged and info.factor_nnz > 0
    Minv_H = np.linalg.solve(Md, H)
    W, q = H.T @ Minv_H, H.T @ np.linalg.solve(Md, f) + w
    assert np.allclose(u, W @ r + q, atol=1e-10 * (1 + np.abs(q).max()))
    assert np.allclose(Md @ v, H @ r + f, atol=1e-11 * (1 + np.abs(f).max()))
    assert e1(r, u, w, mu) < 1e-9
    r_local, _, local = nscd.fc3d_solve(W, q, mu, tolerance=1e-12, max_iterations=20000)
    assert local.converged
    assert e1(r_local, W @ r_local + q, w, mu) < 1e-9


def test_bad_inputs_raise():
    M, H, f, w, mus = box_on_plane(2.0)
    with pytest.raises(ValueError):
        nscd.gfc3d_solve(M, H[:, :11], f, w, mus)
    Mbad = M.tolil()
    Mbad[0, 1] = 0.5  # not symmetric
    with pytest.raises(nscd.NscdError) as exc:
        nscd.gfc3d_solve(Mbad.tocsc(), H, f, w, mus)
    assert exc.value.status == nscd.Status.ERR_NOT_SPD
    with pytest.raises(nscd.NscdError) as exc:
        nscd.gfc3d_solve(M, H, f, w, -mus)
    assert exc.value.status == nscd.Status.ERR_OUT_OF_RANGE


needs_fclib = pytest.mark.skipif(not fclib.available(),
                                 reason="libnscd_fclib not built (libfclib-dev missing)")


@needs_fclib
def test_global_file_round_trip_and_solve(tmp_path):
    M, H, f, w, mus = box_on_plane(2.0)
    g = fclib.GlobalProblem((M.indptr, M.indices, M.data), (H.indptr, H.indices, H.data),
                            f, w, mus)
    v, r, u, _ = nscd.gfc3d_solve(g.M(), g.H(), g.f, g.w, g.mu, tolerance=1e-12)
    path = str(tmp_path / "box.hdf5")
    fclib.write_global(path, g.with_solution(v, r, u))
    back = fclib.read_global(path)
    assert back.n_dofs == 6 and back.n_contacts == 4 and back.has_solution
    assert (back.M() != g.M()).nnz == 0 and (back.H() != g.H()).nnz == 0
    for a, b in ((back.f, f), (back.w, w), (back.mu, mus), (back.v, v), (back.r, r),
                 (back.u, u)):
        assert np.array_equal(a, b)
    # the local reader refuses it as global; garbage is an I/O error
    with pytest.raises(nscd.NscdError) as exc:
        fclib.read(path)
    assert exc.value.status == nscd.Status.ERR_UNSUPPORTED
    junk = tmp_path / "junk.hdf5"
    junk.write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(100))
    with pytest.raises(nscd.NscdError) as exc:
        fclib.read_global(str(junk))
    assert exc.value.status == nscd.Status.ERR_IO


DATA = os.environ.get("NSCD_FCLIB_DATA_DIR", "/work/shared/data/fclib")


@needs_fclib
@pytest.mark.skipif(not os.path.isfile(os.path.join(DATA, "Box_Stacks-i0122-82-5.hdf5")),
                    reason="Box_Stacks-i0122-82-5.hdf5 not available (NSCD_FCLIB_DATA_DIR)")
def test_box_stacks_file():
    g = fclib.read_global(os.path.join(DATA, "Box_Stacks-i0122-82-5.hdf5"))
    assert (g.n_dofs, g.n_contacts) == (450, 82) and g.has_solution
    v, r, u, info = nscd.gfc3d_solve(g.M(), g.H(), g.f, g.w, g.mu, tolerance=1e-12,
                                     max_iterations=100000)
    assert info.converged
    M, H = g.M(), g.H()
    assert np.abs(M @ v - H @ r - g.f).max() <= 1e-12 * (1 + np.abs(g.f).max())
    assert e1(r, u, g.w, g.mu) < 1e-10


@needs_fclib
def test_triplet_and_csr_matrices_with_duplicates(tmp_path):
    """A global file written here with h5py as CSparse stores it: M as
    triplets with a duplicate (summed), H as CSR; nzmax larger than used."""
    h5py = pytest.importorskip("h5py")
    M, H, f, w, mus = box_on_plane(2.0)
    Mc, Hr = M.tocoo(), H.tocsr()
    path = str(tmp_path / "triplets.hdf5")
    with h5py.File(path, "w") as h:
        g = h.create_group("fclib_global")
        g["spacedim"] = np.array([3], np.int32)

        def matrix(name, m, n, nz, p, i, x, nzmax):
            grp = g.create_group(name)
            for key, val in (("m", m), ("n", n), ("nz", nz), ("nzmax", nzmax)):
                grp[key] = np.array([val], np.int32)
            grp["p"], grp["i"] = np.asarray(p, np.int32), np.asarray(i, np.int32)
            grp["x"] = np.asarray(x, np.float64)
        # the first diagonal entry split into two triplets
        rows = np.concatenate([Mc.row, [0]])
        cols = np.concatenate([Mc.col, [0]])
        vals = np.concatenate([Mc.data, [0.0]])
        vals[0] -= 0.5
        vals[-1] = 0.5
        matrix("M", 6, 6, rows.size, cols, rows, vals, rows.size + 4)
        matrix("H", 6, 12, -2, Hr.indptr, np.concatenate([Hr.indices, [0, 0]]),
               np.concatenate([Hr.data, [9.0, 9.0]]), Hr.nnz + 2)
        vec = g.create_group("vectors")
        vec["f"], vec["w"], vec["mu"] = f, w, mus
    back = fclib.read_global(path)
    assert abs(back.M() - M).max() <= 1e-15 * abs(M).max()
    assert (back.H() != H).nnz == 0
    assert not back.has_solution
    # damage: an index out of range is an I/O error, nothing else
    with h5py.File(path, "r+") as h:
        h["fclib_global/H/i"][0] = 99
    with pytest.raises(nscd.NscdError) as exc:
        fclib.read_global(path)
    assert exc.value.status == nscd.Status.ERR_IO
