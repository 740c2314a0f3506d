"""nscd.Beam (python/nscd/beam.py) against closed forms: the cantilever's
static tip deflection P L³/3EI and first frequency 1.875² √(EI/ρAL⁴), the
rigid mass properties, symmetric M, and errors."""
import numpy as np
import pytest

import nscd


def test_cantilever():
    L, E, rho, A, I = 1.2, 2e11, 7800.0, 1e-4, 2e-9
    with nscd.Beam(length=L, youngs_modulus=E, density=rho, area=A, second_moment=I,
                   n_elements=20, rotary_inertia=False) as beam:
        assert (beam.n_coordinates, beam.n_elastic) == (63, 60)
        k = beam.stiffness()[3:, 3:]
        f = np.zeros(60)
        f[-2] = 1.0
        u = np.linalg.solve(k, f)
        assert u[-2] == pytest.approx(L**3 / (3 * E * I), rel=1e-9)
        w = beam.frequencies(2)
        assert w[0] == pytest.approx(1.8751040687119611**2 * np.sqrt(E * I / (rho * A * L**4)),
                                     rel=1e-7)
        p = np.zeros(63)
        p[3:] = u
        r, rows, gamma = beam.point(L, p)
        assert r[1] == pytest.approx(u[-2], rel=1e-12) and gamma is None
        assert beam.nodal_displacements(u)[-1, 1] == u[-2]


def test_rigid_properties_and_errors():
    with nscd.Beam(length=0.5, n_elements=3, density=1000.0, area=1e-3, second_moment=1e-8,
                   reference="pinned", gravity=(0.0, -9.81)) as beam:
        p = np.zeros(beam.n_coordinates)
        m = beam.mass(p)
        assert np.allclose(m, m.T, rtol=0, atol=1e-15)
        assert m[0, 0] == pytest.approx(0.5)
        assert m[2, 2] == pytest.approx(0.5 * 0.25 / 3 + 1000.0 * 1e-8 * 0.5)
        v = np.zeros(beam.n_coordinates)
        v[2] = 3.0
        h = beam.forces(p, v)
        assert h[1] == pytest.approx(-0.5 * 9.81)
        assert beam.quadratic_velocity(p, v)[0] == pytest.approx(9.0 * 0.5 * 0.25)
        kinetic, strain, gravity = beam.energy(p, v)
        assert kinetic == pytest.approx(0.5 * 9.0 * m[2, 2]) and strain == 0.0
        with pytest.raises(nscd.NscdError):
            beam.point(0.6, p)
        with pytest.raises(ValueError):
            beam.mass(np.zeros(2))
    with pytest.raises(nscd.NscdError):
        nscd.Beam(youngs_modulus=-1.0)
    with pytest.raises(nscd.NscdError):
        nscd.Beam(n_modes=3, cutoff_frequency=1e-3)  # no mode below 1 mHz


def test_slider_crank_rod_spectrum():
    """The rod of Sect. 3 with the paper's slender element and 20 elements has 60 elastic
    modes (63 coordinates with the frame's 3), 52 of them below 1e7 Hz: the paper's
    "first 52 modes out of total 63" (Sect. 4.5). With the rotary inertia all 60 are."""
    m2, l2, j2, rho = 0.038, 0.306, 5.9e-4, 7800.0
    d = np.sqrt(12 * j2 / m2 - l2**2)
    h = m2 / (rho * l2 * d)
    counts = []
    for rotary in (False, True):
        with nscd.Beam(length=l2, density=rho, area=h * d, second_moment=h * d**3 / 12,
                       youngs_modulus=2e11, n_elements=20, rotary_inertia=rotary) as beam:
            f = beam.frequencies() / (2 * np.pi)
            counts.append(int(np.sum(f < 1e7)))
            assert beam.n_coordinates == 63
    assert counts == [52, 60]
