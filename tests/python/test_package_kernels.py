"""The numerical kernels through the package: fc3d, LCP and single-contact
problems against analytic solutions."""
import math

import numpy as np
import pytest

import nscd
from nscd import NscdError, Status


# ------------------------------------------------------------------ fc3d
def test_fc3d_frictionless_normal_impact():
    # W = I, q = (-1, 0, 0): r = (1, 0, 0), u = 0.
    r, u, info = nscd.fc3d_solve(np.eye(3), [-1.0, 0.0, 0.0], 0.5)
    np.testing.assert_allclose(r, [1.0, 0.0, 0.0], atol=1e-12)
    np.testing.assert_allclose(u, [0.0, 0.0, 0.0], atol=1e-12)
    assert info.converged and info.merit <= 1e-10 and info.iterations >= 1


def test_fc3d_stick_and_slide():
    q = [-1.0, 0.5, 0.0]
    r, u, _ = nscd.fc3d_solve(np.eye(3), q, 1.0)  # |r_t| = 0.5 <= 1: sticking
    np.testing.assert_allclose(r, [1.0, -0.5, 0.0], atol=1e-12)
    np.testing.assert_allclose(u, 0.0, atol=1e-12)
    r, u, _ = nscd.fc3d_solve(np.eye(3), q, 0.2)  # sliding on the cone boundary
    np.testing.assert_allclose(r, [1.0, -0.2, 0.0], atol=1e-10)
    np.testing.assert_allclose(u, [0.0, 0.3, 0.0], atol=1e-10)


def test_fc3d_two_contacts_dense_equals_bsr_and_max_dissipation():
    W = np.array([[2.0, 0.1, 0.0, 0.5, 0.0, 0.0],
                  [0.1, 1.5, 0.0, 0.0, 0.2, 0.0],
                  [0.0, 0.0, 1.0, 0.0, 0.0, 0.1],
                  [0.5, 0.0, 0.0, 2.0, 0.0, 0.0],
                  [0.0, 0.2, 0.0, 0.0, 1.2, 0.0],
                  [0.0, 0.0, 0.1, 0.0, 0.0, 1.1]])
    q = np.array([-1.0, 0.3, -0.2, -0.5, 0.1, 0.4])
    mu = [0.3, 0.6]
    r, u, info = nscd.fc3d_solve(W, q, mu)
    np.testing.assert_allclose(u, W @ r + q, atol=1e-12)
    for j in range(2):  # in the cone, Signorini
        rn, rt = r[3 * j], np.hypot(r[3 * j + 1], r[3 * j + 2])
        assert rn >= 0 and rt <= mu[j] * rn * (1 + 1e-9) + 1e-12
        assert u[3 * j] >= -1e-9 and abs(rn * u[3 * j]) < 1e-9
    blocks = np.array([W[3 * i:3 * i + 3, 3 * k:3 * k + 3] for i in range(2) for k in range(2)])
    r2, u2, info2 = nscd.fc3d_solve_bsr([0, 2, 4], [0, 1, 0, 1], blocks, q, mu)
    assert np.array_equal(r, r2) and np.array_equal(u, u2)  # bitwise, fc3d.h
    assert info2.iterations == info.iterations
    r3, _, info3 = nscd.fc3d_solve(W, q, mu, friction_law=nscd.Fc3dFrictionLaw.MAX_DISSIPATION,
                                   method=nscd.Fc3dMethod.JACOBI_BLEND, jacobi_groups=2)
    assert info3.converged and r3[0] > 0


def test_fc3d_errors():
    with pytest.raises(NscdError) as info:
        nscd.fc3d_solve(np.eye(3), [-1.0, 0.0, 0.0], -0.1)
    assert info.value.status == Status.ERR_OUT_OF_RANGE
    with pytest.raises(NscdError) as info:
        nscd.fc3d_solve(-np.eye(3), [-1.0, 0.0, 0.0], 0.1)
    assert info.value.status == Status.ERR_NOT_SPD
    with pytest.raises(NscdError) as info:
        nscd.fc3d_solve(np.eye(3), [math.nan, 0.0, 0.0], 0.1)
    assert info.value.status == Status.ERR_NOT_FINITE
    with pytest.raises(NscdError) as info:
        nscd.fc3d_solve(np.eye(3), [-1.0, 0.0, 0.0], 0.1, tolerance=-1.0)
    assert info.value.status == Status.ERR_OUT_OF_RANGE
    with pytest.raises(ValueError):
        nscd.fc3d_solve(np.eye(4), np.zeros(4), 0.1)
    with pytest.raises(ValueError):
        nscd.fc3d_solve(np.eye(3), np.zeros(2), 0.1)
    with pytest.raises(TypeError):
        nscd.fc3d_solve(np.eye(3), np.zeros(3), 0.1, tolerence=1e-8)
    with pytest.raises(NscdError) as info:  # column index out of range
        nscd.fc3d_solve_bsr([0, 1], [3], np.eye(3), [-1.0, 0, 0], 0.1)
    assert info.value.status == Status.ERR_INDEX


def test_fc3d_nonsymmetric_and_semidefinite_blocks():
    # A non-symmetric diagonal block (positive definite symmetric part) is solved as given:
    # sticking gives u = 0 exactly with W itself, not its symmetric part.
    W = np.array([[2.0, 0.1, 0.0], [0.13, 1.0, 0.0], [0.0, 0.0, 1.0]])
    rep = nscd.fc3d_check(W)
    assert rep.status == Status.OK and rep.n_regular == 1 and rep.refused_block == -1
    assert abs(rep.max_asymmetry - 0.03 / (4.0 / 3.0)) < 1e-12
    r, u, info = nscd.fc3d_solve(W, [-1.0, 0.05, 0.0], 0.5)
    np.testing.assert_allclose(u, 0.0, atol=1e-12)
    np.testing.assert_allclose(W @ r, [1.0, -0.05, 0.0], atol=1e-12)
    # a semi-definite block: accepted and solved (proximal steps)
    S = np.diag([1.0, 1.0, 0.0])
    rep = nscd.fc3d_check_bsr([0, 1], [0], S)
    assert rep.status == Status.OK and rep.n_semidefinite == 1
    r, u, info = nscd.fc3d_solve(S, [-1.0, 0.0, 0.5], 0.3)  # slides along the immobile tangent
    np.testing.assert_allclose(r, [1.0, 0.0, -0.3], atol=1e-9)
    # an indefinite symmetric part: refused, the report names the block
    bad = np.eye(6)
    bad[3, 4] = 3.0
    rep = nscd.fc3d_check(bad)
    assert rep.status == Status.ERR_NOT_SPD and rep.refused_block == 1
    assert rep.refused_kind == nscd.Fc3dBlockKind.INDEFINITE
    assert "diagonal block 1" in rep.message
    with pytest.raises(NscdError) as info:
        nscd.fc3d_solve(bad, np.full(6, -1.0), 0.1)
    assert info.value.status == Status.ERR_NOT_SPD


def test_fc3d_not_converged_carries_last_iterate():
    W = np.array([[2.0, 0.0, 0.0, 1.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0, 0.0, 0.0],
                  [0.0, 0.0, 2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 2.0, 0.0, 0.0],
                  [0.0, 0.0, 0.0, 0.0, 2.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0, 2.0]])
    with pytest.raises(NscdError) as info:
        nscd.fc3d_solve(W, [-1.0, 0.2, 0.0, -1.0, 0.0, 0.1], 0.3, max_iterations=1,
                        tolerance=1e-15)
    assert info.value.status == Status.ERR_NOT_CONVERGED
    r, u, result = info.value.result
    assert result.iterations == 1 and not result.converged and r.shape == (6,)


# ------------------------------------------------------------------ LCP
def test_lcp_interior_and_boundary():
    M = [[2.0, 1.0], [1.0, 2.0]]
    z, w = nscd.lcp_solve(M, [-5.0, -6.0])  # both active: z = M^-1 (5, 6) = (4/3, 7/3)
    np.testing.assert_allclose(z, [4 / 3, 7 / 3], rtol=1e-14)
    np.testing.assert_allclose(w, 0.0, atol=1e-14)
    z, w = nscd.lcp_solve(M, [-1.0, 3.0])  # z = (1/2, 0), w = (0, 7/2)
    np.testing.assert_allclose(z, [0.5, 0.0], atol=1e-15)
    np.testing.assert_allclose(w, [0.0, 3.5], atol=1e-15)
    z, w = nscd.lcp_solve(np.zeros((0, 0)), [])
    assert z.shape == (0,)


def test_lcp_errors():
    with pytest.raises(NscdError) as info:
        nscd.lcp_solve([[0.0]], [-1.0])
    assert info.value.status == Status.ERR_SINGULAR
    with pytest.raises(NscdError) as info:
        nscd.lcp_solve([[1.0]], [math.inf])
    assert info.value.status == Status.ERR_NOT_FINITE
    with pytest.raises(ValueError):
        nscd.lcp_solve(np.eye(65), np.zeros(65))
    with pytest.raises(ValueError):
        nscd.lcp_solve(np.eye(2), np.zeros(3))


# ------------------------------------------------------------------ single contact
def test_mdp_single_contact_cases():
    A, b = np.eye(3), [1.0, 0.5, 0.0]
    np.testing.assert_allclose(nscd.mdp_single_contact(A, b, 1.0), [1.0, 0.5, 0.0], atol=1e-14)
    np.testing.assert_allclose(nscd.mdp_single_contact(A, b, 0.2), [1.0, 0.2, 0.0], atol=1e-12)
    np.testing.assert_allclose(nscd.mdp_single_contact(A, b, 0.0), [1.0, 0.0, 0.0], atol=0)
    np.testing.assert_array_equal(nscd.mdp_single_contact(A, [-1.0, 0.5, 0.0], 0.3), 0.0)
    with pytest.raises(NscdError) as info:
        nscd.mdp_single_contact(np.diag([1.0, -1.0, 1.0]), b, 0.2)
    assert info.value.status == Status.ERR_NOT_SPD
    with pytest.raises(ValueError):
        nscd.mdp_single_contact(np.eye(2), b, 0.2)


def test_coulomb_single_contact():
    A, b = np.eye(3), [1.0, 0.5, 0.0]
    x, info = nscd.coulomb_single_contact(A, b, 0.2)
    np.testing.assert_allclose(x, [1.0, 0.2, 0.0], atol=1e-12)
    assert info.converged and info.residual <= 1e-12
    x, info = nscd.coulomb_single_contact(A, b, 1.0)  # sticking: x = A^-1 b
    np.testing.assert_allclose(x, [1.0, 0.5, 0.0], atol=1e-14)
    with pytest.raises(NscdError) as err:
        nscd.coulomb_single_contact(A, b, 0.2, max_iterations=-1)
    assert err.value.status == Status.ERR_OUT_OF_RANGE


def test_coulomb_single_contact_all():
    A = np.eye(3)
    sols = nscd.coulomb_single_contact_all(A, [1.0, 0.5, 0.0], 0.2)
    assert sols.shape == (1, 3)  # A = I: the sliding solution only
    np.testing.assert_allclose(sols[0], [1.0, 0.2, 0.0], atol=1e-12)
    sols = nscd.coulomb_single_contact_all(A, [-1.0, 0.3, 0.0], 0.2)
    np.testing.assert_array_equal(sols, [[0.0, 0.0, 0.0]])  # separating: no contact only
    with pytest.raises(NscdError) as err:
        nscd.coulomb_single_contact_all(A, [1.0, 0.5, 0.0], -1.0)
    assert err.value.status == Status.ERR_OUT_OF_RANGE


def test_bad_python_inputs_raise_before_c():
    with pytest.raises(OverflowError):
        nscd.fc3d_solve(np.eye(3), [-1.0, 0, 0], 0.1, max_iterations=2**40)
    with pytest.raises(OverflowError):
        nscd.fc3d_solve_bsr([0, 2**40], [0], np.eye(3), [-1.0, 0, 0], 0.1)
    with pytest.raises(TypeError):
        nscd.fc3d_solve_bsr([0.0, 1.0], [0], np.eye(3), [-1.0, 0, 0], 0.1)
    with pytest.raises(ValueError):
        nscd.fc3d_solve_bsr([0, 2], [0], np.eye(3), [-1.0, 0, 0], 0.1)  # 1 index, 2 blocks
    with pytest.raises(NscdError) as info:  # row without its diagonal block
        nscd.fc3d_solve_bsr([0, 1, 2], [1, 0], np.stack([np.eye(3)] * 2), np.zeros(6), 0.1)
    assert info.value.status == Status.ERR_INVALID_ARGUMENT
    with pytest.raises(TypeError):
        nscd.central_impact(None, 1.0, 1.0)
    law = nscd.ContactLaw.kelvin_voigt(1e6, 10.0)
    law.close()
    with pytest.raises(TypeError):
        nscd.central_impact(law, 1.0, 1.0)
    with pytest.raises(OverflowError):
        nscd.hunt_crossley_factor(2**32 + 1, 1e7, 0.5, 1.0)  # would wrap to model 1
    with pytest.raises(ValueError):
        nscd.lcp_solve([[1.0, "x"], [0.0, 1.0]], [0.0, 0.0])


def test_coulomb_not_converged_carries_info():
    with pytest.raises(NscdError) as info:
        # a block whose maximum-dissipation start is not a Coulomb solution
        A = [[1.0, 0.44, 0.41], [0.44, 2.82, 1.39], [0.41, 1.39, 0.86]]
        nscd.coulomb_single_contact(A, [0.29, 0.03, 0.55], 0.5, max_iterations=0,
                                    enumeration_safeguard=False)
    assert info.value.status == Status.ERR_NOT_CONVERGED
    assert info.value.result.iterations == 0 and not info.value.result.converged
    assert info.value.result.residual > 1e-3
    x, result = nscd.coulomb_single_contact(A, [0.29, 0.03, 0.55], 0.5)  # the defaults converge
    assert result.converged and result.residual <= 1e-12
    u = np.asarray(A) @ x - [0.29, 0.03, 0.55]
    assert x[0] > 0 and abs(u[0]) < 1e-12  # Signorini, in contact
    assert np.hypot(x[1], x[2]) <= 0.5 * x[0] * (1 + 1e-12)


# ------------------------------------------------------------------ fc3d Newton
def _e1(W, q, mu, r):
    """E1 = ||r - P_K(r - u~)|| / (1 + ||q||), computed here in numpy."""
    u = W @ r + q
    e = 0.0
    for j, m in enumerate(mu):
        rj, uj = r[3 * j:3 * j + 3], u[3 * j:3 * j + 3]
        x = rj - np.r_[uj[0] + m * np.hypot(uj[1], uj[2]), uj[1:]]
        t = np.hypot(x[1], x[2])
        if t <= m * x[0]:
            p = x
        elif m * t <= -x[0]:
            p = np.zeros(3)
        else:
            pn = (x[0] + m * t) / (1 + m * m)
            p = np.r_[pn, m * pn * x[1:] / t]
        e += np.sum((rj - p) ** 2)
    return math.sqrt(e) / (1 + np.linalg.norm(q))


def _box_on_plane(mu):
    """A box on 4 corners (W of rank 6 of 12) falling and sliding slowly."""
    a, b, c = 1.0, 0.5, 0.25
    inertia = np.array([b * b + c * c, a * a + c * c, a * a + b * b]) / 3
    rows = []
    for p in [(a, b, -c), (-a, b, -c), (-a, -b, -c), (a, -b, -c)]:
        for d in np.eye(3)[[2, 0, 1]]:
            rows.append(np.r_[d, np.cross(p, d)])
    H = np.array(rows)
    W = H @ np.diag(np.r_[np.ones(3), 1 / inertia]) @ H.T
    return W, H @ np.array([0.1, 0, -1, 0, 0, 0]), np.full(4, mu)


def test_fc3d_newton_and_auto():
    W, q, mu = _box_on_plane(0.1)
    with pytest.raises(nscd.NscdError) as e:
        nscd.fc3d_solve(W, q, mu, tolerance=1e-12, max_iterations=2000)
    assert _e1(W, q, mu, e.value.result[0]) > 1e-9  # Gauss–Seidel stalls
    for method in (nscd.Fc3dMethod.NEWTON, nscd.Fc3dMethod.AUTO):
        r, u, info = nscd.fc3d_solve(W, q, mu, method=method, tolerance=1e-12,
                                     max_iterations=2000)
        assert info.converged and info.newton_iterations >= 1
        assert info.newton_failure == nscd.Fc3dNewtonFailure.NO_FAILURE
        assert _e1(W, q, mu, r) <= 1e-10
        assert np.allclose(u, W @ r + q, rtol=0, atol=1e-12)
    with pytest.raises(nscd.NscdError) as e:  # Newton is Coulomb only
        nscd.fc3d_solve(W, q, mu, method=nscd.Fc3dMethod.NEWTON,
                        friction_law=nscd.Fc3dFrictionLaw.MAX_DISSIPATION)
    assert e.value.status == nscd.Status.ERR_UNSUPPORTED
